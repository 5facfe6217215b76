"""Counts that a kernel's fixed-size arrays bound (kernel/draft_sizes.py): a scalar S that bounds a loop
`for (s = 0; s < S; ++s)` whose counter indexes an array the kernel declares with a constant extent E
(`float z1[MAX_SECTIONS]`, a thread's state per section; a `__shared__` table) is at most E, else the
loop writes or reads past the array (a local array's overflow corrupts the thread's other locals). A subscript
names the array only where no nearer declaration of its name is in scope (a pointer of another block), and
caps nothing under a test of the counter against a constant (`if (k < 16) head[k] = v`: the first items
kept, the loop running on past them)."""

from __future__ import annotations

import re

from . import cuda_ast
from .cuda_ast import Node, text
from .draft_roles import strip_parens

OUTWARD = 200  # nodes walked out from an array's subscript to the loop whose counter indexes it, at most
NAMESAKES = 64  # declarations of one name read, at most: a name declared more often caps nothing
UPPER = {"<": True, "<=": True, ">": False, ">=": False}


def _declared(d: Node | None) -> str | None:
    """The name a declarator declares (through pointers, arrays, references and initialisers)."""
    while d is not None and d.type in (
        "init_declarator",
        "pointer_declarator",
        "array_declarator",
        "reference_declarator",
    ):
        d = d.child_by_field_name("declarator") or (d.named_children[-1] if d.type == "reference_declarator" else None)
    return text(d) if d is not None and d.type == "identifier" else None


def _arrays(fn: cuda_ast.Function, values: dict[str, int]) -> dict[str, list[tuple[Node, int | None]]]:
    """Each name declared in the kernel's body -> its declarations, with the constant extent of those that
    declare an array of one (through #defines and constants), None for the others."""
    out: dict[str, list[tuple[Node, int | None]]] = {}
    for n in cuda_ast.walk(fn.body):
        if n.type != "declaration":
            continue
        values.update(cuda_ast.constants(n, values))
        for d in n.named_children:
            name = _declared(d)
            if name is None:
                continue
            d = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
            extent = None
            if d is not None and d.type == "array_declarator":
                inner = d.child_by_field_name("declarator")
                if inner is not None and inner.type == "identifier":
                    extent = cuda_ast.constant(d.child_by_field_name("size"), values)
            out.setdefault(name, []).append((n, extent if extent is not None and extent > 0 else None))
    return out


def _extent(m: Node, namesakes: list[tuple[Node, int | None]]) -> int | None:
    """The extent of the array a subscript at m names: its name's nearest declaration before m in a
    block around m, if that declares an array of a constant extent."""
    best: tuple[int, int | None] | None = None
    for decl, extent in namesakes[:NAMESAKES] if len(namesakes) <= NAMESAKES else []:
        scope = decl.parent
        if scope is None or decl.start_byte > m.start_byte:
            continue
        if scope.start_byte <= m.start_byte and m.end_byte <= scope.end_byte:
            if best is None or decl.start_byte > best[0]:
                best = (decl.start_byte, extent)
    return best[1] if best is not None else None


def _bounds_counter(cond: Node | None, counter: str, values: dict[str, int]) -> bool:
    """Whether cond tests the counter against a constant above it (`k < 16`, `8 > k`)."""
    for n in cuda_ast.walk(cond) if cond is not None else ():
        op = text(n.child_by_field_name("operator")) if n.type == "binary_expression" else ""
        if op not in UPPER:
            continue
        left, right = strip_parens(n.child_by_field_name("left")), strip_parens(n.child_by_field_name("right"))
        for a, b, upper in ((left, right, UPPER[op]), (right, left, not UPPER[op])):
            if upper and a is not None and text(a).strip() == counter and cuda_ast.constant(b, values) is not None:
                return True
    return False


def _guarded(child: Node, parent: Node, counter: str, values: dict[str, int]) -> bool:
    """Whether parent runs child only under a test of the counter against a constant."""
    if parent.type in ("if_statement", "conditional_expression"):
        cond = parent.child_by_field_name("condition")
        return cond is not None and cond.id != child.id and _bounds_counter(cond, counter, values)
    if parent.type == "binary_expression" and text(parent.child_by_field_name("operator")) == "&&":
        right = parent.child_by_field_name("right")
        return (
            right is not None
            and right.id == child.id
            and _bounds_counter(parent.child_by_field_name("left"), counter, values)
        )
    return False


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
    if not any(e is not None for decls in arrays.values() for _, e in decls):
        return out
    for m in cuda_ast.walk(fn.body):
        if m.type != "subscript_expression" or text(m.child_by_field_name("argument")) not in arrays:
            continue
        array = text(m.child_by_field_name("argument"))
        extent = _extent(m, arrays[array])
        index = strip_parens(cuda_ast.subscript_index(m))
        path, loop, up = [m], m.parent, 0
        while extent is not None and loop is not None and loop.type != "function_definition" and up < OUTWARD:
            found = _loop(loop, scalars) if loop.type == "for_statement" else None
            shift = _shift(index, found[0], values) if found is not None else None
            if found is not None and shift is not None:
                counter = found[0]
                guarded = any(_guarded(c, p, counter, values) for c, p in zip(path, path[1:], strict=False))
                most = extent - shift - found[2]
                if not guarded and 1 <= most < out.get(found[1], (most + 1, ""))[0]:
                    out[found[1]] = (
                        most,
                        f"{most}: it bounds a loop whose counter indexes {array}, an array of {extent} the "
                        f"kernel declares: at most {most}, or the loop runs past it; set the value you use",
                    )
                break
            path.append(loop)
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
