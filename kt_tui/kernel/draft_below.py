"""Which int scalar must stay below which, read off the kernel's tests (kernel/draft.py drafts within
them): a test only tells data apart when both of its outcomes happen, so a value the test compares
with must lie inside the range the other side runs over.

A variable's range comes from the code: a loop counter runs below its loop's bound, a coordinate
below the bound of the guard that returns past it, a local counted up by one in a loop below that
loop's bound, a counter from -R to R over 2 R + 1 values. Then, for a test `v op S` of a variable
with range N against a scalar S, S is below N; for a test `... + w + ... op T` (or an index reduced
`% T`) of a sum that also varies, each scalar term S, scalar factor of a varying product, or range R
of a counter term is below T (twice R for a counter from -R).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from . import cuda_ast
from .cuda_ast import text
from .draft_relations import _declared, _factors, _ident, _int, _terms, env_at
from .draft_roles import strip_parens, unwrapped
from .spec import Spec
from .spec_model import default_verify_sizes, int_range

Node = Any
COMPARES = ("<", "<=", ">", ">=")
TESTED = "so one outcome of that test never happens"
WRAPS = "so the position it gives wraps more than once around, or goes below 0 before it is reduced"
WALK = 5000  # nodes of a loop's body searched for a counter it increments


@dataclass(frozen=True)
class Below:
    small: str  # S
    large: str  # T
    times: int  # times * S < T
    why: str
    effect: str


def _compares(n: Node | None) -> list[Node]:
    """The comparisons of a condition, through && and || and parentheses."""
    n = strip_parens(n)
    if n is None or n.type != "binary_expression":
        return []
    op = text(n.child_by_field_name("operator"))
    if op in ("&&", "||"):
        return _compares(n.child_by_field_name("left")) + _compares(n.child_by_field_name("right"))
    return [n] if op in COMPARES else []


def _returns(n: Node | None) -> bool:
    return n is not None and any(m.type in ("return_statement", "continue_statement") for m in cuda_ast.walk(n, 20))


def _ranges(body: Node, ints: set[str]) -> tuple[dict[str, str], dict[str, tuple[str, int]]]:
    """(variable -> the int scalar it runs below, counter -> (R, 2) for one from -R to R or (B, 1))."""
    below: dict[str, str] = {}
    bounds: dict[str, set[str]] = {}  # every bound a name is given (a name reused by two loops: no range)
    spans: dict[str, tuple[str, int]] = {}
    zeroed: set[str] = set()
    for n in cuda_ast.walk(body):
        if n.type == "init_declarator" and _int(n.child_by_field_name("value")) == 0:
            name = _declared(n.child_by_field_name("declarator"))
            if name is not None:
                zeroed.add(name)
        if n.type == "for_statement":
            init = n.child_by_field_name("initializer")
            counter, start = None, None
            for d in cuda_ast.walk(init, 6) if init is not None else []:
                if d.type == "init_declarator":
                    counter, start = _declared(d.child_by_field_name("declarator")), d.child_by_field_name("value")
                    break
            for c in _compares(n.child_by_field_name("condition")):
                op = text(c.child_by_field_name("operator"))
                v, b = _ident(c.child_by_field_name("left")), _ident(c.child_by_field_name("right"))
                if v is None or v != counter or b not in ints or op not in ("<", "<="):
                    continue  # a test beside the loop's own bound is no range
                below.setdefault(v, b)
                bounds.setdefault(v, set()).add(b)
                if v == counter:
                    u = unwrapped(start)
                    neg = u is not None and u.type == "unary_expression" and text(u).replace(" ", "") == f"-{b}"
                    spans[v] = (b, 2 if neg else 1)
                body_ = n.child_by_field_name("body")
                if v == counter and body_ is not None:
                    for m in cuda_ast.walk(body_, WALK):
                        if m.type == "update_expression" and text(m.child_by_field_name("operator")) == "++":
                            counted = _ident(m.child_by_field_name("argument"))
                            if counted in zeroed and counted != v:
                                below.setdefault(counted, b)
                                bounds.setdefault(counted, set()).add(b)
        elif n.type == "if_statement" and _returns(n.child_by_field_name("consequence")):
            for c in _compares(n.child_by_field_name("condition")):
                op = text(c.child_by_field_name("operator"))
                v, b = _ident(c.child_by_field_name("left")), _ident(c.child_by_field_name("right"))
                if v is not None and b in ints and op in (">=", ">"):
                    below.setdefault(v, b)
                    bounds.setdefault(v, set()).add(b)
    shared = {v for v, bs in bounds.items() if len(bs) > 1}
    return {v: b for v, b in below.items() if v not in shared}, {v: r for v, r in spans.items() if v not in shared}


def _locals(body: Node) -> dict[str, Node]:
    """Locals declared once with a value and never assigned again."""
    values: dict[str, Node] = {}
    again: set[str] = set()
    for n in cuda_ast.walk(body):
        if n.type == "init_declarator" and (name := _declared(n.child_by_field_name("declarator"))) is not None:
            if name in values:
                again.add(name)
            values[name] = n.child_by_field_name("value")
        elif n.type == "assignment_expression" and (name := _ident(n.child_by_field_name("left"))) is not None:
            again.add(name)
    return {k: v for k, v in values.items() if k not in again and v is not None}


def _expand(n: Node | None, locals_: dict[str, Node], depth: int = 0) -> list[tuple[int, Node]]:
    out: list[tuple[int, Node]] = []
    for sign, t in _terms(n):
        name = _ident(t)
        if name in locals_ and depth < 3 and len(_terms(locals_[name])) > 1:
            out += [(sign * s, u) for s, u in _expand(locals_[name], locals_, depth + 1)]
        else:
            out.append((sign, t))
    return out


def find(fn: cuda_ast.Function, ints: set[str]) -> list[Below]:
    """The relations `times * S < T` between the int scalar arguments `ints` of the kernel `fn`."""
    if fn.body is None:
        return []
    below, spans = _ranges(fn.body, ints)
    locals_ = _locals(fn.body)
    out: list[Below] = []

    def add(s: str, t: str, times: int, why: str, effect: str = TESTED) -> None:
        if s != t and s in ints and t in ints and all((b.small, b.large) != (s, t) for b in out):
            out.append(Below(s, t, times, why, effect))

    def sum_terms(side: Node, t: str, what: str, effect: str = TESTED) -> None:
        terms = _expand(side, locals_)
        varying = [text(u) for _, u in terms if _int(u) is None and _ident(u) not in ints]
        if len(terms) < 2 or not varying:
            return
        for sign, u in terms:
            v = _ident(u)
            if v in spans and spans[v][0] != t and any(w != text(u) for w in varying):
                r, times = spans[v]
                add(r, t, times, f"a counter that runs to {r} is added to what {what} {t}", effect)
            elif v is not None and (sign > 0 or effect != TESTED):  # `x - S < T`: S may lie past T (a window's start)
                add(v, t, 1, f"it is added to a varying value that {what} {t}", effect)
            elif len(fs := _factors(u)) > 1:
                scalars = [x for f in fs if (x := _ident(f)) in ints]
                if len(scalars) == 1 and any(_ident(f) and _ident(f) not in ints for f in fs):
                    add(scalars[0], t, 1, f"it steps a varying value that {what} {t}", effect)

    for n in cuda_ast.walk(fn.body):
        if n.type != "binary_expression":
            continue
        op = text(n.child_by_field_name("operator"))
        left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        if op == "%" and (t := _ident(right)) in ints:
            sum_terms(left, t, "is reduced modulo", WRAPS)
            continue
        if op not in COMPARES:
            continue
        for side, other in ((left, right), (right, left)):
            v, t = _ident(unwrapped(side)), _ident(unwrapped(other))
            if v is not None and v in below and t in ints and below[v] != t and v not in ints:
                add(t, below[v], 1, f"the kernel tests {v}, which runs below {below[v]}, against it")
            elif t in ints and v not in ints:
                sum_terms(side, t, "the kernel tests against")
    return out


def fit(spec: Spec, rels: list[Below], guesses: list[tuple[str, str]]) -> None:
    """Move the draft's values within the relations, at its sizes and at each check size: a made-up
    scalar below a size raises that size when no thread axis runs over it, else the smaller one is
    lowered (in the check sizes that need it)."""
    if not rels:
        return
    axes = {w for p in spec.problem_size for w in _words(str(p))}
    tables = [dict(t) for t in spec.verify_sizes] if spec.verify_sizes is not None else None
    tables_used = False
    for r in rels:
        arg = next((a for a in spec.args if a.name == r.small and not a.is_array), None)
        large = next((a for a in spec.args if a.name == r.large and not a.is_array), None)
        sized = r.small in spec.sizes
        if r.small in spec.problem_size or not (sized or (arg is not None and isinstance(arg.value, int))):
            continue  # a thread axis, or a value the analysis derived
        if large is not None and isinstance(large.value, str) and r.small in _words(large.value):
            continue  # the larger one is derived from the smaller: lowering one lowers both
        env = env_at(spec, spec.sizes)
        if r.small not in env or r.large not in env:
            continue
        s, t = env[r.small], env[r.large]
        key = f"sizes.{r.small}" if sized else f"args.{r.small}"
        if r.times * s >= t:
            if not sized and r.large in spec.sizes and r.large not in axes:
                spec.sizes[r.large] = r.times * s + 1 + t
                _retell(guesses, f"sizes.{r.large}", f"{spec.sizes[r.large]}: above {_times(r)}{r.small}: {r.why}")
                continue
            new = (t - 1) // (r.times + 1)
            if new < 1:
                continue
            if sized:
                spec.sizes[r.small] = new
            elif arg is not None:
                arg.value = new
            _retell(guesses, key, f"{new}: below {r.large} / {r.times + 1}: {r.why}")
        tables = tables if tables is not None else [dict(x) for x in default_verify_sizes(spec)]
        for table in tables:
            at = env_at(spec, {**spec.sizes, **table})
            if r.small not in at or r.large not in at:
                continue
            s, t = at[r.small], at[r.large]
            if r.times * s < t or (t - 1) // (r.times + 1) < 1:
                continue
            if sized:
                table[r.small] = (t - 1) // (r.times + 1)
                tables_used = True
            elif arg is not None and r.large in spec.sizes and isinstance(arg.value, int):
                # the value at the spec's size where it fits, less only where a size is smaller; in its type
                top = min(arg.value, int_range(arg.dtype)[1])
                arg.value = f"min({top}, ({r.large} - 1) // {r.times + 1})"
                _retell(guesses, key, f"{arg.value}: below {r.large} / {r.times + 1} at every size: {r.why}")
    if tables_used:
        spec.verify_sizes = tables


def _words(s: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_]\w*", s))


def _retell(guesses: list[tuple[str, str]], key: str, why: str) -> None:
    guesses[:] = [g for g in guesses if g[0] != key]
    guesses.append((key, why))


def warnings(rels: list[Below], env: dict[str, int], label: str) -> list[tuple[str, str]]:
    """(key, line) for each relation the values `env` contradict."""
    out = []
    for r in rels:
        s, t = env.get(r.small), env.get(r.large)
        if s is not None and t is not None and r.times * s >= t:
            times = _times(r)
            out.append(
                (
                    f"below {r.small} {r.large}",
                    f"args.{r.small}: {times}{r.small} = {r.times * s} >= {r.large} = {t}{label}: {r.why}, "
                    f"{r.effect}; {times}{r.small} is below {r.large}",
                )
            )
    return out


def _times(r: Below) -> str:
    return f"{r.times} * " if r.times > 1 else ""
