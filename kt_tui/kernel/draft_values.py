"""What an int input array's values are, read off where its loaded values go (kernel/draft.py draws
them accordingly):

- reduced: every load reaches the rest of the kernel only through `% m`, `& m` or `>> s` (a digit, a
  hash bucket, a bit field): any value of the type is safe, and high bits tell a kernel that reads
  them with the wrong width or sign from one that does not.
- measured: a load (or a local holding one) is multiplied or divided by a float (a sensor count times
  its unit): a quantity, not a flag, even where the kernel also tests it against 0.
"""

from __future__ import annotations

from typing import Any

from . import cuda_ast
from .cuda_ast import text
from .draft_roles import strip_parens

Node = Any
REDUCING = ("%", "&", ">>")
WALK = 400  # nodes looked at under one operand: an expression's names, not a whole kernel's


def _loads(n: Node | None, arrays: set[str]) -> list[Node]:
    return [
        m
        for m in (cuda_ast.walk(n) if n is not None else [])
        if m.type == "subscript_expression" and text(m.child_by_field_name("argument")) in arrays
    ]


def _reducer(load: Node) -> str | None:
    """The operator of the first `%`, `&` or `>>` the load is the left operand of (through
    parentheses, casts and other reductions); None when something else takes it first."""
    n = load
    found = None
    while n.parent is not None:
        up = n.parent
        if up.type in ("parenthesized_expression", "cast_expression"):
            n = up
            continue
        if up.type == "binary_expression" and up.child_by_field_name("left") == n:
            op = text(up.child_by_field_name("operator"))
            if op in REDUCING:
                found = op if found is None or op != ">>" else found
                n = up
                continue
        break
    return None if found == ">>" else found


def reduced(fn: cuda_ast.Function, arrays: set[str]) -> dict[str, str]:
    """Arrays of `arrays` whose every load (more than none) is reduced by `%` or `&` (a shift before
    them allowed) before anything else takes it -> the last reduction's operator."""
    out: dict[str, str] = {}
    if fn.body is None:
        return out
    ops: dict[str, set[str | None]] = {}
    for load in _loads(fn.body, arrays):
        ops.setdefault(text(load.child_by_field_name("argument")), set()).add(_reducer(load))
    for name, found in ops.items():
        if None not in found:
            out[name] = "&" if found == {"&"} else "%"
    return out


def measured(fn: cuda_ast.Function, arrays: set[str], floats: set[str]) -> set[str]:
    """Arrays of `arrays` a load of which (directly or through a local, two deep) is a factor of a
    product or a quotient with a float scalar argument of `floats`."""
    out: set[str] = set()
    if fn.body is None or not arrays or not floats:
        return out
    holds: dict[str, set[str]] = {}  # a local -> the arrays its value loads
    for _ in range(2):
        for n in cuda_ast.walk(fn.body):
            if n.type == "init_declarator" and (d := n.child_by_field_name("declarator")) is not None:
                name = text(d) if d.type == "identifier" else None
                if name is not None:
                    holds[name] = _carried(n.child_by_field_name("value"), arrays, holds)
    for n in cuda_ast.walk(fn.body):
        if n.type != "binary_expression" or text(n.child_by_field_name("operator")) not in ("*", "/"):
            continue
        sides = [strip_parens(n.child_by_field_name(k)) for k in ("left", "right")]
        names = [
            {text(m) for m in cuda_ast.walk(s, WALK) if m.type == "identifier"} if s is not None else set()
            for s in sides
        ]
        for i in (0, 1):
            if names[1 - i] & floats:
                out |= _carried(sides[i], arrays, holds)
    return out


def _carried(n: Node | None, arrays: set[str], holds: dict[str, set[str]]) -> set[str]:
    if n is None:
        return set()
    out = {text(m.child_by_field_name("argument")) for m in _loads(n, arrays)}
    for m in cuda_ast.walk(n):
        if m.type == "identifier" and text(m) in holds:
            out |= holds[text(m)]
    return out
