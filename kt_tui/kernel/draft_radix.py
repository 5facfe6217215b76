"""Relations between scalar arguments that the kernel's index math states, kept at the draft's sizes and at
every check size (kernel/draft.py calls `keep` last):

- layout: each access `b * sb + y * pitch + x` (the bound kernel/extents.py gives it, over the sizes and
  scalars) is a mixed-radix number: each stride is at least what the terms below it reach, so items do not
  overlap (lda >= n, a batch stride >= lda * n in whole columns, a pitch >= the width, a byte pitch >= 4 *
  width for floats, a record stride past the fields read). The outer of two strides: one added to a pointer
  (`a = A + b * sb`), else the one of the higher thread axis, else of the deeper part of one flat index
  (`n = i / (W * C)` before `c = (i / W) % C`), else the wider type; no telling, no relation. Where the
  terms below are a constant (`b * sb + i * inc`) the innermost stride spaces elements: small. A row step
  read after a width test (kernel/draft_pitch.py) is one more floor.
- differences: `last = q + k_len - q_len`, an index or bound with one scalar added and another taken
  away: the one taken away is below the other, or the range is empty or negative.
- anchors: `x + i - ax`, i a loop's counter below K (a scalar or a #define): 0 <= ax < K, an offset
  inside the window it shifts.

A value the relations contradict at some size is moved inside them (a stride padded past its floor, an
anchor lowered), said as a guess; a value that meets them is left as it is, unless it was grown from a
stride the layout puts outside it (an inverted layout), which is drafted again with the lengths it sizes.
All of it is undone where the arrays would then outgrow a draft's sizes or a length no longer reads (an
expression too long); a stride whose expression would pass LONGEST characters is left as it was."""

from __future__ import annotations

import copy
import math
import re
from dataclasses import dataclass
from fractions import Fraction

from . import cuda_ast, extents
from .cuda_ast import text
from .draft_pitch import kernel_pitches
from .draft_relations import _ident, _terms, env_at
from .draft_sizes import MAX_ELEMENTS
from .expr import ExprError, evaluate
from .poly import Poly
from .spec import Arg, Spec
from .spec_model import default_verify_sizes

PLAIN = re.compile(r"[A-Za-z_]\w*")
PADS = (3, 5, 7, 9)  # elements past a stride's floor, apart per stride: a kernel that mixes two strides up fails
PASSES = 3
LONGEST = 200  # characters of a stride's drafted expression, at most
WIDE = ("long long", "size_t", "long", "unsigned long long", "int64_t", "ptrdiff_t")  # a batch stride's type
WORD = r"(?<![\w.])%s(?![\w(])"


@dataclass(frozen=True)
class Floor:
    """name >= low (> low for an innermost stride: padded); `unit`: the stride counts 1/unit elements
    (a byte pitch into floats: 4); `whole`: an inner stride whose multiple it is taken as."""

    name: str
    low: Poly
    why: str
    unit: int = 1
    whole: str | None = None
    strict: bool = True
    level: int = 0


@dataclass(frozen=True)
class Ceiling:
    """name <= high."""

    name: str
    high: Poly
    why: str


Relation = Floor | Ceiling


def _outer(fn: cuda_ast.Function, ints: set[str]) -> set[str]:
    """Int scalars that a pointer is stepped by where it is declared (`a = A + b * sb`): strides of whole
    items, outer to those of the subscripts."""
    out: set[str] = set()
    for n in cuda_ast.walk(fn.body) if fn.body is not None else []:
        if n.type == "init_declarator" and (d := n.child_by_field_name("declarator")) is not None:
            if d.type == "pointer_declarator" and (v := n.child_by_field_name("value")) is not None:
                out |= {text(c) for c in cuda_ast.walk(v) if c.type == "identifier" and text(c) in ints}
    return out


def _depths(fn: cuda_ast.Function, ints: set[str]) -> dict[str, tuple[str, int]]:
    """Int scalar -> (the index it multiplies is taken from, how many factors were divided out of it):
    `n = i / (W * C)`, `c = (i / W) % C`: (i, 2) and (i, 1). Of two strides over one flat index, the
    deeper one's is the outer one."""
    depth: dict[str, tuple[str, int]] = {}

    def of(n: cuda_ast.Node | None) -> tuple[str, int]:
        divided = 0  # a loop down the dividends, not recursion: `i / 2 / 2 / ...` may be thousands deep
        n = _strip(n)
        while n is not None and n.type == "binary_expression":
            op = text(n.child_by_field_name("operator"))
            if op not in ("/", "%"):
                return (text(n), divided)
            if op == "/":
                right = _strip(n.child_by_field_name("right"))
                divided += sum(1 for c in cuda_ast.walk(right) if c.type in ("identifier", "number_literal"))
            n = _strip(n.child_by_field_name("left"))
        if n is None:
            return ("", divided)
        root, d = depth.get(text(n), (text(n), 0))
        return (root, d + divided)

    out: dict[str, tuple[str, int]] = {}
    for n in cuda_ast.walk(fn.body) if fn.body is not None else []:
        if n.type == "init_declarator" and (name := _ident(n.child_by_field_name("declarator"))) is not None:
            value = _strip(n.child_by_field_name("value"))
            depth[name] = of(value) if value is not None and value.type == "binary_expression" else (name, 0)
        elif n.type == "binary_expression" and text(n.child_by_field_name("operator")) == "*":
            for a, b in (("left", "right"), ("right", "left")):
                if (st := _ident(n.child_by_field_name(a))) in ints:
                    got = of(n.child_by_field_name(b))
                    out[st] = got if st not in out or out[st] == got else ("", 0)  # two indices: no telling
    return out


def layouts(
    an: extents.Analysis,
    strides: dict[str, int],
    outer: set[str],
    sizes: dict[str, int | None],
    depths: dict[str, tuple[str, int]],
) -> list[Floor]:
    """The floors of the strides `strides` (-> their bytes) from each access bound of the kernel (see the
    module's doc); `sizes`: each array's element bytes, the unit of a stride that counts bytes; `depths`:
    see _depths."""

    def rank(s: str, flat: bool = False) -> tuple[bool, int, int, int]:
        return (s in outer, max(an.scales.get(s, {-1})), depths.get(s, ("", 0))[1] if flat else 0, strides[s])

    found: list[Floor] = []
    counted: set[str] = set()  # strides times a count of items less one (`(batch - 1) * sb`), not a size alone
    records: dict[str, tuple[int, str]] = {}  # a record's stride -> the last field read, in which array
    for arr, use in sorted(an.uses.items()):
        for h in (_unloaded(h) for h in use.accesses):
            if h is None or not h.names() & set(strides) or not all(PLAIN.fullmatch(v) for v in h.names()):
                continue
            if any(len([v for v in m if v in strides]) > 1 for m in h.terms):
                continue  # a stride times a stride: no plain radix
            below = Poly({m: c for m, c in h.terms.items() if not set(m) & set(strides)})
            if below.names() & an.windows:
                continue  # a window the index slides (`o * S + k`): overlapping by design
            # below a constant (`b * sb + i * inc`, a record's fields, bits): the innermost stride spaces
            # single elements, no item to step over; the strides past it do
            spacing = below.is_const()
            here = h.names() & set(strides)
            groups: dict[tuple[bool | int, ...], set[str]] = {}
            for s in here:
                groups.setdefault(rank(s)[:2], set()).add(s)
            flat = {  # strides over parts of one flat index on one axis: the deeper part's is the outer one
                s
                for g in groups.values()
                if len(g) > 1 and len(roots := {depths.get(t, ("", 0))[0] for t in g}) == 1 and "" not in roots
                for s in g
            }
            mine = sorted(here, key=lambda s: rank(s, s in flat))
            if any(rank(a, a in flat) == rank(b, b in flat) for a, b in zip(mine, mine[1:])):
                continue  # no telling which stride is the outer one
            inner: str | None = None
            for level, s in enumerate(mine):
                coef = h.coefficient(s)
                unit = math.lcm(*(c.denominator for m, c in coef.terms.items() if m))
                unit = unit if unit > 1 and unit == sizes.get(arr) else 1  # a byte pitch into floats: 1/4
                if not coef.names():
                    break  # a constant times a stride: no count of items
                if coef.terms.get((), 0) < 0:
                    counted.add(s)
                low = (below + Poly.const(1)) * Poly.const(unit)
                why = f"it steps over the items of {arr} (`{s}` times an item's number), each reaching {low.text()}"
                floor = Floor(s, low, why, unit, inner, strict=inner is None, level=level)
                if spacing and level == 0 and (unit > 1 or below.value() < 1):
                    floor = Floor(s, Poly.const(1), f"it spaces single elements of {arr}", strict=False)
                elif spacing and level == 0:  # `i * S + c`: fields 0 to c of records S apart, the widest kept
                    records[s] = max(records.get(s, (0, arr)), (int(below.value()), arr))
                    continue
                if floor not in found:
                    found.append(floor)
                below = below + Poly.var(s) * coef
                inner = s
    for s, (c, arr) in sorted(records.items()):
        found.append(
            Floor(
                s, Poly.const(c + 1), f"it steps from one record of {arr} to the next, whose fields 0 to {c} are read"
            )
        )
    return sorted((f for f in found if f.name in counted), key=lambda f: f.level)


def _unloaded(h: Poly | None) -> Poly | None:
    """`h` with each value read from an array and added (`shift[c] + t`) at its least, 0: the terms below
    a stride reach at least the rest."""
    if h is None:
        return None
    return Poly({m: c for m, c in h.terms.items() if not (len(m) == 1 and m[0].startswith("$") and c > 0)})


def _loops(body: cuda_ast.Node) -> dict[str, str]:
    """Loop counter -> the int name it is below (`for (int i = 0; i < K; ++i)`)."""
    out: dict[str, str] = {}
    for n in cuda_ast.walk(body):
        if n.type != "for_statement":
            continue
        cond = n.child_by_field_name("condition")
        while cond is not None and cond.type in ("parenthesized_expression", "condition_clause"):
            cond = cond.named_children[-1] if cond.named_children else None
        if cond is not None and cond.type == "binary_expression" and text(cond.child_by_field_name("operator")) == "<":
            k, top = _ident(cond.child_by_field_name("left")), _ident(cond.child_by_field_name("right"))
            if k is not None and top is not None:
                out[k] = top
    return out


def _sums(body: cuda_ast.Node) -> list[cuda_ast.Node]:
    """The expressions an index or bound is made of: declared values, subscripts, loop conditions' sides."""
    out = []
    for n in cuda_ast.walk(body):
        if n.type == "init_declarator" and (v := n.child_by_field_name("value")) is not None:
            out.append(v)
        elif (index := cuda_ast.subscript_index(n)) is not None:
            out.append(index)
        elif n.type == "binary_expression" and text(n.child_by_field_name("operator")) in ("<", "<=", ">", ">="):
            out += [n.child_by_field_name("left"), n.child_by_field_name("right")]
    return out


def offsets(fn: cuda_ast.Function, ints: set[str], defines: dict[str, int] | None = None) -> list[Relation]:
    """Differences and anchors (see the module's doc) of `fn` over its int scalars `ints` (a window's
    bound may be one of the #defines `defines` too)."""
    defines = defines or {}
    if fn.body is None:
        return []
    loops = _loops(fn.body)
    out: list[Relation] = []
    for value in _sums(fn.body):
        terms = _terms(value)
        if len(terms) < 2:
            continue
        plus = [v for s, t in terms if s > 0 and (v := _ident(t)) in ints]
        minus = [v for s, t in terms if s < 0 and (v := _ident(t)) in ints]
        if len(minus) != 1 or len(plus) > 1 or any(_scaled(t, ints) for _, t in terms):
            continue
        (b,) = minus
        counters = [k for s, t in terms if s > 0 and (k := _ident(t)) in loops and loops[k] in ints | set(defines)]
        if plus and plus[0] != b:
            rel: Relation = Floor(
                plus[0],
                Poly.var(b),
                f"the kernel takes {b} away from {plus[0]} in an index or bound (`{text(value)}`): above {b}",
            )
        elif not plus and len(counters) == 1 and loops[counters[0]] != b:
            k = loops[counters[0]]
            rel = Ceiling(
                b,
                Poly.const(defines[k]) - Poly.const(1) if k in defines else Poly.var(k) - Poly.const(1),
                f"it shifts the counter of a loop over {k} (`{text(value)}`): an offset inside that window, "
                f"0 to {k} - 1",
            )
        else:
            continue
        if rel not in out:
            out.append(rel)
    return out


def _scaled(t: cuda_ast.Node, ints: set[str]) -> bool:
    """A term that multiplies or divides an int scalar (`k * D`): no plain difference."""
    t = _strip(t)
    return (
        t is not None
        and t.type == "binary_expression"
        and text(t.child_by_field_name("operator")) in ("*", "/", "%", "<<", ">>")
        and any(c.type == "identifier" and text(c) in ints for c in cuda_ast.walk(t))
    )


def _strip(n: cuda_ast.Node | None) -> cuda_ast.Node | None:
    while n is not None and n.type in ("parenthesized_expression", "cast_expression"):
        n = n.named_children[-1] if n.named_children else None
    return n


def keep(spec: Spec, unit: cuda_ast.Unit, kernel: str, an: extents.Analysis, guesses: list[tuple[str, str]]) -> None:
    """`fit` the relations `find` reads and the lengths they move; undone where the arrays would then hold
    more than a draft's sizes allow (values the relations cannot make sane)."""
    before = (copy.deepcopy(spec), list(guesses))
    lengths(spec, an, fit(spec, find(unit, kernel, an), guesses))
    after = _elements(spec)
    if after == math.inf or after > max(MAX_ELEMENTS, _elements(before[0])):  # inf: a length that does not read
        spec.__dict__.update(before[0].__dict__)
        guesses[:] = before[1]


def _elements(spec: Spec) -> float:
    """The most elements the arrays hold together at any of the spec's sizes (inf where one cannot tell)."""
    most = 0.0
    for t in _points(spec):
        env = _env(spec, t)
        try:
            most = max(most, sum(float(evaluate(a.size, env)) for a in spec.args if a.is_array))
        except (ExprError, OverflowError, ValueError, ZeroDivisionError):
            return math.inf
    return most


def find(unit: cuda_ast.Unit, kernel: str, an: extents.Analysis) -> list[Relation]:
    fn = unit.kernels.get(kernel)
    if fn is None:
        return []
    ints = {p.name for p in fn.params if not p.pointer and p.type not in ("float", "double", "half", "__half")}
    ints -= set(unit.defines)
    sized = set().union(*(p.names() for p in an.axes.values())) | an.loop_bounds | an.guard_bounds | an.windows
    divisors = {x for _, f, _ in an.quotients.values() for x in f}
    wide = {p.name: 8 if p.type in WIDE else 4 for p in fn.params if not p.pointer}
    strides = {s: wide[s] for s in an.scales if s in ints - sized - divisors}
    sizes = {p.name: cuda_ast.type_bytes(p.type, unit) for p in fn.params if p.pointer}
    rels: list[Relation] = []
    rels += offsets(fn, ints, {k: v for k, v in unit.defines.items() if isinstance(v, int)})
    rels += layouts(an, strides, _outer(fn, ints), sizes, _depths(fn, ints))
    for step, width in sorted(kernel_pitches(unit, kernel)):
        floor = Floor(step, Poly.var(width), f"it steps between rows read after a test against {width}")
        if step in ints - sized - divisors and width in ints - an.loop_bounds and all(r.name != step for r in rels):
            rels.append(floor)
    return rels


def _points(spec: Spec) -> list[dict[str, int] | None]:
    """None for the draft's own sizes, then each check size's table (copies, made explicit)."""
    tables = spec.verify_sizes if spec.verify_sizes is not None else default_verify_sizes(spec)
    return [None, *(dict(t) for t in tables)]


def _env(spec: Spec, table: dict[str, int] | None) -> dict[str, int]:
    return env_at(spec, {**spec.sizes, **(table or {})})


def _value(p: Poly, env: dict[str, int]) -> Fraction | None:
    return p.value(env) if p.names() <= set(env) else None


def _wanted(r: Relation, env: dict[str, int], pad: int = PADS[0]) -> int | None:
    """The value `r.name` moves to at `env`, or None where it already meets `r` (or cannot be told)."""
    have = env.get(r.name)
    if isinstance(r, Ceiling):
        high = _value(r.high, env)
        if have is None or high is None or high < 0 or have <= high:
            return None
        return max(0, int(high) - 1)
    low = _value(r.low, env)
    if have is None or low is None:
        return None
    if r.whole is not None and (step := env.get(r.whole, 0)) > 0:
        if have >= low:
            return None
        return step * math.ceil(low / step)
    if have > low or (have == low and not r.strict):
        return None
    return int(math.ceil(low / r.unit)) * r.unit + pad * r.unit


def fit(spec: Spec, rels: list[Relation], guesses: list[tuple[str, str]]) -> list[str]:
    """Move the draft's values inside `rels` at its sizes and at each check size; the names moved."""
    if not rels:
        return []
    args = {a.name: a for a in spec.args if not a.is_array}
    moved: list[str] = []
    points = _points(spec)
    pads = {n: PADS[i % len(PADS)] for i, n in enumerate(dict.fromkeys(r.name for r in rels))}  # apart
    for _ in range(PASSES):  # a value moved for one relation may leave another: again, a few times
        before = len(moved)
        for r in rels:
            if r.name in spec.sizes:
                said = ""
                for table in points:
                    env = _env(spec, table)
                    want = _wanted(r, env, pads[r.name])
                    if want is None:
                        continue
                    (spec.sizes if table is None else table)[r.name] = want
                    said = said or f"{want}"
                if said:
                    moved.append(r.name)
                    _retell(guesses, f"sizes.{r.name}", f"{said}: {r.why}; set the value you use")
            elif (arg := args.get(r.name)) is not None and arg.init == "constant":
                # a value grown from a stride outer to it, or from an inner one that moved: drafted again
                chain = _above(rels, r.name) | (_below(rels, r.name) & set(moved))
                inverted = isinstance(arg.value, str) and bool(set(PLAIN.findall(arg.value)) & chain)
                if not inverted and all(_wanted(r, _env(spec, t)) is None for t in points):
                    continue
                new = _expression(r, spec, args, pads[r.name])
                if isinstance(new, str) and len(new) > LONGEST:
                    continue  # an inner stride's text nested in each outer one: no value a person sets
                old = arg.value
                arg.value = new
                if new is None or any(_wanted(r, _env(spec, t)) is not None for t in points):
                    arg.value = old  # no expression meets it everywhere: left as it was
                    continue
                moved.append(r.name)
                _retell(guesses, f"args.{r.name}", f"{r.name} = {new}: {r.why}; set the value you use")
        if len(moved) == before:
            break
    if moved:
        spec.verify_sizes = [t for t in points if t is not None]
    return list(dict.fromkeys(moved))


def _above(rels: list[Relation], name: str) -> set[str]:
    """The strides outer to `name` in the layouts of `rels`, however far."""
    out: set[str] = set()
    todo = [name]
    while todo:
        inner = todo.pop()
        for o in rels:
            if isinstance(o, Floor) and o.whole == inner and o.name not in out:
                out.add(o.name)
                todo.append(o.name)
    return out


def _below(rels: list[Relation], name: str) -> set[str]:
    """The strides inner to `name` in the layouts of `rels`, however far."""
    out: set[str] = set()
    todo = [name]
    while todo:
        outer = todo.pop()
        for o in rels:
            if isinstance(o, Floor) and o.name == outer and o.whole is not None and o.whole not in out:
                out.add(o.whole)
                todo.append(o.whole)
    return out


def _expression(r: Relation, spec: Spec, args: dict[str, Arg], pad: int) -> str | int | None:
    """`r` met at every size by an expression over the sizes (other scalars' values put in)."""
    if isinstance(r, Ceiling):
        bound = r.high - Poly.const(1)
        return _simple(f"max(0, {_text(bound, spec, args)})")
    step = args[r.whole].value if r.whole in args and r.whole not in spec.sizes else None
    if isinstance(step, int) and step > 0:  # a whole number of inner items `step` apart, as a polynomial
        floor = _poly(r.low, spec, args)
        c0 = floor.terms.get((), Fraction(0))
        if all(c % step == 0 for m, c in floor.terms.items() if m):
            return _simple(_text(floor - Poly.const(c0) + Poly.const(step * math.ceil(c0 / step)), spec, args))
    if r.whole is not None:
        inner = _text(Poly.var(r.whole), spec, args)
        low = _text(r.low, spec, args)
        return _simple(f"({inner}) * ((({low}) + ({inner}) - 1) // ({inner}))")
    pad = pad if r.strict else 1  # a spacing of single elements: 2, small
    return _simple(f"{_text(r.low, spec, args)} + {pad * r.unit}")


def _simple(expr: str) -> str | int:
    """`expr`, or its value where it names no size."""
    try:
        value = evaluate(expr, {})
    except ExprError:
        return expr
    return int(value) if float(value).is_integer() else expr


def _poly(p: Poly, spec: Spec, args: dict[str, Arg]) -> Poly:
    """`p` with each scalar that is no size and has a whole number for its value put in."""
    for name in sorted(p.names() - set(spec.sizes)):
        a = args.get(name)
        if a is not None and a.init == "constant" and isinstance(a.value, int) and not isinstance(a.value, bool):
            p = p.substitute(name, Poly.const(a.value))
    return p


def _text(p: Poly, spec: Spec, args: dict[str, Arg]) -> str:
    """`p` over the sizes: each other scalar's value put in (a number, or its expression's text)."""
    p = _poly(p, spec, args)
    out = p.text()
    for name in sorted(p.names() - set(spec.sizes)):
        a = args.get(name)
        if a is not None and a.init == "constant":
            out = re.sub(WORD % re.escape(name), f"({a.value})", out)
    return out


def _retell(guesses: list[tuple[str, str]], key: str, why: str) -> None:
    guesses[:] = [g for g in guesses if g[0] != key]
    guesses.append((key, why))


def lengths(spec: Spec, an: extents.Analysis, moved: list[str]) -> None:
    """Each array an access of which reaches past its length once `moved` scalars changed: its length
    taken as the largest of what it had and what each such access reaches; as what they reach where
    every access is plain (a stride that moved down leaves no length sized by its old value)."""
    if not moved:
        return
    args = {a.name: a for a in spec.args if not a.is_array}
    points = [None, *(spec.verify_sizes or [])]
    changed = set(moved) - set(spec.sizes)  # a size moved is named in the lengths: they follow it
    for arr in spec.args:
        use = an.uses.get(arr.name)
        if not arr.is_array or use is None or not isinstance(arr.size, int | str):
            continue
        plain = [h for h in use.accesses if h is not None and all(PLAIN.fullmatch(v) for v in h.names())]
        if not any(h.names() & changed for h in plain):
            continue
        texts = list(dict.fromkeys(_text(h + Poly.const(1), spec, args) for h in plain))
        if len(plain) == len(use.accesses) and _holds(spec, points, texts, use.accesses):
            arr.size = texts[0] if len(texts) == 1 else f"max({', '.join(texts)})"
            continue
        short = [_text(h + Poly.const(1), spec, args) for h in plain if not _holds(spec, points, [str(arr.size)], [h])]
        if short:
            arr.size = f"max({arr.size}, {', '.join(dict.fromkeys(short))})"


def _holds(spec: Spec, points: list[dict[str, int] | None], sizes: list[str], reach: list[Poly | None]) -> bool:
    """Whether the largest of `sizes` holds each of `reach` (+ 1) at every point."""
    for t in points:
        env = _env(spec, t)
        try:
            have = max(evaluate(x, env) for x in sizes)
        except ExprError:
            return False
        for h in reach:
            v = _value(h, env) if h is not None else None
            if v is None or have < v + 1:
                return False
    return True
