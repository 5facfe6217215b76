"""Row pitches read off a bound check (kernel/draft.py): where an array is read at `y * step + x` and the
same function tests `x < w` before the read (`x >= 0 && x < w ? src[y * step + x] : border`), `step` is the
distance between rows of width `w`, in elements (bytes for an 8-bit image), so it is at least `w`. The kernel
and the device functions it calls are read, a device function's parameters followed to the kernel's names
at each call. An int the analysis saw size nothing is drawn as `w` padded."""

from __future__ import annotations

import re

from . import cuda_ast
from .cuda_ast import Node, text
from .draft_roles import unwrapped
from .spec import Spec

PAD = 32
NOTHING = "sizes nothing"  # the guess draft.py gives an int it found no role for


def _op(n: Node) -> str:
    return text(n.child_by_field_name("operator"))


def _bounded(fn: cuda_ast.Function, ints: set[str]) -> dict[str, set[str]]:
    """Locals tested against an int of `ints` (`x < w`, `w > x`, `x >= w` to leave): local -> those ints.
    Read off the text: a parser may take `x < w && y > 0` for a template's arguments."""
    out: dict[str, set[str]] = {}
    body = text(fn.body)
    for m in _BELOW.finditer(body):
        x, w = (m["a"], m["b"]) if m["op"] in ("<", ">=") else (m["b"], m["a"])
        if w in ints and x not in ints and not x[0].isdigit():
            out.setdefault(x, set()).add(w)
    return out


_BELOW = re.compile(r"(?<![\w.>-])(?P<a>[A-Za-z_]\w*)\s*(?P<op><=?|>=?)(?![<>=])\s*(?P<b>[A-Za-z_]\w*)\b(?!\s*[(\[.])")


def _terms(n: Node | None, op: str) -> list[Node]:
    n = unwrapped(n)
    if n is not None and n.type == "binary_expression" and _op(n) == op:
        return _terms(n.child_by_field_name("left"), op) + _terms(n.child_by_field_name("right"), op)
    return [n] if n is not None else []


def pitches(fn: cuda_ast.Function, ints: set[str]) -> set[tuple[str, str]]:
    """(step, width) of `fn`'s parameters for each index `... * step + x` of an array with `x < width` tested."""
    if fn.body is None:
        return set()
    bounded = _bounded(fn, ints)
    found: set[tuple[str, str]] = set()
    for n in cuda_ast.walk(fn.body):
        if n.type != "subscript_expression":
            continue
        args = n.child_by_field_name("indices") or n.named_children[-1]
        terms = _terms(args.named_children[0] if args.named_children else args, "+")
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
    found = pitches(fn, ints)
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


def fit(spec: Spec, unit: cuda_ast.Unit, kernel: str, guesses: list[tuple[str, str]]) -> None:
    """A pitch given no role (`sizes nothing`) drawn at its row's width plus PAD."""
    args = {a.name: a for a in spec.args if not a.is_array}
    for step, width in sorted(kernel_pitches(unit, kernel)):
        a, w = args.get(step), args.get(width)
        key = f"args.{step}"
        at = next((i for i, (k, why) in enumerate(guesses) if k == key and NOTHING in why), None)
        if a is None or w is None or at is None or a.init != "constant" or not isinstance(a.value, int):
            continue
        if isinstance(w.value, int):
            a.value = w.value + PAD
        elif isinstance(w.value, str):
            a.value = f"{w.value} + {PAD}"
        else:
            continue
        guesses[at] = (
            key,
            f"{step} = {a.value}: it steps between rows of an array read at `row * {step} + x` after a test "
            f"`x < {width}`: at least {width}, and padded; set the pitch you use",
        )
