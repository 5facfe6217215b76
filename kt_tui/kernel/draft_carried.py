"""Scalars that say how much of an old value carries on (kernel/draft.py). A float that multiplies a local in
that local's own update inside a loop (`last = delta + gamma * lam * last`: a discount, a leaky
integrator's leak) is near 1, so many steps count; one whose complement scales a correction added back into
the element it corrects (`e + (1 - d) * (p - e)`: a moving average's decay, through locals and a min) is near
1 too. An int added to a constant in both terms of a quotient (`(1 + step) / (10 + step)`: a warmup ratio
that rises to 1) is a large count, past the warmup, so the ratio does not decide everything."""

from __future__ import annotations

import re

from . import cuda_ast
from .cuda_ast import Node, text
from .draft_floats import MADE_UP
from .draft_guards import _NUMBER, _op
from .draft_roles import _locals, _through, strip_parens
from .spec import Arg

DISCOUNTS = (0.95, 0.97, 0.9)  # near 1, apart: a kernel that swaps two fails
DISCOUNT_WHY = (
    "it multiplies a local in that local's own update in a loop (`acc = x + g * acc`: a discount or a leak "
    "carried from step to step): near 1, so many steps count; set the value you use"
)
EMA_DECAY = 0.99
EMA_DECAY_WHY = (
    "1 minus it scales a correction added back into the element it corrects (`e + (1 - d) * (p - e)`: a moving "
    "average's decay): near 1, as such decays are, so the average moves a little each step"
)
WARMED = 1000000
WARMED_WHY = (
    "added to a constant in both terms of a quotient (`(1 + step) / (10 + step)`: a warmup ratio that rises to "
    "1): a large count, past the warmup, so the ratio does not decide the result"
)
_ONE = re.compile(r"^\(*\s*1(\.0*)?[fF]?\s*\)*$|^\(*\s*[A-Za-z_]\w*\s*\(\s*1\s*\)\s*\)*$")  # 1, 1.0f, T(1)
_LOOPS = ("for_statement", "while_statement", "do_statement")


def _names(n: Node | None, locals_: dict[str, list[Node]]) -> set[str]:
    return {text(m) for m in _through(n, locals_) if m.type == "identifier"}


def _factors(n: Node | None) -> list[Node]:
    n = strip_parens(n)
    if n is not None and _op(n) == "*":
        return _factors(n.child_by_field_name("left")) + _factors(n.child_by_field_name("right"))
    return [n] if n is not None else []


def _in_loop(n: Node, stop: Node) -> bool:
    """Whether `n` lies in a loop's body below `stop` (the local's declaration's scope)."""
    up = n.parent
    while up is not None and up is not stop:
        if up.type in _LOOPS:
            return True
        up = up.parent
    return False


def discounts(fn: cuda_ast.Function, floats: set[str]) -> list[str]:
    """Float scalars of `floats` that are factors of a product holding local L in an assignment `L = ...`
    inside a loop that L is declared outside of, in the order the kernel first uses them."""
    out: list[str] = []
    if fn.body is None or not floats:
        return out
    declared: dict[str, Node] = {}  # a local -> the block that declares it
    for n in cuda_ast.walk(fn.body):
        if n.type == "init_declarator" and (d := n.child_by_field_name("declarator")) is not None:
            if d.type == "identifier" and n.parent is not None and n.parent.parent is not None:
                declared.setdefault(text(d), n.parent.parent)
    for n in cuda_ast.walk(fn.body):
        if n.type != "assignment_expression" or text(n.child_by_field_name("operator")) != "=":
            continue
        left = strip_parens(n.child_by_field_name("left"))
        if left is None or left.type != "identifier" or text(left) not in declared:
            continue
        if not _in_loop(n, declared[text(left)]):
            continue
        for m in cuda_ast.walk(n.child_by_field_name("right")):
            if _op(m) != "*" or (m.parent is not None and _op(m.parent) == "*"):
                continue
            factors = [text(f) for f in _factors(m)]
            if text(left) in factors:
                out += [f for f in factors if f in floats and f not in out]
    return out


def ema_decays(fn: cuda_ast.Function, floats: set[str]) -> set[str]:
    """Float scalars of `floats` inside X (through locals) of a `1 - X` factor of a product in the value
    stored to an array element whose value (through locals) also reads that array."""
    out: set[str] = set()
    if fn.body is None or not floats:
        return out
    locals_ = _locals(fn)
    for n in cuda_ast.walk(fn.body):
        if n.type != "assignment_expression" or text(n.child_by_field_name("operator")) != "=":
            continue
        left = strip_parens(n.child_by_field_name("left"))
        if left is None or left.type != "subscript_expression":
            continue
        array = text(left.child_by_field_name("argument"))
        value = n.child_by_field_name("right")
        reads = {
            text(m.child_by_field_name("argument"))
            for m in _through(value, locals_)
            if m.type == "subscript_expression"
        }
        if array not in reads:
            continue
        for m in _through(value, locals_):
            if _op(m) != "*":
                continue
            for f in _factors(m):
                for c in _through(f, locals_):
                    if _op(c) == "-" and _ONE.match(text(c.child_by_field_name("left"))):
                        out |= _names(c.child_by_field_name("right"), locals_) & floats
    return out


def _number(n: Node | None) -> bool:
    """A number, cast (`(float)10`) or constructed (`T(10)`) or not."""
    n = strip_parens(n)
    if n is not None and n.type in ("call_expression", "cast_expression"):
        inner = n.child_by_field_name("arguments") if n.type == "call_expression" else n.child_by_field_name("value")
        n = strip_parens(inner.named_children[0] if inner is not None and inner.named_children else inner)
        n = strip_parens(n) if n is not None and n.type != "argument_list" else n
    return n is not None and bool(_NUMBER.match(text(n)))


def _plus_constant(n: Node | None, name: str) -> bool:
    """`n` is `K + name` or `name + K` for a number K."""
    n = strip_parens(n)
    if n is None or _op(n) != "+":
        return False
    sides = [strip_parens(n.child_by_field_name(f)) for f in ("left", "right")]
    return any(
        s is not None and s.type == "identifier" and text(s) == name and _number(sides[1 - i])
        for i, s in enumerate(sides)
    )


def warmups(fn: cuda_ast.Function, ints: set[str]) -> set[str]:
    """Int scalars of `ints` added to a number in both the dividend and the divisor of a quotient."""
    out: set[str] = set()
    if fn.body is None:
        return out
    for n in cuda_ast.walk(fn.body):
        if _op(n) == "/":
            for name in ints:
                if all(_plus_constant(n.child_by_field_name(f), name) for f in ("left", "right")):
                    out.add(name)
    return out


def carried(fn: cuda_ast.Function, args: list[Arg], guesses: list[tuple[str, str]]) -> None:
    """Float scalars given a made-up value that are discounts or moving-average decays, and int scalars
    given a made-up count that are warmup steps: their values set, said in a guess."""
    made_up = {a.name: a for a in args if not a.is_array and a.type.startswith("float") and a.value in MADE_UP}
    found: dict[str, tuple[float | int, str]] = {}
    for k, name in enumerate(discounts(fn, set(made_up))):
        found[name] = (DISCOUNTS[k % len(DISCOUNTS)], DISCOUNT_WHY)
    found.update({name: (EMA_DECAY, EMA_DECAY_WHY) for name in ema_decays(fn, set(made_up) - set(found))})
    counts = {
        a.name: a
        for a in args
        if not a.is_array
        and not a.type.startswith("float")
        and any(
            g == (f"args.{a.name}", f"{a.value}: an int that sizes nothing the analysis saw (apart from the others)")
            for g in guesses
        )
    }
    found.update({name: (WARMED, WARMED_WHY) for name in warmups(fn, set(counts))})
    for name, (value, why) in found.items():
        (made_up.get(name) or counts[name]).value = value
        guesses[:] = [g for g in guesses if g[0] != f"args.{name}"] + [(f"args.{name}", f"{value}: {why}")]
