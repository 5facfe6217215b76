"""Mutants equivalent by construction (issue 35), and why the others may survive a check. The
equivalents are edits of kernel/mutant.py that no input can tell from the original under the check's
comparison, recognised by their pattern in the tokens, each with the reason a reader can verify.
They are explained and not counted; anything an input could kill is left to the runs.

- a select between the two sides it compares (`v > 0.0f ? v : 0.0f`, `if (x > m) m = x;`): at the tie
  both arms hold the same value, so `>` and `>=` give the same result;
- a guard `x > 0` around adding x (`if (c > 0) atomicAdd(&h[b], c);`, also as one term of an `&&`
  chain: `if (threadIdx.x == 0 && c > 0) ...`): at the tie it adds 0;
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
The xor butterfly's two (started at 17; the write from lane 1) are in kernel/equivalent_warp.py;
three more, a `__shared__` array declared larger, a block guard under an exact launch and a xor
partner's tie, are in kernel/equivalent_launch.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .syntax import Token

_STOP = {";", "{", "}", ",", "=", "(", "return", "&&", "||", "?", ":", "+=", "-=", "*=", "/="}
_ZERO = {"0", "0u", "0U", "0.0f", "0.f", "0.0", "0.", "0.0F"}


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
    j = opening(toks, i)
    return (j, _close(toks, j)) if j > 0 and toks[j - 1].text == "if" else (-1, -1)


def opening(toks: list[Token], i: int) -> int:
    """The index of the `(` whose parentheses hold token i within its statement, or -1."""
    depth = 0
    for j in range(i - 1, -1, -1):
        t = toks[j].text
        if t == ")":
            depth += 1
        elif t == "(":
            if depth == 0:
                return j
            depth -= 1
        elif t in (";", "{", "}"):
            return -1
    return -1


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
    if b in _ZERO and _adds(body, a):
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
    first, last = _statement(toks, if_close)
    body = _text(toks, first, last) if first >= 0 and last >= 0 else ""
    cond = _text(toks, if_open + 1, if_close)
    if b in _ZERO and not _else_after(toks, if_close) and _adds(body, a) and not _acts(cond):
        return f"`{body}` under `{_chain(terms)}`: at the tie it adds 0, whatever the other terms are"
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


def _adds(body: str, a: str) -> bool:
    """Whether the statement only adds `a` to something (`atomicAdd(p, a)`, `s += a`)."""
    if body.startswith("atomicAdd(") and body.endswith(f",{a})"):
        return not _acts(body[len("atomicAdd(") : -len(f",{a})")])
    return body.endswith(f"+={a}") and not _acts(body[: -len(f"+={a}")])


def _acts(text: str) -> bool:
    """Whether an expression (no spaces) may do more than compute a value: a call (`atomicAdd(n, 1)`
    taking a slot), `++`, `--` or an assignment; where it runs at the tie only, the tie shows."""
    return bool(re.search(r"\w\(|\+\+|--|(?:^|[^=!<>])=(?!=)", text))


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


def _definitions(toks: list[Token], name: str, before: int) -> list[str]:
    """The texts a local is set to (`name = ...;`) before token `before`."""
    out = []
    for k in range(before):
        if toks[k].text == name and k + 1 < len(toks) and toks[k + 1].text == "=":
            end = next((j for j in range(k, len(toks)) if toks[j].text == ";"), len(toks))
            out.append(_text(toks, k + 2, end))
    return out


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
