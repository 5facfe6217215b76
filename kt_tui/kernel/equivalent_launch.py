"""Mutants equivalent by construction (issue 35), beside kernel/equivalent.py: a `__shared__` array
declared larger, a guard of blockIdx against the count a launch of one block per item makes exactly
that many blocks of (which needs the spec's launch: block_counts), and a partner `i ^ p` compared
with i, whose tie (p == 0) holds in every thread at once."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .equivalent import _STOP, _close, _definitions, _else_after, _enclosing_if, _left, _right, _strip, _term, _text
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


def _ever_assigned(toks: list[Token], name: str, allowed: int = 0) -> bool:
    """Whether `name` is assigned (=, op=, ++, --) more than `allowed` times in the tokens."""
    ops = {"=", "+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "<<=", ">>="}
    seen = 0
    for k, t in enumerate(toks):
        if t.text != name:
            continue
        after = toks[k + 1].text if k + 1 < len(toks) else ""
        before = toks[k - 1].text if k else ""
        if after in ops or after in ("++", "--") or before in ("++", "--", "&"):
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
