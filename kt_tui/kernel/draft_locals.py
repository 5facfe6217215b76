"""Counts that a kernel's fixed-size arrays bound (kernel/draft_sizes.py): a scalar S that bounds a loop
`for (s = 0; s < S; ++s)` whose counter indexes an array the kernel declares with a constant extent E
(`float z1[MAX_SECTIONS]`, a thread's state per section; a `__shared__` table) is at most E, else the
loop writes or reads past the array (a local array's overflow corrupts the thread's other locals)."""

from __future__ import annotations

import re

from . import cuda_ast
from .cuda_ast import Node, text
from .draft_roles import strip_parens

OUTWARD = 200  # nodes walked out from an array's subscript to the loop whose counter indexes it, at most


def _arrays(fn: cuda_ast.Function, values: dict[str, int]) -> dict[str, int]:
    """Arrays declared in the kernel's body with one constant extent (through #defines and constants)."""
    out: dict[str, int] = {}
    for n in cuda_ast.walk(fn.body):
        if n.type != "declaration":
            continue
        values.update(cuda_ast.constants(n, values))
        for d in n.named_children:
            d = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
            if d is None or d.type != "array_declarator":
                continue
            inner = d.child_by_field_name("declarator")
            extent = cuda_ast.constant(d.child_by_field_name("size"), values)
            if inner is not None and inner.type == "identifier" and extent is not None and extent > 0:
                out[text(inner)] = extent
    return out


def _loop(n: Node, scalars: set[str]) -> tuple[str, str, int] | None:
    """(counter, S, the most the counter reaches past S - 1) of `for (c = 0 or more; c < S or <= S; ...)`
    with S a scalar of `scalars` and a counter that only grows."""
    init, cond, step = (n.child_by_field_name(f) for f in ("initializer", "condition", "update"))
    cond = strip_parens(cond)
    if init is None or step is None or cond is None or cond.type != "binary_expression":
        return None
    counter, op = text(cond.child_by_field_name("left")).strip(), text(cond.child_by_field_name("operator"))
    bound = strip_parens(cond.child_by_field_name("right"))
    if op not in ("<", "<=") or bound is None or bound.type != "identifier" or text(bound) not in scalars:
        return None
    first = re.fullmatch(rf"(?:[\w\s]*\s)?{re.escape(counter)}\s*=\s*(\d+)\s*;?", text(init).strip())
    said = re.sub(r"\s+", "", text(step))
    if first is None or said not in (f"++{counter}", f"{counter}++", f"{counter}+=1"):
        return None
    return counter, text(bound), int(op == "<=")


def local_caps(fn: cuda_ast.Function | None, defines: dict[str, int], scalars: set[str]) -> dict[str, tuple[int, str]]:
    """Scalar of `scalars` -> (the most it may be, why) where it bounds a loop whose counter (plus a
    constant) indexes a fixed-size array of the kernel."""
    if fn is None or fn.body is None:
        return {}
    values = dict(defines)
    arrays = _arrays(fn, values)
    out: dict[str, tuple[int, str]] = {}
    if not arrays:
        return out
    for m in cuda_ast.walk(fn.body):
        if m.type != "subscript_expression" or text(m.child_by_field_name("argument")) not in arrays:
            continue
        index = strip_parens(m.child_by_field_name("indices") or m.child_by_field_name("index"))
        if index is not None and index.type == "subscript_argument_list" and index.named_children:
            index = strip_parens(index.named_children[0])
        loop, up = m.parent, 0
        while loop is not None and loop.type != "function_definition" and up < OUTWARD:
            found = _loop(loop, scalars) if loop.type == "for_statement" else None
            shift = _shift(index, found[0], values) if found is not None else None
            if found is not None and shift is not None:
                array = text(m.child_by_field_name("argument"))
                most = arrays[array] - shift - found[2]
                if 1 <= most < out.get(found[1], (most + 1, ""))[0]:
                    out[found[1]] = (
                        most,
                        f"{most}: it bounds a loop whose counter indexes {array}, an array of {arrays[array]} the "
                        f"kernel declares: at most {most}, or the loop runs past it; set the value you use",
                    )
                break
            loop, up = loop.parent, up + 1
    return out


def _shift(index: Node | None, counter: str, values: dict[str, int]) -> int | None:
    """k where `index` is `counter + k` (k a constant, 0 or more), else None."""
    if index is None:
        return None
    if index.type == "identifier":
        return 0 if text(index) == counter else None
    if index.type == "binary_expression" and text(index.child_by_field_name("operator")) == "+":
        left, right = strip_parens(index.child_by_field_name("left")), strip_parens(index.child_by_field_name("right"))
        for a, b in ((left, right), (right, left)):
            if a is not None and a.type == "identifier" and text(a) == counter:
                k = cuda_ast.constant(b, values)
                return k if k is not None and k >= 0 else None
    return None
