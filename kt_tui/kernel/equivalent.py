"""Mutants equivalent by construction (issue 35), and why the others may survive a check. The
equivalents are edits of kernel/mutant.py that no input can tell from the original under the check's
comparison, recognised by their pattern in the tokens, each with the reason a reader can verify.
They are explained and not counted; anything an input could kill is left to the runs.

- a select between the two sides it compares (`v > 0.0f ? v : 0.0f`, `if (x > m) m = x;`): at the tie
  both arms hold the same value, so `>` and `>=` give the same result;
- a guard `x > 0` around adding x (`if (c > 0) atomicAdd(&h[b], c);`): at the tie it adds 0;
- a xor butterfly (`for (o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(mask, v, o);`) started at 17:
  its first step pairs each lane of one half of the warp with one of the other half, as 16 does, then
  8, 4, 2, 1: every lane holds the same sum, in another order;
- the same butterfly keeping the better of two lanes' (value, index) in a strict lexicographic order
  (`if (o > v || (o == v && oi < i)) { v = o; i = oi; }`): both lanes of a step keep the same pair, and
  the best of all 32 does not depend on the order the lanes are met in;
- a comparison in an `if` built of `&&` and `||` whose flip changes the condition only at the tie,
  where the other terms of its `&&` chain cannot hold (`i < n && j > i && j < n`) or the body writes
  only values equal under the tie (a compare-exchange `values[i] = b; values[j] = a;` of
  `a = values[i], b = values[j]`; `v = o; i = oi;` under `o == v && oi < i`);
- after a whole xor butterfly every lane holds the same value, bit for bit (each step adds the same
  two values in both lanes): the write guarded by `lane == 0` is the same from lane 1, where the
  statement reads nothing else that differs between the two lanes.

None of these holds for an `if` with an `else` (it runs at the tie in one and not the other), a tie
between an integer and a float, a butterfly that stops before 1, or a guard on anything but the lane.
Three more, a `__shared__` array declared larger, a block guard under an exact launch and a xor
partner's tie, are in kernel/equivalent_launch.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .syntax import Token

_STOP = {";", "{", "}", ",", "=", "(", "return", "&&", "||", "?", ":", "+=", "-=", "*=", "/="}
_ZERO = {"0", "0u", "0U", "0.0f", "0.f", "0.0", "0.", "0.0F"}
_HALVING = {(">>=", "1"), ("/=", "2")}


def _text(toks: list[Token], i: int, j: int) -> str:
    return "".join(t.text for t in toks[i:j])


def _strip(text: str) -> str:
    while text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        text = text[1:-1]
    return text


def _balanced(text: str) -> bool:
    depth = 0
    for c in text:
        depth += (c == "(") - (c == ")")
        if depth < 0:
            return False
    return depth == 0


def _left(toks: list[Token], i: int) -> int:
    """The index of the first token of the operand that ends before token i."""
    depth = 0
    for j in range(i - 1, -1, -1):
        t = toks[j].text
        if t in (")", "]"):
            depth += 1
        elif t in ("(", "[") and depth:
            depth -= 1
        elif depth == 0 and t in _STOP | {"(", "["}:
            return j + 1
    return 0


def _right(toks: list[Token], i: int, stops: set[str]) -> int:
    """The index of the first token at depth 0 after token i that is in `stops` (or a closing bracket)."""
    depth = 0
    for j in range(i + 1, len(toks)):
        t = toks[j].text
        if t in ("(", "["):
            depth += 1
        elif t in (")", "]"):
            if depth == 0:
                return j
            depth -= 1
        elif depth == 0 and t in stops:
            return j
    return len(toks)


def _close(toks: list[Token], i: int) -> int:
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text in ("(", "{", "["):
            depth += 1
        elif toks[j].text in (")", "}", "]"):
            depth -= 1
            if depth == 0:
                return j
    return -1


def _statement(toks: list[Token], close: int) -> tuple[int, int]:
    """The tokens of the statement after an `if (...)` that ends at `close`: (first, end) without braces,
    or (-1, -1) when it is a block of more than one statement."""
    start = close + 1
    if start < len(toks) and toks[start].text == "{":
        end = _close(toks, start)
        inner = [j for j in range(start + 1, end) if toks[j].text == ";"]
        return (start + 1, end - 1) if len(inner) == 1 and inner[0] == end - 1 else (-1, -1)
    end = next((j for j in range(start, len(toks)) if toks[j].text == ";"), -1)
    return start, end


def _if_around(toks: list[Token], i: int) -> tuple[int, int]:
    """(open, close) of the parentheses of the `if` whose condition holds token i, or (-1, -1)."""
    depth = 0
    for j in range(i - 1, -1, -1):
        t = toks[j].text
        if t == ")":
            depth += 1
        elif t == "(":
            if depth == 0:
                if j and toks[j - 1].text == "if":
                    return j, _close(toks, j)
                return -1, -1
            depth -= 1
        elif t in (";", "{", "}"):
            return -1, -1
    return -1, -1


def comparison(toks: list[Token], i: int) -> str:
    """Why flipping the strictness of the comparison at token i changes nothing, or ""."""
    a = _strip(_text(toks, _left(toks, i), i))
    end = _right(toks, i, _STOP)
    b = _strip(_text(toks, i + 1, end))
    if end < len(toks) and toks[end].text == "?":
        colon = _right(toks, end, {":"})
        last = _right(toks, colon, {";", ","})
        arms = {_strip(_text(toks, end + 1, colon)), _strip(_text(toks, colon + 1, last))}
        if colon < len(toks) and arms == {a, b}:
            return f"a select between the two sides it compares (`{a}`, `{b}`): at the tie both arms are equal"
        return ""
    open_, close = _if_around(toks, i)
    if open_ < 0 or _strip(_text(toks, open_ + 1, close)) != f"{a}{toks[i].text}{b}":
        return _in_conjunction(toks, i, a, b)
    first, last = _statement(toks, close)
    if first < 0 or last < 0 or _else_after(toks, close):  # an else runs at the tie in one and not the other
        return ""
    body = _text(toks, first, last)
    if body in (f"{a}={b}", f"{b}={a}") and _same_type(toks, a, b):
        return f"`{body}` under `{a} {toks[i].text} {b}`: at the tie it assigns the value already there"
    if b in _ZERO and (body.endswith(f",{a})") and body.startswith("atomicAdd(") or body.endswith(f"+={a}")):
        return f"`{body}` under `{a} {toks[i].text} {b}`: at the tie it adds 0"
    return _in_conjunction(toks, i, a, b)


_ORDER = ("<=", ">=", "<", ">", "==", "!=")


def _in_conjunction(toks: list[Token], i: int, a: str, b: str) -> str:
    """Why flipping `a < b` (or `<=`, `>`, `>=`) in an `if`'s condition built of `&&` and `||` changes
    nothing, or "": the flip changes the condition only where `a == b` and the other terms of its
    `&&` chain hold, and there either those terms order a and b strictly (`i < n && j > i && j < n`:
    i == n is impossible), or the `if`'s body only assigns values equal under the tie and the chain's
    `==` terms (`maxval = other; argmax = other_idx;` under `other == maxval && other_idx < argmax`, a
    compare-exchange of two loaded elements)."""
    found = _enclosing_if(toks, i)
    if found is None:
        return ""
    if_open, if_close, terms = found
    mine = f"{a}{toks[i].text}{b}"
    others = list(terms)
    if _term(mine) not in others:
        return ""
    others.remove(_term(mine))
    if any(op == "" for _, op, _ in others):  # a term of no comparison (a flag) only narrows the chain
        others = [t for t in others if t[1]]
    for lo, hi in ((a, b), (b, a)):
        if _ordered(lo, hi, others):
            return f"`{a} == {b}` cannot hold beside the other terms of `{_chain(terms)}`: the tie never passes"
    ties = [(a, b), *((x, y) for x, op, y in others if op == "==")]
    writes = _assignments(toks, if_close)
    if not writes or _else_after(toks, if_close) or not all(_same_type(toks, x, y) for x, y in ties):
        return ""
    same = _Classes(ties + _loads(toks, if_open))
    if all(same.equal(left, right) for left, right in writes):
        said = "; ".join(f"{left} = {right}" for left, right in writes)
        return f"at the tie (`{' && '.join(f'{x} == {y}' for x, y in ties)}`) `{said}` writes the values already there"
    return ""


def _else_after(toks: list[Token], close: int) -> bool:
    """Whether the statement after the `if (...)` ending at `close` has an `else`."""
    start = close + 1
    if start >= len(toks):
        return False
    end = _close(toks, start) if toks[start].text == "{" else _right(toks, start - 1, {";"})
    return 0 <= end < len(toks) - 1 and toks[end + 1].text == "else"


_INTEGER = {"int", "unsigned", "short", "char", "long", "size_t", "bool"} | {
    f"{u}int{n}_t" for u in ("", "u") for n in (8, 16, 32, 64)
}


def _same_type(toks: list[Token], a: str, b: str) -> bool:
    """Whether a and b (names or elements `p[i]`) are declared of one type, or both of integer types:
    a tie between an int and a float (`m = 16777217`, `f = 16777216.0f`) is no equality of values."""
    x, y = _declared(toks, a) or _integer_sum(toks, a), _declared(toks, b) or _integer_sum(toks, b)
    return bool(x and y) and (x == y or {x, y} <= _INTEGER)


def _integer_sum(toks: list[Token], text: str) -> str:
    """ "int" where `text` adds, subtracts or multiplies integer names and whole literals (`n - 1`), or ""."""
    parts = re.findall(r"\w+|\S", text)
    if not parts or any(p not in "+-*()" and not re.fullmatch(r"\w+", p) for p in parts):
        return ""
    for p in parts:
        if re.fullmatch(r"\d+[uUlL]*", p) or p in "+-*()":
            continue
        if not re.fullmatch(r"[A-Za-z_]\w*", p) or _declared(toks, p) not in _INTEGER:
            return ""
    return "int"


def _declared(toks: list[Token], side: str) -> str:
    """The last word of the type `side` (a name, or an element `p[...]` of a pointer) is declared with,
    or "" where no declaration is found or two declarations of the name disagree (a helper's parameter
    or a later block's local of the same name: which one is in scope is not read here)."""
    m = re.fullmatch(r"(\w+)(\[.+\])?", side)
    if not m:
        return ""
    types = set(_declarations(toks, m.group(1), bool(m.group(2))))
    return types.pop() if len(types) == 1 else ""


def _declarations(toks: list[Token], name: str, element: bool) -> Iterator[str]:
    """The last word of the type of each declaration of `name` (of an element of it: a pointer's)."""
    for k in range(1, len(toks) - 1):
        if toks[k].text != name or toks[k + 1].text not in ("=", ";", ",", ")", "["):
            continue
        j = k - 1
        if element:
            if toks[j].text != "*":
                continue
            j -= 1
        if toks[j].kind == "ident" and toks[j].text not in ("return", "else", "do", "case", "goto"):
            yield toks[j].text
        elif toks[j].text == "," and not element:
            start = next((s for s in range(j, -1, -1) if toks[s].text in (";", "{", "}", "(")), -1)
            if start >= 0 and toks[start].text != "(":  # a list of locals, not of parameters
                first = next((s for s in range(start + 1, j) if toks[s + 1].text in ("=", ",", ";")), -1)
                yield toks[first - 1].text if first > start + 1 and toks[first - 1].kind == "ident" else "?"


def _term(text: str) -> tuple[str, str, str]:
    """A term of a condition as (left, comparison, right), or (text, "", "") with none at depth 0."""
    depth = 0
    for k, c in enumerate(text):
        depth += (c in "([") - (c in ")]")
        if depth == 0:
            for op in _ORDER:
                if (
                    text.startswith(op, k)
                    and text[k - 1 : k] not in "<>=!"
                    and text[k + len(op) : k + len(op) + 1] != "="
                ):
                    if text[k + len(op) : k + len(op) + 1] not in "<>" and text[k - 1 : k] not in "<>":
                        return _strip(text[:k]), op, _strip(text[k + len(op) :])
    return text, "", ""


def _chain(terms: list[tuple[str, str, str]]) -> str:
    return " && ".join(f"{x} {op} {y}" if op else x for x, op, y in terms)


def _ordered(lo: str, hi: str, terms: list[tuple[str, str, str]]) -> bool:
    """Whether the terms make lo < hi, directly or through one other side, one step at least strict."""
    edges = set()
    for x, op, y in terms:
        if op in ("<", "<="):
            edges.add((x, y, op == "<"))
        elif op in (">", ">="):
            edges.add((y, x, op == ">"))
    if (lo, hi, True) in edges:
        return True
    return any(
        (mid, hi, strict2) in edges and (strict or strict2)
        for x, mid, strict in edges
        if x == lo
        for strict2 in (True, False)
    )


def _enclosing_if(toks: list[Token], i: int) -> tuple[int, int, list[tuple[str, str, str]]] | None:
    """(open, close) of the `if` whose condition holds token i through `&&`, `||` and parentheses only,
    and the terms of the `&&` chain that holds token i; None otherwise (a `!`, a call, a select)."""
    group = -1
    depth = 0
    for j in range(i - 1, -1, -1):
        t = toks[j].text
        if t == ")":
            depth += 1
        elif t == "(" and depth:
            depth -= 1
        elif t == "(":
            if group < 0:
                group = j
            before = toks[j - 1].text if j else ""
            if before == "if":
                close = _close(toks, j)
                inside = [toks[k].text for k in range(j + 1, close)]
                negated = any(t == "!" and u == "(" for t, u in zip(inside, inside[1:], strict=False))
                if "?" in inside or "=" in inside or negated:
                    return None
                return j, close, _conjunction(toks, i, group)
            if before not in ("(", "&&", "||"):
                return None
        elif t in (";", "{", "}"):
            return None
    return None


def _conjunction(toks: list[Token], i: int, group: int) -> list[tuple[str, str, str]]:
    """The terms of the `&&` chain holding token i within the parentheses opened at `group`."""
    close = _close(toks, group)
    cuts = [group]
    depth = 0
    for j in range(group + 1, close):
        t = toks[j].text
        depth += (t in ("(", "[")) - (t in (")", "]"))
        if depth == 0 and t in ("&&", "||"):
            cuts.append(j)
    cuts.append(close)
    start = max(k for k in cuts if k < i)
    end = min(k for k in cuts if k > i)
    while start != group and toks[start].text == "&&":
        start = max(k for k in cuts if k < start)
    while end != close and toks[end].text == "&&":
        end = min(k for k in cuts if k > end)
    inner = [k for k in cuts if start <= k <= end]
    return [_term(_strip(_text(toks, p + 1, q))) for p, q in zip(inner, inner[1:], strict=False)]


def _assignments(toks: list[Token], close: int) -> list[tuple[str, str]]:
    """The statement or block after `if (...)` ending at `close` as (left, right) of plain assignments
    `x = y;`, or [] when anything else is in it."""
    start = close + 1
    if start >= len(toks):
        return []
    end = (
        _close(toks, start)
        if toks[start].text == "{"
        else next((j for j in range(start, len(toks)) if toks[j].text == ";"), -1)
    )
    if end < 0:
        return []
    first = start + 1 if toks[start].text == "{" else start
    out = []
    k = first
    while k < end:
        semi = next((j for j in range(k, end + 1) if toks[j].text == ";"), -1)
        if semi < 0:
            break
        eq = _right(toks, k - 1, {"="})
        if eq >= semi or toks[k].text in ("if", "for", "while", "return"):
            return []
        out.append((_strip(_text(toks, k, eq)), _strip(_text(toks, eq + 1, semi))))
        k = semi + 1
    return out if k >= end else []


def _loads(toks: list[Token], before: int) -> list[tuple[str, str]]:
    """Locals set from one element (`a = values[i]`) before token `before` that nothing assigns again
    before it, neither the local, the array, nor the index: the local and the element are equal there."""
    out = []
    for k in range(1, before - 2):
        if (
            toks[k].kind != "ident"
            or toks[k + 1].text != "="
            or toks[k - 1].text not in ("float", "int", ",", "double")
        ):
            if not (toks[k].kind == "ident" and toks[k + 1].text == "=" and toks[k - 1].kind == "ident"):
                continue
        end = _right(toks, k + 1, {",", ";"})
        place = _text(toks, k + 2, end)
        if not re.fullmatch(r"\w+\[[\w.+*\-]+\]", place):
            continue
        names = {toks[k].text, *re.findall(r"\w+", place)}
        if not any(_assigned(toks, j, names) for j in range(end, before)):
            out.append((toks[k].text, place))
    return out


def _assigned(toks: list[Token], j: int, names: set[str]) -> bool:
    t = toks[j].text
    if t in ("++", "--"):
        return toks[j - 1].text in names or toks[j + 1].text in names
    if t in ("=", "+=", "-=", "*=", "/=", "|=", "&=", "^=", "<<=", ">>="):
        return bool(set(re.findall(r"\w+", _text(toks, _left(toks, j), j))) & names)
    return t in ("atomicAdd", "atomicExch", "atomicMin", "atomicMax", "__syncthreads")


class _Classes:
    """Texts known equal: a union-find over the pairs given."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self.up: dict[str, str] = {}
        for x, y in pairs:
            self.up[self.root(x)] = self.root(y)

    def root(self, x: str) -> str:
        while self.up.get(x, x) != x:
            x = self.up[x]
        return x

    def equal(self, x: str, y: str) -> bool:
        return self.root(x) == self.root(y)


def butterfly_start(toks: list[Token], i: int, new: str) -> str:
    """Why `16` -> `17` at token i, the start of a xor butterfly, changes nothing, or ""."""
    if toks[i].text != "16" or new != "17" or i < 3 or toks[i - 1].text != "=":
        return ""
    var = toks[i - 2].text
    open_ = next((j for j in range(i - 1, max(-1, i - 6), -1) if toks[j].text == "("), -1)
    if open_ < 1 or toks[open_ - 1].text != "for":
        return ""
    close = _close(toks, open_)
    if not _whole(_text(toks, open_ + 1, close), var):  # down to 1: a butterfly stopped at 2 sums half the lanes
        return ""
    first, last = _statement(toks, close)
    body = _text(toks, first, last) if first >= 0 else ""
    if _xor_of(body, var):
        return (
            "a xor butterfly started at 17: its first step pairs each lane of one half of the warp with one of "
            "the other half, as 16 does, then 8, 4, 2, 1: the same sum in another order"
        )
    if _best_of(toks, close, var):
        return (
            "a xor butterfly keeping the better of two lanes' values in a strict order (a max or min, ties "
            "broken by the next key) started at 17: its masks 17, 8, 4, 2, 1 still reach all 32 lanes, and the best of the warp "
            "is the same whatever the order it is met in"
        )
    return ""


def _whole(head: str, var: str) -> bool:
    """Whether a `for` head (no spaces) runs `var` over 16, 8, 4, 2, 1: a whole butterfly of the warp."""
    starts = head.startswith((f"int{var}=16;", f"unsignedint{var}=16;", f"{var}=16;"))
    down_to_1 = f";{var}>0;" in head or f";{var}>=1;" in head
    return starts and down_to_1 and head.endswith((f"{var}>>=1", f"{var}/=2"))


def _best_of(toks: list[Token], close: int, offset: str) -> set[str]:
    """The variables a loop body `o1 = __shfl_xor_sync(m, v1, offset); ...; if (o1 > v1 || (o1 == v1 &&
    o2 < v2)) { v1 = o1; v2 = o2; }` reduces, or an empty set: the pair (v1, v2) of the other lane is
    kept when it is better in a strict lexicographic order over every variable shuffled, so both lanes
    keep the same pair (associative and commutative, for values that are not NaN)."""
    if close + 1 >= len(toks) or toks[close + 1].text != "{":
        return set()
    end = _close(toks, close + 1)
    pairs: dict[str, str] = {}
    k = close + 2
    while k < end and toks[k].text != "if":
        semi = next((j for j in range(k, end) if toks[j].text == ";"), end)
        text = _text(toks, k, semi)
        m = re.fullmatch(
            rf"(?:const)?(?:int|float|double|unsigned|int64_t|longlong)?(\w+)=__shfl_xor_sync\(\w+,(\w+),{offset}(?:,32|,warpSize)?\)",
            text,
        )
        if not m:
            return set()
        pairs[m.group(1)] = m.group(2)
        k = semi + 1
    if k >= end or toks[k + 1].text != "(" or len(pairs) < 1:
        return set()
    cond_close = _close(toks, k + 1)
    if _assignments(toks, cond_close) != [(v, o) for o, v in pairs.items()] or _close(toks, cond_close + 1) != end - 1:
        return set()
    cond = _strip(_text(toks, k + 2, cond_close))
    for o, v in pairs.items():  # the first key outermost: o1 > v1 || (o1 == v1 && o2 < v2)
        better = [f"{o}{op}{v}" for op in "<>"] + [f"{v}{op}{o}" for op in "<>"]
        if cond in better and o == list(pairs)[-1]:
            cond = ""
            break
        head, sep, rest = cond.partition("||")
        if not sep or head not in better or not rest.startswith(f"({o}=={v}&&") or not rest.endswith(")"):
            return set()
        cond = _strip(rest[len(f"({o}=={v}&&") : -1])
    return set(pairs.values()) if cond == "" else set()


def _xor_of(body: str, offset: str) -> str:
    """The variable a statement `v += __shfl_xor_sync(mask, v, offset)` (a width of the whole warp
    allowed) reduces, or ""."""
    head, sep, call = body.partition("+=__shfl_xor_sync(")
    end = next((e for e in (f",{offset})", f",{offset},32)", f",{offset},warpSize)") if call.endswith(e)), "")
    if not sep or not end:
        return ""
    parts = call[: -len(end)].split(",")
    return head if len(parts) == 2 and parts[1] == head else ""


def lane_guard(toks: list[Token], i: int, new: str) -> str:
    """Why `lane == 0` -> `lane == 1` at token i changes nothing after a whole xor butterfly, or ""."""
    if toks[i].text != "0" or new != "1" or toks[i - 1].text != "==":
        return ""
    open_, close = _if_around(toks, i)
    if open_ < 0 or close != i + 1:
        return ""
    lane = _text(toks, open_ + 1, i - 1)
    if not _is_lane(toks, lane, open_):  # `warp == 1` picks another warp's value, or none
        return ""
    reduced = _butterflies(toks, open_)
    first, last = _statement(toks, close)
    if not reduced or first < 0:
        return ""
    names = {toks[j].text for j in range(first, last) if toks[j].kind == "ident" and toks[j + 1].text != "("}
    if not names & reduced or any(_lane_dependent(toks, n, lane, open_) for n in names - reduced):
        return ""
    return (
        f"after a whole xor butterfly every lane holds the same `{', '.join(sorted(names & reduced))}`: lane 1 "
        "writes what lane 0 does"
    )


def _butterflies(toks: list[Token], before: int) -> set[str]:
    """The variables a whole xor butterfly (from 16, halving, down to 1) reduces before token `before`."""
    out = set()
    for k in range(before):
        if toks[k].text != "for" or toks[k + 1].text != "(":
            continue
        close = _close(toks, k + 1)
        head = _text(toks, k + 2, close)
        first, last = _statement(toks, close)
        for var in {toks[j].text for j in range(k + 2, close) if toks[j].kind == "ident"}:
            if _whole(head, var):
                if first >= 0 and (v := _xor_of(_text(toks, first, last), var)):
                    out.add(v)
                out |= _best_of(toks, close, var)
    return out


def _definitions(toks: list[Token], name: str, before: int) -> list[str]:
    """The texts a local is set to (`name = ...;`) before token `before`."""
    out = []
    for k in range(before):
        if toks[k].text == name and k + 1 < len(toks) and toks[k + 1].text == "=":
            end = next((j for j in range(k, len(toks)) if toks[j].text == ";"), len(toks))
            out.append(_text(toks, k + 2, end))
    return out


def _is_lane(toks: list[Token], text: str, before: int, depth: int = 0) -> bool:
    """Whether `text` is a thread's lane: threadIdx.x, taken % 32 or & 31, or a local set once to one."""
    m = re.fullmatch(r"(.+?)(?:%32|%warpSize|&31|&0x1f)?", _strip(text))
    base = _strip(m.group(1)) if m else ""
    if base == "threadIdx.x":
        return True
    texts = _definitions(toks, base, before) if re.fullmatch(r"\w+", base) and depth < 3 else []
    return len(texts) == 1 and _is_lane(toks, texts[0], before, depth + 1)


_BUILTIN = {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"}


def _lane_dependent(toks: list[Token], name: str, lane: str, before: int, seen: frozenset[str] = frozenset()) -> bool:
    """Whether a name may differ between lanes 0 and 1 of a warp: the lane itself, threadIdx.x, or a
    local defined from them (through other locals too) other than through `>> 5`, `/ 32` or
    `/ warpSize` (a warp's index)."""
    if name in (lane, "threadIdx", "lane"):
        return True
    for text in _definitions(toks, name, before):
        names = set(re.findall(r"[A-Za-z_]\w*", re.sub(r"\.\w+", "", text))) - seen - {name, *_BUILTIN}
        from_lane = "threadIdx.x" in text or lane in text.replace("threadIdx.x", "")
        if (from_lane or any(_lane_dependent(toks, n, lane, before, seen | {name}) for n in names)) and not (
            text.endswith((">>5", ">>5)", "/32", "/warpSize")) or ")>>5" in text
        ):
            return True
    return False


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


def survival(m: dict[str, str]) -> str:
    """Why a mutant of this kind may survive a check, for the survivors' line (a reason to look for
    the input that kills it, not a proof)."""
    what = m.get("what", "")
    if m.get("kind") == "bound":
        if any(w in what for w in ("threadIdx", "blockIdx", "for (")) or re.search(r"`if \(\w+ [<>]=? \w+\)", what):
            return "no thread or loop reaches the bound's edge at the sizes and block sizes checked"
        return "no input makes the two sides equal (a tie)"
    if m.get("kind") in ("type", "mask"):
        return "the values never leave the narrower type's range in the inputs checked"
    if m.get("kind") == "const":
        return "the constant changes the outputs only for inputs beyond it (a sentinel, a start), or not at all"
    if m.get("kind") in ("drop", "sign", "swap") and "threadIdx" in what:
        return "the term is zero at the block size checked"
    return "every input tried gives the original's outputs"
