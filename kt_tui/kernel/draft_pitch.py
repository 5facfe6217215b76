"""Row pitches read off a bound check (kernel/draft_radix.py keeps them): where an array is read at `y * step
+ x` and the same function tests `x < w` before the read (`x >= 0 && x < w ? src[y * step + x] : border`), or
takes x from a device function that tests its value against w (`x = reflect(v, w)`), `step` is the distance
between rows of width `w`, in elements (bytes for an 8-bit image), so it is at least `w`. The kernel and the
device functions it calls are read, a device function's parameters followed to the kernel's names at each
call."""

from __future__ import annotations

import re

from . import cuda_ast
from .cuda_ast import Node, text
from .draft_roles import unwrapped


def _op(n: Node) -> str:
    return text(n.child_by_field_name("operator"))


def _bounded(fn: cuda_ast.Function, ints: set[str], unit: cuda_ast.Unit | None = None) -> dict[str, set[str]]:
    """Locals tested against an int of `ints` (`x < w`, `w > x`, `x >= w` to leave): local -> those ints;
    and locals a device function of `unit` returns given w, where it tests its value against w (`x =
    reflect(v, w)`). Read off the text: a parser may take `x < w && y > 0` for a template's arguments."""
    out: dict[str, set[str]] = {}
    body = text(fn.body)
    for m in _BELOW.finditer(body):
        x, w = (m["a"], m["b"]) if m["op"] in ("<", ">=") else (m["b"], m["a"])
        if w in ints and x not in ints and not x[0].isdigit():
            out.setdefault(x, set()).add(w)
    for n in cuda_ast.walk(fn.body) if unit is not None else []:
        value = n.child_by_field_name("value") if n.type == "init_declarator" else None
        call = unwrapped(value)
        if call is None or call.type != "call_expression":
            continue
        dev = unit.devices.get(text(call.child_by_field_name("function"))) if unit is not None else None
        given = [c for c in call.child_by_field_name("arguments").named_children if c.type != "comment"]
        if dev is None or len(given) != len(dev.params) or (name := n.child_by_field_name("declarator")) is None:
            continue
        out.setdefault(text(name), set()).update(
            text(g) for p, g in zip(dev.params, given) if text(g) in ints and _bounded(dev, {p.name})
        )
    return out


_BELOW = re.compile(r"(?<![\w.>-])(?P<a>[A-Za-z_]\w*)\s*(?P<op><=?|>=?)(?![<>=])\s*(?P<b>[A-Za-z_]\w*)\b(?!\s*[(\[.])")


def _terms(n: Node | None, op: str) -> list[Node]:
    n = unwrapped(n)
    if n is not None and n.type == "binary_expression" and _op(n) == op:
        return _terms(n.child_by_field_name("left"), op) + _terms(n.child_by_field_name("right"), op)
    return [n] if n is not None else []


def pitches(fn: cuda_ast.Function, ints: set[str], unit: cuda_ast.Unit | None = None) -> set[tuple[str, str]]:
    """(step, width) of `fn`'s parameters for each index `... * step + x` of an array with `x < width` tested."""
    if fn.body is None:
        return set()
    bounded = _bounded(fn, ints, unit)
    found: set[tuple[str, str]] = set()
    for n in cuda_ast.walk(fn.body):
        if n.type != "subscript_expression":
            continue
        terms = _terms(cuda_ast.subscript_index(n), "+")
        if len(terms) != 2:
            continue
        for scaled, column in (terms, terms[::-1]):
            steps = [text(f) for f in _terms(scaled, "*") if f.type == "identifier" and text(f) in ints]
            if len(_terms(scaled, "*")) == 2 and len(steps) == 1 and column.type == "identifier":
                found |= {(steps[0], w) for w in bounded.get(text(column), ()) if w != steps[0]}
    return found


def kernel_pitches(unit: cuda_ast.Unit, kernel: str) -> set[tuple[str, str]]:
    """`pitches` of the kernel and of the device functions it calls, named by the kernel's int parameters."""
    fn = unit.kernels[kernel]
    ints = {p.name for p in fn.params if not p.pointer and p.type in ("int", "unsigned", "size_t", "long")}
    found = pitches(fn, ints, unit)
    for n in cuda_ast.walk(fn.body):
        if n.type != "call_expression" or (dev := unit.devices.get(text(n.child_by_field_name("function")))) is None:
            continue
        given = [c for c in n.child_by_field_name("arguments").named_children if c.type != "comment"]
        if len(given) != len(dev.params):
            continue
        names = {p.name: text(g) for p, g in zip(dev.params, given) if unwrapped(g) is not None}
        names = {k: v for k, v in names.items() if v in ints}
        for step, width in pitches(dev, set(names)):
            found.add((names[step], names[width]))
    return found
