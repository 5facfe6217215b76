"""Mutants of a warp's xor butterfly equivalent by construction (issue 35; kernel/equivalent.py has
the others): a butterfly started at 17 instead of 16 pairs the lanes as 16 does, and after a whole
butterfly every lane holds the same value, so a write guarded by `lane == 0` is the same from lane 1."""

from __future__ import annotations

import re

from .equivalent import _assignments, _close, _definitions, _if_around, _statement, _strip, _text
from .syntax import Token


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
