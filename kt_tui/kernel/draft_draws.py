"""Float inputs that are uniform draws (kernel/draft.py): every value read is only ordered against a
float scalar argument or an expression of one (`u[i] < p`, `u[i] < 1 - powf(1 - beta, k)`), as a
Monte Carlo step tests a pre-drawn uniform number against a probability. Drawn in [0, 1), so each test
goes both ways; standard normal values (or [-100, 100)) are below any probability half the time or more,
and a kernel that swaps the test's sides is not told apart."""

from __future__ import annotations

from . import cuda_ast
from .cuda_ast import Node, text
from .draft_decay import draw_uniform, free_floats
from .draft_roles import strip_parens
from .spec import Arg

DRAW_SPAN = (0, 1)
_ORDERINGS = ("<", "<=", ">", ">=")


def _ordered_against_scalar(n: Node, scalars: set[str]) -> bool:
    """Whether `n` is one side of an ordering whose other side reads no array and names a scalar of
    `scalars`."""
    up = n.parent
    while up is not None and up.type == "parenthesized_expression":
        n, up = up, up.parent
    if up is None or up.type != "binary_expression" or text(up.child_by_field_name("operator")) not in _ORDERINGS:
        return False
    sides = [up.child_by_field_name(f) for f in ("left", "right")]
    other = next((s for s in sides if s is not None and s.start_byte != n.start_byte), None)
    if other is None:
        return False
    names = set()
    for m in cuda_ast.walk(other):
        if m.type == "subscript_expression":
            return False
        if m.type == "identifier":
            names.add(text(m))
    return bool(names & scalars)


def draw_arrays(fn: cuda_ast.Function, arrays: set[str], scalars: set[str]) -> set[str]:
    """The arrays of `arrays` each of whose loads is only ordered against a float scalar of `scalars`,
    directly or through a local declared as the load alone (`const float r = u[i]; if (r < p)`)."""
    if fn.body is None or not arrays or not scalars:
        return set()
    nodes = list(cuda_ast.walk(fn.body))
    uses: dict[str, list[Node]] = {}
    for n in nodes:
        if n.type == "identifier":
            uses.setdefault(text(n), []).append(n)
    out: set[str] = set()
    for name in arrays:
        loads = []
        for u in uses.get(name, []):
            load = u.parent
            if load is None or load.type != "subscript_expression" or load.child_by_field_name("argument") != u:
                break
            loads.append(load)
        else:
            if loads and all(_drawn_use(load, scalars, uses) for load in loads):
                out.add(name)
    return out


def _drawn_use(load: Node, scalars: set[str], uses: dict[str, list[Node]]) -> bool:
    """Whether the value of `load` is only ordered against a scalar, itself or a local holding it alone."""
    if _ordered_against_scalar(load, scalars):
        return True
    decl = load.parent
    if decl is None or decl.type != "init_declarator" or strip_parens(decl.child_by_field_name("value")) != load:
        return False
    local = decl.child_by_field_name("declarator")
    if local is None or local.type != "identifier":
        return False
    later = [u for u in uses.get(text(local), []) if u.start_byte != local.start_byte]
    return bool(later) and all(_ordered_against_scalar(u, scalars) for u in later)


def drawn(fn: cuda_ast.Function, scalars: set[str], args: list[Arg], guesses: list[tuple[str, str]]) -> None:
    """Float inputs drawn at random (no range given) that are uniform draws: drawn in DRAW_SPAN."""
    why = (
        "only ordered against a float scalar (`u[i] < p`, a uniform draw tested against a probability), so each "
        "test goes both ways"
    )
    draw_uniform(args, draw_arrays(fn, free_floats(args), scalars), DRAW_SPAN, why, guesses)
