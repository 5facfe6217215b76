"""Rows read at a column loaded from an int array (kernel/draft.py): `logp[i * ld + t]` with `t = target[i]`,
where t also picks an element of an array as long as an int size (`weight[t]`, weight of nclass). t is a
label below that size, and ld the stride of rows of that many columns: at least the size, padded past it
(a stride equal to the row's length passes a kernel that steps rows by the length). A draft that bounds the
label by the stride alone gives the stride a made-up small value and the label almost no room; here the
row's length is a moderate width, the stride that plus ROW_PAD, and the rows fewer in proportion, so the
strided array is as long as it was drafted."""

from __future__ import annotations

from . import cuda_ast
from .cuda_ast import Node, text
from .draft_flags import ROW_PAD
from .draft_roles import unwrapped
from .spec import Spec

WIDTH = 1000  # a row's length (classes) at most, so rows of it fit many to the drafted length
LEAST_ROWS = 64


def _op(n: Node) -> str:
    return text(n.child_by_field_name("operator"))


def _label(n: Node | None, held: dict[str, str], ints: set[str]) -> str | None:
    """The int array whose value `n` is: `a[...]`, or a local declared as one."""
    n = unwrapped(n)
    if n is None:
        return None
    if n.type == "subscript_expression" and text(a := n.child_by_field_name("argument")) in ints:
        return text(a) if _index(n) is not None else None
    return held.get(text(n)) if n.type == "identifier" else None


def _index(n: Node) -> Node | None:
    """The index of a subscript `a[i]` (its one index inside the argument list)."""
    return unwrapped(cuda_ast.subscript_index(n))


def _strided(n: Node | None, strides: set[str]) -> str | None:
    """s for `e * s` or `s * e` (through casts) with s of `strides`."""
    n = unwrapped(n)
    if n is None or n.type != "binary_expression" or _op(n) != "*":
        return None
    for f in ("left", "right"):
        side = unwrapped(n.child_by_field_name(f))
        if side is not None and side.type == "identifier" and text(side) in strides:
            return text(side)
    return None


def _product(n: Node) -> Node:
    """The outermost product (through negations and parentheses) that `n` is a factor of."""
    top, up = n, n.parent
    while up is not None and (
        up.type == "parenthesized_expression"
        or (up.type == "unary_expression" and _op(up) == "-")
        or (up.type == "binary_expression" and _op(up) == "*")
    ):
        top, up = up, up.parent
    return top


def _within(n: Node, top: Node) -> bool:
    return bool(top.start_byte <= n.start_byte and n.end_byte <= top.end_byte)


def find(fn: cuda_ast.Function, ints: set[str], strides: set[str]) -> list[tuple[str, str, str, str, bool]]:
    """(label array, stride, strided array, other array, weighs) for `b[e * s + t]` and `c[t]`, t a value
    of a label array of `ints` (directly or through a local), s an int scalar of `strides`, b and c
    different arrays; weighs when c[t] and the read of b are factors of one product (`-w[t] * b[...]`)."""
    if fn.body is None:
        return []
    held: dict[str, str] = {}
    for n in cuda_ast.walk(fn.body):
        if n.type == "init_declarator":
            d = n.child_by_field_name("declarator")
            if d is not None and d.type == "identifier" and (a := _label(n.child_by_field_name("value"), {}, ints)):
                held[text(d)] = a
    rows: list[tuple[str, str, Node]] = []  # (label, stride, the read)
    picked: list[tuple[str, Node]] = []  # (label, the read)
    for n in cuda_ast.walk(fn.body):
        if n.type != "subscript_expression":
            continue
        index = _index(n)
        if (label := _label(index, held, ints)) is not None:
            picked.append((label, n))
        elif index is not None and index.type == "binary_expression" and _op(index) == "+":
            sides = [index.child_by_field_name(f) for f in ("left", "right")]
            for a, b in (sides, sides[::-1]):
                if (label := _label(b, held, ints)) is not None and (s := _strided(a, strides)) is not None:
                    rows.append((label, s, n))
    out = []
    for lb, s, b in rows:
        for lb2, c in picked:
            pair = (text(b.child_by_field_name("argument")), text(c.child_by_field_name("argument")))
            if lb2 == lb and pair[0] != pair[1]:
                out.append((lb, s, *pair, _within(b, _product(c)) and _product(c) is not c))
    return out


def fit(spec: Spec, fn: cuda_ast.Function, guesses: list[tuple[str, str]]) -> None:
    """For each such label: its bound the other array's length (a size X), the stride X + ROW_PAD (a size
    drafted apart), X at most WIDTH, and the problem's sizes the strided array multiplies cut in proportion."""
    args = {a.name: a for a in spec.args}
    arrays = {a.name for a in spec.args if a.is_array and a.type.startswith(("int", "uint"))}
    for label, stride, strided, other, weighs in find(fn, arrays, {n for n in spec.sizes if args.get(n) is not None}):
        width = args[other].size if other in args else None
        if not (isinstance(width, str) and width in spec.sizes and width != stride and args[stride].value == stride):
            continue
        if any(width in t or stride in t for t in spec.verify_sizes or []):
            continue
        old = spec.sizes[stride]
        spec.sizes[width] = min(spec.sizes[width], WIDTH)
        spec.sizes[stride] = spec.sizes[width] + ROW_PAD
        size = str(args[strided].size)
        for dim in {n for p in spec.problem_size for n in spec.sizes if n in str(p)} - {width, stride}:
            if dim in size:
                spec.sizes[dim] = max(LEAST_ROWS, spec.sizes[dim] * old // spec.sizes[stride])
        args[label].low, args[label].high = 0, width
        guesses[:] = [g for g in guesses if g[0] not in (f"sizes.{stride}", f"sizes.{width}", f"args.{label}")]
        guesses.append((f"sizes.{width}", f"{spec.sizes[width]}: the length of a row of {strided} (at most {WIDTH})"))
        weight = args[other]
        if weighs and weight.type.startswith("float") and weight.init == "random" and weight.low is None:
            weight.init = "positive"
            guesses.append(
                (
                    f"args.{other}",
                    "values above 0: one per label, scaling the row's element the label picks (a class weight)",
                )
            )
        guesses.append(
            (
                f"sizes.{stride}",
                f"{spec.sizes[stride]}: it steps rows of {strided} read at a column loaded from {label}, which "
                f"also picks an element of {other} ({width} long): rows of {width} columns, padded past them",
            )
        )
        guesses.append(
            (
                f"args.{label}",
                f"values in [0, {width}): a label picking a column of a row of {strided} and an element of "
                f"{other}, so below {width}",
            )
        )
