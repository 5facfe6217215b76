"""Float inputs that hold a mass the kernel moves along edges (kernel/draft.py): a value read, split by a
degree (divided by the difference of two values read from an int array: a vertex's row offsets, `end -
begin`) and added with an atomic into other elements (`atomicAdd(&next[col[e]], share)`), as a push step of
PageRank spreads a vertex's rank over its out-edges. Such values are a probability distribution's: in [0, 1),
never negative (a negative rank or probability is no input the kernel is written for)."""

from __future__ import annotations

from . import cuda_ast
from .cuda_ast import Node, text
from .draft_pointers import declared_local
from .draft_roles import unwrapped
from .spec import Arg

ATOMIC_ADDS = ("atomicAdd", "atomicAdd_system", "atomicAdd_block")


def _op(n: Node) -> str:
    return text(n.child_by_field_name("operator"))


def _int_loads(fn: cuda_ast.Function, ints: set[str]) -> set[str]:
    """Locals declared as a load of an int array of `ints` (`const int begin = row_ptr[v]`)."""
    out = set()
    for n in cuda_ast.walk(fn.body):
        if n.type == "init_declarator":
            d, v = n.child_by_field_name("declarator"), unwrapped(n.child_by_field_name("value"))
            if d is not None and d.type == "identifier" and _loaded(v, ints):
                out.add(text(d))
    return out


def _loaded(n: Node | None, arrays: set[str]) -> bool:
    return n is not None and n.type == "subscript_expression" and text(n.child_by_field_name("argument")) in arrays


def _degree(n: Node | None, ints: set[str], held: set[str]) -> bool:
    """Whether `n` is the difference of two int values read from `ints` (directly or through locals)."""
    n = unwrapped(n)
    if n is None or n.type != "binary_expression" or _op(n) != "-":
        return False
    sides = [unwrapped(n.child_by_field_name(f)) for f in ("left", "right")]
    return all(s is not None and (_loaded(s, ints) or (s.type == "identifier" and text(s) in held)) for s in sides)


def _numerator(n: Node | None, floats: set[str]) -> set[str]:
    """The float arrays of `floats` read as factors of a product (`d * rank[v]`)."""
    n = unwrapped(n)
    if n is None:
        return set()
    if n.type == "binary_expression" and _op(n) == "*":
        return _numerator(n.child_by_field_name("left"), floats) | _numerator(n.child_by_field_name("right"), floats)
    return {text(n.child_by_field_name("argument"))} if _loaded(n, floats) else set()


def masses(fn: cuda_ast.Function, floats: set[str], ints: set[str]) -> set[str]:
    """Float arrays of `floats` read in a quotient by a degree whose value an atomic add scatters."""
    if fn.body is None or not floats or not ints:
        return set()
    held = _int_loads(fn, ints)
    shares: dict[str, set[str]] = {}  # a local given such a quotient -> the arrays split in it
    split: set[str] = set()
    quotients: list[tuple[Node, set[str]]] = []
    for n in cuda_ast.walk(fn.body):
        if n.type == "binary_expression" and _op(n) == "/" and _degree(n.child_by_field_name("right"), ints, held):
            if found := _numerator(n.child_by_field_name("left"), floats):
                quotients.append((n, found))
    for q, found in quotients:
        up = q.parent
        while up is not None and up.type in ("parenthesized_expression", "cast_expression"):
            up = up.parent
        if (d := declared_local(q)) is not None:
            shares[text(d)] = found
        elif up is not None and up.type == "argument_list":
            shares[text(q)] = found
    for n in cuda_ast.walk(fn.body):
        if n.type != "call_expression" or text(n.child_by_field_name("function")) not in ATOMIC_ADDS:
            continue
        given = [c for c in n.child_by_field_name("arguments").named_children if c.type != "comment"]
        if len(given) == 2 and (value := unwrapped(given[1])) is not None and text(value) in shares:
            split |= shares[text(value)]
    return split


def moved(fn: cuda_ast.Function, args: list[Arg], guesses: list[tuple[str, str]]) -> None:
    """Float inputs drawn at random that are masses split over a degree and scattered: drawn in [0, 1)."""
    floats = {a.name for a in args if a.is_array and not a.output and a.type.startswith("float")}
    ints = {a.name for a in args if a.is_array and a.type.startswith(("int", "uint"))}
    for name in masses(fn, floats, ints):
        a = next(a for a in args if a.name == name)
        if a.init != "random" or a.low is not None or a.high is not None:
            continue
        a.init, a.low, a.high = "uniform", 0.0, 1.0
        guesses.append(
            (
                f"args.{name}",
                "values in [0, 1): each is divided by a degree (the difference of two values read from an int "
                "array, `end - begin`) and added with an atomic into other elements (a rank or probability "
                "pushed along edges), so none is negative",
            )
        )
