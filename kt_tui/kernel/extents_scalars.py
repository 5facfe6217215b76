"""What the scalar arguments of a kernel do in its index math, for kernel/extents_expr.py's Expressions:
sizes by division (`w / f`, `rot_dim / 2`), values rescaled onto another range (`v * S / D`), float
scalars that place a thread on a coordinate (`x0 + i * dx`), scale a coordinate onto a clamped index
(a resize) or are truncated with it to an index."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from math import gcd

from .bounds import Val, WalkerState, declared_name, loads, one_name
from .cuda_ast import Node, text
from .poly import Poly, at_least


class ScalarRoles(WalkerState):
    def _truncated(self, v: Val) -> None:
        """`(int)(x * f)` or `floorf(x * f)`, f one float scalar, x a coordinate of the threads below a bound
        in sizes: records f -> x's top (Analysis.truncated)."""
        hi = v.hi
        if hi is None or loads(hi) or not v.axes:
            return
        fs = sorted(hi.names() & self.floats)
        if len(fs) != 1 or any(m.count(fs[0]) > 1 for m in hi.terms):
            return
        per = Poly({tuple(x for x in m if x != fs[0]): c for m, c in hi.terms.items() if fs[0] in m})
        if per.names() and not per.names() & self.floats and per.degree() == 1:
            self.out.truncated.setdefault(fs[0], per)

    def _quotient(self, n: Node, a: Val, b: Val) -> Val | None:
        """`w / f` with w and f int arguments (`(n - k) / f`: w plus sizes taken away): a size of its own,
        q, with w = q * f - rest (a whole multiple of f) wherever w is used; named as the local it
        initialises (`int out_w = w / f;`)."""
        num, ints = a.hi, self.scalars - self.floats
        f = next(iter(b.hi.terms)) if b.hi is not None and b.hi == b.lo and list(b.hi.terms.values()) == [1] else ()
        if a.axes or b.axes or num is None or num != a.lo or not f or not set(f) <= ints:
            return None  # f: the divisor, a product of int arguments (`w / f`, `c / (r * r)`)
        if not num.names() <= ints | set(self.unit.defines) or set(f) & num.names():
            return None
        picks = [m[0] for m, c in num.terms.items() if len(m) == 1 and c == 1 and m[0] in ints]
        for v in picks:
            rest = num - Poly.var(v)
            if v in rest.names():
                continue
            for q, (v2, f2, rest2) in self.out.quotients.items():
                diff = rest2 - rest  # j * f: the same size, one the other plus j (`(h - k) / s + 1`)
                if (v2, f2) == (v, f) and set(diff.terms) <= {f} and diff.terms.get(f, 0).denominator == 1:
                    j = Poly.const(diff.terms.get(f, 0))
                    return Val(Poly.var(q) - j, Poly.var(q) - j, params=a.params)
                if v2 == v:
                    return None  # w divided two ways: w cannot be a multiple of both by construction
            local, k = self._named(n)
            taken = set(self.ptypes) | set(self.unit.defines) | set(self.out.quotients)
            q = local if local and local not in taken else f"{v}_per_{'_'.join(f)}"
            if q in taken:
                return None
            if q != local:
                k = 0
            self.out.quotients[q] = (v, f, rest + Poly.const(k) * Poly({f: Fraction(1)}))
            return Val(Poly.var(q) - Poly.const(k), Poly.var(q) - Poly.const(k), params=a.params)
        return None

    def _part(self, a: Val, b: Val) -> Val | None:
        """`rot_dim / 2`, an int argument over a number: a size of a whole number of parts (rot_dim even),
        so the part is exact and what is divided by it (`i / half`) is divided exactly."""
        num, den = a.hi, b.hi
        if num is None or den is None or a.lo != num or b.lo != den or a.axes or not den.is_const():
            return None
        c, name = den.value(), one_name(a)
        if c.denominator != 1 or not 2 <= c <= 64 or name not in self.scalars - self.floats:
            return None
        if name in self.loop_names:  # `kw / 2` of a filter's width: a radius, the width odd as often as not
            return None
        have = self.out.parts.get(name, 1)
        self.out.parts[name] = have * int(c) // gcd(have, int(c))
        return Val(num * Poly.const(Fraction(1, int(c))), num * Poly.const(Fraction(1, int(c))), params=a.params)

    def _multiples(self, a: Val, d: Poly) -> Val:
        """`(w - 1) / f` once w is a size by division (w = q * f - rest, see _quotient): w written so, the
        quotient of a multiple of f is exact (`head_offset / x` below head_size / x)."""
        for q, (v, f, rest) in self.out.quotients.items():
            if Poly({f: Fraction(1)}) == d and not rest.terms:
                whole = Poly.var(q) * d
                lo = a.lo.substitute(v, whole) if a.lo is not None else None
                hi = a.hi.substitute(v, whole) if a.hi is not None else None
                a = Val(lo, hi, a.base, a.axes, a.params, a.split, a.unit)
        return a

    def _named(self, n: Node) -> tuple[str, int]:
        """The local a quotient initialises and the whole number added to it: ("out_w", 0) for `int out_w =
        w / f;`, ("out_h", 1) for `int out_h = (h - k) / s + 1;` (the local itself is then the size, one
        name, so what it multiplies and divides stays a product of names); ("", 0) for none."""
        parent, k = n.parent, 0
        while parent is not None and parent.type == "parenthesized_expression":
            parent = parent.parent
        if parent is not None and parent.type == "binary_expression":
            op = text(parent.child_by_field_name("operator"))
            left, right = parent.child_by_field_name("left"), parent.child_by_field_name("right")
            first = left is not None and left.start_byte <= n.start_byte and n.end_byte <= left.end_byte
            other = right if first else left
            if (op == "+" or op == "-" and first) and other is not None and other.type == "number_literal":
                try:
                    k = int(text(other)) * (1 if op == "+" else -1)
                except ValueError:
                    return "", 0
                parent = parent.parent
                while parent is not None and parent.type == "parenthesized_expression":
                    parent = parent.parent
        return (declared_name(parent), k) if parent is not None and parent.type == "init_declarator" else ("", 0)

    def _rescaled(self, a: Val, b: Val) -> Poly | None:
        """`v * S / D` with v loaded from an int array and S, D scalars: v is a value in [0, D) mapped onto
        [0, S) (a bin of a histogram, say): S - 1, with v noted as bounded by D."""
        num, den = a.hi, b.hi
        if num is None or den is None or den != b.lo or len(num.terms) != 1 or len(den.terms) != 1:
            return None
        ((mono, coef),) = num.terms.items()
        ((dmono, dcoef),) = den.terms.items()
        scalars = self.scalars | set(self.unit.defines)
        lds = [v for v in mono if v.startswith("$")]
        rest = [v for v in mono if not v.startswith("$")]
        if len(lds) != 1 or not rest or coef <= 0 or len(dmono) > 1 or not set(dmono) <= scalars:
            return None
        if (dcoef != 1) if dmono else (dcoef <= 1 or dcoef.denominator != 1):  # D a scalar, or a number (256)
            return None
        if any(v not in scalars for v in rest) or a.lo is None or not at_least(a.lo, Poly.const(0)):
            return None
        self.out.scaled.setdefault(lds[0][1:], den)
        self.out.guard_bounds.update({*dmono, *rest} & self.scalars)
        span = Poly.const(coef)
        for v in rest:
            span = span * Poly.var(v)
        return span - Poly.const(1)

    def _roles(self, op: str, n: Node, a: Val, b: Val) -> None:
        """Float scalars that place a thread on a coordinate: `x0 + i * dx`, `xmin + i*(xmax - xmin)/w`."""
        roles = self.out.roles
        if op == "-" and len(a.params) == 1 and len(b.params) == 1 and not a.axes and not b.axes:
            (pa,), (pb,) = a.params, b.params
            if pa in self.floats and pb in self.floats:
                roles.setdefault(pa, ("end", -1))
                roles.setdefault(pb, ("origin", -1))
        for x, y in ((a, b), (b, a)):
            if not x.axes or y.axes:
                continue
            axis = min(x.axes)
            for p in y.params & self.floats:
                if op in ("*", "/"):
                    role = roles.get(p)
                    if role is None:  # i / zoom: zoom is pixels per unit
                        roles[p] = ("zoom" if op == "/" and y is b and len(y.params) == 1 else "step", axis)
                    elif role[1] < 0:
                        roles[p] = (role[0], axis)
                elif op in ("+", "-") and len(y.params) == 1 and len(self.trip) > 1:  # z = z*z + c, in a loop
                    roles.setdefault(p, ("constant", sum(r[0] == "constant" for r in roles.values())))
                elif op in ("+", "-") and len(y.params) == 1:
                    role = roles.get(p)
                    # p times a value read (`x - dt * v.x`): it scales a displacement of the coordinate
                    roles[p] = (
                        ("origin" if y.hi is not None else "shift", axis) if role is None or role[1] < 0 else role
                    )

    # -- memory ----------------------------------------------------------------------------

    def _unfloated(self, a: Val, b: Val, upper: bool) -> tuple[Val, Val]:
        """`min((int)sx, cols - 1)`, sx a coordinate in float arguments (`(x + 0.5f) * fx`): its bound in fx
        says nothing of the index, the clamp's int side bounds it (`fmaxf(sx, 0.0f)`: 0 below). A
        coordinate below D scaled by one float f and clamped below S: f is the scale S / D."""

        def floated(p: Poly | None) -> bool:
            return p is not None and bool(p.names() & self.floats)

        near = (a.hi, b.hi) if upper else (a.lo, b.lo)
        if floated(near[0]) == floated(near[1]):
            return a, b
        fl, other = (a, b) if floated(near[0]) else (b, a)
        bound = fl.hi if upper else fl.lo
        if upper and bound is not None and other.hi is not None and not other.hi.names() & self.floats:
            self._resize(bound, other.hi + Poly.const(1))
        blank = replace(fl, hi=None) if upper else replace(fl, lo=None)
        return (blank, b) if fl is a else (a, blank)

    def _resize(self, coord: Poly, size: Poly) -> None:
        """coord = f * D + (terms smaller than D), one float f, clamped below `size`: f maps [0, D) onto it."""
        (f, *more) = sorted(coord.names() & self.floats)
        if more or not size.names() or loads(size):
            return
        per = coord.coefficient(f)
        top = [(m, c) for m, c in per.terms.items() if len(m) == per.degree() and m]
        if len(top) == 1 and top[0][1] > 0 and not set(top[0][0]) & self.floats and not loads(per):
            self.out.resized.setdefault(f, (size, Poly({top[0][0]: Fraction(1)})))
