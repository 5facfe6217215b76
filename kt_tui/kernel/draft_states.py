"""Int inputs that hold states (kernel/draft.py): values read into a local that the kernel compares with
constants (`s == 0`, `s == 1`) and sets to constants (`s = 2`) before writing it back out (`next[i] = s`),
as a state machine steps each cell. Drawn over every state, 0 to the largest constant: a draw of 0 and 1
alone (taken for flags) never reaches the states only the kernel's own steps make. (A xorshift generator's
state, never 0, is kernel/draft_uses.py's.)"""

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
