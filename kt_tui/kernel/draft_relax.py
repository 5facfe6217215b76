"""Scalars of in-place updates (kernel/draft.py): a float that scales a correction added back
into the element it corrects (`u[c] += w * (g - u[c])`: a Gauss-Seidel step, over-relaxed) is in (1, 2),
where successive over-relaxation converges faster than the plain step (w = 1) and still converges; and an
int whose parity picks the cells a pass updates (`x = 2 * i + ((y + color) & 1)`) is 0 or 1, the values
that parity takes. A float that scales the updated element itself inside its own update (`w[j] -= s * (g[j]
+ c * w[j])`: a decay toward 0, weight decay) is small, so the other term leads the step."""

from __future__ import annotations

from . import cuda_ast
from .cuda_ast import Node, text
from .draft_roles import strip_parens

OVER_RELAXATION = 1.5
OVER_RELAXATION_WHY = (
    "it scales a correction added back into the element it corrects (`u[c] += w * (g - u[c])`, an in-place "
    "relaxation): over-relaxed, between 1 and 2, where the sweep converges faster than at 1 and still converges"
)
DECAY = 0.01
DECAY_WHY = (
    "it scales the updated element itself inside that element's own update (`w[j] -= s * (g[j] + c * w[j])`: "
    "a decay toward 0): small, as a decay is, so the other term leads the step; not 0, which drops the term"
)
PARITY = 1
PARITY_WHY = (
    "its parity picks the cells a pass updates (`x = 2 * i + ((y + color) & 1)`): 0 or 1, the values "
    "a parity takes; set the pass you mean"
)


def _up(n: Node) -> tuple[Node, Node | None]:
    """(`n` with the parentheses around it, the node above them)."""
    while n.parent is not None and n.parent.type == "parenthesized_expression":
        n = n.parent
    return n, n.parent


def _op(n: Node | None) -> str:
    return text(n.child_by_field_name("operator")) if n is not None and n.type == "binary_expression" else ""


def _corrected(product: Node, locals_in: dict[str, Node]) -> bool:
    """Whether `product` (`w * (g - u[c])`) is added back into the element its difference subtracts,
    directly or through a local declared as it (`d = w * (...); u[c] += d`)."""
    factors = [strip_parens(product.child_by_field_name(f)) for f in ("left", "right")]
    subtracted = {
        text(strip_parens(f.child_by_field_name("right")))
        for f in factors
        if f is not None and _op(f) == "-" and strip_parens(f.child_by_field_name("right")) is not None
    }
    whole, up = _up(product)
    targets: list[Node] = []
    if up is not None and up.type == "init_declarator":
        local = up.child_by_field_name("declarator")
        if local is not None and local.type == "identifier":
            targets = [u for u in locals_in.get(text(local), []) if u.start_byte != local.start_byte]
    else:
        targets = [whole]
    for t in targets:
        t, up = _up(t)
        if up is not None and up.type == "assignment_expression" and text(up.child_by_field_name("operator")) == "+=":
            left = up.child_by_field_name("left")
            if left is not None and text(left) in subtracted and left.type == "subscript_expression":
                return True
    return False


def _parity(use: Node) -> bool:
    """Whether `use` is a term of a sum taken `& 1` or `% 2` (one compared with a parity is a value
    kernel/draft_within.py reads)."""
    n, up = _up(use)
    while up is not None and _op(up) in ("+", "-"):
        n, up = _up(up)
    if _op(up) in ("&", "%") and up is not None:
        right = up.child_by_field_name("right")
        return right is not None and text(right) in ("1", "2") and (_op(up) == "&") == (text(right) == "1")
    return False


def _decays(product: Node) -> tuple[bool, bool]:
    """(whether `product` is `c * a[i]` for a scalar c, whether it lies in the right side of a compound
    update of that element: `a[i] -= ...`, `a[i] += ...`)."""
    loads = [strip_parens(product.child_by_field_name(f)) for f in ("left", "right")]
    load = next((x for x in loads if x is not None and x.type == "subscript_expression"), None)
    if load is None:
        return False, False
    up: Node | None = product
    for _ in range(32):
        up = up.parent if up is not None else None
        if up is None or up.type in ("compound_statement", "function_definition"):
            break
        if up.type == "assignment_expression":
            left = up.child_by_field_name("left")
            compound = text(up.child_by_field_name("operator")) in ("-=", "+=")
            return True, compound and left is not None and text(left) == text(load)
    return True, False


def relaxation_values(fn: cuda_ast.Function, floats: set[str], ints: set[str]) -> dict[str, tuple[float | int, str]]:
    """The value and the reason of each float of `floats` that over-relaxes and each int of `ints` whose
    parity picks a pass."""
    if fn.body is None:
        return {}
    uses: dict[str, list[Node]] = {}
    for n in cuda_ast.walk(fn.body):
        if n.type == "identifier":
            uses.setdefault(text(n), []).append(n)
    out: dict[str, tuple[float | int, str]] = {}
    for name in floats:
        products = [_up(u)[1] for u in uses.get(name, [])]
        if products and all(p is not None and _op(p) == "*" and _corrected(p, uses) for p in products):
            out[name] = (OVER_RELAXATION, OVER_RELAXATION_WHY)
        elif products and all(p is not None and _op(p) == "*" for p in products):
            decays = [_decays(p) for p in products if p is not None]
            if all(is_load for is_load, _ in decays) and any(inside for _, inside in decays):
                out[name] = (DECAY, DECAY_WHY)
    for name in ints:
        if uses.get(name) and all(_parity(u) for u in uses[name]):
            out[name] = (PARITY, PARITY_WHY)
    return out
