"""Layout rules a draft follows and the warnings a spec gets where its layout contradicts the kernel.

A row stride `s` in `a[row * s + col]`, col bounded by a size C, must be at least C or rows overlap;
a scalar that bounds one loop counter together with a size (`h < size && h < channels`) is a window
sliding over that size and no larger than it. The drafter drafts by these rules; `layout_warnings`
reads a spec (a draft or the user's) against them at every size the spec's check runs.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from . import cuda_ast, draft_below, draft_masked, draft_overlaps, draft_relations, extents
from .expr import ExprError, evaluate
from .poly import Poly
from .spec import Spec
from .spec_model import default_verify_sizes

LOOP_COUNT = 100  # a scalar that bounds a loop and no array: enough trips to be real work
ROW_PAD = 32  # a stride drafted past its row by this many elements (a pitched row), never equal to it
PLAIN = re.compile(r"[$@]?[A-Za-z_]\w*")  # a name, not an over-approximated atom (`ceil((n + 2) / 2)`)
MAX_WARNINGS = 8  # a hostile kernel's many accesses give one line each at most this many times


def row_spans(an: extents.Analysis, s: str) -> list[Poly]:
    """What one row spans where `s` steps from row to row: for each access `coef * s + rest`, rest a
    column bounded by a sum of plain scalars (read values and grid terms left out), rest + 1. Not a
    row's span: a rest another stride steps in (`b * strideA + r * lda + c`, or an interleaved
    `b * idist + k * istride`); `row * cols + x`, where the coefficient is the column's bound (s
    numbers the row); an index through a division or a conditional (over-approximated)."""
    out: list[Poly] = []
    for use in an.uses.values():
        for h in use.accesses:
            if h is None or s not in h.names() or any(m.count(s) > 1 for m in h.terms):
                continue
            if not all(PLAIN.fullmatch(v) for v in h.names()):
                continue
            coef = h.coefficient(s)
            rest = h - coef * Poly.var(s)
            rest = Poly({m: c for m, c in rest.terms.items() if not any(v.startswith(("$", "@")) for v in m)})
            if coef.is_const() or rest.is_const() or rest.degree() > 1 or coef.names() & rest.names():
                continue
            if any(c.denominator != 1 for c in rest.terms.values()):  # `n / 2`: rounded, over-approximated
                continue
            span = rest + Poly.const(1)
            if span not in out:
                out.append(span)
    return out


def leading_spans(an: extents.Analysis, s: str) -> list[Poly]:
    """What a row spans where `s` is a leading dimension: in every access with s, s multiplies a row index
    whose top is below a size (`j * lda`, j <= n - 2) beside a column below that same size (`i + j * lda`,
    i < n; the terms of other strides, loads and the grid left out): that column's bound (n); none where
    an access has s some other way (`s * cols + x`, s a row number, multiplies a size, not an index)."""
    out: list[Poly] = []
    for use in an.uses.values():
        for h in use.accesses:
            if h is None or s not in h.names():
                continue
            if any(m.count(s) > 1 for m in h.terms):
                return []
            coef = h.coefficient(s)
            rest = h - coef * Poly.var(s)
            rest = Poly({m: c for m, c in rest.terms.items() if set(m) <= coef.names()})
            if coef.terms.get((), 0) >= 0 or coef.is_const() or coef.names() != rest.names():
                return []
            if not all(PLAIN.fullmatch(v) and v[0] not in "$@" for v in coef.names()):
                return []
            span = rest + Poly.const(1)
            if span not in out:
                out.append(span)
    return out


def _whole(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and float(v).is_integer()


def window_over(an: extents.Analysis, name: str, sizes: set[str]) -> str | None:
    """The size a loop-bounding scalar slides over: one that bounds the same counter in the same
    condition (`h < size && h < channels`), the first by name; None where there is none."""
    partners = {b for a, b in an.co_bounds if a == name} | {a for a, b in an.co_bounds if b == name}
    return min(partners & sizes, default=None)


def window_value(over: str) -> str:
    """A window below the extent it slides over (at least 2 where the extent is 3), at most LOOP_COUNT."""
    return f"min({LOOP_COUNT}, {over} // 2 + 1)"


def layout_warnings(src: str, kernel_name: str, spec: Spec) -> list[str]:
    """One line per contradiction between the spec's layout and the kernel's index math, at the
    spec's sizes and each check size: rows that overlap, a window larger than what it slides over, a
    leading dimension below its row, a scale that truncates every coordinate to one index."""
    try:
        unit = cuda_ast.parse(src)
        an = extents.analyse(unit, kernel_name)
    except Exception:  # noqa: BLE001  a best effort: a kernel the analysis cannot read gets no warning
        return []
    if an is None or not an.ok:
        return []
    scalars = {a.name: a for a in spec.args if not a.is_array}
    try:
        rel = draft_overlaps.relations(unit, kernel_name, an, set(scalars), [str(p) for p in spec.problem_size])
    except Exception:  # noqa: BLE001  as above
        rel = None
    facts = draft_relations.find(unit, kernel_name, list(an.axes.values()))
    fn = unit.kernels.get(kernel_name)
    ints = (
        {p.name for p in fn.params if not p.pointer and p.type not in ("float", "double", "half", "__half")}
        if fn
        else set()
    )
    below = draft_below.find(fn, ints) if fn is not None else []
    masked = draft_masked.find(fn, ints) if fn is not None else []
    if rel is not None:  # band storage steps over no plain row
        rel.levels = [lv for lv in rel.levels if not set(lv.coefs) & facts.bands]
    sized = {a.name for a in scalars.values() if isinstance(a.value, str) and a.value.strip() in spec.sizes}
    tables = [("", spec.sizes)] + [(f" at {t['label']}", t["sizes"]) for t in spec.extra_sizes()]
    out: list[str] = []
    seen: set[str] = set()

    def values(at: dict[str, int]) -> dict[str, int]:
        """The sizes, defines and scalar arguments with whole values at `at` (a float scalar sizes nothing)."""
        env: dict[str, int] = dict(at)
        env.update({k: int(v) for k, v in spec.define_values(at).items() if _whole(v)})
        for a in scalars.values():
            try:
                v = evaluate(a.value, env) if isinstance(a.value, str) else a.value
            except ExprError:
                continue
            if isinstance(v, int | float) and _whole(v):
                env[a.name] = int(v)
        return env

    def add(key: str, line: str) -> None:
        if key not in seen and len(out) < MAX_WARNINGS:
            seen.add(key)
            out.append(line)

    strides = {
        s: spans
        for s in sorted(scalars)
        if s not in sized | facts.bands and s not in an.guard_bounds | an.loop_bounds and (spans := row_spans(an, s))
    }
    leading = {
        s: spans
        for s in sorted(scalars)
        if s not in strides and s not in facts.bands and (spans := leading_spans(an, s))
    }
    windows = {
        (w, over)
        for a, b in sorted(an.co_bounds)
        for w, over in ((a, b), (b, a))
        if w in scalars and over in scalars and w not in sized and over in sized
    }
    windows_read = [w for g in an.guarded if (w := slid_window(an, *g)) is not None]
    truncated = {f: top for f, top in sorted(an.truncated.items()) if f in scalars}
    for a in spec.args:
        use = an.uses.get(a.name)
        if a.is_array and not a.output and use is not None and use.written:
            how = "by an atomic" if use.atomic else "by a store"
            add(
                f"output {a.name}",
                f"args.{a.name}: the kernel writes {a.name} ({how}), but the spec does not mark it an output, so "
                "the check never compares it",
            )
    for label, at in tables:
        try:
            env = values(at)
        except ExprError:
            continue
        if rel is not None:
            floats = {
                a.name: v
                for a in scalars.values()
                if a.type.startswith("float") and (v := number(a.value, env)) is not None
            }
            for key, line in draft_overlaps.relation_warnings(rel, env, floats, label):
                add(key, line)
        for key, line in [
            *draft_relations.warnings(facts, env, label),
            *draft_below.warnings(below, env, label),
            *draft_masked.warnings(masked, env, label),
        ]:
            add(key, line)
        for s, spans in strides.items():
            for span in spans:
                if not span.names() <= set(env) or s not in env:
                    continue
                need = float(span.value(env))
                if env[s] < need:
                    add(
                        f"rows {s}",
                        f"args.{s}: {s} = {env[s]:g} < {span.text()} = {need:g}{label}: the kernel steps rows by {s} "
                        f"and reads {span.text()} columns in a row, so rows overlap; a stride is at least the row",
                    )
        for s, spans in leading.items():
            for span in spans:
                if span.names() <= set(env) and s in env and env[s] < (need := float(span.value(env))):
                    add(
                        f"rows {s}",
                        f"args.{s}: {s} = {env[s]:g} < {span.text()} = {need:g}{label}: the kernel steps a row index "
                        f"below {span.text()} by {s} beside a column below {span.text()} (a leading dimension), so "
                        f"rows overlap; a leading dimension is at least the row",
                    )
        for f, top in truncated.items():
            scale = number(scalars[f].value, env)
            if scale is None or not top.names() <= set(env):
                continue
            reach = scale * float(top.value(env))
            if 0 <= reach < 1:
                add(
                    f"scale {f}",
                    f"args.{f}: {f} * ({top.text()}) = {reach:.3g} < 1{label}: the kernel truncates a coordinate "
                    f"up to {top.text()} times {f} to an index, so every coordinate gives index 0 and all of them "
                    "read one element; a scale maps the coordinates onto several indices",
                )
        for win, over in sorted(windows):
            if win in env and over in env and env[win] > env[over]:
                add(
                    f"window {win}",
                    f"args.{win}: {win} = {env[win]} > {over} = {env[over]}{label}: it bounds the loop over {over} "
                    f"with it (a window sliding over {over}), so it is larger than the extent it slides over",
                )
        for w in windows_read:
            if not w.names() <= set(env):
                continue
            have, want = env[w.out], w.formula(env)
            if have != want:
                add(
                    f"output {w.out}",
                    f"args.{w.out}: {w.out} = {have:g}{label}, but the kernel's guard `< {w.bound.text()}` on a "
                    f"window shifted by {w.pad} implies {w.out} = {w.text()} = {want:g}: "
                    + (
                        "no output's window meets the input"
                        if want <= 0
                        else "the last outputs read nothing but padding"
                        if have > want
                        else "the input's last rows are never read"
                    ),
                )
    return out


def number(value: object, env: dict[str, int]) -> float | None:
    """A scalar's value at `env` (a constant or an expression over the sizes), None where it is none."""
    try:
        v = evaluate(value, env) if isinstance(value, str) else value
    except ExprError:
        return None
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) else None


@dataclass(frozen=True)
class SlidWindow:
    """`x = o * S - pad + k * D`, o < out, guarded `x < bound` (and `x >= 0`): a padded window (a
    convolution's input row); the output extent it implies is out = (bound - 1 + 2 * pad - R) // S,
    R what the index adds past o * S beside the `- pad`, the padding the same on both ends."""

    out: str
    pad: str
    step: Poly  # S
    rest: Poly  # R
    bound: Poly  # the guard's bound (its top + 1)

    def names(self) -> set[str]:
        return {self.out, self.pad} | self.step.names() | self.rest.names() | self.bound.names()

    def top(self) -> Poly:
        """What `out * S` may reach: the guard's top past the padding on both ends, less R."""
        return self.bound - Poly.const(1) + Poly.var(self.pad) * Poly.const(2) - self.rest

    def formula(self, env: dict[str, int]) -> int:
        step = float(self.step.value(env))
        if step <= 0:
            return int(env[self.out])  # no window steps: nothing to say
        return math.floor(float(self.top().value(env)) / step)

    def text(self) -> str:
        return self.top().text() if self.step == Poly.const(1) else f"({self.top().text()}) // {self.step.text()}"


def slid_window(an: extents.Analysis, top: Poly, bound_top: Poly) -> SlidWindow | None:
    """The padded window a guard cuts (SlidWindow), or None: the guarded index's top has exactly one
    term `- pad` (a scalar argument in no other term) and one thread extent `out` it is linear in."""
    if any(v.startswith(("$", "@")) for v in top.names() | bound_top.names()):
        return None
    pads = [
        m[0]
        for m, c in top.terms.items()
        if len(m) == 1 and c == -1 and m[0] in an.read and all(m[0] not in n for n in top.terms if n != m)
    ]
    extents_ = {v for p in an.axes.values() for v in p.names()}
    outs = [o for o in sorted(top.names() & extents_) if all(m.count(o) <= 1 for m in top.terms)]
    if len(pads) != 1 or len(outs) != 1 or pads[0] == outs[0]:
        return None
    o = outs[0]
    step = top.coefficient(o)
    rest = top - step * Poly.var(o) + Poly.var(pads[0])
    if step.is_const() and step == Poly():
        return None
    return SlidWindow(o, pads[0], step, rest, bound_top + Poly.const(1))


def fit_windows(spec: Spec, an: extents.Analysis, guesses: list[tuple[str, str]]) -> None:
    """Give the extent a padded window's guard bounds (the input's rows, a size no thread axis uses)
    the value that makes the output's extent what the guard implies, at the spec's sizes and at each
    check size: then every input row is read and no output reads only padding."""
    problem = {v for p in spec.problem_size for v in PLAIN.findall(str(p))}
    for w in [w for g in an.guarded if (w := slid_window(an, *g)) is not None]:
        (bound,) = w.bound.names() if len(w.bound.names()) == 1 else ("",)
        if w.bound != Poly.var(bound) or bound not in spec.sizes or bound in problem or w.out not in spec.sizes:
            continue
        tables = [dict(t) for t in spec.verify_sizes] if spec.verify_sizes is not None else None
        points: list[dict[str, int] | None] = [None, *(tables or [dict(t) for t in default_verify_sizes(spec)])]
        changed = False
        for t in points:
            env = draft_relations.env_at(spec, {**spec.sizes, **(t or {})})
            if not w.names() <= set(env) or w.formula(env) == env[w.out]:
                continue
            step = float(w.step.value(env))
            if step <= 0:
                continue
            b = max(1, math.ceil(env[w.out] * step - float(w.top().value({**env, bound: 0}))))
            while w.formula({**env, bound: b}) < env[w.out]:
                b += 1
            if w.formula({**env, bound: b}) != env[w.out]:
                continue
            if t is None:
                spec.sizes[bound] = b
            else:
                t[bound] = b
            changed = True
        if changed:
            spec.verify_sizes = [t for t in points[1:] if t is not None]
            key = f"sizes.{bound}"
            guesses[:] = [g for g in guesses if g[0] != key]
            guesses.append(
                (
                    key,
                    f"{spec.sizes[bound]}: the kernel's guard `< {bound}` cuts a window shifted by {w.pad} whose "
                    f"outputs number {w.out}: sized so that {w.out} = {w.text()}, every input row read and no "
                    "output reading only padding",
                )
            )
