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
- after a whole xor butterfly every lane holds the same value, bit for bit (each step adds the same
  two values in both lanes): the write guarded by `lane == 0` is the same from lane 1, where the
  statement reads nothing else that differs between the two lanes.
"""

from __future__ import annotations

import re

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
        return ""
    first, last = _statement(toks, close)
    if first < 0 or last < 0:
        return ""
    body = _text(toks, first, last)
    if body in (f"{a}={b}", f"{b}={a}"):
        return f"`{body}` under `{a} {toks[i].text} {b}`: at the tie it assigns the value already there"
    if b in _ZERO and (body.endswith(f",{a})") and body.startswith("atomicAdd(") or body.endswith(f"+={a}")):
        return f"`{body}` under `{a} {toks[i].text} {b}`: at the tie it adds 0"
    return ""


def butterfly_start(toks: list[Token], i: int, new: str) -> str:
    """Why `16` -> `17` at token i, the start of a xor butterfly, changes nothing, or ""."""
    if toks[i].text != "16" or new != "17" or i < 3 or toks[i - 1].text != "=":
        return ""
    var = toks[i - 2].text
    open_ = next((j for j in range(i - 1, max(-1, i - 6), -1) if toks[j].text == "("), -1)
    if open_ < 1 or toks[open_ - 1].text != "for":
        return ""
    close = _close(toks, open_)
    step = [t.text for t in toks[close - 3 : close]]
    if step[0] != var or (step[1], step[2]) not in _HALVING:
        return ""
    first, last = _statement(toks, close)
    body = _text(toks, first, last) if first >= 0 else ""
    if not _xor_of(body, var):
        return ""
    return (
        "a xor butterfly started at 17: its first step pairs each lane of one half of the warp with one of the "
        "other half, as 16 does, then 8, 4, 2, 1: the same sum in another order"
    )


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
            starts = head.startswith((f"int{var}=16;", f"unsignedint{var}=16;", f"{var}=16;"))
            if starts and f";{var}>0;" in head and head.endswith(("".join((var, ">>=1")), f"{var}/=2")):
                if first >= 0 and (v := _xor_of(_text(toks, first, last), var)):
                    out.add(v)
    return out


def _lane_dependent(toks: list[Token], name: str, lane: str, before: int) -> bool:
    """Whether a name may differ between lanes 0 and 1 of a warp: the lane itself, threadIdx.x, or a
    local defined from them other than through `>> 5`, `/ 32` or `/ warpSize` (a warp's index)."""
    if name in (lane, "threadIdx", "lane"):
        return True
    for k in range(before):
        if toks[k].text == name and k + 1 < len(toks) and toks[k + 1].text == "=":
            end = next((j for j in range(k, len(toks)) if toks[j].text == ";"), len(toks))
            text = _text(toks, k + 2, end)
            if ("threadIdx.x" in text or lane in text.replace("threadIdx.x", "")) and not (
                text.endswith((">>5", ">>5)", "/32", "/warpSize")) or ")>>5" in text
            ):
                return True
    return False


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
