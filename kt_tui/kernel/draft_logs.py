"""Float inputs that are log-probabilities (kernel/draft.py): an element of a float array that starts a
local sum (`float acc = logw[k]`) to which the kernel then adds or from which it subtracts terms in place,
that sum (or what it is copied into) reaching an exponential of a difference (`expf(lp[k] - top)`, a
log-sum-exp), is a log weight: the log of a probability, never above 0. Such an array is drawn in [-8, 0)."""

from __future__ import annotations

from . import cuda_ast
from .cuda_ast import Node, text
from .draft_roles import unwrapped
from .spec import Spec

EXPS = ("exp", "expf", "__expf", "exp2f", "exp2")
LOW = -8.0


def _op(n: Node) -> str:
    return text(n.child_by_field_name("operator"))


def _target(n: Node | None) -> str | None:
    """The local a declaration or assignment writes (`acc`, `lp` of `lp[k]`)."""
    n = unwrapped(n)
    while n is not None and n.type in ("subscript_expression", "array_declarator", "pointer_declarator"):
        n = n.child_by_field_name("argument") or n.child_by_field_name("declarator")
    return text(n) if n is not None and n.type == "identifier" else None


def _names(n: Node | None) -> set[str]:
    return {text(c) for c in cuda_ast.walk(n) if c.type == "identifier"} if n is not None else set()


def log_weights(fn: cuda_ast.Function, floats: set[str]) -> set[str]:
    """The arrays of `floats` whose element starts a local sum updated in place that reaches `exp(a - b)`."""
    if fn.body is None or not floats:
        return set()
    starts: dict[str, str] = {}  # a local sum -> the array whose element started it
    writes: list[tuple[str, Node]] = []  # (local written, the value written)
    updated: set[str] = set()
    for n in cuda_ast.walk(fn.body):
        if n.type == "init_declarator":
            target, value = _target(n.child_by_field_name("declarator")), n.child_by_field_name("value")
            v = unwrapped(value)
            if target is not None and v is not None:
                writes.append((target, v))
                if v.type == "subscript_expression" and text(v.child_by_field_name("argument")) in floats:
                    starts[target] = text(v.child_by_field_name("argument"))
        elif n.type == "assignment_expression":
            target, value = _target(n.child_by_field_name("left")), n.child_by_field_name("right")
            if target is not None and value is not None:
                writes.append((target, value))
                if _op(n) in ("+=", "-="):
                    updated.add(target)
    found: set[str] = set()
    for start, array in starts.items():
        if start not in updated:
            continue
        held, grew = {start}, True
        while grew:  # the locals the sum is copied into, directly or through others
            grew = False
            for target, value in writes:
                if target not in held and _names(value) & held:
                    held.add(target)
                    grew = True
        for n in cuda_ast.walk(fn.body):
            if n.type == "call_expression" and text(n.child_by_field_name("function")) in EXPS:
                given = [c for c in n.child_by_field_name("arguments").named_children if c.type != "comment"]
                arg = unwrapped(given[0]) if len(given) == 1 else None
                if arg is not None and arg.type == "binary_expression" and _op(arg) == "-":
                    if _names(arg.child_by_field_name("left")) & held:
                        found.add(array)
    return found


def fit(spec: Spec, fn: cuda_ast.Function, guesses: list[tuple[str, str]]) -> None:
    """Log weights drawn at random (no range yet) drawn in [LOW, 0)."""
    floats = {a.name for a in spec.args if a.is_array and not a.output and a.type.startswith("float")}
    for name in sorted(log_weights(fn, floats)):
        a = next(a for a in spec.args if a.name == name)
        if a.init != "random" or a.low is not None or a.high is not None:
            continue
        a.init, a.low, a.high = "uniform", LOW, 0.0
        guesses.append(
            (
                f"args.{name}",
                f"values in [{LOW:g}, 0): an element starts a sum updated in place that reaches an exponential of "
                "a difference (a log-sum-exp), so each is a log-probability, never above 0",
            )
        )
