"""Check sizes that hold whole periods of a thread's position (kernel/draft.py): where a thread index is
divided by a scalar and taken modulo another (`(i / stride) % dim`: the position along a dimension of
`dim` places, `stride` elements apart), the threads of every check size span at least two whole periods
(2 * dim * stride), so the checks see positions wrap and more than one outer slice; fewer threads test
part of one slice, where a kernel that ignores the outer slices passes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import cuda_ast
from .cuda_ast import text
from .draft_roles import unwrapped
from .expr import ExprError, evaluate
from .spec import Spec
from .spec_model import default_verify_sizes

Node = Any
PERIODS = 2  # whole periods the threads of a check size span at least


def _threaded(fn: cuda_ast.Function) -> set[str]:
    """The locals whose value comes from a thread or block index (`i = blockIdx.x * blockDim.x + ...`),
    directly or through other such locals."""
    out: set[str] = set()
    decls: list[tuple[str, Node]] = []
    for n in cuda_ast.walk(fn.body):
        if n.type == "init_declarator":
            name, value = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            if name is not None and value is not None and name.type == "identifier":
                decls.append((text(name), value))
    for _ in range(len(decls)):
        grown = False
        for name, value in decls:
            if name in out:
                continue
            ids = {text(x) for x in cuda_ast.walk(value) if x.type in ("identifier", "field_identifier")}
            if "threadIdx" in text(value) or ids & out:
                out.add(name)
                grown = True
        if not grown:
            break
    return out


def periods(fn: cuda_ast.Function, scalars: set[str]) -> list[tuple[str, str]]:
    """(stride, dim) for each `(i / stride) % dim` with i a thread's index and stride, dim scalar
    arguments among `scalars`."""
    threaded = _threaded(fn)
    out: list[tuple[str, str]] = []
    for n in cuda_ast.walk(fn.body):
        if n.type != "binary_expression" or text(n.child_by_field_name("operator")) != "%":
            continue
        div, dim = unwrapped(n.child_by_field_name("left")), unwrapped(n.child_by_field_name("right"))
        if div is None or dim is None or dim.type != "identifier" or text(dim) not in scalars:
            continue
        if div.type != "binary_expression" or text(div.child_by_field_name("operator")) != "/":
            continue
        i, stride = unwrapped(div.child_by_field_name("left")), unwrapped(div.child_by_field_name("right"))
        if i is None or stride is None or stride.type != "identifier" or text(stride) not in scalars:
            continue
        if i.type == "identifier" and text(i) in threaded and (text(stride), text(dim)) not in out:
            out.append((text(stride), text(dim)))
    return out


def _value(spec: Spec, name: str, sizes: dict[str, int]) -> int | None:
    arg = next((a for a in spec.args if a.name == name and not a.is_array), None)
    try:
        v = (
            evaluate(arg.value, sizes)
            if arg is not None and isinstance(arg.value, str)
            else getattr(arg, "value", None)
        )
    except ExprError:
        return None
    return int(v) if isinstance(v, int | float) and not isinstance(v, bool) and v == int(v) and v > 0 else None


def raise_checks(spec: Spec, size: str, least: Callable[[dict[str, int]], int], odd: bool = False) -> bool:
    """Raises `size` in each check size (the drafted ones, or the derived ragged and small) to at least
    `least` of its sizes (`odd`: to an odd number, ragged against the block sizes); whether it changed
    any. Changes nothing where a raised size leaves the problem size unreadable."""
    tables = spec.verify_sizes if spec.verify_sizes is not None else default_verify_sizes(spec)
    raised, changed = [], False
    for t in tables:
        t = dict(t)
        need = least({**spec.sizes, **t})
        if t.get(size, spec.sizes[size]) < need:
            t[size] = need + 1 if odd and need % 2 == 0 else need
            changed = True
            try:
                evaluate(spec.problem_size[0], {**spec.sizes, **t})
            except ExprError:
                return False
        raised.append(t)
    if changed:
        spec.verify_sizes = raised
    return changed


def whole_periods(spec: Spec, fn: cuda_ast.Function) -> list[tuple[str, str]]:
    """Raises the one-dimensional problem size of each check size (the drafted ones, or the derived
    ragged and small) to at least PERIODS whole periods of each `(i / stride) % dim`, at the stride and
    dim the draft gives there; the guesses to note. Changes nothing where the check sizes hold them."""
    scalars = {a.name for a in spec.args if not a.is_array}
    found = [(s, d) for s, d in periods(fn, scalars) if s != d]
    if len(spec.problem_size) != 1 or spec.problem_size[0] not in spec.sizes or not found:
        return []
    size = spec.problem_size[0]

    def least(sizes: dict[str, int]) -> int:
        tops = [(_value(spec, s, sizes), _value(spec, d, sizes)) for s, d in found]
        return max((PERIODS * a * b for a, b in tops if a is not None and b is not None), default=0)

    if spec.sizes[size] < least(spec.sizes):
        return []  # the default size is short of it too: no check size can be raised past it
    if not raise_checks(spec, size, least, odd=True):
        return []
    s, d = found[0]
    return [
        (
            f"sizes.{size}",
            f"check sizes at least {least(spec.sizes)} = {PERIODS} * {d} * {s}: the kernel takes a thread's index / "
            f"{s} % {d} (a position along a dimension of {d}, {s} apart), so each check spans whole periods of it",
        )
    ]
