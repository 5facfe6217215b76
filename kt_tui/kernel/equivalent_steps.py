"""Mutants that move a bound by one and change nothing (issue 35; kernel/equivalent.py has the others):
a signed integer clamp whose comparison's bound moved toward the tie, and a loop run on into iterations
whose inner loops never run, and an insertion sort's shift test at the tie."""

from __future__ import annotations

import re

from .equivalent import _INTEGER, _close, _declared, _else_after, _if_around, _statement, _text, opening
from .syntax import Token

_SIGNED = {"int", "short", "long", "char", "int8_t", "int16_t", "int32_t", "int64_t", "ptrdiff_t"}
# a clamp `if (a > b) a = b;` whose bound in the comparison moved by one: (comparison, step) -> the
# comparison it is then, which differs from the original only at the tie, where `a = b` changes nothing
_CLAMP_STEPS = {(">", -1): ">=", ("<", 1): "<=", (">=", 1): ">", ("<=", -1): "<"}
_MIRROR = {">": "<", "<": ">", ">=": "<=", "<=": ">="}


def clamp_step(toks: list[Token], i: int, new: str) -> str:
    """Why a whole constant k -> k + 1 in the bound of a signed integer clamp changes nothing, or "":
    `if (f > n - 1) f = n - 1;` compared with `n - 2` is `f >= n - 1` (integers), which differs only
    at f == n - 1, where the assignment stores the value already there (the same for `<` with the
    bound one higher: `if (x < 0) x = 0;` against 1). The constant must be a term of the bound added
    or subtracted at its top level, and every name in the clamp a signed integer (an unsigned bound
    wraps below 0)."""
    m = re.fullmatch(r"[1-9]\d*|0", toks[i].text)
    if not m or new != str(int(toks[i].text) + 1):
        return ""
    open_, close = _if_around(toks, i)
    inside = [t.text for t in toks[open_ + 1 : close]] if open_ >= 0 else []
    if not inside or any(t in ("(", "[", "&&", "||", "?") for t in inside):
        return ""  # a cast, a call, an element or more than one comparison: not a plain clamp
    ops = [k for k in range(open_ + 1, close) if toks[k].text in _MIRROR]
    first, last = _statement(toks, close)
    if len(ops) != 1 or first < 0 or _else_after(toks, close):
        return ""
    at = ops[0]
    op = toks[at].text
    left, right = _text(toks, open_ + 1, at), _text(toks, at + 1, close)
    name, bound = (left, right) if i > at else (right, left)
    if not re.fullmatch(r"[A-Za-z_]\w*", name) or _text(toks, first, last) != f"{name}={bound}":
        return ""
    if i < at:
        op = _MIRROR[op]
    before, after = toks[i - 1].text, toks[i + 1].text
    if after not in ("+", "-", ")") and after not in _MIRROR:
        return ""  # a factor of a product: not a term of the bound's sum
    step = -1 if before == "-" else 1 if before in ("+", "(") or before in _MIRROR else 0
    if step == 0 or (op, step) not in _CLAMP_STEPS:
        return ""
    names = set(re.findall(r"[A-Za-z_]\w*", bound)) | {name}
    if not all(_signed(toks, n) for n in names):
        return ""
    return (
        f"`{name} {op} {bound}` with its bound moved by one is `{name} {_CLAMP_STEPS[(op, step)]} {bound}` "
        f"(signed integers): they differ only at `{name} == {bound}`, where `{name} = {bound}` stores the value "
        "already there"
    )


def _signed(toks: list[Token], name: str) -> bool:
    """Whether `name` is declared of a signed integer type (`int`, `const long long`, not `unsigned int`)."""
    if _declared(toks, name) not in _SIGNED:
        return False
    found = False
    for k in range(1, len(toks) - 1):
        if toks[k].text == name and toks[k + 1].text in ("=", ";", ",", ")") and toks[k - 1].kind == "ident":
            j = k - 1
            while j >= 0 and toks[j].kind == "ident" and toks[j].text not in ("return",):
                if toks[j].text in ("unsigned", "size_t") or toks[j].text.startswith("uint"):
                    return False  # any declaration of the name unsigned: no claim
                j -= 1
            found = True
    return found


def loop_tail(toks: list[Token], i: int, kind: str) -> str:
    """Why a loop `for (j = ...; j < X - k; j++)` run on to X - 1 (`<` -> `<=` with k = 1, or `- k`
    dropped) changes nothing, or "": in each iteration added (j >= X - k) every inner loop starts at
    `j + c` (c >= k, plus thread indices) and stops before X, so none runs; the rest of the body is
    barriers and locals read only in those inner loops, set from elements `a[j]` of arrays the inner
    loops access as `a[i]` with i < X (j < X there: elements a kernel's inner loop reaches). A
    column-oriented triangular solve's last column, which has nothing below it."""
    head = _for_head(toks, i)
    if head is None:
        return ""
    open_, close, semis = head
    cond = toks[semis[0] + 1 : semis[1]]
    if len(cond) < 3 or cond[0].kind != "ident" or cond[1].text != "<":
        return ""
    j = cond[0].text
    init = [t.text for t in toks[open_ + 1 : semis[0]]]
    if len(init) < 3 or init[-3:-1] != [j, "="] or init[0] not in ("int", "long", "unsigned", "size_t", "const"):
        return ""  # a counter declared before the loop holds its last value after it
    bound = _text(toks, semis[0] + 3, semis[1])
    m = re.fullmatch(r"(.+)-([1-9]\d*)", bound)
    if not m or _text(toks, semis[1] + 1, close) not in (f"{j}++", f"++{j}", f"{j}+=1"):
        return ""
    stop, k = m.group(1), int(m.group(2))
    if re.search(r"<<|>>|[<>&|^?=!]", stop):
        return ""  # `n << 1 - 1` is `n << 0`: `- k` binds tighter than these
    if kind == "bound" and (i != semis[0] + 2 or k != 1):
        return ""
    if kind == "drop" and (toks[i].text != "-" or i != semis[1] - 2 or toks[i + 1].text != m.group(2)):
        return ""
    if kind not in ("bound", "drop") or close + 1 >= len(toks) or toks[close + 1].text != "{":
        return ""
    end = _close(toks, close + 1)
    inner: list[tuple[int, int, str]] = []  # (first, last) token of each inner loop, and its counter
    locals_: list[tuple[str, list[str]]] = []  # a local set in the body, and the arrays it loads at j
    at = close + 2
    while at < end:
        t = toks[at].text
        if t == "__syncthreads" and _text(toks, at, at + 4) == "__syncthreads();":
            at += 4
            continue
        if t == "for":
            found = _inner_loop(toks, at, j, stop, k)
            if found is None:
                return ""
            inner.append(found)
            at = found[1] + 1
            continue
        semi = next((q for q in range(at, end) if toks[q].text == ";"), end)
        eq = next((q for q in range(at, semi) if toks[q].text == "="), -1)
        words = toks[at:eq] if eq > at else []
        if len(words) < 2 or not all(w.kind == "ident" for w in words):
            return ""  # not a declaration of a local
        expr = toks[eq + 1 : semi]
        if any(e.text in ("(", "=", "++", "--") or e.text.endswith("=") and e.text not in ("==",) for e in expr):
            return ""
        loads = [expr[q - 1].text for q in range(1, len(expr) - 2) if expr[q].text == "["]
        if any(_text(expr, q + 1, q + 3) != f"{j}]" for q in range(len(expr)) if expr[q].text == "["):
            return ""  # an element at another index than the counter
        if words[-1].text in {j, *re.findall(r"[A-Za-z_]\w*", stop)}:
            return ""  # a local that shadows the counter or a name of the bound
        locals_.append((words[-1].text, loads))
        at = semi + 1
    if not inner:
        return ""
    for name, loads in locals_:
        uses = [q for q in range(close + 2, end) if toks[q].text == name]
        if any(not any(a <= q <= b for a, b, _ in inner) for q in uses[1:]):
            return ""  # read outside the inner loops (its first use is its declaration)
        for array in loads:
            if not any(_text(toks, q, q + 4) == f"{array}[{c}]" for a, b, c in inner for q in range(a, b)):
                return ""
    return (
        f"the iterations added (`{j}` from `{bound}`) run no inner loop (each starts at `{j}` + {k} or more and "
        f"stops before `{stop}`); the rest of the body is barriers and loads only those loops read"
    )


def _for_head(toks: list[Token], i: int) -> tuple[int, int, list[int]] | None:
    """(open, close, [first `;`, second `;`]) of the `for (...)` whose header holds token i."""
    depth = 0
    for q in range(i - 1, -1, -1):
        t = toks[q].text
        if t in (")", "]"):
            depth += 1
        elif t in ("(", "["):
            if depth == 0:
                if t != "(" or q == 0 or toks[q - 1].text != "for":
                    return None
                close = _close(toks, q)
                semis = [r for r in range(q + 1, close) if toks[r].text == ";"]
                return (q, close, semis) if len(semis) == 2 else None
            depth -= 1
        elif t in ("{", "}"):
            return None
    return None


_THREAD = {"threadIdx.x", "threadIdx.y", "threadIdx.z"}


def _inner_loop(toks: list[Token], at: int, j: str, stop: str, k: int) -> tuple[int, int, str] | None:
    """(first, last token, counter) of `for (int i = j + c [+ threadIdx.x]; i < stop; ...)` at token
    `at` with c >= k, its counter declared there (one declared before holds its last value after the
    loop), that assigns neither j nor its own bound's names in its body; None otherwise."""
    if toks[at + 1].text != "(":
        return None
    close = _close(toks, at + 1)
    semis = [r for r in range(at + 2, close) if toks[r].text == ";"]
    if len(semis) != 2:
        return None
    init = _text(toks, at + 2, semis[0])
    m = re.fullmatch(
        rf"(?:int|unsigned|longlong|long|size_t)([A-Za-z_]\w*)={re.escape(j)}\+(\d+)((?:\+\w+\.[xyz])*)", init
    )
    if not m or int(m.group(2)) < k or not set(re.findall(r"\w+\.[xyz]", m.group(3))) <= _THREAD:
        return None
    counter = m.group(1)
    if _text(toks, semis[0] + 1, semis[1]) != f"{counter}<{stop}":
        return None
    step = _text(toks, semis[1] + 1, close)
    if not re.fullmatch(rf"{counter}(?:\+\+|\+=[\w.]+)|\+\+{counter}", step):
        return None  # counting down, or by a step that could be negative
    last = (
        _close(toks, close + 1)
        if toks[close + 1].text == "{"
        else next((r for r in range(close, len(toks)) if toks[r].text == ";"), -1)
    )
    names = {j, *re.findall(r"[A-Za-z_]\w*", stop)}
    for q in range(close + 1, last):
        if toks[q].text in names and (
            toks[q + 1].text in ("=", "+=", "-=", "++", "--") or toks[q - 1].text in ("++", "--")
        ):
            return None
    return (at, last, counter) if last > 0 else None


def insertion_tie(toks: list[Token], i: int) -> str:
    """Why flipping the strictness of an insertion sort's shift test changes nothing, or "": in
    `while (j >= 0 && v[j] > key) { v[j + 1] = v[j]; --j; } v[j + 1] = key;` the flip moves, at the
    tie, a value equal to `key` one place up and puts `key` where it was: the array holds the same
    values in the same order. Only for an array of integers (a float -0.0 ties with 0.0 and is
    another value)."""
    if toks[i].text not in _MIRROR:
        return ""
    open_ = opening(toks, i)
    if open_ < 1 or toks[open_ - 1].text != "while":
        return ""
    close = _close(toks, open_)
    cuts, depth = [open_], 0
    for k in range(open_ + 1, close):
        depth += (toks[k].text in ("(", "[")) - (toks[k].text in (")", "]"))
        if depth == 0 and toks[k].text in ("&&", "||"):
            if toks[k].text == "||":
                return ""
            cuts.append(k)
    cuts.append(close)
    first, last = next((a, b) for a, b in zip(cuts, cuts[1:], strict=False) if a < i < b)
    term = _text(toks, first + 1, last)
    m = re.fullmatch(r"(\w+)\[(\w+)\](?:>=|<=|>|<)(\w+)|(\w+)(?:>=|<=|>|<)(\w+)\[(\w+)\]", term)
    if not m:
        return ""
    v, j, key = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(5), m.group(6), m.group(4))
    if len({v, j, key}) < 3 or _declared(toks, v) not in _INTEGER:
        return ""
    if close + 1 >= len(toks) or toks[close + 1].text != "{":
        return ""
    body_end = _close(toks, close + 1)
    stop = next((k for k in range(body_end + 1, len(toks)) if toks[k].text == ";"), -1)
    moves = {f"{v}[{j}+1]={v}[{j}];{d}" for d in (f"--{j};", f"{j}--;", f"{j}-=1;")} | {f"{v}[{j}+1]={v}[{j}--];"}
    if _text(toks, close + 2, body_end) not in moves or _text(toks, body_end + 1, stop + 1) != f"{v}[{j}+1]={key};":
        return ""
    if _read_after(toks, open_, stop, j):  # where key landed (an inversion count `i - 1 - j`) moves at the tie
        return ""
    return (
        f"an insertion sort's shift `{term}`: at the tie it moves a value equal to `{key}` one place up and "
        f"puts `{key}` where that value was: `{v}` holds the same values in the same order"
    )


def _read_after(toks: list[Token], loop: int, stop: int, j: str) -> bool:
    """Whether `j` may be read after token `stop`: true unless it is declared in the block holding the
    loop at token `loop` (before it) and not named again in that block after `stop`."""
    depth, start = 0, -1
    for k in range(loop - 1, -1, -1):
        depth += (toks[k].text == "}") - (toks[k].text == "{")
        if depth < 0:
            start = k
            break
    if start < 0 or not any(
        toks[k].text == j and toks[k - 1].kind == "ident" and toks[k + 1].text in ("=", ";")
        for k in range(start + 1, loop)
    ):
        return True
    end = _close(toks, start)
    return any(toks[k].text == j for k in range(stop + 1, end))
