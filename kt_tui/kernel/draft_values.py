"""What an int input array's values are, read off where its loaded values go (kernel/draft.py draws
them accordingly):

- reduced: every load (or every read of a local declared as one) reaches the rest of the kernel only
  through `% m`, `& m` or `>> s` then `% m` or `& m` (a digit, a hash bucket, a bit field; `m` a mask of
  low bits or a scalar): any value of the type is safe, and high bits tell a kernel that reads
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
            if op == "&" and not _low_mask(up.child_by_field_name("right")):
                break  # `& ~3u` keeps high bits: no digit, no bucket
            if op in REDUCING:
                found = op if found is None or op != ">>" else found
                n = up
                continue
        break
    return None if found == ">>" else found


def _low_mask(n: Node | None) -> bool:
    """Whether `n` is a mask of low bits: a whole literal 2**k - 1 (`255`, `0xffu`) or a name (a
    scalar the caller sets)."""
    n = strip_parens(n) if n is not None else None
    if n is None:
        return False
    if n.type == "identifier":
        return True
    word = text(n).rstrip("uUlL")
    try:
        value = int(word, 0)
    except ValueError:
        return False
    return value > 0 and value & (value + 1) == 0


def _held(load: Node) -> str | None:
    """The local a load is the whole value of (`T v = a[i];`, through casts and parentheses), once declared."""
    n = load
    while n.parent is not None and n.parent.type in ("parenthesized_expression", "cast_expression"):
        n = n.parent
    up = n.parent
    if up is None or up.type != "init_declarator" or up.child_by_field_name("value") != n:
        return None
    d = up.child_by_field_name("declarator")
    return text(d) if d is not None and d.type == "identifier" else None


def reduced(fn: cuda_ast.Function, arrays: set[str]) -> dict[str, str]:
    """Arrays of `arrays` whose every load (more than none) is reduced by `%` or `&` (a shift before
    them allowed) before anything else takes it -> the last reduction's operator."""
    out: dict[str, str] = {}
    if fn.body is None:
        return out
    uses: dict[str, list[Node]] = {}  # a local's name -> where it is read
    for n in cuda_ast.walk(fn.body):
        declared = n.parent is not None and n.parent.type == "init_declarator"
        if n.type == "identifier" and not (declared and n.parent.child_by_field_name("declarator") == n):
            uses.setdefault(text(n), []).append(n)
    ops: dict[str, set[str | None]] = {}
    for load in _loads(fn.body, arrays):
        held = _held(load)  # `const unsigned k = keys[i];`: where k is read instead
        for at in uses.get(held, []) if held is not None else [load]:
            ops.setdefault(text(load.child_by_field_name("argument")), set()).add(_reducer(at))
        if held is not None and not uses.get(held):
            ops.setdefault(text(load.child_by_field_name("argument")), set()).add(None)
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
