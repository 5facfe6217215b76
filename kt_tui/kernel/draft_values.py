"""What an int input array's values are, read off where its loaded values go (kernel/draft.py draws
them accordingly):

- reduced: every load (or every read of a local declared as one) reaches the rest of the kernel only
  through `% m`, `& m` or `>> s` then `% m` or `& m` (a digit, a hash bucket, a bit field; `m` a mask of
  low bits or a scalar): any value of the type is safe, and high bits tell a kernel that reads
  them with the wrong width or sign from one that does not.
- measured: a load (or a local holding one) is multiplied or divided by a float (a sensor count times
  its unit): a quantity, not a flag, even where the kernel also tests it against 0.
- words: every load of an unsigned array (through the locals and pointers it flows into) is only taken
  apart as bits: `^ | & ~`, a shift by which it is shifted (never the count), `__popc` and its kin, an
  equality with another word or 0, a store to an argument or an atomic Or/Xor/And, a reduction as
  above, or a product with the constant that maps its width onto [0, 1) (`w * 2.3283064e-10f`, a
  uniform draw); where some use adds it into a 64-bit sum (the code widens the sum because the words
  reach the top of the range: share counts), also a factor of a product (a weight). No use bounds a
  loop, indexes, divides, is a shift's count or is compared with a scalar, so any value of the type is
  safe, and only high bits tell a signed or narrower read from the right one.
- masked equals: an int scalar tested for equality with a value reduced by a constant (`(x + y) & 1 !=
  color`): drafted inside the constant's range, or every thread takes the same branch.
- cycles: a float array or scalar times an integer inside a sinpi/cospi (a frequency in cycles per
  sample): drafted in [-0.5, 0.5), where a frequency is unique (the samples alias past it).
- scaled thresholds: a float scalar compared with a quantity built by `+ - *` from bounded int data:
  drafted at a quarter of the quantity's largest magnitude, so the test splits the data.
"""

from __future__ import annotations

import re
from typing import Any

from . import cuda_ast
from .cuda_ast import text
from .draft_floats import MADE_UP
from .draft_relations import _factors
from .draft_roles import strip_parens
from .draft_types import is_int
from .spec import Arg

Node = Any
REDUCING = ("%", "&", ">>")
WALK = 400  # nodes looked at under one operand: an expression's names, not a whole kernel's


def _loads(n: Node | None, arrays: set[str]) -> list[Node]:
    return [
        m
        for m in (cuda_ast.walk(n) if n is not None else [])
        if m.type == "subscript_expression" and text(m.child_by_field_name("argument")) in arrays
    ]


def _reducer(load: Node) -> str | None:
    """The operator of the first `%`, `&` or `>>` the load is the left operand of (through
    parentheses, casts and other reductions); None when something else takes it first."""
    n = load
    found = None
    while n.parent is not None:
        up = n.parent
        if up.type in ("parenthesized_expression", "cast_expression"):
            n = up
            continue
        if up.type == "binary_expression" and up.child_by_field_name("left") == n:
            op = text(up.child_by_field_name("operator"))
            if op == "&" and not _low_mask(up.child_by_field_name("right")):
                break  # `& ~3u` keeps high bits: no digit, no bucket
            if op in REDUCING:
                found = op if found is None or op != ">>" else found
                n = up
                continue
        break
    return None if found == ">>" else found


def _low_mask(n: Node | None) -> bool:
    """Whether `n` is a mask of low bits: a whole literal 2**k - 1 (`255`, `0xffu`) or a name (a
    scalar the caller sets)."""
    n = strip_parens(n) if n is not None else None
    if n is None:
        return False
    if n.type == "identifier":
        return True
    word = text(n).rstrip("uUlL")
    try:
        value = int(word, 0)
    except ValueError:
        return False
    return value > 0 and value & (value + 1) == 0


def _held(load: Node) -> str | None:
    """The local a load is the whole value of (`T v = a[i];`, through casts and parentheses), once declared."""
    n = load
    while n.parent is not None and n.parent.type in ("parenthesized_expression", "cast_expression"):
        n = n.parent
    up = n.parent
    if up is None or up.type != "init_declarator" or up.child_by_field_name("value") != n:
        return None
    d = up.child_by_field_name("declarator")
    return text(d) if d is not None and d.type == "identifier" else None


def reduced(fn: cuda_ast.Function, arrays: set[str]) -> dict[str, str]:
    """Arrays of `arrays` whose every load (more than none) is reduced by `%` or `&` (a shift before
    them allowed) before anything else takes it -> the last reduction's operator."""
    out: dict[str, str] = {}
    if fn.body is None:
        return out
    uses: dict[str, list[Node]] = {}  # a local's name -> where it is read
    for n in cuda_ast.walk(fn.body):
        declared = n.parent is not None and n.parent.type == "init_declarator"
        if n.type == "identifier" and not (declared and n.parent.child_by_field_name("declarator") == n):
            uses.setdefault(text(n), []).append(n)
    ops: dict[str, set[str | None]] = {}
    for load in _loads(fn.body, arrays):
        held = _held(load)  # `const unsigned k = keys[i];`: where k is read instead
        for at in uses.get(held, []) if held is not None else [load]:
            ops.setdefault(text(load.child_by_field_name("argument")), set()).add(_reducer(at))
        if held is not None and not uses.get(held):
            ops.setdefault(text(load.child_by_field_name("argument")), set()).add(None)
    for name, found in ops.items():
        if None not in found:
            out[name] = "&" if found == {"&"} else "%"
    return out


def measured(fn: cuda_ast.Function, arrays: set[str], floats: set[str]) -> set[str]:
    """Arrays of `arrays` a load of which (directly or through a local or a local array's element, two
    deep) is a factor of a product or a quotient with a float scalar argument of `floats` or a float
    literal (`w / 255.0f`: a quantity, whatever else tests it against 0)."""
    out: set[str] = set()
    if fn.body is None or not arrays:
        return out
    holds: dict[str, set[str]] = {}  # a local -> the arrays its value loads
    for _ in range(2):
        for n in cuda_ast.walk(fn.body):
            if n.type == "init_declarator" and (d := n.child_by_field_name("declarator")) is not None:
                if d.type == "array_declarator":  # `ws[4] = {w.x, w.y, ...}`
                    d = d.child_by_field_name("declarator")
                name = text(d) if d is not None and d.type == "identifier" else None
                if name is not None:
                    holds[name] = _carried(n.child_by_field_name("value"), arrays, holds)
    for n in cuda_ast.walk(fn.body):
        if n.type != "binary_expression" or text(n.child_by_field_name("operator")) not in ("*", "/"):
            continue
        sides = [strip_parens(n.child_by_field_name(k)) for k in ("left", "right")]
        for i in (0, 1):
            if sides[1 - i] is not None and _float_factor(sides[1 - i], floats):
                out |= _carried(sides[i], arrays, holds)
    return out


def _float_factor(n: Node, floats: set[str]) -> bool:
    """`n` names a float scalar of `floats`, or is a float literal (255.0f, 1e-3)."""
    if n.type == "number_literal":
        t = text(n).lower()
        return not t.startswith("0x") and ("." in t or "e" in t or t.endswith("f"))
    return any(m.type == "identifier" and text(m) in floats for m in cuda_ast.walk(n, WALK))


def _carried(n: Node | None, arrays: set[str], holds: dict[str, set[str]]) -> set[str]:
    """The arrays whose loaded values `n`'s value carries: one only tested in a condition (`m[i] ? 1.0f :
    0.0f`) picks a branch and is not carried."""
    if n is None:
        return set()
    tests = [
        (c.start_byte, c.end_byte)
        for m in cuda_ast.walk(n)
        if m.type == "conditional_expression" and (c := m.child_by_field_name("condition")) is not None
    ]

    def carried(m: Node) -> bool:
        return not any(a <= m.start_byte and m.end_byte <= b for a, b in tests)

    out = {text(m.child_by_field_name("argument")) for m in _loads(n, arrays) if carried(m)}
    for m in cuda_ast.walk(n):
        if m.type == "identifier" and text(m) in holds and carried(m):
            out |= holds[text(m)]
    return out


BIT_COUNTS = ("__popc", "__popcll", "__clz", "__clzll", "__ffs", "__ffsll")  # a word -> a count of 0 to 64
BIT_WORDS = ("__brev", "__brevll")  # a word -> a word
# words of packed bytes or halves -> a number (their first two arguments; a third is an accumulator or a selector)
PACKED = (
    "__dp4a",
    "__dp2a_lo",
    "__dp2a_hi",
    "__byte_perm",
    "__vabsdiff4",
    "__vadd4",
    "__vsub4",
    "__vmaxs4",
    "__vmins4",
)
BIT_ATOMICS = ("atomicOr", "atomicXor", "atomicAnd")
BIT_SETS = ("|=", "^=", "&=", ">>=", "<<=")
WIDE = re.compile(r"\bunsigned\s+long\s+long\b|\buint64_t\b|\bsize_t\b|\bunsigned\s+long\b")
FLOAT_TYPES = ("float", "double", "half", "__half", "float2", "float4", "double2")


def words(
    fn: cuda_ast.Function, arrays: set[str], bits: dict[str, int], devices: dict[str, cuda_ast.Function] | None = None
) -> set[str]:
    """Arrays of `arrays` (unsigned, `bits` wide) whose every load (more than none) is only used as a
    word of bits (the module's `words`); a load through a local pointer into one (`p = a + i * n`) counts."""
    if fn.body is None or not arrays:
        return set()
    pointers = {p.name for p in fn.params if p.pointer and p.type not in FLOAT_TYPES}  # a word stored stays one
    uses: dict[str, list[Node]] = {}  # a local's name -> where it is read or updated
    into: dict[str, str] = {}  # a local pointer -> the array it points into
    aliasing: set[Node] = set()  # the values those pointers are declared with
    for n in cuda_ast.walk(fn.body):
        if n.type == "init_declarator" and (d := n.child_by_field_name("declarator")) is not None:
            if d.type == "pointer_declarator" and (name := d.child_by_field_name("declarator")) is not None:
                base = _pointed(value := n.child_by_field_name("value"), arrays)
                if base is not None and name.type == "identifier":
                    into[text(name)] = base
                    aliasing.add(value)
        declared = n.parent is not None and n.parent.type == "init_declarator"
        if n.type == "identifier" and not (declared and n.parent.child_by_field_name("declarator") == n):
            uses.setdefault(text(n), []).append(n)
    wide = {  # 64-bit unsigned locals: a sum of words widened past them
        text(d)
        for n in cuda_ast.walk(fn.body)
        if n.type == "declaration"
        and (t := n.child_by_field_name("type")) is not None
        and WIDE.search(text(n)[: t.end_byte - n.start_byte])
        for d in (
            x.child_by_field_name("declarator") if x.type == "init_declarator" else x
            for x in n.children_by_field_name("declarator")
        )
        if d is not None and d.type == "identifier"
    }
    loads: dict[str, list[Node]] = {}
    for n in cuda_ast.walk(fn.body):
        if n.type == "subscript_expression" and not _written(n):  # a store of a word back is not a load
            name = text(n.child_by_field_name("argument"))
            if name in arrays or name in into:
                loads.setdefault(into.get(name, name), []).append(n)
        elif n.type == "identifier" and (text(n) in arrays or text(n) in into) and n.parent is not None:
            declared = n.parent.type == "pointer_declarator" and text(n) in into
            indexed = n.parent.type == "subscript_expression" and n.parent.child_by_field_name("argument") == n
            if not (declared or indexed or _within(n, aliasing)):
                loads.setdefault(into.get(text(n), text(n)), []).append(n)  # the pointer passed on: not followed
    out: set[str] = set()
    for name, found in loads.items():
        walker = _Words(uses, pointers, arrays | set(into), wide, devices)
        if all(n.type == "subscript_expression" and walker.used(n, bits.get(name)) for n in found) and walker.bits:
            if walker.widened or not walker.weighted:
                out.add(name)
    return out


def _within(n: Node, values: set[Node]) -> bool:
    """Whether `n` lies in one of `values` (an alias's declared value), a few levels up."""
    up: Node | None = n
    for _ in range(8):
        if up is None:
            return False
        if up in values:
            return True
        up = up.parent
    return False


def _pointed(n: Node | None, arrays: set[str]) -> str | None:
    """The array `n` points into: `a`, `a + off`, `&a[i]` (through casts and parentheses)."""
    n = strip_parens(n)
    while n is not None and n.type == "cast_expression":
        n = strip_parens(n.child_by_field_name("value"))
    if n is None:
        return None
    if n.type == "identifier" and text(n) in arrays:
        return text(n)
    if n.type == "binary_expression" and text(n.child_by_field_name("operator")) == "+":
        left = strip_parens(n.child_by_field_name("left"))
        if left is not None and left.type == "identifier" and text(left) in arrays:
            return text(left)
    if n.type == "pointer_expression" and text(n.child_by_field_name("operator")) == "&":
        arg = strip_parens(n.child_by_field_name("argument"))
        if arg is not None and arg.type == "subscript_expression":
            base = text(arg.child_by_field_name("argument"))
            return base if base in arrays else None
    return None


def _number(n: Node | None) -> float | None:
    """The value of a number literal (`3u`, `0xffu`, `2.3283064e-10f`, `0x1p-32f`); None for anything else."""
    n = strip_parens(n)
    if n is not None and n.type == "binary_expression" and (op := text(n.child_by_field_name("operator"))) in "*/":
        a, b = _number(n.child_by_field_name("left")), _number(n.child_by_field_name("right"))
        return None if a is None or b is None or op == "/" and b == 0 else a * b if op == "*" else a / b
    if n is None or n.type != "number_literal":
        return None
    word = text(n).lower()
    hexed = word.startswith("0x") and "p" not in word  # `f` is a hex digit there, a suffix elsewhere
    word = word.rstrip("ul") if hexed else word.rstrip("ulf")
    for read in (lambda w: float(int(w, 0)), float, float.fromhex):
        try:
            return read(word)
        except ValueError:
            continue
    return None


def _mask(n: Node | None) -> bool:
    """A mask of low bits: `_low_mask`'s, or `(1 << e) - 1`."""
    if _low_mask(n):
        return True
    n = strip_parens(n)
    if n is None or n.type != "binary_expression" or text(n.child_by_field_name("operator")) != "-":
        return False
    one, shift = _number(n.child_by_field_name("right")), strip_parens(n.child_by_field_name("left"))
    return (
        one == 1
        and shift is not None
        and shift.type == "binary_expression"
        and text(shift.child_by_field_name("operator")) == "<<"
        and _number(shift.child_by_field_name("left")) == 1
    )


def _written(n: Node) -> bool:
    """Whether `n` is the target of a plain assignment (`v = ...`): a write, not a read."""
    up = n.parent
    return (
        up is not None
        and up.type == "assignment_expression"
        and up.child_by_field_name("left") == n
        and text(up.child_by_field_name("operator")) == "="
    )


class _Words:
    """Whether a value is only used as a word of bits, following the locals it is stored in."""

    def __init__(
        self,
        uses: dict[str, list[Node]],
        pointers: set[str],
        words: set[str],
        wide: set[str],
        devices: dict[str, cuda_ast.Function] | None = None,
        depth: int = 0,
    ) -> None:
        self.uses, self.pointers, self.words, self.wide = uses, pointers, words, wide
        self.devices = devices or {}
        self.depth = depth  # device functions followed into, at most 4 deep
        self.returned = False  # inside a device function: a use that returns it
        self.widened = False  # some use adds it into a 64-bit sum: words near the top of the range
        self.weighted = False  # some use is a factor of a product with a variable (allowed where widened)
        self.seen: set[str] = set()
        self.bits = False  # whether some use takes bits apart (not only equalities and stores: a flag's)

    def local(self, name: str, width: int | None) -> bool:
        if name in self.seen:
            return True
        self.seen.add(name)
        read = [u for u in self.uses.get(name, []) if not _written(u)]
        return bool(read) and all(self.used(u, width, name) for u in read)

    def used(self, n: Node, width: int | None, local: str | None = None) -> bool:
        floated = False  # converted to a float: no longer stored or kept as a word
        for _ in range(64):
            while n.parent is not None and n.parent.type in ("parenthesized_expression", "cast_expression"):
                n = n.parent
                kind = n.child_by_field_name("type")
                floated |= n.type == "cast_expression" and kind is not None and text(kind).strip() in FLOAT_TYPES
            up = n.parent
            if up is None:
                return False
            kind = up.type
            if kind == "binary_expression":
                op = text(up.child_by_field_name("operator"))
                left = up.child_by_field_name("left") == n
                other = up.child_by_field_name("right" if left else "left")
                if op == "&" and _mask(other) or op == "%" and left:
                    self.bits = True
                    return True
                if op in ("==", "!="):
                    return _number(other) == 0 or self._word(other)
                if op in (">>", "<<") and left:
                    k = _number(other)
                    width = None if width is None or k is None else width - int(k) if op == ">>" else width
                elif op == "*" and (c := _number(other)) is not None:
                    self.bits = width is not None and 0.5 <= c * 2.0**width <= 2
                    return self.bits
                elif op == "/" and left and (c := _number(other)) is not None:
                    self.bits = width is not None and c > 0 and 0.5 <= 2.0**width / c <= 2
                    return self.bits
                elif op == "*":
                    self.weighted = True
                    return True
                elif op not in ("^", "|", "&") or floated:
                    return False
                self.bits = True
                n = up
            elif kind == "unary_expression" and text(up.child_by_field_name("operator")) == "~":
                self.bits = True
                n = up
            elif kind == "argument_list" and up.parent is not None and up.parent.type == "call_expression":
                callee = text(up.parent.child_by_field_name("function"))
                if (
                    callee in BIT_COUNTS
                    or callee in BIT_ATOMICS
                    and up.named_children[0] != n
                    or callee in PACKED
                    and n in up.named_children[:2]
                ):
                    self.bits = True
                    return True
                if (device := self.devices.get(callee)) is not None and n in up.named_children:
                    if not self._through(device, up.named_children.index(n), width):
                        return False
                    self.bits = True
                    n = up.parent  # what it returns: the word, taken apart
                    continue
                if callee not in BIT_WORDS:
                    return False
                self.bits = True
                n = up.parent
            elif floated:
                return False
            elif kind == "return_statement" and self.depth > 0:
                self.returned = True
                return True
            elif kind == "init_declarator" and up.child_by_field_name("value") == n:
                d = up.child_by_field_name("declarator")
                typed = up.parent.child_by_field_name("type") if up.parent is not None else None
                if typed is not None and text(typed) in FLOAT_TYPES:
                    return False
                return d is not None and d.type == "identifier" and self.local(text(d), width)
            elif kind == "assignment_expression":
                op = text(up.child_by_field_name("operator"))
                target = up.child_by_field_name("left")
                if target == n:
                    return op in BIT_SETS and local is not None
                if op == "+=" and target is not None and text(target) in self.wide:
                    self.widened = self.bits = True
                    return True
                if op != "=" and op not in BIT_SETS[:3]:
                    return False
                if target is not None and target.type == "identifier":
                    return self.local(text(target), width)
                base = target.child_by_field_name("argument") if target is not None else None
                return target is not None and target.type == "subscript_expression" and text(base) in self.pointers
            else:
                return False
        return False

    def _through(self, device: cuda_ast.Function, at: int, width: int | None) -> bool:
        """Whether a __device__ function only takes its parameter `at` apart as bits and returns it so
        (`s ^= s << 13; ...; return s;`, a xorshift step)."""
        if self.depth >= 4 or device.body is None or at >= len(device.params):
            return False
        uses: dict[str, list[Node]] = {}
        for n in cuda_ast.walk(device.body):
            if n.type == "identifier":
                uses.setdefault(text(n), []).append(n)
        inner = _Words(uses, self.pointers, self.words, self.wide, self.devices, self.depth + 1)
        return inner.local(device.params[at].name, width) and inner.returned

    def _word(self, n: Node | None) -> bool:
        """Whether `n` loads from one of the word arrays (an equality of two words)."""
        return n is not None and any(
            m.type == "subscript_expression" and text(m.child_by_field_name("argument")) in self.words
            for m in cuda_ast.walk(n, WALK)
        )


HALF_TURNS = re.compile(r"^(?:__)?(?:sin|cos|sincos)pif?$")  # sinpi(x) = sin(pi x): x in half turns
INT_TYPES = re.compile(r"\b(?:int|unsigned|long|short|size_t|u?int\d+_t)\b")


def cycles(fn: cuda_ast.Function, arrays: set[str], floats: set[str]) -> tuple[set[str], set[str]]:
    """Float arrays of `arrays` and float scalars of `floats` that are a factor of a product with an
    integer (a sample's number) inside what a `sinpi`, `cospi` or `sincospi` takes: a frequency in
    cycles per sample, whose value past [-0.5, 0.5) only aliases one inside (the samples are the same
    at every integer), so the draft keeps it there."""
    loaded: set[str] = set()
    scalars: set[str] = set()
    if fn.body is None:
        return loaded, scalars
    ints = {p.name for p in fn.params if not p.pointer and INT_TYPES.search(p.type or "")}
    for n in cuda_ast.walk(fn.body):
        if n.type == "declaration" and (t := n.child_by_field_name("type")) is not None and INT_TYPES.search(text(t)):
            for d in n.children_by_field_name("declarator"):
                d = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
                if d is not None and d.type == "identifier":
                    ints.add(text(d))
    for n in cuda_ast.walk(fn.body):
        if n.type != "call_expression" or not HALF_TURNS.match(text(n.child_by_field_name("function"))):
            continue
        args = n.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        for m in cuda_ast.walk(first, WALK) if first is not None else []:
            if m.type != "binary_expression" or text(m.child_by_field_name("operator")) != "*":
                continue
            factors = _factors(m)
            if not any(f.type == "identifier" and text(f) in ints for f in factors):
                continue
            for f in factors:
                if f.type == "subscript_expression" and text(f.child_by_field_name("argument")) in arrays:
                    loaded.add(text(f.child_by_field_name("argument")))
                elif f.type == "identifier" and text(f) in floats:
                    scalars.add(text(f))
    return loaded, scalars


def scaled_thresholds(fn: cuda_ast.Function, floats: set[str], narrow: dict[str, int]) -> dict[str, tuple[float, str]]:
    """Float scalars of `floats` compared (`<`, `>`, `<=`, `>=`) with a quantity built by `+ - *` from
    loads of arrays whose values the draft bounds by `narrow` (the largest magnitude each takes) and
    from constants, through locals -> a quarter of the quantity's largest magnitude, and why. A
    threshold far below the quantity's scale passes every value but 0 (a whole number's
    quantity makes every threshold in (0, 1) the same test)."""
    out: dict[str, tuple[float, str]] = {}
    if fn.body is None or not floats or not narrow:
        return out
    values: dict[str, list[Node]] = {}  # a local -> the values it is declared or assigned with
    for n in cuda_ast.walk(fn.body):
        if n.type == "init_declarator" and (d := n.child_by_field_name("declarator")) is not None:
            if d.type == "identifier" and (v := n.child_by_field_name("value")) is not None:
                values.setdefault(text(d), []).append(v)
        elif n.type == "assignment_expression" and (t := n.child_by_field_name("left")) is not None:
            if t.type == "identifier":
                values.setdefault(text(t), []).append(n)  # any assignment: followed no further
    for n in cuda_ast.walk(fn.body):
        if n.type != "binary_expression" or text(n.child_by_field_name("operator")) not in ("<", ">", "<=", ">="):
            continue
        for a, b in (("left", "right"), ("right", "left")):
            name = strip_parens(n.child_by_field_name(a))
            if name is None or name.type != "identifier" or text(name) not in floats or text(name) in out:
                continue
            top = _magnitude(n.child_by_field_name(b), values, narrow, 0)
            if top is not None and top >= 16:
                value = float(f"{top / 4:.2g}")
                out[text(name)] = (
                    value,
                    f"{value:g}: it is compared with a quantity of the drafted data that reaches {top:.3g}: a "
                    "quarter of that, so the test passes some values and not others; set the threshold you use",
                )
    return out


def _magnitude(n: Node | None, values: dict[str, list[Node]], narrow: dict[str, int], depth: int) -> float | None:
    """The largest magnitude `n` reaches (None: not known, or not built by `+ - *` from bounded loads)."""
    while n is not None and n.type in ("parenthesized_expression", "cast_expression"):
        n = n.child_by_field_name("value") if n.type == "cast_expression" else strip_parens(n)
    if n is None or depth > 6:
        return None
    if n.type == "subscript_expression":
        return narrow.get(text(n.child_by_field_name("argument")))
    if n.type == "number_literal":
        v = _number(n)
        return abs(v) if v is not None else None
    if n.type == "identifier":
        found = values.get(text(n), [])
        if len(found) != 1 or found[0].type == "assignment_expression":
            return None
        return _magnitude(found[0], values, narrow, depth + 1)
    if n.type == "unary_expression" and text(n.child_by_field_name("operator")) in ("-", "+"):
        return _magnitude(n.child_by_field_name("argument"), values, narrow, depth + 1)
    if n.type == "binary_expression" and (op := text(n.child_by_field_name("operator"))) in ("+", "-", "*"):
        a = _magnitude(n.child_by_field_name("left"), values, narrow, depth + 1)
        b = _magnitude(n.child_by_field_name("right"), values, narrow, depth + 1)
        if a is None or b is None:
            return None
        return a * b if op == "*" else a + b
    return None


def scale_thresholds(fn: cuda_ast.Function, args: list[Arg], guesses: list[tuple[str, str]]) -> None:
    """Float scalars given a made-up value and compared with a quantity of the drafted int data
    (scaled_thresholds): on that quantity's scale instead."""
    made_up = {a.name: a for a in args if not a.is_array and a.type.startswith("float") and a.value in MADE_UP}
    bounded = {
        a.name: max(abs(a.low), abs(a.high))
        for a in args
        if a.is_array and is_int(a.type) and isinstance(a.low, int) and isinstance(a.high, int)
    }
    for name, (value, why) in scaled_thresholds(fn, set(made_up), bounded).items():
        made_up[name].value = value
        guesses[:] = [g for g in guesses if g[0] != f"args.{name}"] + [(f"args.{name}", why)]
