"""Float scalars of running averages (kernel/draft.py): a weight `w` that mixes a value kept from step to
step with a new one (`m = w * m + (1 - w) * g`, an exponential moving average: an optimizer's moment, a
momentum, a smoothed statistic) lies in (0, 1), else the average grows without bound or changes sign
(a second moment under a square root turns negative); a scalar that divides such an average (`m / c`)
is its bias correction 1 - w^t, in (0, 1]: drafted as at the first step, 1 - w. A weight the kernel takes
as `1 - w` and also multiplies by, in one statement or apart (`base = k * (1 - b)`, `slope = k * b / m`),
mixes two terms the same way (a lerp, BM25's length normalisation `1 - b + b * x`): in (0, 1) too.

Followed into device functions through the kernel's calls that pass its scalars by name."""

from __future__ import annotations

from typing import Any

from . import cuda_ast
from .cuda_ast import text
from .draft_roles import unwrapped

Node = Any
MIX_WEIGHTS = (0.9, 0.99, 0.8, 0.95)  # one each, apart: a kernel that swaps two weights fails


def _one(n: Node | None) -> bool:
    n = unwrapped(n)
    if n is None or n.type != "number_literal":
        return False
    try:
        return float(text(n).rstrip("fFlL")) == 1.0
    except ValueError:
        return False


def _scopes(unit: cuda_ast.Unit, kernel: str) -> list[tuple[cuda_ast.Function, dict[str, str]]]:
    """The kernel and each device function it calls directly, with a map from their names to the
    kernel's scalar arguments (a device function's parameter given one by name at every call)."""
    fn = unit.kernels.get(kernel)
    if fn is None or fn.body is None:
        return []
    own = {p.name: p.name for p in fn.params if p.name and not p.pointer}
    out = [(fn, own)]
    calls: dict[str, list[dict[str, str]]] = {}
    for n in cuda_ast.walk(fn.body):
        if n.type != "call_expression":
            continue
        callee = unit.devices.get(text(n.child_by_field_name("function")).strip())
        args = n.child_by_field_name("arguments")
        if callee is None or callee.body is None or args is None:
            continue
        given: dict[str, str] = {}
        for p, a in zip(callee.params, args.named_children, strict=False):
            a = unwrapped(a)
            if p.name and a is not None and a.type == "identifier" and text(a) in own:
                given[p.name] = text(a)
        calls.setdefault(callee.name, []).append(given)
    for name, maps in calls.items():
        agreed = {k: v for k, v in maps[0].items() if all(m.get(k) == v for m in maps)}
        out.append((unit.devices[name], agreed))
    return out


def _mix_weight(rhs: Node, names: dict[str, str], floats: set[str]) -> str | None:
    """The kernel scalar w of a `(1 - w)` in rhs, where w also multiplies something there."""
    found = None
    for n in cuda_ast.walk(rhs):
        if n.type == "binary_expression" and text(n.child_by_field_name("operator")) == "-":
            right = unwrapped(n.child_by_field_name("right"))
            if _one(n.child_by_field_name("left")) and right is not None and right.type == "identifier":
                w = names.get(text(right))
                if w in floats:
                    found = w
    if found is None:
        return None
    for n in cuda_ast.walk(rhs):
        if n.type == "binary_expression" and text(n.child_by_field_name("operator")) == "*":
            for side in ("left", "right"):
                s = unwrapped(n.child_by_field_name(side))
                if s is not None and s.type == "identifier" and names.get(text(s)) == found:
                    return found
    return None


def running_averages(unit: cuda_ast.Unit, kernel: str, floats: set[str]) -> tuple[list[str], dict[str, str]]:
    """(mix weights in the order first seen, bias corrections -> the weight of the average they divide)
    among the kernel's float scalar arguments `floats`."""
    weights: list[str] = []
    divisors: dict[str, str] = {}
    for fn, names in _scopes(unit, kernel):
        averages: dict[str, str] = {}  # a variable assigned `w * v + (1 - w) * g` with v itself -> w
        for n in cuda_ast.walk(fn.body):
            if n.type != "assignment_expression" or text(n.child_by_field_name("operator")) != "=":
                continue
            left, right = unwrapped(n.child_by_field_name("left")), n.child_by_field_name("right")
            if left is None or left.type != "identifier" or right is None:
                continue
            w = _mix_weight(right, names, floats)
            if w is None or not any(x.type == "identifier" and text(x) == text(left) for x in cuda_ast.walk(right)):
                continue
            averages[text(left)] = w
            if w not in weights:
                weights.append(w)
        for n in cuda_ast.walk(fn.body):
            if n.type != "binary_expression" or text(n.child_by_field_name("operator")) != "/":
                continue
            left, right = unwrapped(n.child_by_field_name("left")), unwrapped(n.child_by_field_name("right"))
            if left is None or right is None or left.type != "identifier" or right.type != "identifier":
                continue
            c = names.get(text(right))
            if text(left) in averages and c in floats and c not in weights:
                divisors.setdefault(c, averages[text(left)])
    return weights, divisors


def mixes(unit: cuda_ast.Unit, kernel: str, floats: set[str]) -> list[str]:
    """Float scalar arguments w of `floats` that a scope of the kernel takes as `1 - w` and also
    multiplies by (`w * x`, anywhere in that scope), in the order first seen."""
    out: list[str] = []
    for fn, names in _scopes(unit, kernel):
        complements: list[str] = []
        factors: set[str] = set()
        for n in cuda_ast.walk(fn.body):
            if n.type != "binary_expression":
                continue
            op = text(n.child_by_field_name("operator"))
            sides = [unwrapped(n.child_by_field_name(s)) for s in ("left", "right")]
            named = [names.get(text(s)) if s is not None and s.type == "identifier" else None for s in sides]
            if op == "-" and _one(sides[0]) and named[1] in floats:
                complements.append(named[1])
            elif op == "*":
                factors.update(w for w in named if w in floats)
        out += [w for w in complements if w in factors and w not in out]
    return out


def average_values(unit: cuda_ast.Unit, kernel: str, floats: set[str]) -> dict[str, tuple[float, str]]:
    """Float scalar -> (value, why) for the mix weights and bias corrections of running averages, and the
    weights of other mixes (`1 - w` and `w *`)."""
    weights, divisors = running_averages(unit, kernel, floats)
    out: dict[str, tuple[float, str]] = {}
    for k, w in enumerate(weights):
        out[w] = (
            MIX_WEIGHTS[k % len(MIX_WEIGHTS)],
            f"{MIX_WEIGHTS[k % len(MIX_WEIGHTS)]}: it weights a running average against a new value "
            f"(`{w} * m + (1 - {w}) * g`): in (0, 1), so the average stays between its inputs (apart from the other "
            "weights); set the value you use",
        )
    for w in mixes(unit, kernel, floats):
        if w in out or w in divisors:
            continue
        value = MIX_WEIGHTS[len(out) % len(MIX_WEIGHTS)]
        out[w] = (
            value,
            f"{value}: the kernel takes 1 - {w} and also multiplies by {w} (a weight that mixes two terms): in "
            "(0, 1), so both terms count and neither changes sign (apart from the other weights); set the value "
            "you use",
        )
    for c, w in divisors.items():
        value = round(1 - out[w][0], 6)
        out[c] = (
            value,
            f"{value}: it divides a running average weighted by {w}, a bias correction 1 - {w}^t: in (0, 1], "
            f"here at the first step (1 - {w}); set the value you use",
        )
    return out
