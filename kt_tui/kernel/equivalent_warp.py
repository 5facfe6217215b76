"""A mutant equivalent by construction (issue 35), beside kernel/equivalent.py: the warp that does a
block's last step picked by another number (`if (wid == 0)` -> `if (wid == 1)`, wid = threadIdx.x
>> 5), where that warp exists at every block size the spec allows and does exactly what warp 0 did."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .equivalent import _close, _definitions, _else_after, _if_around, _is_lane, _strip
from .equivalent_launch import _ever_assigned
from .syntax import Token

if TYPE_CHECKING:
    from .spec_model import Spec

_WARP = re.compile(r"threadIdx\.x(?:>>5|/32|/warpSize)")
_SETS = {"=", "+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "<<=", ">>=", "++", "--"}


def warp_choice(toks: list[Token], i: int, new: str, spec: Spec | None) -> str:
    """Why `w == 0` -> `w == c` at token i (w set once to threadIdx.x >> 5, / 32 or / warpSize) changes
    nothing, or "". Every x block size the spec allows is a multiple of 32 with more than c warps
    (y and z block sizes 1), so warp c exists and is whole; the `if` comes right after a
    __syncthreads and its block right before one, reads no thread index but the lane (threadIdx.x & 31 or % 32: the same in warp c
    as in warp 0) and no local of the threads before it unless it sets it first, calls no helper of
    the source and no atomic, and what it sets in its threads' locals is not read after it: warp c
    computes and stores what warp 0 did."""
    if toks[i].text != "0" or not re.fullmatch(r"[1-9]\d?", new) or i < 2 or toks[i - 1].text != "==":
        return ""
    open_, close = _if_around(toks, i)
    if open_ < 0 or close != i + 1 or open_ != i - 3 or close + 1 >= len(toks) or toks[close + 1].text != "{":
        return ""
    warp = toks[i - 2].text
    texts = _definitions(toks, warp, len(toks))
    if len(texts) != 1 or not _WARP.fullmatch(_strip(texts[0])) or _ever_assigned(toks, warp, allowed=1):
        return ""
    if not _every_block_has(spec, int(new) + 1):
        return ""
    end = _close(toks, close + 1)
    if end < 0 or _else_after(toks, end):
        return ""
    body = toks[close + 2 : end]
    words = {t.text for t in body}
    helpers = _helpers(toks)
    if words & ({"threadIdx", warp, "__syncthreads", "asm", "return", "goto"} | helpers) or any(
        w.startswith("atomic") for w in words
    ):
        return ""
    before = [t.text for t in toks[max(0, open_ - 5) : open_ - 1]]
    if before != ["__syncthreads", "(", ")", ";"] or end + 1 >= len(toks) or toks[end + 1].text != "__syncthreads":
        return ""  # else a thread's write just before, or a read just after, could race with warp c
    declared = _declared_in(body)
    outside = {t.text for t in body if t.kind == "ident" and t.text not in declared and _is_local(toks, t.text, open_)}
    for name in outside:
        if _is_lane(toks, name, open_) or _uniform(toks, name, open_):
            continue
        if _set_first(body, name):
            if any(t.text == name for t in toks[end + 1 :]):
                return ""  # warp 0's threads hold it after the `if` in the original, warp c's in the mutant
            continue
        return ""
    return (
        f"`{warp} == {new}` for `{warp} == 0`: every block size the spec allows has a whole warp {new}, and the "
        "block between the __syncthreads reads no thread index but the lane, no value that differs between "
        "warps, and leaves nothing read after it in its threads: warp "
        f"{new} computes and stores what warp 0 did"
    )


def _every_block_has(spec: Spec | None, warps: int) -> bool:
    if spec is None:
        return False
    names = list(spec.block_size_names or ["block_size_x", "block_size_y", "block_size_z"])
    xs = spec.tune_params.get(names[0], [])
    if not xs or any(not isinstance(v, int) or v % 32 or v < 32 * warps for v in xs):
        return False
    return all(all(v == 1 for v in spec.tune_params.get(n, [1])) for n in names[1:])


def _helpers(toks: list[Token]) -> set[str]:
    """The names of the functions the source defines as __device__ (they may read threadIdx)."""
    out = set()
    for k, t in enumerate(toks):
        if t.text == "__device__":
            j = next((j for j in range(k, min(k + 20, len(toks))) if toks[j].text in ("(", ";", "{", "=")), -1)
            if j > 0 and toks[j].text == "(" and toks[j - 1].kind == "ident":
                out.add(toks[j - 1].text)
    return out


def _declared_in(body: list[Token]) -> set[str]:
    """Names declared in the block (a type or `const` before them: `const int n = ...`, `for (int k ...`)."""
    out = set()
    for a, b, c in zip(body, body[1:], body[2:], strict=False):
        if a.kind == "ident" and b.kind == "ident" and c.text in ("=", ";", "[", ","):
            out.add(b.text)
    return out


def _is_local(toks: list[Token], name: str, before: int) -> bool:
    """Whether `name` is set before token `before` (a local or parameter the threads hold)."""
    return any(
        t.text == name and k + 1 < before and toks[k + 1].text in _SETS for k, t in enumerate(toks[:before])
    ) or bool(_definitions(toks, name, before))


def _uniform(toks: list[Token], name: str, before: int, depth: int = 0) -> bool:
    """Whether a local is the same in every thread of a block: set once, from no thread index and
    from names that are the same in every thread (parameters, blockIdx, blockDim, such locals)."""
    texts = _definitions(toks, name, before)
    if len(texts) != 1 or _ever_assigned(toks, name, allowed=1) or "threadIdx" in texts[0] or depth > 4:
        return False
    names = set(re.findall(r"[A-Za-z_]\w*", re.sub(r"\.\w+", "", texts[0]))) - {name}
    return all(not _is_local(toks, n, before) or _uniform(toks, n, before, depth + 1) for n in names)


def _set_first(body: list[Token], name: str) -> bool:
    """Whether the block's first mention of `name` is a plain `name = ...;` at its top level that does
    not read it."""
    depth = 0
    for k, t in enumerate(body):
        if t.text in ("{", "(", "["):
            depth += 1
        elif t.text in ("}", ")", "]"):
            depth -= 1
        elif t.text == name:
            if depth or k + 1 >= len(body) or body[k + 1].text != "=" or (k and body[k - 1].text not in (";", "}")):
                return False
            semi = next((j for j in range(k, len(body)) if body[j].text == ";"), len(body))
            return all(u.text != name for u in body[k + 2 : semi])
    return False
