"""The values kernel/extents.py computes with: an index's bounds as polynomials (Val), what a kernel
does with each pointer argument (Use), what it found (Analysis), and the arithmetic on bounds."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

from . import cuda_ast
from .cuda_ast import Node, text
from .poly import Poly, at_least, pmax, pmin
from .vectors import COMPLEX, vector_scalar

AXES = "xyz"
ATOMICS = {
    "atomicAdd",
    "atomicSub",
    "atomicMax",
    "atomicMin",
    "atomicInc",
    "atomicDec",
    "atomicAnd",
    "atomicOr",
    "atomicXor",
    "atomicExch",
    "atomicCAS",
    "atomicAdd_block",
    "atomicAdd_system",
}
ACCUMULATING = {
    "atomicAdd",
    "atomicSub",
    "atomicInc",
    "atomicDec",
    "atomicOr",
    "atomicAdd_block",
    "atomicAdd_system",
    "atomicMax",
    "atomicMin",
}
MAX_DEPTH = 150  # nested expressions / statements followed; deeper is unknown
MAX_STEPS = 50_000  # expression and statement visits per kernel (a large kernel takes a few thousand)
MAX_CALLS = 3  # __device__ calls followed inside one another


def plain_type(ctype: str) -> str:
    """A C type with CUDA's complex types as the float2 / double2 they are laid out as."""
    return re.sub(r"\b(" + "|".join(COMPLEX) + r")\b", lambda m: COMPLEX[m.group(1)], ctype)


def grid(axis: int) -> str:
    return "@g" + AXES[axis]


def block(axis: int) -> str:
    return "@b" + AXES[axis]


def load(array: str) -> str:
    return "$" + array


Split = tuple[str, Poly | None, Poly | None, Poly, Fraction]  # ("q" | "r" | "qw", i.lo, i.hi, w, c): c times it


@dataclass(frozen=True)
class Val:
    lo: Poly | None = None
    hi: Poly | None = None
    base: str | None = None  # a pointer into this argument, at offset [lo, hi]
    axes: frozenset[int] = frozenset()  # thread axes the value derives from
    params: frozenset[str] = frozenset()  # scalar arguments it derives from
    split: Split | None = None  # ("q" | "r" | "qw", i.lo, i.hi, w, c): c * (i / w), i % w, c * (i / w) * w
    unit: int = 0  # a pointer cast to another element type: its offset counts elements of `unit` bytes
    also: frozenset[str] = frozenset()  # other arguments the pointer may be (`which ? q_out : k_out`), at its offset
    capped: frozenset[str] = frozenset()  # arrays whose read values a min caps (`min(ends[r], w)`): hi is the cap


UNKNOWN = Val()


def const(c: int | float | Fraction) -> Val:
    p = Poly.const(c)
    return Val(p, p)


@dataclass
class Use:
    accesses: list[Poly | None] = field(default_factory=list)  # upper bounds (Poly, or None: not bounded) of indices
    lows: list[Poly | None] = field(default_factory=list)
    written: bool = False
    assigned: bool = False  # `a[i] = ...` (not only accumulated into)
    read: bool = False
    compared: bool = False  # its values are compared with small constants or tested as true/false
    sign: bool = False  # its values are ordered against 0 (`x[i] >= 0`): their sign is tested
    nonneg: bool = False  # its values go through `%` or a shift into an index
    atomic: bool = False  # written by an atomic
    summed: bool = False  # added to by an atomicAdd or atomicSub (in the order blocks run)
    compound: bool = False  # written by `+=` and the like, or `++`


@dataclass
class Analysis:
    uses: dict[str, Use] = field(default_factory=dict)
    axes: dict[int, Poly] = field(default_factory=dict)  # thread axis -> its bound (problem size)
    used_axes: set[int] = field(default_factory=set)
    block_axes: set[int] = field(default_factory=set)  # axes indexed by blockIdx alone (a block per element)
    per_item: dict[int, int] = field(default_factory=dict)  # axis -> threads per item ((thread) / 32: a warp)
    # grid axis -> the block axis whose threads number its items (blockIdx.x * blockDim.y + threadIdx.y)
    folded: dict[int, int] = field(default_factory=dict)
    grid_axes: set[int] = field(default_factory=set)  # axes whose blockIdx or gridDim the kernel reads
    block_read: set[int] = field(default_factory=set)  # axes whose blockDim the kernel reads
    thread_read: set[int] = field(default_factory=set)  # axes whose threadIdx the kernel reads
    shuffles: bool = False  # warp shuffles (__shfl_*): a warp's 32 lanes work together
    read: set[str] = field(default_factory=set)  # scalar arguments the kernel reads
    scales: dict[str, set[int]] = field(default_factory=dict)  # scalar -> thread axes of what it multiplies (-1: none)
    # sizes by division: a name q for (v + rest) / f with v, f scalar arguments -> (v, f, rest)
    quotients: dict[str, tuple[str, tuple[str, ...], Poly]] = field(default_factory=dict)
    block_consts: dict[int, int] = field(default_factory=dict)  # axis -> the #define'd block size blockIdx is scaled by
    loop_bounds: set[str] = field(default_factory=set)  # scalars that bound a loop
    windows: set[str] = field(default_factory=set)  # ... whose counter offsets a thread's coordinate (a filter)
    guard_bounds: set[str] = field(default_factory=set)  # scalars that bound a value in an `if`
    loop_loads: set[str] = field(default_factory=set)  # arrays whose values bound a loop (row pointers)
    groups: dict[int, int] = field(default_factory=dict)  # axis -> G: (i / G) * k * G + i % G, i a thread index
    ranged: dict[str, Poly] = field(default_factory=dict)  # int array -> S where its values are tested `v < S`
    # int array -> T + 1 where a position t <= T is tested below its values (`t < len[b]`): lengths up to T + 1
    lengths: dict[str, Poly] = field(default_factory=dict)
    escape_bounds: set[str] = field(default_factory=set)  # ... of a loop that also stops on a float test
    trips: list[Poly] = field(default_factory=list)  # nested loop trip counts (the work per thread)
    strides: list[Poly] = field(default_factory=list)  # what thread indices are multiplied by (row lengths)
    roles: dict[str, tuple[str, int]] = field(default_factory=dict)  # float scalar -> (origin|step|end, axis)
    scaled: dict[str, Poly] = field(default_factory=dict)  # int array -> D where its values v index as v * S / D
    resized: dict[str, tuple[Poly, Poly]] = field(default_factory=dict)  # float scalar f -> (S, D): f = S / D
    # float scalar f -> the top T of the coordinate it multiplies where `(int)(x * f)` or `floorf(x * f)`, x <= T,
    # is truncated to an index: at f * T < 1 every x gives index 0
    truncated: dict[str, Poly] = field(default_factory=dict)
    rescales: dict[str, Poly] = field(default_factory=dict)  # B -> A where `x * A / B`, x < B, maps B cells onto A
    parts: dict[str, int] = field(default_factory=dict)  # int argument -> c where it is divided by c (`n / 2`)
    window_ends: set[str] = field(default_factory=set)  # B of a rescaled end past the start (`(x + 1) * A / B`)
    # (a, b): scalars that bound one loop counter in one condition (`h < size && h < channels`): a window
    # and the extent it slides over
    co_bounds: set[tuple[str, str]] = field(default_factory=set)
    # (the top an index reaches, the top its guard allows) for `if (x < B)`: a window's last read, where
    # the guard cuts it, against the extent it slides over
    guarded: list[tuple[Poly, Poly]] = field(default_factory=list)
    shared: dict[str, Use] = field(default_factory=dict)  # the kernel's __shared__ arrays, as its pointers
    shared_bytes: dict[str, int] = field(
        default_factory=dict
    )  # extern __shared__ array -> its element's bytes (0: unknown)
    ok: bool = True  # False: the kernel was not found in the tree


class Stop(Exception):
    pass


Env = dict[str, Val]  # a variable (or "#" + a guarded sum, see sum_key) -> its bounds


class WalkerState:
    """What kernel/extents_expr.py's Expressions needs of kernel/extents.py's Walker, which sets and defines it."""

    unit: cuda_ast.Unit
    fn: cuda_ast.Function
    out: Analysis
    ptypes: dict[str, str]
    scalars: set[str]
    floats: set[str]
    depth: int
    calls: int
    trip: list[Poly]
    returned: list[Val]
    counters: dict[str, frozenset[str]]  # the loop variables of the loops around, to the scalars bounding each
    loop_names: set[str]  # the names in any loop's condition

    def tick(self) -> None:
        raise NotImplementedError

    def block(self, node: Node, env: Env) -> bool:
        raise NotImplementedError

    def constrain(self, cond: Node, truth: bool, env: Env, loop: bool = False) -> None:
        raise NotImplementedError

    def window(self, n: Node, env: Env) -> None:
        raise NotImplementedError


def strip_parens(n: Node | None) -> Node | None:
    while n is not None and n.type in ("parenthesized_expression", "condition_clause"):
        inner = [c for c in n.named_children if c.type != "comment"]
        n = inner[-1] if inner else None
    return n


def cond_of(n: Node) -> Node | None:
    c = n.child_by_field_name("condition")
    return c


def declared_name(d: Node | None) -> str:
    while d is not None and d.type != "identifier":
        nxt = d.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in d.named_children if c.type.endswith(("declarator", "identifier"))), None)
        d = nxt
    return text(d) if d is not None else ""


def changed_in(node: Node | None, tick: Callable[[], None]) -> set[str]:
    out: set[str] = set()
    if node is None:
        return out
    for n in cuda_ast.walk(node, MAX_STEPS):
        tick()
        if n.type == "assignment_expression":
            left = strip_parens(n.child_by_field_name("left"))
            if left is not None and left.type == "identifier":
                out.add(text(left))
        elif n.type == "update_expression":
            arg = strip_parens(n.child_by_field_name("argument"))
            if arg is not None and arg.type == "identifier":
                out.add(text(arg))
    return out


def direction(update: Node | None, var: str | None) -> bool | None:
    """True: the loop variable grows, False: it shrinks, None: not known."""
    if update is None or var is None:
        return None
    t = text(update).replace(" ", "")
    if t in (f"{var}++", f"++{var}") or t.startswith((f"{var}+=", f"{var}*=", f"{var}<<=")):
        return True
    if t in (f"{var}--", f"--{var}") or t.startswith((f"{var}-=", f"{var}/=", f"{var}>>=")):
        return False
    if t.startswith(f"{var}={var}+"):
        return True
    for n in cuda_ast.walk(update, 200):  # `l = k++`, `i++, j--`: the step inside a larger update
        if n.type == "update_expression" and text(n.child_by_field_name("argument")) == var:
            return "++" in text(n)
    return None


def number(t: str) -> Val:
    t = t.lower().rstrip("ul")
    try:
        v = int(t, 0)
    except ValueError:
        try:
            f = float(t.rstrip("f"))
        except ValueError:
            return UNKNOWN
        return const(f) if abs(f) < 1e15 else UNKNOWN
    return const(v)


def integral(ctype: str) -> bool:
    words = ctype.replace("const", "").split()
    lane = vector_scalar(words[-1].removeprefix("__")) if words else None  # short2, uchar4: integer lanes
    return bool(words) and (
        words[-1] in ("int", "short", "char", "long", "unsigned", "signed", "size_t", "dim3")
        or ctype.startswith(("int", "uint", "unsigned", "size_t", "long"))
        or (lane is not None and lane[0].startswith(("int", "uint")))
    )


def names_of(v: Val) -> set[str]:
    return (v.hi.names() if v.hi is not None else set()) | (v.lo.names() if v.lo is not None else set())


def grid_names(p: Poly) -> set[str]:
    return {n for n in p.names() if n.startswith("@")}


def loads(p: Poly) -> set[str]:
    return {n for n in p.names() if n.startswith("$")}


def same_value(a: Val, b: Val) -> bool:
    return a is b or (a.lo == b.lo and a.hi == b.hi and a.base == b.base)


def union(vals: list[Val]) -> Val:
    vals = [v for v in vals if v is not None]
    if not vals:
        return UNKNOWN
    lo, hi = vals[0].lo, vals[0].hi
    for v in vals[1:]:
        lo = pmin(lo, v.lo) if lo is not None and v.lo is not None else None
        hi = pmax(hi, v.hi) if hi is not None and v.hi is not None else None
    bases = {v.base for v in vals}
    units = {v.unit for v in vals}
    pointers = sorted({b for v in vals for b in (v.base, *v.also) if b is not None})
    # one of several arguments, each at the same offset in the same unit: the first, the others besides
    chosen = None not in bases and len(units) == 1 and len({(v.lo, v.hi) for v in vals}) == 1 and len(pointers) > 1
    return Val(
        lo,
        hi,
        bases.pop() if len(bases) == 1 else pointers[0] if chosen else None,
        frozenset().union(*(v.axes for v in vals)),
        frozenset().union(*(v.params for v in vals)),
        unit=units.pop() if len(units) == 1 else 0,
        also=frozenset(pointers[1:]) if chosen else frozenset(),
    )


def add(a: Poly | None, b: Poly | None) -> Poly | None:
    return a + b if a is not None and b is not None else None


def neg(v: Val) -> Val:
    return Val(-v.hi if v.hi is not None else None, -v.lo if v.lo is not None else None, axes=v.axes, params=v.params)


def offset(ptr: Val, by: Val) -> Val:
    return Val(add(ptr.lo, by.lo), add(ptr.hi, by.hi), ptr.base, ptr.axes, ptr.params, unit=ptr.unit)


def nonneg(p: Poly | None) -> bool:
    return p is not None and at_least(p, Poly.const(0))


def mul(a: Val, b: Val) -> tuple[Poly | None, Poly | None]:
    if a.lo is not None and b.lo is not None and nonneg(a.lo) and nonneg(b.lo):
        return (a.lo * b.lo, a.hi * b.hi if a.hi is not None and b.hi is not None else None)
    for x, y in ((a, b), (b, a)):  # an interval times one value that is not negative (k * nx, k in [-R, R])
        if y.hi is not None and y.hi == y.lo and nonneg(y.lo) and x.lo is not None and x.hi is not None:
            return (x.lo * y.hi, x.hi * y.hi)
    for x, y in ((a, b), (b, a)):  # a constant times an interval
        if x.hi is not None and x.hi == x.lo and x.hi.is_const() and y.lo is not None and y.hi is not None:
            c = x.hi
            return (c * y.lo, c * y.hi) if c.value() >= 0 else (c * y.hi, c * y.lo)
    return None, None


def top_of_product(a: Val, b: Val) -> Poly | None:
    """The greatest of a * b where one factor is one value not negative (a pitch) and the other's top is
    known, its bottom not (a row a helper reflects back inside): that top times the pitch."""
    for x, y in ((a, b), (b, a)):
        if y.hi is not None and y.hi == y.lo and nonneg(y.lo) and x.hi is not None:
            return x.hi * y.hi
    return None


def div(a: Poly | None, d: Poly | None, low: bool = False) -> Poly | None:
    if a is None or d is None:
        return None
    if d.is_const():
        c = d.value()
        if c <= 0:
            return None
        q = a * Poly.const(1 / c)
        if low and not (q.is_const() and q.value() == int(q.value())):  # the floor is not q: 0 when a >= 0
            return Poly.const(0) if at_least(a, Poly.const(0)) else None
        return q
    if low:
        return Poly.const(0) if at_least(a, Poly.const(0)) else None
    return a.divide(d)


def rescale_of(a: Val, d: Val) -> tuple[str, Poly] | None:
    """(B, A) for `x * A / B` with 0 <= x < B: a coordinate of B cells rescaled onto A cells."""
    num, den = a.hi, d.lo
    if num is None or den is None or not nonneg(a.lo) or len(den.terms) != 1:
        return None
    mono = next(iter(den.terms))
    if len(mono) != 1 or den.terms[mono] != 1:
        return None
    (b,) = mono
    scale = Poly({m[: m.index(b)] + m[m.index(b) + 1 :]: c for m, c in num.terms.items() if b in m})
    if scale.terms and b not in scale.names() and num == scale * (den - Poly.const(1)):
        return b, scale
    return None


def quotient_bound(a: Val, d: Val) -> Poly | None:
    """An upper bound of a / d for a >= 0: `x * A / B` with x < B is below A (a coordinate rescaled from
    B cells to A); else a / d as div bounds it; else, by a size d >= 1, a itself (`row / p`)."""
    num, den = a.hi, d.lo
    if num is None or den is None or not nonneg(a.lo):
        return div(num, den)
    if (rescale := rescale_of(a, d)) is not None:
        return rescale[1] - Poly.const(1)
    q = div(num, den)
    return q if q is not None or not at_least(den, Poly.const(1)) else num


def clamp(a: Val, b: Val, upper: bool) -> Val:
    """min(a, b) (`upper`: the smaller value, each side's upper bound bounds it) or max(a, b) (each side's
    lower bound bounds it: `max(x, 0)` is not negative whatever x is); the other bound needs both. A min
    of a value read and a bound of sizes is bounded by the sizes' (`min(edges[m], n / 2 + 1)`: a row's
    columns below n / 2 + 1 whatever the edges are), the array read kept as `capped`."""
    near = [v.hi if upper else v.lo for v in (a, b)]
    far = [v.lo if upper else v.hi for v in (a, b)]
    known = [p for p in near if p is not None]
    pick = pmin if upper else pmax
    capped: frozenset[str] = frozenset()
    read = [{n[1:] for n in p.names() if n.startswith("$")} for p in known]
    if len(known) == 2 and pick(*known) is None and upper and sorted(map(bool, read)) == [False, True]:
        capped = frozenset(read[0] | read[1])  # the side of sizes alone holds whatever the array's values are
        known.sort(key=lambda p: any(n.startswith("$") for n in p.names()))
    one = (pick(*known) or known[0]) if len(known) == 2 else (known[0] if known else None)
    other = pick(far[0], far[1]) if far[0] is not None and far[1] is not None else None
    lo, hi = (other, one) if upper else (one, other)
    return Val(lo, hi, axes=a.axes | b.axes, params=a.params | b.params, capped=capped)


def as_number(v: Val, defines: dict[str, int]) -> Val:
    """v as the number it is when made of #defines and template values alone (`TILE`), else v."""
    if v.hi is None or v.hi != v.lo or not v.hi.names() <= set(defines):
        return v
    return const(v.hi.value(defines))


def quotient_of_numbers(a: Val, b: Val, defines: dict[str, int]) -> Val | None:
    """a / b of numbers, #defines and template values (`QK / 2`): the number C's integer division
    gives, so an index divided by it (`i / (QK / 2)`) is divided by a number; None otherwise."""
    num, den = as_number(a, defines).hi, as_number(b, defines).hi
    if num is None or den is None or not num.is_const() or not den.is_const() or a.hi != a.lo or b.hi != b.lo:
        return None
    n, d = num.value(), den.value()
    if d <= 0 or n < 0 or n.denominator != 1 or d.denominator != 1:
        return None
    return const(n // d)


def multiple(p: Poly, w: Poly) -> Fraction | None:
    """k > 0 with p == k * w; None otherwise."""
    if not w.terms:
        return None
    mono, c = next(iter(w.terms.items()))
    k = p.terms.get(mono, Fraction(0)) / c
    return k if k > 0 and w * Poly.const(k) == p else None


def one_name(v: Val) -> str:
    """The name when v is exactly one name (`f`, not `2*f` or `f + 1`), else ""."""
    if v.hi is None or v.hi != v.lo or len(v.hi.terms) != 1:
        return ""
    ((mono, coef),) = v.hi.terms.items()
    return mono[0] if coef == 1 and len(mono) == 1 else ""


def per_item(index: Poly, axis: int) -> int:
    """Threads per item of an index over the grid: 32 for `(blockIdx * blockDim + threadIdx) / 32`."""
    threads = Poly.var(grid(axis)) * Poly.var(block(axis))
    per = index.terms.get(next(iter(threads.terms)), Fraction(0))
    return int(1 / per) if 0 < per < 1 and (1 / per).denominator == 1 else 1


def spread(index: Poly, axis: int, defines: dict[str, int]) -> Fraction:
    """k for a thread index times k (`2 * thread`, `thread * VPT`, VPT a #define): a thread every k
    elements, the rest done by the thread itself (a pair, a loop over VPT); 1 otherwise."""
    g, b = grid(axis), block(axis)
    for m, c in index.terms.items():
        rest = list(m)
        if g not in rest or b not in rest:
            continue
        rest.remove(g)
        rest.remove(b)
        k = c
        for v in rest:
            k *= defines.get(v, 0)
        return k if k > 1 and k.denominator == 1 else Fraction(1)
    return Fraction(1)


def warps_per_block(index: Poly, axis: int, defines: dict[str, int]) -> int:
    """K for `blockIdx * K + threadIdx / 32` (K a number or a #define; `>> 5`, `/ warpSize` alike):
    K items a block, numbered by the block's warps, so the block is 32 * K threads; else 0."""
    g, b = grid(axis), block(axis)
    if index.terms.get((b,)) != Fraction(1, 32) or (g, b) in index.terms:
        return 0
    per_block = [(m, c) for m, c in index.terms.items() if g in m]
    if len(per_block) != 1:
        return 0
    ((mono, coef),) = per_block
    rest = [v for v in mono if v != g]
    k = coef * (defines.get(rest[0], 0) if rest else 1) if len(rest) <= 1 else 0
    return int(k) if k >= 1 and k.denominator == 1 else 0


def product(polys: list[Poly]) -> Poly:
    out = Poly.const(1)
    for p in polys:
        out = out * p
    return out


def _signed_terms(n: Node | None) -> list[tuple[str, Node]]:
    """a + b - (c + d) as [("+a", a), ("+b", b), ("-c", c), ("-d", d)]; texts without spaces."""
    out: list[tuple[str, Node]] = []
    stack: list[tuple[bool, Node | None]] = [(True, n)]
    while stack and len(out) < 64:
        plus, node = stack.pop()
        node = strip_parens(node)
        if node is None:
            continue
        if node.type == "binary_expression" and text(node.child_by_field_name("operator")) in ("+", "-"):
            minus = text(node.child_by_field_name("operator")) == "-"
            stack.append((plus != minus, node.child_by_field_name("right")))
            stack.append((plus, node.child_by_field_name("left")))
        else:
            out.append((("+" if plus else "-") + "".join(text(node).split()), node))
    return out


def sum_terms(n: Node | None) -> list[str]:
    return sorted(t for t, _ in _signed_terms(n))


def terms_nodes(n: Node | None) -> dict[str, Node]:
    return dict(_signed_terms(n))


def sum_key(n: Node | None) -> str:
    return "#" + "|".join(sum_terms(n))


def bisection(cond: Node | None, body: Node | None) -> tuple[str, str] | None:
    """(a, b) of a binary search `while (a < b) { m = (a + b) / 2; ... a = m + 1; ... b = m; }`: every
    assignment to a or b in the body is the midpoint m (a local declared `(a + b) / 2`, `(a + b) >> 1`
    or `a + (b - a) / 2`) plus or minus at most 1, so both stay within their values before the loop."""
    test = strip_parens(cond)
    if body is None or test is None or test.type != "binary_expression":
        return None
    if text(test.child_by_field_name("operator")) not in ("<", "<="):
        return None
    a, b = (strip_parens(test.child_by_field_name(k)) for k in ("left", "right"))
    if a is None or b is None or a.type != "identifier" or b.type != "identifier":
        return None
    lo, hi = text(a), text(b)
    mids = set()
    for n in cuda_ast.walk(body, MAX_STEPS):
        if n.type == "init_declarator" and (d := n.child_by_field_name("declarator")) is not None:
            v = text(n.child_by_field_name("value")).replace(" ", "")
            if v in (f"({lo}+{hi})/2", f"({lo}+{hi})>>1", f"{lo}+({hi}-{lo})/2", f"{lo}+(({hi}-{lo})>>1)"):
                mids.add(text(d))
    if not mids:
        return None
    moves = 0
    for n in cuda_ast.walk(body, MAX_STEPS):
        if n.type == "update_expression" and text(strip_parens(n.child_by_field_name("argument"))) in (lo, hi):
            return None
        if n.type != "assignment_expression" or text(strip_parens(n.child_by_field_name("left"))) not in (lo, hi):
            continue
        right = text(n.child_by_field_name("right")).replace(" ", "")
        if text(n.child_by_field_name("operator")) != "=" or right not in {
            f"{m}{d}" for m in mids for d in ("", "+1", "-1")
        }:
            return None
        moves += 1
    return (lo, hi) if moves >= 2 else None
