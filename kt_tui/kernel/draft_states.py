"""Int inputs that hold states (kernel/draft.py): values read into a local that the kernel compares with
constants (`s == 0`, `s == 1`) and sets to constants (`s = 2`) before writing it back out (`next[i] = s`),
as a state machine steps each cell. Drawn over every state, 0 to the largest constant: a draw of 0 and 1
alone (taken for flags) never reaches the states only the kernel's own steps make. A state read into a
local that is only ever run through xorshift steps (`x ^= x << 13; x ^= x >> 17`, in the kernel or in a
__device__ function `x = step(x)`) is drawn from 1: 0 is every xorshift's fixed point, a generator stuck
at 0 that draws nothing."""

from __future__ import annotations

import re

from . import cuda_ast
from .cuda_ast import Node, text
from .draft_roles import strip_parens
from .spec import Arg

MAX_STATE = 64  # more states than this are no small state set
_INT = re.compile(r"^\d+[uUlL]*$")


def _constant(n: Node | None) -> int | None:
    n = strip_parens(n)
    return int(re.sub(r"[uUlL]+$", "", text(n))) if n is not None and _INT.match(text(n)) else None


def state_counts(fn: cuda_ast.Function, arrays: set[str]) -> dict[str, int]:
    """For each array of `arrays` loaded into a local (`s = state[i]`) that is compared with constants and
    set to constants, one of them at least 2, and written to an array: one past the largest constant."""
    if fn.body is None or not arrays:
        return {}
    nodes = list(cuda_ast.walk(fn.body))
    held: dict[str, str] = {}  # local -> the array whose load it is declared as
    for n in nodes:
        if n.type == "init_declarator":
            d, v = n.child_by_field_name("declarator"), strip_parens(n.child_by_field_name("value"))
            if d is not None and d.type == "identifier" and v is not None and v.type == "subscript_expression":
                array = text(v.child_by_field_name("argument"))
                if array in arrays:
                    held[text(d)] = array
    compared: dict[str, set[int]] = {}
    assigned: dict[str, set[int]] = {}
    stored: set[str] = set()
    for n in nodes:
        if n.type == "binary_expression" and text(n.child_by_field_name("operator")) in ("==", "!="):
            sides = [strip_parens(n.child_by_field_name(f)) for f in ("left", "right")]
            for a, b in (sides, sides[::-1]):
                if a is not None and text(a) in held and (c := _constant(b)) is not None:
                    compared.setdefault(text(a), set()).add(c)
        elif n.type == "assignment_expression" and text(n.child_by_field_name("operator")) == "=":
            left, right = strip_parens(n.child_by_field_name("left")), strip_parens(n.child_by_field_name("right"))
            if left is not None and text(left) in held and (c := _constant(right)) is not None:
                assigned.setdefault(text(left), set()).add(c)
            if left is not None and left.type == "subscript_expression" and right is not None and text(right) in held:
                stored.add(text(right))
    out: dict[str, int] = {}
    for local, array in held.items():
        states = compared.get(local, set()) | assigned.get(local, set())
        if local in stored and compared.get(local) and assigned.get(local) and 2 <= max(states) < MAX_STATE:
            out[array] = max(out.get(array, 0), max(states) + 1)
    return out


def states(fn: cuda_ast.Function, args: list[Arg], guesses: list[tuple[str, str]]) -> None:
    """Int inputs drawn as flags (0 or 1) that hold states: drawn over every state."""
    flagged = {a.name for a in args if a.is_array and not a.output and a.low == 0 and a.high == 2}
    for name, count in state_counts(fn, flagged).items():
        a = next(a for a in args if a.name == name)
        a.high = count
        guesses[:] = [g for g in guesses if g[0] != f"args.{name}" or not g[1].startswith("values 0 or 1")]
        guesses.append(
            (
                f"args.{name}",
                f"values in [0, {count}): read into a local the kernel compares with constants and sets to "
                f"constants (up to {count - 1}) before writing it out (a state), so every state is drawn",
            )
        )


def _xorshift(n: Node, var: str) -> bool:
    """Whether `n` is a xorshift step of `var`: `var ^= var << k` (or >>), `var = var ^ (var << k)`."""
    if n.type != "assignment_expression" or text(strip_parens(n.child_by_field_name("left"))) != var:
        return False
    op, right = text(n.child_by_field_name("operator")), strip_parens(n.child_by_field_name("right"))
    if op == "=" and right is not None and right.type == "binary_expression" and _op(right) == "^":
        sides = [strip_parens(right.child_by_field_name(f)) for f in ("left", "right")]
        return any(a is not None and text(a) == var and _shifted(b, var) for a, b in (sides, sides[::-1]))
    return op == "^=" and _shifted(right, var)


def _op(n: Node) -> str:
    return text(n.child_by_field_name("operator"))


def _shifted(n: Node | None, var: str) -> bool:
    n = strip_parens(n)
    return (
        n is not None
        and n.type == "binary_expression"
        and _op(n) in ("<<", ">>")
        and text(strip_parens(n.child_by_field_name("left"))) == var
        and _constant(n.child_by_field_name("right")) is not None
    )


def _steps(body: Node, var: str, steppers: set[str]) -> bool | None:
    """Whether every assignment to `var` in `body` is a xorshift step of it or `var = f(var)` with f of
    `steppers`: True when some are and none else, None when none are, False when any other is."""
    seen = False
    for n in cuda_ast.walk(body):
        if n.type in ("assignment_expression", "update_expression"):
            left = strip_parens(n.child_by_field_name("left" if n.type == "assignment_expression" else "argument"))
            if left is None or text(left) != var:
                continue
            right = strip_parens(n.child_by_field_name("right")) if n.type == "assignment_expression" else None
            called = (
                right is not None
                and right.type == "call_expression"
                and text(right.child_by_field_name("function")) in steppers
                and [text(strip_parens(a)) for a in right.child_by_field_name("arguments").named_children] == [var]
            )
            if not (_xorshift(n, var) or (called and _op(n) == "=")):
                return False
            seen = True
    return seen or None


def xorshift_steppers(devices: dict[str, cuda_ast.Function]) -> set[str]:
    """__device__ functions of one argument that only run it through xorshift steps and return it."""
    out = set()
    for name, f in devices.items():
        if f.body is None or len(f.params) != 1 or not f.params[0].name:
            continue
        var = f.params[0].name
        returns = [n for n in cuda_ast.walk(f.body) if n.type == "return_statement"]
        back = all(text(strip_parens(r.named_children[0])) == var for r in returns if r.named_children)
        if returns and back and _steps(f.body, var, set()):
            out.add(name)
    return out


def xorshift_states(fn: cuda_ast.Function, arrays: set[str], devices: dict[str, cuda_ast.Function]) -> set[str]:
    """Arrays of `arrays` loaded into a local (`s = state[i]`) that is only ever run through xorshift steps
    (`s ^= s << 13`, in the kernel or in a __device__ function `s = step(s)`): 0 is such a state's fixed point."""
    if fn.body is None or not arrays:
        return set()
    steppers = xorshift_steppers(devices)
    out = set()
    for n in cuda_ast.walk(fn.body):
        if n.type == "init_declarator":
            d, v = n.child_by_field_name("declarator"), strip_parens(n.child_by_field_name("value"))
            if d is None or d.type != "identifier" or v is None or v.type != "subscript_expression":
                continue
            array = text(v.child_by_field_name("argument"))
            if array in arrays and _steps(fn.body, text(d), steppers):
                out.add(array)
    return out


def nonzero_states(
    fn: cuda_ast.Function, devices: dict[str, cuda_ast.Function], args: list[Arg], guesses: list[tuple[str, str]]
) -> None:
    """Int inputs drawn from 0 that hold xorshift states: drawn from 1 (a state of 0 stays 0)."""
    drawn = {a.name for a in args if a.is_array and a.low == 0 and isinstance(a.high, int) and a.high > 2}
    for name in xorshift_states(fn, drawn, devices):
        a = next(a for a in args if a.name == name)
        a.low = 1
        guesses[:] = [g for g in guesses if g[0] != f"args.{name}"]
        guesses.append(
            (
                f"args.{name}",
                f"values in [1, {a.high}): read into a local only run through xorshift steps (`x ^= x << k`), "
                "whose fixed point 0 would never change, so no state is 0",
            )
        )
