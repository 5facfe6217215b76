"""Relations the kernel's code states between a scalar and a size, which a draft keeps and a spec's
values can contradict (kernel/draft.py drafts within them, kernel/draft_flags.py warns):

- fields: a record `p = base + i * S` read at constant fields `p[c]` (or `base[i * S + c]`): S is past
  the largest field read, or a record's last fields are the next record's first (warned; kernel/draft_radix.py
  drafts S past the fields, as the stride of a layout).
- reflections: an index reflected at W (`if (x >= W) x = 2 * (W - 1) - x`) on a thread axis of W + P
  + Q: past 2 * W the reflection goes below 0, so each P, Q is below W.
- reaches: `t - (... k ...) * D` (k a loop's counter below K, the difference tested against 0, t
  compared with L): the taps reach back D * (K - 1), which is below L, or every tap past the first
  reads before the start.
- picks: `for (j < K)` around `for (e < E)` that keeps a counter's value (`best = e`): K picks among
  E (a top-k), so K is below E, or the picks past E find nothing.
- gains: a float scalar that multiplies a value later clipped from above (`fminf(r * g * s, MAX)`):
  above 1, so the clip is reached and a kernel that drops the gain fails.
- thresholds: a float scalar that scales what a loaded value is compared with (`x[i] > a * mean`): above
  1, so the test asks for a margin over the reference (a detector's threshold factor), not under it.
- spans: a difference of two scalars that divides (`x / (hi - lo)`): the one subtracted is below the
  other, or the divisor is 0 or negative.
- bands: `a[ku + row - j + j * ld]`: the in-row term subtracts the index the stride multiplies (band
  storage), so the row it steps over is no plain row (no overlap warning).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from . import cuda_ast
from .cuda_ast import text
from .draft_roles import strip_parens, unwrapped
from .expr import ExprError, evaluate
from .spec import Spec
from .spec_model import default_verify_sizes

Node = Any
GAINS = (1.5, 1.25, 2.5, 1.75)  # gains above 1, apart


@dataclass
class Relations:
    fields: dict[str, int] = field(default_factory=dict)  # S -> the largest field read past a record's start
    reflections: list[tuple[str, str]] = field(default_factory=list)  # (P, W): P < W
    reaches: list[tuple[str, str, str]] = field(default_factory=list)  # (D, K, L): D * (K - 1) < L
    picks: list[tuple[str, str]] = field(default_factory=list)  # (K, E): K < E
    gains: list[str] = field(default_factory=list)  # float scalars drafted above 1
    thresholds: list[str] = field(default_factory=list)  # float scalars drafted above 1
    spans: list[tuple[str, str]] = field(default_factory=list)  # (B, A) of a divisor `A - B`: B < A
    bands: set[str] = field(default_factory=set)  # strides of band storage


def _terms(n: Node | None, sign: int = 1) -> list[tuple[int, Node]]:
    """The signed terms of a sum (`a + b - c`), casts and parentheses removed."""
    n = unwrapped(n)
    if n is None:
        return []
    if n.type == "binary_expression" and text(n.child_by_field_name("operator")) in ("+", "-"):
        right = -sign if text(n.child_by_field_name("operator")) == "-" else sign
        return _terms(n.child_by_field_name("left"), sign) + _terms(n.child_by_field_name("right"), right)
    return [(sign, n)]


def _factors(n: Node | None) -> list[Node]:
    """The factors of a product (`a * (b * c)` -> a, b, c), through parentheses and casts; a
    loop, not recursion: a kernel's product may have thousands of factors."""
    out: list[Node] = []
    stack = [n]
    while stack:
        m = unwrapped(stack.pop())
        if m is None:
            continue
        if m.type == "binary_expression" and text(m.child_by_field_name("operator")) == "*":
            stack += [m.child_by_field_name("right"), m.child_by_field_name("left")]
        else:
            out.append(m)
    return out


def _names(n: Node) -> set[str]:
    return {text(c) for c in cuda_ast.walk(n) if c.type == "identifier"}


def _ident(n: Node | None) -> str | None:
    n = unwrapped(n)
    return text(n) if n is not None and n.type == "identifier" else None


def _int(n: Node | None) -> int | None:
    n = unwrapped(n)
    if n is None or n.type != "number_literal":
        return None
    try:
        return int(text(n).rstrip("uUlL"), 0)
    except ValueError:
        return None


def _number(n: Node | None) -> float | None:
    n = unwrapped(n)
    if n is None or n.type != "number_literal":
        return None
    try:
        return float(text(n).rstrip("fFlLuU"))
    except ValueError:
        return None


def _declared(d: Node | None) -> str | None:
    while d is not None and d.type != "identifier":
        d = d.child_by_field_name("declarator")
    return text(d) if d is not None else None


def _stride(terms: list[tuple[int, Node]], ints: set[str]) -> tuple[str, set[str]] | None:
    """(S, the names it multiplies) of the one product term of `terms` with a factor S in `ints`."""
    found = []
    for sign, t in terms:
        fs = _factors(t)
        hits = [text(f) for f in fs if f.type == "identifier" and text(f) in ints]
        if sign > 0 and len(fs) > 1 and len(hits) == 1:
            others = set().union(*(_names(f) for f in fs if text(f) != hits[0]))
            found.append((hits[0], others))
    return found[0] if len(found) == 1 else None


def _subscripts(body: Node) -> list[tuple[str, Node]]:
    out = []
    for n in cuda_ast.walk(body):
        if (index := cuda_ast.subscript_index(n)) is not None:
            out.append((text(n.child_by_field_name("argument")), index))
    return out


def _compares(body: Node) -> list[tuple[str, str, str]]:
    out = []
    for n in cuda_ast.walk(body):
        if n.type == "binary_expression" and text(n.child_by_field_name("operator")) in ("<", "<=", ">", ">="):
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            out.append((text(unwrapped(left)), text(n.child_by_field_name("operator")), text(unwrapped(right))))
    return out


def relations(fn: cuda_ast.Function, axes: list[Any], ints: set[str], pointers: set[str]) -> Relations:
    """The relations of the kernel `fn` over its int scalar arguments `ints` (its pointer arguments
    `pointers`; `axes` the thread axes' bounds, Polys)."""
    rel = Relations()
    if fn.body is None:
        return rel
    records: dict[str, str] = {}  # a local pointer -> the stride its records step by
    starts: dict[str, str] = {}  # a local `i * S`, a record's start -> S
    for n in cuda_ast.walk(fn.body):
        if n.type == "init_declarator" and (d := n.child_by_field_name("declarator")) is not None:
            value = n.child_by_field_name("value")
            terms = _terms(value)
            name = _declared(d)
            hit = _stride(terms, ints)
            if name is None:
                continue
            if d.type == "pointer_declarator" and any(_ident(t) in pointers for _, t in terms):
                start = next((starts[v] for _, t in terms if (v := _ident(t)) in starts), None)
                if hit is not None or start is not None:
                    records[name] = hit[0] if hit is not None else str(start)
            elif d.type == "identifier" and len(terms) == 1 and hit is not None:
                starts[name] = hit[0]
    for arr, idx in _subscripts(fn.body):
        terms = _terms(idx)
        start = next((starts[v] for _, t in terms if (v := _ident(t)) in starts), None) if len(terms) == 2 else None
        if arr in records and (c := _int(idx)) is not None:
            rel.fields[records[arr]] = max(rel.fields.get(records[arr], 0), c)
        elif arr in pointers and start is not None and (c := next((_int(t) for _, t in terms if _int(t)), None)):
            rel.fields[start] = max(rel.fields.get(start, 0), c)
        elif arr in pointers and len(terms) == 2 and (hit := _stride(terms, ints)) is not None:
            c = next((_int(t) for s, t in terms if s > 0 and _int(t) is not None), None)
            if c is not None:
                rel.fields[hit[0]] = max(rel.fields.get(hit[0], 0), c)
        if arr in pointers and (hit := _stride(terms, ints)) is not None:
            if any(s < 0 and _ident(t) in hit[1] for s, t in terms):
                rel.bands.add(hit[0])
    rel.fields = {s: c for s, c in rel.fields.items() if c >= 1}
    _reflections(fn.body, axes, ints, rel)
    _reaches(fn.body, ints, rel)
    _picks(fn.body, ints, rel)
    return rel


def _loop(n: Node) -> tuple[str, str] | None:
    """(counter, bound) of `for (...; counter < bound; ...)`."""
    cond = strip_parens(n.child_by_field_name("condition"))
    if cond is None or cond.type != "binary_expression" or text(cond.child_by_field_name("operator")) != "<":
        return None
    k, top = _ident(cond.child_by_field_name("left")), _ident(cond.child_by_field_name("right"))
    return (k, top) if k is not None and top is not None else None


def _picks(body: Node, ints: set[str], rel: Relations) -> None:
    for n in cuda_ast.walk(body):
        outer = _loop(n) if n.type == "for_statement" else None
        if outer is None or outer[1] not in ints or (inside := n.child_by_field_name("body")) is None:
            continue
        for m in cuda_ast.walk(inside):
            inner = _loop(m) if m.type == "for_statement" else None
            if inner is None or inner[1] not in ints or inner[1] == outer[1] or m.child_by_field_name("body") is None:
                continue
            kept = any(
                a.type == "assignment_expression"
                and text(a.child_by_field_name("operator")) == "="
                and _ident(a.child_by_field_name("right")) == inner[0]
                for a in cuda_ast.walk(m.child_by_field_name("body"))
            )
            if kept and (outer[1], inner[1]) not in rel.picks:
                rel.picks.append((outer[1], inner[1]))


CLIPS = ("fminf", "fmin")  # a float clip; `min((int)(x * s), 255)` clamps an index, its scale no gain


def gains(fn: cuda_ast.Function, floats: set[str]) -> list[str]:
    """The float scalars of `floats` that multiply a value (directly or through a local) that a
    `fminf(..., C)` clips from above, C a constant (a float clip, no index clamp)."""
    if fn.body is None:
        return []
    scaled: dict[str, set[str]] = {}  # a local -> the float scalars its value is a product with
    for n in cuda_ast.walk(fn.body):
        if n.type == "init_declarator" and (name := _declared(n.child_by_field_name("declarator"))) is not None:
            fs = _factors(n.child_by_field_name("value"))
            hits = {text(f) for f in fs if f.type == "identifier" and text(f) in floats}
            if len(fs) > 1 and hits:
                scaled[name] = hits
    out: list[str] = []
    for n in cuda_ast.walk(fn.body):
        if n.type != "call_expression" or text(n.child_by_field_name("function")) not in CLIPS:
            continue
        args = [c for c in (n.child_by_field_name("arguments") or n).named_children if c.type != "comment"]
        if len(args) != 2 or _number(args[1]) is None:
            continue
        names = _names(args[0])
        for g in sorted(set().union(*(scaled.get(v, set()) for v in names)) | (names & floats)):
            if g not in out:
                out.append(g)
    return out


def thresholds(fn: cuda_ast.Function, floats: set[str]) -> list[str]:
    """The float scalars of `floats` that are a factor of one side of a comparison (of its dividend,
    for a quotient) whose other side loads from an array."""
    out: list[str] = []
    for n in cuda_ast.walk(fn.body) if fn.body is not None else []:
        if n.type != "binary_expression" or text(n.child_by_field_name("operator")) not in ("<", ">", "<=", ">="):
            continue
        for a, b in (("left", "right"), ("right", "left")):
            side, other = unwrapped(n.child_by_field_name(a)), n.child_by_field_name(b)
            if (
                side is not None
                and side.type == "binary_expression"
                and text(side.child_by_field_name("operator")) == "/"
            ):
                side = side.child_by_field_name("left")
            factors = _factors(side)
            if len(factors) < 2 or not any(m.type == "subscript_expression" for m in cuda_ast.walk(other, 200)):
                continue
            for f in factors:
                if f.type == "identifier" and text(f) in floats and text(f) not in out:
                    out.append(text(f))
    return out


def _reflections(body: Node, axes: list[Any], ints: set[str], rel: Relations) -> None:
    """`if (x >= W) x = 2 * (W - 1) - x;` or `x >= W ? 2 * W - 2 - x : x`: x reflected at W."""
    for n in cuda_ast.walk(body):
        if n.type not in ("if_statement", "conditional_expression"):
            continue
        cond = strip_parens(n.child_by_field_name("condition"))
        if cond is None or cond.type != "binary_expression" or text(cond.child_by_field_name("operator")) != ">=":
            continue
        x, w = _ident(cond.child_by_field_name("left")), _ident(cond.child_by_field_name("right"))
        then = n.child_by_field_name("consequence")
        if x is None or w not in ints or then is None:
            continue
        if n.type == "if_statement":
            values = [
                a.child_by_field_name("right")
                for a in cuda_ast.walk(then)
                if a.type == "assignment_expression" and _ident(a.child_by_field_name("left")) == x
            ]
        else:
            values = [then]
        for value in values:
            terms = _terms(value)
            if any(s < 0 and _ident(t) == x for s, t in terms) and any(w in _names(t) for _, t in terms):
                for p in axes:
                    if p.terms.get((w,)) == 1 and all(len(m) == 1 and c > 0 for m, c in p.terms.items()):
                        rel.reflections += [(v, w) for v in sorted(p.names() - {w}) if v in ints]


def _reaches(body: Node, ints: set[str], rel: Relations) -> None:
    """`at = t - k * D` tested against 0, or `at = t + k * D` tested against L (t compared with L, k a
    loop's counter below K; the difference in a local or tested as it is): the taps reach D * (K - 1)
    from t, below L."""
    counters = {
        loop[0]: loop[1] for n in cuda_ast.walk(body) if n.type == "for_statement" and (loop := _loop(n)) is not None
    }
    compares = _compares(body)
    found: list[tuple[str, Node]] = []
    for n in cuda_ast.walk(body):
        if n.type == "init_declarator" and (name := _declared(n.child_by_field_name("declarator"))) is not None:
            found.append((name, n.child_by_field_name("value")))
        elif n.type == "binary_expression" and text(n.child_by_field_name("operator")) in (">=", "<"):
            found.append((text(unwrapped(n.child_by_field_name("left"))), n.child_by_field_name("left")))
    for at, value in found:
        terms = _terms(value)
        plain = [t for s, t in terms if s > 0 and _ident(t) is not None]
        prods = [(s, t) for s, t in terms if len(_factors(t)) > 1]
        if len(terms) != 2 or len(plain) != 1 or len(prods) != 1:
            continue
        t, (sign, prod) = text(unwrapped(plain[0])), prods[0]
        fs = _factors(prod)
        scales = [text(f) for f in fs if f.type == "identifier" and text(f) in ints]
        taps = {counters[k] for f in fs for k in _names(f) if counters.get(k) in ints}
        ends = {b for a, op, b in compares if a == t and op in (">=", "<") and b in ints}
        if len(scales) != 1 or len(taps) != 1 or len(ends) != 1:
            continue
        (k,), (end,) = taps, ends
        guard = "0" if sign < 0 else end
        if any(a == at and op in (">=", "<") and b == guard for a, op, b in compares):
            if scales[0] not in (k, end) and k != end and (scales[0], k, end) not in rel.reaches:
                rel.reaches.append((scales[0], k, end))


def spans(fn: cuda_ast.Function, scalars: set[str]) -> list[tuple[str, str]]:
    """(B, A) for each `... / (A - B)` of two scalar arguments."""
    out: list[tuple[str, str]] = []
    for n in cuda_ast.walk(fn.body) if fn.body is not None else []:
        if n.type != "binary_expression" or text(n.child_by_field_name("operator")) != "/":
            continue
        terms = _terms(n.child_by_field_name("right"))
        if len(terms) == 2 and {s for s, _ in terms} == {1, -1}:
            a = next(_ident(t) for s, t in terms if s > 0)
            b = next(_ident(t) for s, t in terms if s < 0)
            if a in scalars and b in scalars and a != b and (b, a) not in out:
                out.append((b, a))
    return out


def find(unit: cuda_ast.Unit, kernel: str, axes: list[Any]) -> Relations:
    fn = unit.kernels.get(kernel)
    if fn is None:
        return Relations()
    floats = {p.name for p in fn.params if not p.pointer and p.type in ("float", "double")}
    ints = {p.name for p in fn.params if not p.pointer and p.type not in ("float", "double", "half", "__half")}
    rel = relations(fn, axes, ints, {p.name for p in fn.params if p.pointer})
    rel.gains = gains(fn, floats)
    rel.thresholds = [t for t in thresholds(fn, floats) if t not in rel.gains]
    rel.spans = spans(fn, floats | ints)
    return rel


def env_at(spec: Spec, at: dict[str, int]) -> dict[str, int]:
    """The sizes and whole-valued scalar arguments at the sizes `at`."""
    env = dict(at)
    for a in spec.args:
        if a.is_array:
            continue
        try:
            v = evaluate(a.value, env) if isinstance(a.value, str) else a.value
        except ExprError:
            continue
        if isinstance(v, int | float) and not isinstance(v, bool) and float(v).is_integer():
            env[a.name] = int(v)
    return env


def warnings(rel: Relations, env: dict[str, int], label: str) -> list[tuple[str, str]]:
    """(key, line) for each relation the values `env` contradict."""
    out = []
    for s, c in sorted(rel.fields.items()):
        if s in env and env[s] <= c:
            out.append(
                (
                    f"rows {s}",
                    f"args.{s}: {s} = {env[s]} <= {c}{label}: the kernel steps from one record to the next by {s} "
                    f"and reads field {c} of each, so a record's last fields are the next one's first; a record "
                    f"stride is past the fields read (at least {c + 1})",
                )
            )
    for p, w in rel.reflections:
        if p in env and w in env and env[p] >= env[w]:
            out.append(
                (
                    f"reflect {p}",
                    f"sizes.{p}: {p} = {env[p]} >= {w} = {env[w]}{label}: the kernel reflects an index at {w} "
                    f"on an axis that reaches {p} past it, so the reflection goes below 0; a pad is below {w}",
                )
            )
    for d, k, end in rel.reaches:
        if all(v in env for v in (d, k, end)) and env[d] * (env[k] - 1) >= env[end]:
            out.append(
                (
                    f"reach {d}",
                    f"args.{d}: {d} * ({k} - 1) = {env[d] * (env[k] - 1)} >= {end} = {env[end]}{label}: the "
                    f"kernel's taps reach back {d} * ({k} - 1) from a point below {end}, so every tap past the "
                    f"first reads before the start (nothing); the reach is below {end}",
                )
            )
    for b, a in rel.spans:
        if b in env and a in env and env[b] >= env[a]:
            out.append(
                (
                    f"span {a}",
                    f"args.{a}: {a} - {b} = {env[a] - env[b]}{label}: the kernel divides by {a} - {b}, which is 0 or "
                    f"negative; {b} is below {a}",
                )
            )
    for k, e in rel.picks:
        if k in env and e in env and env[k] >= env[e]:
            out.append(
                (
                    f"picks {k}",
                    f"args.{k}: {k} = {env[k]} >= {e} = {env[e]}{label}: the kernel makes {k} picks, each among the "
                    f"{e} values of a loop over {e}, so the picks past {e} find nothing; {k} is below {e}",
                )
            )
    return out


def _set(spec: Spec, name: str, value: int, table: dict[str, int] | None = None) -> bool:
    """Give `name` (a size, or a scalar argument's constant) `value`, in `table` or the spec's sizes."""
    if name in spec.sizes:
        if table is None:
            spec.sizes[name] = value
        else:
            table[name] = value
        return True
    arg = next((a for a in spec.args if a.name == name and not a.is_array), None)
    if arg is None or table is not None:
        return False
    arg.value = value
    return True


def _retell(guesses: list[tuple[str, str]], name: str, spec: Spec, why: str) -> None:
    key = f"sizes.{name}" if name in spec.sizes else f"args.{name}"
    guesses[:] = [g for g in guesses if g[0] != key]
    guesses.append((key, why))


def fit(spec: Spec, rel: Relations, guesses: list[tuple[str, str]]) -> None:
    """Move the draft's values within the relations, at its sizes and at each check size."""
    if not (rel.reflections or rel.reaches or rel.picks or rel.gains or rel.thresholds or rel.spans):
        return
    for b, a in rel.spans:
        below, above = (next((x for x in spec.args if x.name == v and not x.is_array), None) for v in (b, a))
        if below is None or above is None:
            continue
        vb, va = below.value, above.value
        if isinstance(vb, int | float) and isinstance(va, int | float) and vb >= va:
            below.value, above.value = va, (vb if vb > va else va + 1)
            _retell(guesses, b, spec, f"{below.value}: the kernel divides by {a} - {b}: below {a}")
            _retell(guesses, a, spec, f"{above.value}: the kernel divides by {a} - {b}: above {b}")
    tables = [dict(t) for t in spec.verify_sizes] if spec.verify_sizes is not None else None
    for k, e in rel.picks:
        env = env_at(spec, spec.sizes)
        if k in env and e in env and env[k] >= env[e] and env[e] >= 3 and _set(spec, k, max(2, env[e] // 2)):
            _retell(
                guesses,
                k,
                spec,
                f"{e} // 2: the kernel makes {k} picks, each among the {e} values of a loop "
                f"over {e}: below {e}, above 1",
            )
    taken = {a.value for a in spec.args if not a.is_array and isinstance(a.value, float)}
    said = {
        "gains": "it multiplies a value the kernel clips from above: above 1, so the clip is reached and a gain "
        "dropped or swapped changes the outputs",
        "thresholds": "it scales what the kernel compares a loaded value with (a threshold factor): above 1, so "
        "the test asks for a margin over the reference; set the value you use",
    }
    for g, why in [*((g, said["gains"]) for g in rel.gains), *((g, said["thresholds"]) for g in rel.thresholds)]:
        arg = next((a for a in spec.args if a.name == g and not a.is_array), None)
        if arg is None or not isinstance(arg.value, int | float) or arg.value > 1:
            continue
        arg.value = next((v for v in GAINS if v not in taken), GAINS[0])
        taken.add(arg.value)
        _retell(guesses, g, spec, f"{arg.value}: {why}")
    pads: dict[str, int] = {}
    for p, w in rel.reflections:
        env = env_at(spec, spec.sizes)
        if p in env and w in env and env[p] >= env[w]:
            j = pads[w] = pads.get(w, 0) + 1
            if _set(spec, p, max(1, env[w] // (1 + j))):
                _retell(
                    guesses,
                    p,
                    spec,
                    f"{w} // {1 + j}: the kernel reflects an index at {w} on an axis {p} "
                    f"past it: below {w}, or the reflection goes below 0",
                )
    if rel.reflections:
        tables = tables if tables is not None else [dict(t) for t in default_verify_sizes(spec)]
        for t in tables:
            count: dict[str, int] = {}
            for p, w in rel.reflections:
                env = env_at(spec, {**spec.sizes, **t})
                if p in env and w in env and env[p] >= env[w]:
                    count[w] = count.get(w, 0) + 1
                    _set(spec, p, max(1, env[w] // (1 + count[w])), t)
        spec.verify_sizes = tables
    for d, k, end in rel.reaches:
        ats = [spec.sizes] + [{**spec.sizes, **t} for t in (tables or default_verify_sizes(spec))]
        envs = [env_at(spec, a) for a in ats]
        if not all(v in e for e in envs for v in (d, k, end)):
            continue
        if all(e[d] * (e[k] - 1) < e[end] for e in envs):
            continue
        low = min(e[end] for e in envs)
        dv = envs[0][d]
        if d not in spec.sizes and not _in_problem(spec, k) and dv >= 1:
            kv = max(2, low // (dv + 1))
            kv = kv - 1 if kv == dv and kv > 2 else kv
            if dv * (kv - 1) < low and _set(spec, k, kv):
                _retell(
                    guesses,
                    k,
                    spec,
                    f"{kv}: it bounds taps a step of {d} apart that reach out from a "
                    f"point below {end}: {d} * ({k} - 1) below {end} at every check size, so the taps read data",
                )


def _in_problem(spec: Spec, name: str) -> bool:
    return any(name in re.findall(r"[A-Za-z_]\w*", str(p)) for p in spec.problem_size)
