"""Mutants equivalent by construction (issue 35), beside kernel/equivalent.py: a `__shared__` array
declared larger, a guard of blockIdx against the count a launch of one block per item makes exactly
that many blocks of (which needs the spec's launch: block_counts), and a partner `i ^ p` compared
with i, whose tie (p == 0) holds in every thread at once."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .equivalent import (
    _STOP,
    _close,
    _definitions,
    _else_after,
    _enclosing_if,
    _if_around,
    _left,
    _right,
    _strip,
    _term,
    _text,
)
from .syntax import Token

if TYPE_CHECKING:
    from .spec_model import Spec


def block_counts(spec: Spec | None, params: list[str]) -> dict[str, set[str]]:
    """axis -> the scalar parameters (`params`: the kernel's, in order) passed the size the spec
    launches exactly that many blocks of on that axis (one block per item: an empty grid divisor),
    and a product of sizes (`N * group`) written with the parameters passed each; {} without a spec."""
    if spec is None:
        return {}
    out: dict[str, set[str]] = {}
    passed: dict[str, list[str]] = {}  # a size -> the parameters passed exactly it
    for k, a in enumerate(spec.args):
        if k < len(params) and not a.is_array and isinstance(a.value, str):
            passed.setdefault(a.value.strip(), []).append(params[k])
    for axis, size in zip("xyz", spec.problem_size, strict=False):
        if getattr(spec, f"grid_div_{axis}") != [] or not isinstance(size, str):
            continue
        out.setdefault(axis, set()).update(passed.get(size.strip(), []))
        names = set(re.findall(r"[A-Za-z_]\w*", size))
        product = re.fullmatch(r"\s*[A-Za-z_]\w*(\s*\*\s*[A-Za-z_]\w*)+\s*", size)  # no `/`: C truncates each
        if product and len(names) > 1 and all(len(passed.get(n, [])) == 1 for n in names):
            # a product of sizes (`N * group`), as the kernel writes it with the parameters passed them
            said = re.sub(r"[A-Za-z_]\w*", lambda m: passed[m.group(0)][0], re.sub(r"\s+", "", size))
            out[axis].add(said)
    return {axis: counts for axis, counts in out.items() if counts}


def shared_extent(toks: list[Token], i: int, macros: set[str]) -> str:
    """Why an edit of the `-` at token i that makes a one-dimensional `__shared__` array larger
    (`buf[TILE + TAPS - 1]` with `- 1` dropped, or made `+ 1`) changes nothing, or "": the kernel
    indexes the array as before, and the check runs only inputs on which the original stays within
    it (memcheck at every size and case), so the elements added are never touched. Not where the
    kernel also takes dynamic shared memory (a launch could then run out of it), nor with `sizeof`,
    nor with a macro in the extent (its text could put the `-` below another operator)."""
    if toks[i].text != "-" or i + 2 >= len(toks) or toks[i + 1].kind != "number" or i < 1:
        return ""
    if toks[i - 1].kind not in ("ident", "number") and toks[i - 1].text != ")":  # a unary minus
        return ""
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|[1-9]\d*)[uUlL]*", toks[i + 1].text)
    if not m or toks[i + 2].text not in ("]", "+", "-"):
        return ""
    depth = 0
    j = i - 1
    while j >= 0:
        t = toks[j].text
        if t in (")", "]"):
            depth += 1
        elif t in ("(", "[") and depth:
            depth -= 1
        elif t == "[":
            break
        elif t in ("(", ";", "{", "}"):
            return ""
        j -= 1
    close = _close(toks, j) if j > 0 else -1
    if close < 0 or close + 1 >= len(toks) or toks[close + 1].text != ";" or toks[j - 1].kind != "ident":
        return ""
    start = next((k for k in range(j - 2, -1, -1) if toks[k].text in (";", "{", "}")), -1)
    words = [t.text for t in toks[start + 1 : j - 1]]
    if "__shared__" not in words or not all(t.kind == "ident" for t in toks[start + 1 : j]):
        return ""
    if any(t.text in macros for t in toks[j + 1 : close]) or any(
        t.text not in _ARITHMETIC and t.kind not in ("ident", "number") for t in _top_level(toks, j + 1, close)
    ):  # `N >> 2 - 1`: a `-` below another operator; only + - * / % keep it the last one applied
        return ""
    texts = [t.text for t in toks]
    name = toks[j - 1].text
    uses = [k for k, t in enumerate(toks) if t.text == name and k != j - 1]
    if "extern" in texts or "sizeof" in texts or any(k + 1 >= len(toks) or toks[k + 1].text != "[" for k in uses):
        return ""
    extent = _text(toks, j + 1, close)
    return (
        f"`{toks[j - 1].text}[{extent}]` declared with more elements: the kernel indexes it as before, and the "
        "check runs only inputs on which the original stays within it (memcheck): the elements added are never used"
    )


_ARITHMETIC = {"+", "-", "*", "/", "%"}


def _top_level(toks: list[Token], first: int, end: int) -> list[Token]:
    """The tokens first .. end-1 outside any parentheses or brackets within them."""
    out, depth = [], 0
    for t in toks[first:end]:
        if t.text in ("(", "["):
            depth += 1
        elif t.text in (")", "]"):
            depth -= 1
        elif depth == 0:
            out.append(t)
    return out


def launch_bound(toks: list[Token], i: int, counts: dict[str, set[str]], body: int) -> str:
    """Why flipping `blockIdx.x < n` (or `>=`; blockIdx.x directly or through a local set once to it)
    changes nothing where the spec launches exactly n blocks on that axis (one block per item: its
    grid divisor is empty and its problem size the size n is passed): blockIdx.x never reaches n, so
    the tie never holds. `counts`: axis -> the scalar parameters such a launch makes that many blocks
    of; `body`: where the kernel's body starts (a comparison in a helper is of the helper's names);
    "" otherwise, or where the kernel assigns either side."""
    if toks[i].text not in ("<", "<=", ">", ">=") or toks[i].pos < body:  # a helper's names are not the kernel's
        return ""
    a = _strip(_text(toks, _left(toks, i), i))
    b = _strip(_text(toks, i + 1, _right(toks, i, _STOP)))
    for block, count in ((a, b), (b, a)):
        axis = _block_axis(toks, block)
        if (
            axis
            and count in counts.get(axis, set())
            and not any(_ever_assigned(toks, n) for n in re.findall(r"[A-Za-z_]\w*", count))
        ):
            return (
                f"the launch makes exactly `{count}` blocks on {axis} (one block per item): `{block}` never "
                f"reaches `{count}`, so the tie never holds"
            )
    return ""


def _block_axis(toks: list[Token], text: str) -> str:
    """The axis of `blockIdx.x` (or a cast of it, or a local set once to one and never again), or ""."""
    m = re.fullmatch(r"(?:\((?:int|unsigned|unsignedint|size_t|longlong|int64_t)\))?blockIdx\.([xyz])", text)
    if m:
        return m.group(1)
    if not re.fullmatch(r"[A-Za-z_]\w*", text) or _ever_assigned(toks, text, allowed=1):
        return ""
    texts = _definitions(toks, text, len(toks))
    return _block_axis(toks, _strip(texts[0])) if len(texts) == 1 else ""


_NOT_TYPES = {"return", "else", "case", "sizeof", "throw", "co_return", "do", "goto", "new", "delete", "typeid"}


def _ever_assigned(toks: list[Token], name: str, allowed: int = 0) -> bool:
    """Whether `name` is assigned (=, op=, ++, --, a declaration `int f{x}` or `int f(x)`) more than
    `allowed` times in the tokens."""
    ops = {"=", "+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "<<=", ">>="}
    seen = 0
    for k, t in enumerate(toks):
        if t.text != name:
            continue
        after = toks[k + 1].text if k + 1 < len(toks) else ""
        before = toks[k - 1].text if k else ""
        declared = after in ("{", "(") and k and toks[k - 1].kind == "ident" and before not in _NOT_TYPES
        if after in ops or after in ("++", "--") or before in ("++", "--", "&") or declared:  # int f{...}
            seen += 1
    return seen > allowed


def partner_tie(toks: list[Token], i: int, scalars: set[str]) -> str:
    """Why flipping `x > y` (or `<`, either way round) in an `if` changes nothing where x is set once
    to `y ^ p`, p a scalar parameter the kernel never assigns, or "". The tie x == y means p == 0, in
    every thread at once: each thread's partner is itself. The `if`'s body must then be declarations
    (no calls) and one `if (C)` whose every `||` branch holds a strict `a > b` or `a < b` of two of
    them loaded from `arr[y]` and `arr[x]`: both loads are of one element, no thread's C holds, and
    nothing is written (a bitonic step's `ixj > i` -> `>=`: the compare-exchange with itself)."""
    if toks[i].text not in ("<", "<=", ">", ">="):
        return ""
    left = _strip(_text(toks, _left(toks, i), i))
    right = _strip(_text(toks, i + 1, _right(toks, i, _STOP)))
    found = _enclosing_if(toks, i)
    if found is None or (_term(f"{left}{toks[i].text}{right}") not in found[2]):
        return ""
    for x, y in ((left, right), (right, left)):
        if not all(re.fullmatch(r"[A-Za-z_]\w*", n) for n in (x, y)) or _ever_assigned(toks, y, allowed=1):
            continue
        texts = _definitions(toks, x, len(toks))
        if len(texts) != 1 or _ever_assigned(toks, x, allowed=1):
            continue
        m = re.fullmatch(r"(\w+)\^(\w+)", _strip(texts[0]))
        if not m or {m.group(1), m.group(2)} - {y} - scalars or y not in (m.group(1), m.group(2)):
            continue
        p = m.group(2) if m.group(1) == y else m.group(1)
        if p not in scalars or p == y or _ever_assigned(toks, p):
            continue
        if _writes_nothing_with_itself(toks, found[1], x, y):
            return (
                f"`{x} == {y}` means `{p} == 0` in every thread: each compares its element with itself "
                "under a strict `<` or `>`, and nothing is written"
            )
    return ""


def _writes_nothing_with_itself(toks: list[Token], close: int, x: str, y: str) -> bool:
    """Whether the block after `if (...)` ending at `close` is declarations without calls, loads
    `a = arr[y]` and `b = arr[x]` among them, then one `if (C) {...}` (no else) each of whose `||`
    branches has a term `a > b` or `a < b` (either way round)."""
    if close + 1 >= len(toks) or toks[close + 1].text != "{" or _else_after(toks, close):
        return False
    end = _close(toks, close + 1)
    k = close + 2
    loads: dict[str, str] = {}
    while k < end and toks[k].text != "if":
        semi = next((j for j in range(k, end) if toks[j].text == ";"), end)
        part = toks[k:semi]
        if any(t.kind == "ident" and n.text == "(" for t, n in zip(part, part[1:], strict=False)):
            return False  # a call may write
        eq = next((j for j, t in enumerate(part) if t.text == "="), -1)
        if eq < 1 or part[0].kind != "ident" or any(t.text in ("[", "*") for t in part[:eq]):
            return False  # an element or a pointee written, or no assignment
        for j in range(len(part) - 5):
            texts = [t.text for t in part[j : j + 7]] + [";"]
            if [t.kind for t in part[j : j + 6]] == ["ident", "op", "ident", "op", "ident", "op"] and (
                texts[1:6:2] == ["=", "[", "]"] and texts[6] in (",", ";")
            ):
                loads[texts[0]] = f"{texts[2]}[{texts[4]}]"
        k = semi + 1
    if any(_ever_assigned(toks, name, allowed=1) for name in loads):
        return False
    if k >= end or toks[k + 1].text != "(":
        return False
    inner_close = _close(toks, k + 1)
    body_end = _close(toks, inner_close + 1) if toks[inner_close + 1].text == "{" else -1
    if body_end != end - 1 or _else_after(toks, inner_close):
        return False
    pairs = [
        (u, v)
        for u, ru in loads.items()
        for v, rv in loads.items()
        if ru.endswith(f"[{y}]") and rv.endswith(f"[{x}]") and ru.split("[")[0] == rv.split("[")[0]
    ]
    strict = {f"{u}{op}{v}" for u, v in pairs for op in "<>"} | {f"{v}{op}{u}" for u, v in pairs for op in "<>"}
    for branch in _split(_strip(_text(toks, k + 2, inner_close)), "||"):
        if not any(_strip(term) in strict for term in _split(_strip(branch), "&&")):
            return False
    arrays = {loads[u].split("[")[0] for u, _ in pairs}
    return bool(pairs) and not any(_ever_assigned(toks, a) for a in arrays) and _writes_only_in(toks, k, end)


_WRITES = {"=", "+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "<<=", ">>=", "++", "--"}


def _writes_only_in(toks: list[Token], first: int, end: int) -> bool:
    """Whether no memory is written outside tokens first .. end (an element or a pointee assigned, an
    atomic, a helper that may write): another thread's write between a thread's two loads of one
    element could make them differ."""
    texts = [t.text for t in toks]
    if "__device__" in texts or "asm" in texts:
        return False
    for k, t in enumerate(toks):
        if first <= k <= end:
            continue
        after = texts[k + 1] if k + 1 < len(toks) else ""
        if (t.text == "]" and after in _WRITES) or t.text.startswith("atomic"):
            return False
        if t.text == "*" and k and texts[k - 1] in (";", "{", "}", "(", "++", "--"):
            return False  # a pointee written, or read: either way not proven unwritten
    return True


def _split(text: str, op: str) -> list[str]:
    """`text` cut at `op` outside parentheses."""
    out, depth, last = [], 0, 0
    for k, c in enumerate(text):
        depth += (c == "(") - (c == ")")
        if depth == 0 and text.startswith(op, k):
            out.append(text[last:k])
            last = k + len(op)
    return [*out, text[last:]]


_WARP_OF = {"threadIdx.x>>5", "threadIdx.x/32", "threadIdx.x/warpSize", "(threadIdx.x>>5)", "(threadIdx.x/32)"}
_LANE_OF = {"threadIdx.x&31", "threadIdx.x%32", "threadIdx.x%warpSize", "threadIdx.x&0x1f"}
_WORDS = {"const", "int", "unsigned", "float", "double", "long", "short", "char", "bool", "size_t", "if", "for"}
_UNIFORM = {"blockDim", "blockIdx", "gridDim", "warpSize"}
_CALLS = {"fmaxf", "fminf", "fmax", "fmin", "max", "min", "sqrtf", "rsqrtf", "expf", "logf", "fabsf", "fabs"}


def last_step_warp(toks: list[Token], i: int, new: str, spec: Spec | None, params: set[str], body: int) -> str:
    """Why `wid == 0` -> `wid == 1` (wid = threadIdx.x >> 5) changes nothing where every block of the
    spec's tuning space has two warps or more, or "": the `if` (in the kernel's body, no loop around
    it, no else) between two barriers runs one warp's last step of a reduction, reading only the lane
    (threadIdx.x & 31), shared memory, the parameters, uniform values and locals it sets itself before
    reading them; warp 1's lane l then reads and writes what warp 0's lane l did. The locals it sets
    are read nowhere after it (warp 0 keeps its own values there). No `return` comes before it (warp 1
    may have left a block with fewer live threads), and the warp's number and the lane are the kernel
    body's own locals. Only within the space: a block of one warp has no warp 1."""
    if toks[i].text != "0" or new != "1" or spec is None or toks[i - 1].text != "==":
        return ""
    open_, close = _if_around(toks, i)
    if open_ < 5 or close != i + 1 or open_ + 2 != i - 1 or toks[open_ - 1].text != "if":
        return ""
    wid = toks[open_ + 1].text
    if _text(toks, open_ - 5, open_ - 1) != "__syncthreads();" or toks[close + 1].text != "{":
        return ""
    inside = [t for t in toks[:open_] if t.pos >= body]
    if sum((t.text == "{") - (t.text == "}") for t in inside) != 0 or _else_after(toks, close):
        return ""  # within a loop's or an if's block
    own = [t for t in toks if t.pos >= body]  # the kernel's body: a helper's `wid` or lane is another
    if any(t.text == "return" and not _block_uniform_return(own, k, params) for k, t in enumerate(own) if t in inside):
        return ""  # a warp that returned early (past the end) is not there to do the step
    if wid in params or not _one_definition(own, wid, _WARP_OF):
        return ""
    lanes = {
        t.text for t in own if t.kind == "ident" and t.text not in params and _one_definition(own, t.text, _LANE_OF)
    }
    if not lanes or not _every_block_two_warps(spec):
        return ""
    end = _close(toks, close + 1)
    if _text(toks, end + 1, end + 5) != "__syncthreads();":
        return ""  # the other warps go on meanwhile: what they write before a barrier may race the reads
    shared = {toks[k + 1].text for k in range(len(toks) - 1) if _declared_shared(toks, k)}
    params = {p for p in params if not _ever_assigned(toks, p)}  # a parameter set per thread is no uniform
    mine: set[str] = set()  # locals declared in the `if`'s block
    outer: set[str] = set()  # locals from before it, each set before it is read
    depth = 0
    for k in range(close + 2, end):
        t = toks[k]
        depth += (t.text == "{") - (t.text == "}")
        if t.kind != "ident" or t.text in _WORDS or t.text in _UNIFORM or t.text in lanes | params | shared | mine:
            continue
        if toks[k - 1].text == "." or toks[k + 1].text == "(" and (t.text.startswith("__shfl") or t.text in _CALLS):
            continue
        if toks[k - 1].kind == "ident" and toks[k - 1].text in _WORDS and toks[k + 1].text in ("=", ";", "["):
            mine.add(t.text)  # declared here
            continue
        if t.text in outer:
            continue
        statement_start = toks[k - 1].text in (";", "{", "}") and depth == 0
        semi = next((q for q in range(k + 1, end) if toks[q].text == ";"), end)
        read_in_it = any(u.text == t.text for u in toks[k + 1 : semi])
        if not (statement_start and toks[k + 1].text == "=") or read_in_it or any(u.text == t.text for u in toks[end:]):
            return ""  # threadIdx, the warp's number, a call, a macro, or a local read before it is set here
        outer.add(t.text)
    return (
        f"within this space (every block size a multiple of 32 and at least 64: two warps or more), warp 1 does "
        f"the last step as warp 0 does: after a barrier it reads only the lane, shared memory and uniform values, "
        f"and `{', '.join(sorted(outer)) or 'no local'}` set there {'is' if len(outer) == 1 else 'are'} read "
        "nowhere after"
    )


def _block_uniform_return(toks: list[Token], k: int, params: set[str]) -> bool:
    """Whether the `return` at token k is `if (COND) return;` with COND the same for every thread of a
    block (blockIdx, blockDim, gridDim, parameters no thread sets, locals set once from those): the
    whole block leaves together (`if (ng >= N * group) return;`, ng = blockIdx.x)."""
    if k < 2 or toks[k - 1].text != ")":
        return False
    depth, open_ = 0, -1
    for q in range(k - 1, -1, -1):
        depth += (toks[q].text == ")") - (toks[q].text == "(")
        if depth == 0:
            open_ = q
            break
    if open_ < 1 or toks[open_ - 1].text != "if":
        return False

    def uniform(text: str, depth: int = 0) -> bool:
        for name in re.findall(r"(?<![.\w])[A-Za-z_]\w*", text):
            if name in _UNIFORM or (name in params and not _ever_assigned(toks, name)):
                continue
            found = _definitions(toks, name, len(toks))
            if (
                depth > 2
                or len(found) != 1
                or _ever_assigned(toks, name, allowed=1)
                or not uniform(found[0], depth + 1)
            ):
                return False
        return True

    return uniform(_text(toks, open_ + 1, k - 1))


def _one_definition(toks: list[Token], name: str, texts: set[str]) -> bool:
    """Whether `name` is set once, to one of `texts`, and never assigned again."""
    found = _definitions(toks, name, len(toks))
    return len(found) == 1 and found[0] in texts and not _ever_assigned(toks, name, allowed=1)


def _declared_shared(toks: list[Token], k: int) -> bool:
    """Whether token k + 1 is the name of an array declared `__shared__` in the statement of token k."""
    if toks[k + 1].kind != "ident" or k + 2 >= len(toks) or toks[k + 2].text != "[":
        return False
    start = next((s for s in range(k, -1, -1) if toks[s].text in (";", "{", "}")), -1)
    return any(t.text == "__shared__" for t in toks[start + 1 : k + 1])


def _every_block_two_warps(spec: Spec) -> bool:
    """Whether every x block size the tuning space lists is a multiple of 32 and at least 64, the
    other axes' (if tuned) all 1."""
    names = spec.block_size_names or ["block_size_x", "block_size_y", "block_size_z"]
    xs = spec.tune_params.get(names[0], [])
    if not xs or not all(isinstance(v, int) and v % 32 == 0 and v >= 64 for v in xs):
        return False
    return all(v == 1 for n in names[1:] for v in spec.tune_params.get(n, [1]))
