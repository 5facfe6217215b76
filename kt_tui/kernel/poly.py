"""Polynomials over named sizes with rational coefficients: the index bounds of kernel/extents.py
(`3*npart`, `(w + 2)*(h + 2)`), written back in the spec's expression language."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

MAX_TERMS = 64
# a product of more names than this is too big: planes of a volume whose three sides are exact quotients
# (side = out * stride + window - stride, kernel/draft_layout.py) reach 7
MAX_DEGREE = 8

Mono = tuple[str, ...]  # the names of a product, sorted, with repeats
Terms = dict[Mono, Fraction]


class TooBig(ValueError):
    pass


class Poly:
    __slots__ = ("terms",)

    def __init__(self, terms: Terms | None = None) -> None:
        self.terms = {m: c for m, c in (terms or {}).items() if c != 0}
        if len(self.terms) > MAX_TERMS:
            raise TooBig("polynomial too large")

    @staticmethod
    def const(c: int | float | Fraction) -> Poly:
        return Poly({(): Fraction(c)})

    @staticmethod
    def var(name: str) -> Poly:
        return Poly({(name,): Fraction(1)})

    def __add__(self, o: Poly) -> Poly:
        t = dict(self.terms)
        for m, c in o.terms.items():
            t[m] = t.get(m, Fraction(0)) + c
        return Poly(t)

    def __neg__(self) -> Poly:
        return Poly({m: -c for m, c in self.terms.items()})

    def __sub__(self, o: Poly) -> Poly:
        return self + (-o)

    def __mul__(self, o: Poly) -> Poly:
        t: Terms = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in o.terms.items():
                m = tuple(sorted(m1 + m2))
                if len(m) > MAX_DEGREE:
                    raise TooBig("degree too high")
                t[m] = t.get(m, Fraction(0)) + c1 * c2
        return Poly(t)

    def __eq__(self, o: object) -> bool:
        return isinstance(o, Poly) and self.terms == o.terms

    def __hash__(self) -> int:
        return hash(frozenset(self.terms.items()))

    def names(self) -> set[str]:
        return {v for m in self.terms for v in m}

    def is_const(self) -> bool:
        return all(not m for m in self.terms)

    def value(self, at: dict[str, int] | int | None = None) -> Fraction:
        """The value with every name at at[name] (a dict), or all at one number."""
        total = Fraction(0)
        for m, c in self.terms.items():
            for v in m:
                c *= at.get(v, 2) if isinstance(at, dict) else (at if at is not None else 2)
            total += c
        return total

    def coefficient(self, name: str) -> Poly:
        """What `name` multiplies: the terms with it, `name` taken out (`i * lda + j * lda * n` -> `i + j * n`)."""
        return Poly({tuple(v for v in m if v != name): c for m, c in self.terms.items() if name in m})

    def substitute(self, name: str, by: Poly) -> Poly:
        """This polynomial with `name` replaced by `by` wherever it appears."""
        out = Poly()
        for m, c in self.terms.items():
            term = Poly({tuple(v for v in m if v != name): c})
            for _ in range(m.count(name)):
                term = term * by
            out = out + term
        return out

    def degree(self) -> int:
        return max((len(m) for m in self.terms), default=0)

    def leading(self) -> Poly:
        d = self.degree()
        return Poly({m: c for m, c in self.terms.items() if len(m) == d})

    def divide(self, d: Poly) -> Poly | None:
        """An upper bound of floor(self / d) for d a single positive monomial: terms not divisible are
        dropped when negative (the quotient only grows; by one when they are less than d), else None."""
        if len(d.terms) != 1:
            return None
        ((dm, dc),) = d.terms.items()
        if dc <= 0:
            return None
        out: Terms = {}
        dropped = Poly()
        for m, c in self.terms.items():
            rest = list(m)
            try:
                for v in dm:
                    rest.remove(v)
            except ValueError:
                if c < 0:
                    dropped = dropped + Poly({m: c})
                    continue
                return None
            out[tuple(rest)] = out.get(tuple(rest), Fraction(0)) + c / dc
        q = Poly(out)
        if dropped.terms and at_least(dropped + d, Poly()):  # w*Q - c with 0 < c <= w: floor is Q - 1
            return q - Poly.const(1)
        return q

    def text(self, order: dict[str, int] | None = None) -> str:
        """In the spec's expression language, factored where it splits: `(w + 2)*(h + 2)`; names in
        `order` (name -> rank) come first in a product."""
        if not self.terms:
            return "0"
        scale = math.lcm(*(c.denominator for c in self.terms.values()))
        if scale > 1:  # n/2: a size must be whole, and never under the bound
            whole = self * Poly.const(scale)
            inner = whole.text(order)
            return f"ceil({inner if len(whole.terms) == 1 else f'({inner})'} / {scale})"
        key = _key(order)
        factored = _factor(self, order)
        if factored:
            return factored
        parts = []
        for m, c in sorted(self.terms.items(), key=lambda t: (-len(t[0]), t[1] < 0, sorted(map(key, t[0])))):
            body = "*".join(sorted(m, key=key))
            coef = _num(abs(c))
            word = body if c in (1, -1) and body else (f"{coef}*{body}" if body else coef)
            parts.append(("- " if c < 0 else "+ ") + word)
        out = " ".join(parts)
        return out[2:] if out.startswith("+ ") else "-" + out[2:]

    def __repr__(self) -> str:
        return f"Poly({self.text()})"


def _num(c: Fraction) -> str:
    return str(c.numerator) if c.denominator == 1 else f"{c.numerator}/{c.denominator}"


def _key(order: dict[str, int] | None) -> Callable[[str], tuple[int, str]]:
    return lambda name: ((order or {}).get(name, 99), name)


def _factor(p: Poly, order: dict[str, int] | None) -> str | None:
    """p as (v + k)*A or v*A for a name v, when it splits that way."""
    if len(p.terms) < 2 or p.degree() < 2:
        return None
    for v in sorted(p.names(), key=_key(order)):
        with_v = {m: c for m, c in p.terms.items() if v in m}
        if any(m.count(v) > 1 for m in with_v):
            continue
        a = Poly({tuple(x for x in m if x != v): c for m, c in with_v.items()})
        b = Poly({m: c for m, c in p.terms.items() if v not in m})
        if not a.terms or a.is_const():
            continue
        k = _ratio(b, a)
        if k is not None:
            first = v if k == 0 else f"({v} + {_num(k)})" if k > 0 else f"({v} - {_num(-k)})"
            inner = _factor(a, order)
            if inner is None:
                inner = a.text(order)
                inner = inner if len(a.terms) == 1 else f"({inner})"
            return f"{first}*{inner}"
    return None


def _ratio(b: Poly, a: Poly) -> Fraction | None:
    """k with b == k*a (k may be 0), else None."""
    if not b.terms:
        return Fraction(0)
    m, c = next(iter(a.terms.items()))
    k = b.terms.get(m, Fraction(0)) / c
    return k if k != 0 and (a * Poly.const(k)) == b else None


def at_least(a: Poly, b: Poly) -> bool:
    """a >= b at every sample point (names at 2, 7, 1000 and mixed): true for the bounds met here."""
    d = a - b
    points: list[int | dict[str, int]] = [2, 7, 1000]
    names = sorted(d.names())
    for i in range(len(names)):
        points.append({n: (1000 if j == i else 2) for j, n in enumerate(names)})
    return all(d.value(p) >= 0 for p in points)


def pmax(a: Poly, b: Poly) -> Poly | None:
    if at_least(a, b):
        return a
    if at_least(b, a):
        return b
    return None


def pmin(a: Poly, b: Poly) -> Poly | None:
    if at_least(a, b):
        return b
    if at_least(b, a):
        return a
    return None
