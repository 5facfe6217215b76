"""Scalars that end up dividing (kernel/draft.py): an int halved (or divided by any constant) before it
divides something (`side = n / 2; exact = side / 2; r / exact`) is at least the product of those constants,
else the divisor is 0 (a division by zero, 0 / 0 in float); a float that divides a count, an int array's
value (`len[d] / avg`, or `k / avg` kept in a local that multiplies one), is that count's scale (a mean
length, a total): at least 1, where 0.75 would make each count longer than its own average. A float array
whose values are summed into a local that divides (`rho += f[q]; ux /= rho`: masses, weights, densities) is
drawn positive, else the sum of values of both signs comes near 0 and the quotients blow up."""

from __future__ import annotations

import re
from typing import Any

from . import cuda_ast
from .cuda_ast import Node, text
from .draft_roles import unwrapped

PASSES = 4  # rounds over the assignments: a chain of locals this long is followed
MOST = 1 << 20  # a product past this asks more of an int than a draft gives it: no rule
COUNT_SCALE = 20.0  # a scale of counts: above 1, a few counts' worth
FOLLOWED = 20_000  # values followed from the sums into divisors, at most


def _divided(n: Node | None, names: dict[str, int], depth: int = 0) -> int | None:
    """What `n` divides a tracked name by: `side` (its own), `side / 2`, `(side / 2) / 3`; None for
    anything else."""
    n = unwrapped(n)
    if n is None or depth > 50:
        return None
    if n.type == "identifier":
        return names.get(text(n))
    if n.type != "binary_expression" or text(n.child_by_field_name("operator")) not in ("/", ">>"):
        return None
    inner = _divided(n.child_by_field_name("left"), names, depth + 1)
    by = cuda_ast.constant(n.child_by_field_name("right"), {})
    if inner is None or by is None or by < 1:
        return None
    return min(inner * (by if text(n.child_by_field_name("operator")) == "/" else 1 << min(by, 30)), MOST + 1)


def halved_divisors(fn: cuda_ast.Function, ints: set[str]) -> dict[str, int]:
    """Int scalar arguments of `ints` that reach the right of a `/` or `%` divided by constants on the way
    (through locals given them, `x /= 2` too): each to the product of those constants (the largest over
    the ways), from 2 to MOST. A branch that skips a division is not told apart (the product is the most)."""
    if fn.body is None:
        return {}
    nodes = list(cuda_ast.walk(fn.body))
    held: dict[str, dict[str, int]] = {s: {s: 1} for s in ints}  # argument -> local -> the product so far
    given: dict[str, dict[str, int]] = {s: {} for s in ints}  # ... by `=` alone (what `x /= 2` divides)
    for _ in range(PASSES):
        grew = False
        for n in nodes:
            if n.type == "init_declarator":
                target, value, op = n.child_by_field_name("declarator"), n.child_by_field_name("value"), "="
            elif n.type == "assignment_expression":
                target, value = n.child_by_field_name("left"), n.child_by_field_name("right")
                op = text(n.child_by_field_name("operator"))
            else:
                continue
            target = unwrapped(target)
            if target is None or target.type != "identifier" or text(target) in ints:
                continue
            name = text(target)
            for s, names in held.items():
                by = None
                if op == "=":
                    by = _divided(value, names)
                    if by is not None:
                        given[s][name] = max(given[s].get(name, 0), by)
                elif op in ("/=", ">>=") and name in given[s] and (c := cuda_ast.constant(value, {})) is not None:
                    by = min(given[s][name] * (c if op == "/=" else 1 << min(c, 30)), MOST + 1) if c >= 1 else None
                if by is not None and by > names.get(name, 0):
                    names[name] = by
                    grew = True
        if not grew:
            break
    out: dict[str, int] = {}
    for n in nodes:
        if n.type != "binary_expression" or text(n.child_by_field_name("operator")) not in ("/", "%"):
            continue
        right = n.child_by_field_name("right")
        for s, names in held.items():
            by = _divided(right, names)
            if by is not None and 2 <= by <= MOST:
                out[s] = max(out.get(s, 0), by)
    return out


def halved_value(at_least: int, taken: set[Any], choices: tuple[int, ...]) -> tuple[int, str]:
    """The value of an int that divides after it is divided by `at_least` in all: the smallest of
    `choices` (or past them, one by one) that is at least that and not taken, and why."""
    v = next((c for c in sorted(choices) if c >= at_least and c not in taken), max(at_least, max(choices) + 1))
    while v in taken:
        v += 1
    why = (
        f"it is divided by {at_least} in all before it divides something: at least {at_least}, else that divisor is "
        "0 (apart from the others); set the value you use"
    )
    return v, why


def count_scale_values(fn: cuda_ast.Function, floats: set[str], int_arrays: set[str]) -> dict[str, tuple[float, str]]:
    """Float scalar -> (value, why) for the scales of counts (count_scales)."""
    why = (
        "it divides an int array's value (a count or length) as its scale (a mean length, a "
        "total): at least 1, so no count is scaled up past itself; set the value you use"
    )
    return dict.fromkeys(count_scales(fn, floats, int_arrays), (COUNT_SCALE, why))


def _factors(n: Node | None, depth: int = 0) -> list[Node]:
    """The factors of a product or quotient's numerator chain (`a * b / c`: a and b; c is a divisor)."""
    n = unwrapped(n)
    if n is None or depth > 50:
        return []
    if n.type == "binary_expression" and text(n.child_by_field_name("operator")) in ("*", "/"):
        left = _factors(n.child_by_field_name("left"), depth + 1)
        if text(n.child_by_field_name("operator")) == "/":
            return left
        return left + _factors(n.child_by_field_name("right"), depth + 1)
    return [n]


def count_scales(fn: cuda_ast.Function, floats: set[str], int_arrays: set[str]) -> set[str]:
    """Float scalar arguments of `floats` that divide a product (`len[d] / avg`) one of whose factors is
    an int array's value (through a cast, or a local given one), or a local given such a quotient
    (`slope = k * b / avg`) that multiplies one (`slope * len[d]`)."""
    if fn.body is None or not floats or not int_arrays:
        return set()
    nodes = list(cuda_ast.walk(fn.body))
    counts: set[str] = set()  # locals given an int array's value
    quotients: dict[str, set[str]] = {}  # a local -> the float scalars its value is divided by
    for n in nodes:
        if n.type != "init_declarator":
            continue
        d, v = n.child_by_field_name("declarator"), unwrapped(n.child_by_field_name("value"))
        if d is None or d.type != "identifier" or v is None:
            continue
        if v.type == "subscript_expression" and text(v.child_by_field_name("argument")) in int_arrays:
            counts.add(text(d))
        by = _divisors(v, floats)
        if by:
            quotients.setdefault(text(d), set()).update(by)

    def count(f: Node) -> bool:
        if f.type == "subscript_expression":
            return text(f.child_by_field_name("argument")) in int_arrays
        return f.type == "identifier" and text(f) in counts

    out: set[str] = set()
    for n in nodes:
        if n.type != "binary_expression" or text(n.child_by_field_name("operator")) not in ("*", "/"):
            continue
        parent = n.parent
        while parent is not None and parent.type in ("parenthesized_expression", "cast_expression"):
            parent = parent.parent
        if parent is not None and parent.type == "binary_expression":
            if text(parent.child_by_field_name("operator")) in ("*", "/"):
                continue  # only the outermost product
        factors = _factors(n)
        if not any(count(f) for f in factors):
            continue
        out |= _divisors(n, floats)
        for f in factors:
            if f.type == "identifier":
                out |= quotients.get(text(f), set())
    return out


def _divisors(n: Node, floats: set[str]) -> set[str]:
    """The float scalars of `floats` that a product chain `n` is divided by (`a * b / c`: c)."""
    out: set[str] = set()
    stack, steps = [unwrapped(n)], 0
    while stack and steps < 200:
        m = stack.pop()
        steps += 1
        if m is None or m.type != "binary_expression" or text(m.child_by_field_name("operator")) not in ("*", "/"):
            continue
        right = unwrapped(m.child_by_field_name("right"))
        if text(m.child_by_field_name("operator")) == "/":
            if right is not None and right.type == "identifier" and text(right) in floats:
                out.add(text(right))
        else:
            stack.append(right)
        stack.append(unwrapped(m.child_by_field_name("left")))
    return out


def summed_divisors(fn: cuda_ast.Function, arrays: set[str]) -> set[str]:
    """Arrays of `arrays` whose values (as they are, or through locals and local arrays given them, three
    deep) are added into a local (`s += v`, `s = s + v`) that is then a divisor (`x / s`, `x /= s`)."""
    if fn.body is None or not arrays:
        return set()
    nodes = list(cuda_ast.walk(fn.body))
    given: dict[str, list[Node]] = {}  # a local (or a local array) -> the values given it
    added: dict[str, list[Node]] = {}  # a local -> what is added into it
    divisors: set[str] = set()
    for n in nodes:
        if n.type == "init_declarator":
            d, v = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            if d is not None and d.type == "identifier" and v is not None:
                given.setdefault(text(d), []).append(v)
        elif n.type == "assignment_expression":
            left, right = unwrapped(n.child_by_field_name("left")), n.child_by_field_name("right")
            op = text(n.child_by_field_name("operator"))
            if left is not None and left.type == "subscript_expression" and op == "=" and right is not None:
                given.setdefault(text(left.child_by_field_name("argument")), []).append(right)
            elif left is not None and left.type == "identifier" and right is not None:
                if op == "+=":
                    added.setdefault(text(left), []).append(right)
                elif op == "=":
                    given.setdefault(text(left), []).append(right)
                    r = unwrapped(right)
                    if (
                        r is not None
                        and r.type == "binary_expression"
                        and text(r.child_by_field_name("operator")) == "+"
                    ):
                        added.setdefault(text(left), []).extend(
                            c for c in (r.child_by_field_name("left"), r.child_by_field_name("right")) if c is not None
                        )
                elif op == "/=":
                    divisors.add(text(right).strip())
        if n.type == "binary_expression" and text(n.child_by_field_name("operator")) == "/":
            right = unwrapped(n.child_by_field_name("right"))
            if right is not None and right.type == "identifier":
                divisors.add(text(right))
    out: set[str] = set()
    seen: set[tuple[int, int]] = set()  # values followed once, whichever sum reached them
    for name in sorted(divisors & set(added)):
        stack = [(v, 0) for v in added[name]]
        while stack and len(seen) < FOLLOWED:
            v, depth = stack.pop()
            v = unwrapped(v)
            if v is None or (v.start_byte, v.end_byte) in seen:
                continue
            seen.add((v.start_byte, v.end_byte))
            held = text(v.child_by_field_name("argument")) if v.type == "subscript_expression" else text(v)
            if v.type == "subscript_expression" and held in arrays:
                out.add(held)
            elif v.type in ("subscript_expression", "identifier") and held in given and held != name and depth < 3:
                stack += [(g, depth + 1) for g in given[held]]
    return out


_UNIT = re.compile(r"^(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?[fF]?$")
UNIT_FRACTION = 0.75  # of the constant a scalar is divided by: a quantity in that constant's unit, not a whole one


def dividend_values(fn: cuda_ast.Function, floats: set[str]) -> dict[str, tuple[float, str]]:
    """Float scalars of `floats` only ever divided by one float constant above 1 (`hue_deg / 60.0f`,
    `ms / 1000.0f`: a quantity converted to another unit): UNIT_FRACTION of that constant, so the
    converted value is near 1 as the code expects, not a sliver of it."""
    if fn.body is None or not floats:
        return {}
    divided: dict[str, set[float]] = {}
    other: set[str] = set()
    for n in cuda_ast.walk(fn.body):
        if n.type != "identifier" or text(n) not in floats:
            continue
        up, child = n.parent, n
        while up is not None and up.type == "parenthesized_expression":
            up, child = up.parent, up
        right = up.child_by_field_name("right") if up is not None and up.type == "binary_expression" else None
        if up is not None and right is not None and text(up.child_by_field_name("operator")) == "/":
            if right.start_byte != child.start_byte and _UNIT.match(text(right)):
                value = float(text(right).rstrip("fF"))
                if value > 1:
                    divided.setdefault(text(n), set()).add(value)
                    continue
        other.add(text(n))
    out: dict[str, tuple[float, str]] = {}
    for name, values in divided.items():
        if name not in other and len(values) == 1:
            unit = values.pop()
            value = round(UNIT_FRACTION * unit, 6)
            out[name] = (
                value,
                f"it is only divided by {unit:g} (a quantity converted to another unit): "
                f"{UNIT_FRACTION} of it, so the converted value is near 1, not a sliver; set the value you use",
            )
    return out
