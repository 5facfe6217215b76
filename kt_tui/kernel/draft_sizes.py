"""The sizes of a draft (kernel/draft.py): the problem size per thread axis, each array's length as an
expression over [sizes], the bounds of index arrays' values, and the values of the sizes, from the
index bounds that kernel/extents.py found. What it cannot derive it guesses, and says so."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm

from . import cuda_ast, draft_index, draft_shared, draft_within, extents
from .bounds import integral
from .draft_layout import (
    column_in_row,
    divided,
    item_strides,
    maxes,
    padding,
    picked_row,
    round_rows,
    round_volume,
    unify,
    whole,
    whole_rows,
)
from .draft_locals import local_caps
from .draft_scaled import rescaled, sampled_every
from .draft_types import is_int
from .expr import FUNCS
from .poly import Poly
from .source import Kernel
from .spec import DTYPES

SIDES = {1: (1 << 20, 1 << 16, 1 << 14, 4096, 1024), 2: (1024, 512, 256, 128, 64), 3: (128, 64, 32, 16)}
MAX_ELEMENTS = 1 << 28  # all arrays together, at the draft's sizes
MAX_WORK = 1 << 31  # threads times their loop trips
SMALL_VALUES = (3, 5, 2, 4, 6, 7)  # sizes that only scale or shift an index (a stride, an offset, a filter's)
MODEST_VALUES = (256, 192, 224, 160)  # sizes that bound an index in a check but are no thread axis (bins, a table)
BIG_SHAPES = (8, 6, 5, 7)  # eighths of the side: the first big size is the side, the next ones smaller, apart
UNKNOWN_TRIPS = 16
MAX_BLOCK = (1024, 1024, 64)  # CUDA's most threads a block has per axis
FACTORS = (4, 3, 5, 6)  # sizes that divide another (`w / f`): above 1, distinct, so a kernel that swaps them fails
WINDOWS = (5, 3, 7, 9, 11)  # the bounds of a loop over a window around a thread (a filter, a radius): apart
COLUMN = "a value read from memory picks a column within a thread's row: it is below the row's length"


@dataclass
class Sizing:
    extents: dict[str, str] = field(default_factory=dict)  # array -> its length, over [sizes]
    sizes: dict[str, int] = field(default_factory=dict)
    problem_size: list[str] = field(default_factory=list)
    index_high: dict[str, str | int] = field(default_factory=dict)  # index array -> the bound of its values
    verify_sizes: list[dict[str, int]] | None = None
    block_consts: dict[int, int] = field(default_factory=dict)
    # axis -> TILE where blockIdx is scaled by TILE but no thread there reads its index: blocks one thread
    # wide on that axis, a block per TILE items (the threads of another axis cover the tile)
    tiles: dict[int, int] = field(default_factory=dict)
    per_item: dict[int, int] = field(default_factory=dict)  # axis -> threads that work on one item (a warp)
    folded: dict[int, int] = field(default_factory=dict)  # grid axis -> the block axis numbering its items
    block_rank: int = 1  # block axes the kernel reads (a warp per row on 2-D blocks: 2, for a 1-D problem)
    smem: str | None = None  # bytes of dynamic shared memory, over [sizes] and block sizes
    no_threads: set[int] = field(
        default_factory=set
    )  # axes with no block size: blockIdx alone, or unused  # axis -> the block size a #define fixes
    fallback: str = "n"  # the length of a pointer parameter with no name (the analysis sees none): the problem's
    derived: dict[str, str] = field(default_factory=dict)  # scalar argument -> its value over [sizes]
    multiples: dict[str, int] = field(default_factory=dict)  # size -> what it is a multiple of at every size
    guesses: list[tuple[str, str]] = field(default_factory=list)


class _Sizer:
    def __init__(self, kernel: Kernel, unit: cuda_ast.Unit, an: extents.Analysis, caps: dict[int, int]):
        self.kernel, self.unit, self.an, self.caps = kernel, unit, an, caps
        self.ints = {p.name for p in kernel.params if not p.is_pointer and p.name} | set(unit.defines)
        self.taken = {p.name for p in kernel.params} | set(unit.defines) | set(unit.tunables)
        self.out = Sizing()
        self.axis: dict[int, Poly] = {}
        self.fresh: dict[str, str] = {}  # new size names: why each was made
        self.tiles: set[str] = set()  # sides of square blocks that read values pick (`(v * bd + r) * bd + c`)
        self.order: dict[str, int] = {}
        self.per_block = False  # an index by block number, sized by the problem size (blocks are fewer)
        self.block_counts: set[str] = set()  # the sizes that count the blocks of a block-per-item axis
        self.reach: dict[str, int] = {}  # a size indexed by values of narrow int arrays: how far they reach
        self.factors = {x for _, f, _ in an.quotients.values() for x in f}
        self.ints |= set(an.quotients)
        self.taken |= set(an.quotients)
        if an.quotients:
            self.an = divided(an)

    def name(self, want: str, why: str) -> Poly:
        name, k = want, 2
        while name in self.taken:
            name, k = f"{want}{k}", k + 1
        self.taken.add(name)
        self.ints.add(name)
        self.fresh[name] = why
        self.out.guesses.append((f"sizes.{name}", why))
        return Poly.var(name)

    def axes(self) -> None:
        an = self.an
        lanes = an.used_axes - an.grid_axes - set(an.axes)  # threads only (lanes): no grid there, one block
        used = (an.used_axes | set(an.axes)) - lanes
        rank = max(used) + 1 if used else 1
        self.out.block_rank = max(an.used_axes | set(an.axes), default=0) + 1
        for a in range(rank):
            bound = an.axes.get(a)
            if bound is not None and bound.names() <= self.ints and not bound.is_const():
                c = bound.terms.get((), 0)
                self.axis[a] = bound - Poly.const(c) if -8 <= c < 0 else bound  # `x < w - 1`: w threads
            elif a in lanes or (bound is not None and bound == Poly.const(1)):  # no grid there, or one block
                self.axis[a] = Poly.const(1)
            elif a not in an.used_axes:
                self.axis[a] = Poly.const(1)
                self.out.no_threads.add(a)
            elif self._block_alone(a):
                self.out.no_threads.add(a)
                self.axis[a] = self._item_count(a)
                self.block_counts |= self.axis[a].names()
            else:
                label = "n" if rank == 1 else "n" + extents.AXES[a]
                self.axis[a] = self.name(
                    label,
                    f"thread axis {extents.AXES[a]} is not bounded by a check "
                    "the analysis could read; the problem size there is a guess",
                )
                self.out.verify_sizes = []
        for a in range(rank):
            for v in sorted(self.axis[a].names(), key=lambda v: (v in self.unit.defines, v)):
                self.order.setdefault(v, len(self.order))
        self.out.problem_size = [
            self.axis[a].text(self.order) if not self.axis[a].is_const() else str(int(self.axis[a].value()))
            for a in range(rank)
        ]
        self.out.fallback = (
            "*".join(p if re.fullmatch(r"\w+", p) else f"({p})" for p in self.out.problem_size if p != "1") or "1"
        )
        self.out.no_threads |= self.an.block_axes
        self.out.folded = {a: b for a, b in an.folded.items() if a < rank}
        consts = dict(an.block_consts)
        if an.shuffles:  # a warp per item whose lanes shuffle: the whole warp, 32 threads, on the item's axis
            consts.update({a: 32 for a in self.out.folded if a not in consts})
        self.out.block_consts = {a: v for a, v in consts.items() if a < self.out.block_rank}
        lanes_of = set(an.folded.values())
        self.out.tiles = {
            a: v
            for a, v in self.out.block_consts.items()
            if a not in an.thread_read | an.block_read | lanes_of | self.unit.macro_threads and a in an.grid_axes
        }
        self.out.per_item = {a: v for a, v in self.an.per_item.items() if a < rank}
        self._groups()
        for name, c in sorted(self.an.parts.items()):  # `half = rot_dim / 2`: rot_dim even at every size
            if name in self.unit.defines or name in self.an.quotients:
                continue
            self.out.multiples[name] = lcm(self.out.multiples.get(name, 1), c)

    def _groups(self) -> None:
        """A thread index split into groups of G (`i / G` and `i % G`) on an axis of c * size threads:
        the size is a multiple of G / c at every size, so every group is whole."""
        for a, g in self.an.groups.items():
            terms = list(self.axis[a].terms.items()) if a in self.axis else []
            m = Fraction(g) / terms[0][1] if len(terms) == 1 and len(terms[0][0]) == 1 else Fraction(0)
            size = terms[0][0][0] if m else ""
            if m.denominator == 1 and m > 1 and size not in self.unit.defines:
                self.out.multiples[size] = int(m)
                self.out.guesses.append(
                    (
                        f"sizes.{size}",
                        f"a multiple of {m} at every size: the kernel splits its threads into groups of {g} "
                        f"(an index / {g} and % {g} put together again), so every group is whole",
                    )
                )

    def _block_alone(self, a: int) -> bool:
        """Axis a indexes arrays by blockIdx alone, never blockIdx * blockDim: one block per item."""
        g, b = extents.grid(a), extents.block(a)
        monos = [m for use in self.an.uses.values() for h in use.accesses if h is not None for m in h.terms]
        return any(g in m and b not in m for m in monos) and not any(g in m and b in m for m in monos)

    def _item_count(self, a: int) -> Poly:
        """The number of items of a block-per-item axis no check bounds: the one int argument the kernel
        never reads (the launch's grid, passed along), else a new size; a guess either way."""
        unread = [
            p.name
            for p in self.kernel.params
            if not p.is_pointer and p.name and p.name not in self.an.read and is_int(DTYPES.get(p.base_type, ""))
        ]
        axis = extents.AXES[a]
        if len(unread) == 1:
            self.out.guesses.append(
                (
                    f"sizes.{unread[0]}",
                    f"one block per item on axis {axis} and nothing tests the block number: "
                    f"{unread[0]}, which the kernel never reads, taken as the number of items (the grid)",
                )
            )
            return Poly.var(unread[0])
        return self.name(
            "n_blocks" if a == 0 else f"n_blocks_{axis}",
            f"one block per item on axis {axis} and nothing tests the block number: the number of items "
            "(the grid) is a guess",
        )

    def resolve(self, p: Poly | None) -> Poly | None:
        """The index bound with the grid's extent replaced by the problem size; None if it still
        depends on the launch (block size, grid) or on a name that is no size."""
        if p is None:
            return None
        out = Poly()
        for m, c in p.terms.items():
            rest, term = list(m), Poly.const(c)
            for a in range(3):  # blockIdx.x * BLOCK, BLOCK the threads numbering x's items
                threads = extents.block(self.an.folded.get(a, a))
                per = self.out.block_consts.get(self.an.folded.get(a, a), 0)
                fixed = [v for v in rest if self.unit.defines.get(v) == per]
                if extents.grid(a) in rest and threads not in rest and fixed:
                    rest[rest.index(fixed[0])] = threads
            for a, lanes in self.an.folded.items():  # blockIdx.x * blockDim.y: items of axis x, by their number
                while extents.grid(a) in rest and extents.block(lanes) in rest and a in self.axis:
                    rest.remove(extents.grid(a))
                    rest.remove(extents.block(lanes))
                    term = term * self.axis[a]
            for a in range(3):
                g, b = extents.grid(a), extents.block(a)
                while g in rest and b in rest:
                    if a not in self.axis:
                        return None
                    rest.remove(g)
                    rest.remove(b)
                    term = term * self.axis[a]
                if g in rest and b not in rest and a in self.axis:  # blockIdx alone: at most one per element
                    rest.remove(g)
                    term = term * self.axis[a]
                    if a not in self.out.no_threads:
                        self.per_block = True
                while b in rest and g not in rest:  # threadIdx alone: below the most threads a block has
                    rest.remove(b)
                    term = term * Poly.const(self.caps.get(a, MAX_BLOCK[a]))
            for v in rest:
                term = term * Poly.var(v)
            out = out + term
        if any(not (v in self.ints or v.startswith("$")) for v in out.names()):
            return None
        return out

    def arrays(self) -> dict[str, list[Poly]]:
        an = self.an
        found: dict[str, list[Poly]] = {}
        rounded: dict[str, Poly] = {}
        shared: dict[tuple[str, ...], Poly] = {}
        problem = Poly.const(1)
        for a in sorted(self.axis):
            problem = problem * self.axis[a]
        for name, use in an.uses.items():
            self.per_block = False
            his = [self.resolve(h) for h in use.accesses]
            pads = [draft_index.padded(h, self.ints, an.loop_loads) if h is not None else None for h in his]
            if any(pads) and all(p is not None for p, h in zip(pads, his) if h is not None and draft_index.loads(h)):
                his = [p[2] if p is not None else h for p, h in zip(pads, his)]  # counts within a padded block
                for x, r, _ in filter(None, pads):
                    self.out.guesses.append(
                        (f"args.{x}", f"counts of rows of a block of {r} per item ({name}'s layout): at most {r}")
                    )
            # read only at `row * S + v`, v loaded: v a column below S (with other accesses, they bound v)
            columns = [column_in_row(h, an.strides) if h is not None else None for h in his]
            if his and all(c is not None for c in columns):
                his = columns
                self.out.guesses.append((f"args.{name}", COLUMN))
            plain = [h + Poly.const(1) for h in his if h is not None and not draft_index.loads(h)]
            plain = draft_index.row_reach(plain, his, an)
            loaded = tuple(sorted({h.text() for h in his if h is not None and draft_index.loads(h)}))
            cands = [
                round_volume(round_rows(e, an.strides, rounded, name), set(self.unit.defines)) for e in maxes(plain)
            ]
            if self.per_block:
                why = "indexed by block number: sized by the problem size, more than the number of blocks"
                self.out.guesses.append((f"args.{name}", why))
            if any(h is None for h in his):
                cands = maxes(cands + [problem])
                self.out.guesses.append(
                    (
                        f"args.{name}",
                        (
                            "an index the analysis could not bound (data-dependent "
                            "or through pointers it does not follow): sized at least the problem size"
                        ),
                    )
                )
            elif not his:
                cands = [problem]
                self.out.guesses.append((f"args.{name}", "the kernel does not index it: sized like the problem"))
            elif not cands:
                row = picked_row([h for h in his if h is not None])
                if loaded not in shared:
                    shared[loaded] = self._length(name, loaded, row)
                cands = [shared[loaded] + Poly.const(draft_index.past(his))]
            found[name] = cands
        unify(found, rounded)
        return found

    def _length(self, name: str, loaded: tuple[str, ...], row: Poly | None) -> Poly:
        """The length of an array indexed only by values read from other arrays: rows of `row` (`table[v *
        S + j]`, j < S: v picks a row) or elements, as many as the int argument the kernel passes but never
        reads (`_unread`), else a size of its own; a narrow index type caps it (a uint8 index: 256)."""
        arrays = ", ".join(sorted(draft_index.loads_of(loaded)))
        unit = f"rows of {row.text(self.order)}" if row is not None else "elements"
        picked = f"{name} is read in {unit} picked by values read from {arrays}"
        if unread := self._unread(loaded):
            count = Poly.var(unread)
            self.ints.add(unread)
            self.fresh[unread] = (
                f"{picked}: as many as the int argument {unread}, which the kernel passes but never reads"
            )
            self.out.guesses.append((f"sizes.{unread}", self.fresh[unread]))
        elif row is not None:
            self.tiles |= {v for m in row.terms for v in m if m.count(v) > 1}
            return row * self.name(f"{name}_rows", f"{picked}: its number of rows is a size of its own")
        else:
            count = self.name(
                f"n_{name}", f"{name} is indexed only by values read from {arrays}: its length is a size of its own"
            )
        reach = [draft_index.type_reach(self.kernel, x) for x in draft_index.loads_of(loaded)]
        if row is None and reach and all(r is not None for r in reach):
            self.reach[count.text()] = max(r for r in reach if r is not None)
        return count if row is None else row * count

    def _unread(self, loaded: tuple[str, ...]) -> str:
        """The first int argument the kernel never reads, not yet a size, for an array indexed by the values
        of arrays that bound no loop (`y[col[j]]`, a scatter's target: its length is passed along, unused,
        as `n`); "" for none."""
        if draft_index.loads_of(loaded) & self.an.loop_loads:
            return ""
        taken = set(self.fresh).union(*(p.names() for p in self.axis.values()))  # the grid, `_item_count`
        for p in self.kernel.params:
            if p.name and not p.is_pointer and p.name not in self.an.read and p.name not in taken:
                if integral(p.base_type):
                    return p.name
        return ""

    def index_bounds(self, found: dict[str, list[Poly]]) -> None:
        """An int array whose values index another array: values below what they may reach."""
        highs, unfollowed = draft_index.index_highs(self.an, found, self.resolve, self.order)
        self.out.index_high.update(highs)
        for x in unfollowed:
            self.out.guesses.append(
                (
                    f"args.{x}",
                    (
                        "its values index an array in a way the analysis does not "
                        "follow: they are kept in [0, 1), so every index stays inside"
                    ),
                )
            )

    def values(self, found: dict[str, list[Poly]]) -> None:
        an = self.an
        names: set[str] = set()
        for cands in found.values():
            for c in cands:
                names |= c.names()
        for p in self.axis.values():
            names |= p.names()
        for h in self.out.index_high.values():
            names |= set(re.findall(r"[A-Za-z_]\w*", str(h))) - set(FUNCS)  # `min(a, b)`: a and b
        names = {n for n in names if not n.startswith("$")} | self.factors | set(an.quotients)
        axis_names = set().union(*(p.names() for p in self.axis.values()))
        kept = axis_names | set(self.unit.defines) | self.factors | set(an.quotients) | set(self.fresh)
        rescaled(an, found, names, kept, self.out, self.order)
        sampled = sampled_every(an, found, names, kept, self.out, self.order)
        big = {
            n
            for n in names
            if n not in self.unit.defines and (n in axis_names or n in an.loop_bounds or n in self.fresh)
        }
        big |= {n for fit, _ in an.resized.values() for n in fit.names()} & names  # an image resized to another
        loops = {n for n in big if n in an.loop_bounds}
        for cands in found.values():  # a row stride with a loop over the row: at least as long as the loop
            for c in cands:
                if c.names() & loops:
                    big |= {n for n in c.names() if n in names and any(n in s.names() for s in an.strides)}
        # a size only ever subtracted from a thread bound (`i < n - 1 - t`) shifts it: small, so every
        # size the checks try leaves threads to run
        signs: dict[str, set[bool]] = {}
        for p in self.axis.values():
            for m, coef in p.terms.items():
                for v in m:
                    signs.setdefault(v, set()).add(coef > 0)
        shifts = {v for v, s in signs.items() if s == {False}}
        params = [p.name for p in self.kernel.params if not p.is_pointer and p.name]
        windows = {n for n in an.windows if True not in signs.get(n, set())} - self.factors
        fn_name = self.kernel.name
        inside = {  # a length subtracted from an axis's size (`nfft - win_length`): within it, small
            n: e
            for n, e in draft_within.within_lengths(self.unit, fn_name, axis_names, an.guard_bounds | an.loop_bounds)
            if n in names and n not in self.unit.defines and n not in windows
        }
        windows |= set(inside) - self.factors
        # a loop bound nested in itself per thread (`dv < support` around `du < support`): a 2-D window, its
        # square the work of each thread; small
        squared = {v for t in an.trips for m in t.terms for v in m if m.count(v) > 1 and v in an.loop_bounds}
        windows |= squared - axis_names - self.factors - set(self.unit.defines)
        tables = draft_shared.table_counts(self.an, set(params) - set(self.unit.defines)) - windows - axis_names
        names |= windows | tables
        # a size added to a divided one (`(h + 2 * pad - k) / s + 1`) pads it: small, below the windows
        padded = {v for _, f, rest in an.quotients.values() for m, c in rest.terms.items() if c > 0 for v in m}
        padded -= self.factors | set(an.quotients) | set(self.unit.defines)
        big -= shifts | windows | tables | padded
        big -= self.factors
        tiles = self.tiles & names - set(self.unit.defines)  # a block's side: small, so many blocks fit
        big -= tiles
        modest = {n for n in names - big - shifts if n in an.guard_bounds and n not in self.unit.defines}
        modest = (modest | tables) - self.factors - windows - padded - tiles
        small = names - big - modest - self.factors - windows - set(self.unit.defines)
        rank = sum(1 for p in self.axis.values() if not p.is_const()) or 1
        rank = min(max(rank, len(axis_names - set(self.unit.defines))), 3)  # c*h*w threads on one axis: 3 sides
        ordered = sorted(names, key=lambda n: (self.order.get(n, 99), n))
        # sizes of a kind get distinct values (w != h, fw != fh): a kernel that swaps two of them fails; a
        # length of its own (indexed by values read from another array) stays the side, as long as they reach
        rank_in: dict[str, int] = {}
        passed = {p.name for p in self.kernel.params} & set(self.fresh)  # an argument: apart from the others
        for kind in (big - (set(self.fresh) - passed), modest, small):
            rank_in.update({n: k for k, n in enumerate(m for m in ordered if m in kind)})
        fixed = {f: FACTORS[i % len(FACTORS)] for i, f in enumerate(sorted(self.factors))}
        fixed |= {w: WINDOWS[i % len(WINDOWS)] for i, w in enumerate(n for n in params if n in windows)}
        candidates = names - axis_names - an.loop_bounds - set(self.fresh) - self.factors - set(self.unit.defines)
        candidates -= tables
        spacing: set[str] = set()  # strides of single elements within an item (`i * inc`): small
        layouts = whole_rows(item_strides(self.an, candidates, self.resolve, self.out.no_threads, spacing), spacing)
        for n, size in sampled.items():  # a row of the source sampled every k: k * E elements
            layouts = {st: (item.substitute(n, size), per) for st, (item, per) in layouts.items()}
        moved = spacing & big
        big -= moved
        small |= moved
        for st, (item, per) in list(layouts.items()):  # `(r * C + c) * len`, c = blockIdx.x: C counts the blocks
            if per == 1 and len(item.terms) == 1 and item.names() <= self.block_counts and item.degree() == 1:
                del layouts[st]
                self.out.derived[st] = item.text(self.order)
                names.discard(st)
                for cands in found.values():
                    cands[:] = [c.substitute(st, item) for c in cands]
                self.out.guesses.append(
                    (
                        f"args.{st}",
                        f"{st} = {self.out.derived[st]}: it counts the items the blocks take one each (the layout "
                        "it steps over holds one per block); set the count you use",
                    )
                )
        pads: dict[str, Fraction] = {}
        defined = set(self.unit.defines)  # a #define's count is fixed: no cap to say
        for n, (most, why) in local_caps(
            self.unit.kernels.get(self.kernel.name), self.unit.defines, names - defined
        ).items():
            self.reach[n] = min(self.reach.get(n, most), most)  # a loop over a fixed-size array: no longer
            self.out.guesses.append((f"sizes.{n}", why))

        def at(side: int, ranks: dict[str, int]) -> dict[str, int]:
            chosen = {
                n: self.unit.defines.get(n, fixed.get(n, 0)) or self._value(n, big, modest, side, ranks) for n in names
            }
            chosen.update({n: min(chosen[n], r) for n, r in self.reach.items() if n in chosen})
            for s, (item, per) in layouts.items():
                pads[s] = padding(item, per, chosen, {chosen[t] for t in layouts if t in pads and t != s})
                chosen[s] = int(item.value(chosen) / per + pads[s])
            return chosen

        sides = SIDES.get(rank, SIDES[3])  # the first side where equal sizes fit; then apart, no larger
        # past the rank's smallest side, halved until the arrays fit (a draft is always loadable)
        smaller = [sides[-1] >> k for k in range(1, sides[-1].bit_length() - 1)]
        side = next((s for s in (*sides, *smaller) if self._fits(found, at(s, {}))), smaller[-1])
        if side < sides[-1]:
            self.out.guesses.append(
                (
                    "",
                    f"sizes scaled down to a side of {side}: at {sides[-1]} the arrays would hold more than "
                    f"{MAX_ELEMENTS} elements or the threads do more than {MAX_WORK} steps; set the sizes you use",
                )
            )
        chosen = at(side, rank_in)
        strides: dict[str, Poly] = {}  # each stride over [sizes]: an outer item spans inner strides
        for s, (item, per) in layouts.items():
            span = item * Poly.const(1 / per)
            for inner, by in strides.items():
                span = span.substitute(inner, by)
            strides[s] = span + Poly.const(pads[s])
            self.out.derived[s] = strides[s].text(self.order)
            for cands in found.values():
                cands[:] = [c.substitute(s, strides[s]) for c in cands]
            names.discard(s)
            small.discard(s)
            self.out.guesses.append(
                (
                    f"args.{s}",
                    f"{s} = {self.out.derived[s]}: it steps from one item (a row, a matrix) to the next; at least "
                    f"{span.text(self.order)}, what one item spans, so items do not overlap, and padded; set the "
                    "stride you use",
                )
            )
        ordered = [n for n in ordered if n in names]
        self.out.sizes = {n: whole(chosen[n], self.out.multiples.get(n, 1)) for n in ordered}
        for n, parts in sorted(an.parts.items()):
            if n in self.out.sizes and self.out.multiples.get(n, 1) % parts == 0:
                why = f"a multiple of {parts} at every size: the kernel divides it by {parts} (a whole number of parts)"
                self.out.guesses.append((f"sizes.{n}", why))
        for n in sorted(modest):
            self.out.guesses.append(
                (
                    f"sizes.{n}",
                    (
                        f"{chosen[n]}: it bounds an index in a check but is no thread "
                        "axis (a bin or table count); set the value you use"
                    ),
                )
            )
        for n in sorted(small):
            why = (
                f"the side of the {n}*{n} blocks that read values pick: small, so many blocks fit"
                if n in tiles
                else "it scales or shifts an index (a stride or offset)"
            )
            self.out.guesses.append((f"sizes.{n}", f"{chosen[n]}: {why}; set the value you use"))
        for n in sorted(windows):
            why = (
                f"the kernel subtracts it from {inside[n]} (a window within that extent): at most {inside[n]} at "
                "every check size, small"
                if n in inside
                else "it bounds a loop over a window around each thread (a filter's size, a radius, taps): small"
            )
            self.out.guesses.append(
                (f"sizes.{n}", f"{chosen[n]}: {why}, and apart from the other windows; set the value you use")
            )
        for q, (v, f, rest) in an.quotients.items():
            self.out.derived[v] = (Poly.var(q) * Poly({f: Fraction(1)}) - rest).text(self.order)
            for x in sorted(set(f)):
                self.out.guesses.append(
                    (
                        f"sizes.{x}",
                        f"{chosen[x]}: {v} is divided by {'*'.join(f) if len(f) > 1 else 'it'}; above 1, with "
                        f"{v} = {self.out.derived[v]} so that the size {q} it divides out is exact and large",
                    )
                )
        if any(p.names() and p.names() <= set(self.unit.defines) for p in self.axis.values()):
            self.out.verify_sizes = []  # a size fixed by a #define cannot change: no checks at other sizes

    def smem(self) -> None:
        """smem_size: the bytes of dynamic shared memory the kernel reaches (draft_shared.smem_spans); a
        guess either way."""
        spans = draft_shared.smem_spans(self.an, self.unit, self.ints)
        arrays = ", ".join(sorted(self.an.shared_bytes))
        if spans is None:
            self.out.guesses.append(
                ("", f"{arrays}: dynamic shared memory the analysis could not size: give smem_size in bytes")
            )
        elif spans:
            texts = [p.text(self.order) if not p.is_const() else str(int(p.value())) for p in maxes(spans)]
            self.out.smem = texts[0] if len(texts) == 1 else f"max({', '.join(texts)})"
            self.out.guesses.append(
                (
                    "smem_size",
                    f"{self.out.smem}: the bytes of {arrays} (dynamic shared memory) at the largest index the "
                    "kernel reaches; set what your launch gives",
                )
            )

    @staticmethod
    def _value(n: str, big: set[str], modest: set[str], side: int, rank_in: dict[str, int]) -> int:
        k = rank_in.get(n, 0)
        if n in big:
            return max(side * BIG_SHAPES[k % len(BIG_SHAPES)] // 8, 1)
        return MODEST_VALUES[k % len(MODEST_VALUES)] if n in modest else SMALL_VALUES[k % len(SMALL_VALUES)]

    def _fits(self, found: dict[str, list[Poly]], at: dict[str, int]) -> bool:
        try:
            elements = sum(max(int(c.value(at)) for c in cands) for cands in found.values())
            threads = 1
            for p in self.axis.values():
                threads *= max(int(p.value(at)), 1)
            trips = [t.value(at) if not t.names() - set(at) else UNKNOWN_TRIPS for t in self.an.trips]
        except (ValueError, ZeroDivisionError):
            return False
        return elements <= MAX_ELEMENTS and threads * max(trips, default=1) <= MAX_WORK


def size_arrays(
    kernel: Kernel, unit: cuda_ast.Unit, an: extents.Analysis, n: int = 1 << 20, caps: dict[int, int] | None = None
) -> Sizing:
    """`caps`: per block axis, the most threads a block may have (draft_roles.shared_thread_caps)."""
    s = _Sizer(kernel, unit, an, caps or {})
    s.axes()
    found = s.arrays()
    s.index_bounds(found)
    s.values(found)
    s.smem()
    for name, cands in found.items():
        texts = [c.text(s.order) if not c.is_const() else str(int(c.value())) for c in cands]
        s.out.extents[name] = texts[0] if len(texts) == 1 else f"max({', '.join(texts)})"
    return s.out
