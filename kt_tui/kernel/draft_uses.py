"""Ranges of an input array's elements read off how each loaded value is used (kernel/draft.py draws them).

Every load of an array (`a[i]`, `*(a + i)`, `__ldg(&a[i])`, through a local pointer into it) is followed
up through casts and parentheses, into the locals it is the whole value of (never assigned again) and the
parameters of the __device__ functions it is passed to, to the sites where it is used; for a use that asks
for a positive value, also through a sum, a product (not a square) or a quotient it is a term or the
dividend of (`T[i] / steps` under a root: positive where T is). Each kind of site implies a range:

  divisor          `x / v`, `x % v`, `x /= v`, `__fdividef(x, v)`    above 0 (an int from 1)
  root, log        `sqrtf(v)`, `logf(v + eps)`, `powf(v, e)`'s base  above 0
  bit field        `((w >> s) & 0xF) - v`, `(w & 0xFF) == v`         the field's values, 0 to 2^bits - 1
  shift count      `w >> v`, `1u << v`                               0 to 31
  log-probability  `s += expf(v)`: an exponential summed             -8 to 0
  weight           `1 - v` beside `v * x` or `log(v)`                0 to 1 (an int: 0 or 1)
  one less         `x / (1 - v)`, `sqrtf(1 - v)`: 1 - v above 0      above 0, below 1
  probability      `curand_uniform(&st) < v`                         0 to 1
  arc cosine       `acosf(v)`, `asinf(v)`                            -1 to 1
  half bits        `__ushort_as_half(v)`                             0 to 0x7C00 (finite, positive)
  hash, generator  `v * 0x9E3779B9u`, `h = v; h ^= h >> 33; h *= C`  the type's whole range
  xorshift state   `x = v; x ^= x << 13; ...` (or `x = step(x)`)     from 1: 0 is its fixed point

A value with several uses gets the range all of them allow (a divisor compared with a nibble: 1 to 15);
uses whose ranges share nothing leave the array alone. The array is drawn so only where nothing earlier in
kernel/draft.py gave it a range, and each range is said as a guess."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from . import cuda_ast
from .bounds import strip_parens
from .cuda_ast import Node, text
from .draft_pointers import pointer_aliases
from .draft_types import is_int, whole_range
from .spec import Arg

ROOTS = {  # a negative argument is NaN
    *("sqrtf", "sqrt", "rsqrtf", "rsqrt", "__fsqrt_rn", "__dsqrt_rn", "__frsqrt_rn"),
    *("logf", "log", "log2f", "log2", "log10f", "log10", "__logf", "__log2f", "__log10f", "log1pf", "log1p"),
}
RECIPROCALS = {"__frcp_rn", "__drcp_rn", "__frcp_rz", "__frcp_ru", "__frcp_rd"}
DIVIDES = {"__fdividef", "__fdiv_rn", "__ddiv_rn", "fdividef", "fmodf", "fmod", "remainderf", "remainder"}
POWERS = {"powf", "pow", "__powf"}  # the base: a negative base to a fractional power is NaN
EXPS = {"expf", "exp", "__expf"}
DRAWS = {"curand_uniform", "curand_uniform_double", "hiprand_uniform", "hiprand_uniform_double"}  # in (0, 1]
LDG = {"__ldg", "__ldca", "__ldcs", "__ldcg", "__ldlu", "__ldcv"}  # a load through a cache path
UNITS = {"acosf", "acos", "asinf", "asin", "acospif", "acospi", "asinpif", "asinpi"}  # NaN outside [-1, 1]
HALF_BITS = {  # a 16-bit int's bits read as a float: the top of the positive finite ones (0x7C00 is half's inf)
    "__ushort_as_half": 0x7C00,
    "__short_as_half": 0x7C00,
    "__ushort_as_bfloat16": 0x7F80,
    "__short_as_bfloat16": 0x7F80,
}
POSITIVE = ("divisor", "root")
ONE = re.compile(r"^\(*\s*1(\.0*)?[fF]?\s*\)*$|^\(*\s*[A-Za-z_]\w*\s*\(\s*1\s*\)\s*\)*$")  # 1, 1.0f, T(1)
SELF_OPS = ("/=", "%=", "<<=", ">>=")
COMPARED = {"-", "==", "!=", "<", "<=", ">", ">="}
MAX_UP = 64  # sums, products and `1 - v` a value is followed up through (a kernel may nest thousands)
LOG_LOW = -8.0  # log-probabilities: exp of them from 3e-4 to 1, a sum of a few thousand stays finite
WHY = {
    "divisor": "a value is divided by them",
    "root": "they reach a square root, a log or a power's base",
    "logp": "an exponential of them is summed (log-probabilities)",
    "unit": "they reach an arc cosine or arc sine",
    "probability": "they are compared with a uniform draw (probabilities)",
}


@dataclass(frozen=True)
class Use:
    # divisor root field shift logp unit probability mix xorshift; complement (1 - v) beside factor (v * x)
    # makes a weight; equal (`v == w`): a hash's key matched with another is not drawn over the whole type
    kind: str
    bits: int = 0  # a bit field's width
    top: int = 0  # the field's exclusive top where it is not 2^bits (a 16-bit float's finite positive bits)
    # a root (1 - v kept above 0) found where `1 - v` (`rest`, its text) divides ("divisor") or reaches a
    # root, a log or a power's base ("root"): v kept below 1, said so (not as v itself rooted)
    via: str = ""
    rest: str = ""


def _loaded(n: Node, aliases: dict[str, str]) -> str | None:
    """The array `n` loads an element of (`a[i]`, `*(a + i)`, `__ldg(&a[i])`, through a local pointer into
    it), else None."""
    if n.type == "subscript_expression":
        base = strip_parens(n.child_by_field_name("argument"))
        if n.parent is not None and n.parent.type == "pointer_expression":  # &a[i]: a load only as __ldg's
            call = n.parent.parent.parent if n.parent.parent is not None else None
            if call is None or call.type != "call_expression" or text(call.child_by_field_name("function")) not in LDG:
                return None
    elif n.type == "pointer_expression" and text(n.child_by_field_name("operator")) == "*":
        base = strip_parens(n.child_by_field_name("argument"))
        if base is not None and base.type == "binary_expression" and text(base.child_by_field_name("operator")) == "+":
            base = strip_parens(base.child_by_field_name("left"))
    else:
        return None
    name = text(base) if base is not None and base.type == "identifier" else ""
    return aliases.get(name, name) or None


def _up(n: Node) -> Node:
    """The outermost of the parentheses and casts around `n` (and of `__ldg(&n)`)."""
    while n.parent is not None and n.parent.type in ("parenthesized_expression", "cast_expression"):
        n = n.parent
    call = n.parent.parent.parent if n.parent is not None and n.parent.parent is not None else None
    if n.type == "subscript_expression" and n.parent is not None and n.parent.type == "pointer_expression" and call:
        return _up(call)  # __ldg(&a[i]): the call is the value (_loaded said so)
    return n


def _mask_bits(n: Node | None) -> int:
    """The width of a low-bit mask (`0xF`, `15u`, `255`), else 0."""
    n = strip_parens(n)
    if n is None or n.type != "number_literal":
        return 0
    try:
        m = int(text(n).rstrip("uUlL"), 0)
    except ValueError:
        return 0
    return m.bit_length() if 0 < m < (1 << 31) and m & (m + 1) == 0 else 0


def _against(n: Node | None, known: dict[str, Use]) -> Use | None:
    """What comparing a value with `n` says of it: the bit field `n` extracts (`(w >> s) & 0xF`), a
    uniform draw `n` is (`curand_uniform(&st)`: the value is a probability), what a local holding one says."""
    while n is not None and n.type in ("parenthesized_expression", "cast_expression"):
        n = n.child_by_field_name("value") if n.type == "cast_expression" else strip_parens(n)
    if n is None:
        return None
    if n.type == "identifier":
        return known.get(text(n))
    if n.type == "binary_expression" and text(n.child_by_field_name("operator")) == "&":
        bits = _mask_bits(n.child_by_field_name("right")) or _mask_bits(n.child_by_field_name("left"))
        return Use("field", bits) if bits else None
    if n.type == "call_expression" and text(n.child_by_field_name("function")) in DRAWS:
        return Use("probability")
    return None


def _mixes(m: Node) -> bool:
    """`m` is an xor or a product with a hash's multiplier (an int literal of 17 bits or more)."""
    op = text(m.child_by_field_name("operator")) if m.type in ("binary_expression", "assignment_expression") else ""
    return op in ("^", "^=") or (op in ("*", "*=") and _big(m.child_by_field_name("right")))


def _within(starts: list[int], n: Node) -> bool:
    """Whether one of the nodes starting at `starts` (sorted) lies inside `n`: a node under it."""
    i = bisect.bisect_left(starts, n.start_byte)
    return i < len(starts) and starts[i] < n.end_byte


def _big(n: Node | None) -> bool:
    """A hash's multiplier: an odd int literal of 17 bits or more."""
    n = strip_parens(n)
    if n is None or n.type != "number_literal":
        return False
    try:
        m = int(text(n).rstrip("uUlL"), 0)
    except ValueError:
        return False
    return m >= 1 << 16 and m % 2 == 1  # odd, as hash multipliers are (65536 or 1000000 scale a unit)


def _xorshift(n: Node, var: str, steppers: set[str]) -> bool:
    """Whether the write `n` is a xorshift step of `var` or `var = step(var)` with a step of `steppers`."""
    if n.type != "assignment_expression":
        return False
    op, right = text(n.child_by_field_name("operator")), strip_parens(n.child_by_field_name("right"))
    if right is None or op not in ("=", "^="):
        return False
    if op == "=" and right.type == "call_expression":
        given = [text(strip_parens(c)) for c in right.child_by_field_name("arguments").named_children]
        return text(right.child_by_field_name("function")) in steppers and given == [var]
    sides = [strip_parens(right.child_by_field_name(f)) for f in ("left", "right")] if op == "=" else [None, right]
    if op == "=" and (right.type != "binary_expression" or text(right.child_by_field_name("operator")) != "^"):
        return False
    return any((op == "^=" or (a is not None and text(a) == var)) and _shifted(b, var) for a, b in (sides, sides[::-1]))


def _shifted(n: Node | None, var: str) -> bool:
    """`var << k` or `var >> k`, k a number."""
    n = strip_parens(n)
    return (
        n is not None
        and n.type == "binary_expression"
        and text(n.child_by_field_name("operator")) in ("<<", ">>")
        and text(strip_parens(n.child_by_field_name("left"))) == var
        and getattr(strip_parens(n.child_by_field_name("right")), "type", "") == "number_literal"
    )


def _steppers(devices: dict[str, cuda_ast.Function]) -> set[str]:
    """The __device__ functions of one argument that return it run through xorshift steps alone."""
    out = set()
    for name, f in devices.items():
        if f.body is None or len(f.params) != 1 or not f.params[0].name:
            continue
        var = f.params[0].name
        returns = [n for n in cuda_ast.walk(f.body) if n.type == "return_statement"]
        if returns and all(text(strip_parens(r.named_children[0])) == var for r in returns if r.named_children):
            if _Body(f).xorshifted(var):
                out.add(name)
    return out


@dataclass
class _Body:
    """A function's body as the walk needs it: each local's declarators, the locals written after their
    declaration, those declared as a bit field or a uniform draw (-> what comparing with them says), those
    stepped as a hash or a generator."""

    fn: cuda_ast.Function
    declared: dict[str, int] = field(default_factory=dict)
    written: set[str] = field(default_factory=set)
    known: dict[str, Use] = field(default_factory=dict)  # locals holding a bit field or a draw
    mixed: set[str] = field(default_factory=set)  # locals stepped as a hash or a generator (`h ^= h >> 33`)
    writes: dict[str, list[Node]] = field(default_factory=dict)  # each local's assignments and updates
    steppers: set[str] = field(default_factory=set)  # __device__ functions that return their one argument
    # run through xorshift steps alone
    refs: dict[str, list[Node]] | None = None  # each name's reads, found on the first call of `reads`

    def __post_init__(self) -> None:
        mixing: list[int] = []  # where each xor and hash product starts, in the order of the text
        names: dict[str, list[int]] = {}  # where each name is read
        steps: list[tuple[Node, str, str, Node | None]] = []  # assignments to a local: (it, local, op, right)
        for n in cuda_ast.walk(self.fn.body):
            if _mixes(n):
                mixing.append(n.start_byte)
            if n.type == "identifier":
                names.setdefault(text(n), []).append(n.start_byte)
            elif n.type == "init_declarator":
                d = n.child_by_field_name("declarator")
                if d is not None and d.type == "identifier":
                    self.declared[text(d)] = self.declared.get(text(d), 0) + 1
                    if said := _against(n.child_by_field_name("value"), self.known):
                        self.known[text(d)] = said
            elif n.type in ("assignment_expression", "update_expression"):
                target = strip_parens(n.child_by_field_name("left") or n.child_by_field_name("argument"))
                if target is not None and target.type == "identifier":
                    self.written.add(text(target))
                    self.writes.setdefault(text(target), []).append(n)
                    steps.append(
                        (n, text(target), text(n.child_by_field_name("operator")), n.child_by_field_name("right"))
                    )
        # a hash or a generator stepped (`h ^= h >> 33`, `h *= C`, `h = (h ^ k) * C`): found by position,
        # not by a walk under each assignment (a chain `x = x = ... = 1` of thousands is quadratic)
        for n, name, op, right in steps:
            if (op in ("^=", "*=") and _within(mixing, n)) or (
                op == "=" and right is not None and _within(mixing, right) and _within(names.get(name, []), right)
            ):
                self.mixed.add(name)

    def xorshifted(self, name: str) -> bool:
        """Whether every write of `name` is a xorshift step of it (`x ^= x << 13`, `x = x ^ (x >> 7)`) or
        `x = step(x)` with a __device__ function of `steppers`: 0 is its fixed point."""
        return bool(self.writes.get(name)) and all(_xorshift(n, name, self.steppers) for n in self.writes[name])

    def reads(self, name: str, param: bool = False) -> list[Node]:
        """The reads of a local (a parameter) declared once and never written again, else []."""
        if name in self.written or self.declared.get(name, 0) != (0 if param else 1):
            return []
        if self.refs is None:  # every name's reads at once: a walk per local is quadratic in the body
            self.refs = {}
            for n in cuda_ast.walk(self.fn.body):
                if n.type == "identifier" and (n.parent is None or n.parent.type != "init_declarator"):
                    self.refs.setdefault(text(n), []).append(n)
        return self.refs.get(name, [])


def uses(
    fn: cuda_ast.Function, arrays: set[str], devices: dict[str, cuda_ast.Function] | None = None
) -> dict[str, set[Use]]:
    """Each array of `arrays` -> the kinds of use its loaded values reach (in `fn`, and in the __device__
    functions of `devices` it passes them to). What a local's reads reach is found once, whichever load
    or array reached it: a value passed down a chain of functions with long bodies is followed once."""
    out: dict[str, set[Use]] = {}
    if fn.body is None or not arrays:
        return out
    devices = devices or {}
    aliases = pointer_aliases(fn, arrays)
    bodies = {fn.name: _Body(fn, steppers=_steppers(devices))}
    reached: dict[_Key, tuple[set[Use], set[_Key]]] = {}

    def follow(sites: list[Site], here: str) -> tuple[set[Use], set[_Key]]:
        found: set[Use] = set()
        locals_: set[_Key] = set()
        for use, local, callee, now in sites:
            if use is not None and (not now or use.kind in POSITIVE):
                found.add(use)
            if local is None:
                continue
            if callee is not None and callee not in bodies:  # a parameter of a __device__ function
                bodies[callee] = _Body(devices[callee])
            locals_.add((callee if callee is not None else here, local, callee is not None, now))
        return found, locals_

    def step(key: _Key) -> tuple[set[Use], set[_Key]]:
        if key not in reached:
            name, local, param, now = key
            found: set[Use] = set()
            after: set[_Key] = set()
            for ref in bodies[name].reads(local, param):
                f, a = follow(_sites(_up(ref), bodies[name], devices, now), name)
                found, after = found | f, after | a
            reached[key] = (found, after)
        return reached[key]

    todo: dict[str, set[_Key]] = {}
    for load in cuda_ast.walk(fn.body):
        if (array := _loaded(load, aliases)) not in arrays:
            continue
        found, after = follow(_sites(_up(load), bodies[fn.name], devices, False), fn.name)
        out.setdefault(array, set()).update(found)
        todo.setdefault(array, set()).update(after)
    for array, start in todo.items():
        seen, stack = set(start), list(start)
        while stack:
            found, after = step(stack.pop())
            out[array] |= found
            stack += [k for k in after if k not in seen]
            seen |= after
    return {a: u for a, u in out.items() if u}


_Key = tuple[str, str, bool, bool]  # a function, a local or parameter of it, whether a parameter, signed


# a use; a local holding the value; the function it is in; whether what stands there has only the value's sign
Site = tuple[Use | None, str | None, str | None, bool]


def _sites(v: Node, body: _Body, devices: dict[str, cuda_ast.Function], signed: bool, up: int = 0) -> list[Site]:
    """The use the value `v` (a load, a local holding one, or with `signed` a sum, product or quotient it
    is a term of, which is positive where it is) is put to where it stands, or the local it is the whole
    value of (with the __device__ function whose parameter it is); `up`: the terms it is nested in so far,
    followed up to MAX_UP."""
    p = v.parent
    if p is None or up > MAX_UP:
        return []
    if p.type == "init_declarator" and p.child_by_field_name("value") == v:
        d = p.child_by_field_name("declarator")
        if d is None or d.type != "identifier":
            return []
        name = text(d)
        step = Use("xorshift") if body.xorshifted(name) else Use("mix") if name in body.mixed else None
        return [(step, name, None, signed)]
    if p.type == "assignment_expression" and p.child_by_field_name("right") == v:  # `x /= v`, `w >>= v`
        op = text(p.child_by_field_name("operator"))
        return [(Use("divisor" if op in ("/=", "%=") else "shift"), None, None, signed)] if op in SELF_OPS else []
    if p.type == "binary_expression":
        op, left, right = (
            text(p.child_by_field_name("operator")),
            p.child_by_field_name("left"),
            p.child_by_field_name("right"),
        )
        other = left if right == v else right
        here: list[Site] = []
        if op in ("/", "%") and right == v:
            here.append((Use("divisor"), None, None, signed))
        elif op in ("<<", ">>") and right == v:
            here.append((Use("shift"), None, None, signed))
        elif op in COMPARED and (said := _against(other, body.known)):
            here.append((said, None, None, signed))
        elif op == "-" and right == v and ONE.match(text(left)):  # `1 - v`, and under a root or dividing: below 1
            here.append((Use("complement"), None, None, signed))
            above = [u.kind for u, *_ in _sites(_up(p), body, devices, True, up + 1) if u is not None]
            if via := next((k for k in above if k in POSITIVE), ""):
                here.append((Use("root", via=via, rest=_short(text(p))), None, None, signed))
        elif op in ("==", "!=") and getattr(strip_parens(other), "type", "number_literal") != "number_literal":
            here.append((Use("equal"), None, None, signed))  # a key matched: drawn as what it is matched with
        elif op == "*" and _big(other):  # a hash's multiplier (an xor alone is draft_values.words's)
            here.append((Use("mix"), None, None, signed))
        elif op == "*":
            here.append((Use("factor"), None, None, signed))
        if op == "+" or (op == "*" and text(other) != text(v)) or (op == "/" and left == v):  # positive where v is
            here += _sites(_up(p), body, devices, True, up + 1)
        return here
    if p.type == "argument_list" and p.parent is not None and p.parent.type == "call_expression":
        f = text(p.parent.child_by_field_name("function"))
        given = [c for c in p.named_children if c.type != "comment"]
        at = next((k for k, c in enumerate(given) if c == v), -1)
        use: Use | None = None
        if (f in ROOTS and len(given) == 1) or (f in POWERS and at == 0):
            use = Use("root")
        elif (f in RECIPROCALS and len(given) == 1) or (f in DIVIDES and at == 1):
            use = Use("divisor")
        elif f in UNITS and len(given) == 1:
            use = Use("unit")
        elif f in HALF_BITS and len(given) == 1:
            use = Use("field", HALF_BITS[f].bit_length() - 1, HALF_BITS[f])
        elif f in EXPS and len(given) == 1 and _summed(_up(p.parent)):
            use = Use("logp")
        elif f in devices and 0 <= at < len(devices[f].params) and not devices[f].params[at].pointer:
            return [(None, devices[f].params[at].name, f, signed)]
        return [(use, None, None, signed)] if use is not None else []
    return []


def _summed(call: Node) -> bool:
    """Whether an exponential's value is added into a sum (`s += expf(v)`, `s = s + expf(v)`)."""
    p = call.parent
    if p is None:
        return False
    if p.type == "assignment_expression":
        return text(p.child_by_field_name("operator")) == "+=" and p.child_by_field_name("right") == call
    return p.type == "binary_expression" and text(p.child_by_field_name("operator")) == "+"


def span(dtype: str, found: set[Use]) -> tuple[str, float, float] | None:
    """(init, low, high) that every use of `found` allows, else None (no use says a range, or they conflict)."""
    integer, kinds = is_int(dtype), {u.kind for u in found}
    low, high = whole_range(dtype) if integer else (float("-inf"), float("inf"))
    weight = "complement" in kinds and bool(kinds & {"factor", "root"})
    if weight:  # `1 - v` beside v: a weight, a probability
        low, high = max(low, 0), min(high, 2 if integer else 1.0)
    for u in found:
        if u.kind in POSITIVE:
            low, high = max(low, 1 if integer else 1e-3), min(high, 100 if integer else 1.0)
        elif u.kind == "field":
            top = u.top or 1 << u.bits
            low, high = max(low, 0), min(high, top if integer else top - 1)
        elif u.kind == "probability":
            low, high = max(low, 0), min(high, 2 if integer else 1.0)
        elif u.kind == "unit":
            low, high = max(low, -1), min(high, 2 if integer else 1.0)
        elif u.kind == "shift":  # a shift by the type's width or more is undefined
            low, high = max(low, 0), min(high, 32 if integer else 31)
        elif u.kind == "xorshift":  # 0 is a xorshift's fixed point: a generator stuck there
            low = max(low, 1)
        elif u.kind == "logp":
            low, high = max(low, LOG_LOW), min(high, 0.0)
    whole = (low, high) == (whole_range(dtype) if integer else (float("-inf"), float("inf")))
    if whole and not (integer and "mix" in kinds and "equal" not in kinds):  # `mix`: the whole range, said
        return None
    if not low < high or (integer and high - low < 2):
        return None
    if kinds - {"factor", "complement", "equal"} <= set(POSITIVE) and not weight:
        return "positive", low, high
    return "uniform" if not integer else "random", low, high


def narrow(arg: Arg, found: set[Use] | None, guesses: list[tuple[str, str]]) -> None:
    """Draw `arg` (an array drawn at random over the default range, or an int over its type's) in the range
    its uses allow, said in place of what was said of the draw before."""
    wide = is_int(arg.type) and (arg.low, arg.high) == whole_range(arg.type)
    if wide:  # words or bytes over the type: only a bit field or a xorshift state says more of them
        found = {u for u in found or () if u.kind in ("field", "xorshift")}
    if not found or arg.init != "random" or (arg.high is not None and not wide):
        return
    if (drawn := span(arg.type, found)) is None:
        return
    init, low, high = drawn
    if isinstance(arg.low, (int, float)):  # a floor drawn already (an int not negative) stands
        low = max(low, arg.low)
    elif arg.low is not None:
        return
    if wide:
        guesses[:] = [g for g in guesses if g[0] != f"args.{arg.name}"]
    arg.init = init
    if init != "positive":  # positive: the init's own range, above 0 (from 1 for an int) to 1 (to 100)
        arg.low, arg.high = (int(low), int(high)) if is_int(arg.type) else (low, high)
    kinds = {u.kind for u in found}
    said = [WHY[u.kind] for u in sorted(found, key=lambda u: u.kind) if u.kind in WHY and not u.via]
    said += [
        f"a value is divided by `{u.rest}` (1 - v), which must not be 0: v kept below 1"
        if u.via == "divisor"
        else f"`{u.rest}` (1 - v) reaches a square root, a log or a power's base, which a negative value makes "
        "NaN: v kept below 1"
        for u in sorted(found, key=lambda u: (u.via, u.rest))
        if u.via
    ]
    if "complement" in kinds and ("factor" in kinds or any(u.kind == "root" and not u.via for u in found)):
        said.append("the kernel takes 1 - v beside v itself (a blend weight, a probability, a soft target)")
    if "mix" in kinds and (low, high) == whole_range(arg.type):
        said.append("they are mixed as a hash's or a generator's bits (xor, a large multiplier), so any is safe")
    if "xorshift" in kinds:
        said.append("read into a local only run through xorshift steps, whose fixed point 0 would never change")
    said += ["a value is shifted by them (a shift by 32 bits or more is undefined)" for u in found if u.kind == "shift"]
    said += [
        "read as a 16-bit float's bits, so finite (no inf or NaN) and positive"
        if u.top
        else f"they are compared with (or subtracted from) a {u.bits}-bit field"
        for u in found
        if u.kind == "field"
    ]
    where = "above 0" if init == "positive" else f"in [{_said(arg.low)}, {_said(arg.high)})"
    guesses.append((f"args.{arg.name}", f"values {where}: {'; '.join(dict.fromkeys(said))}"))


def _short(expr: str, most: int = 60) -> str:
    """`expr` on one line, cut to `most` characters."""
    one = " ".join(expr.split())
    return one if len(one) <= most else one[: most - 3] + "..."


def _said(v: object) -> str:
    """A bound as a guess says it: an int exactly (4294967296, not 4.29497e+09), a float short."""
    return f"{v:g}" if isinstance(v, float) else str(v)
