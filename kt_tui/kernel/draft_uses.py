"""Ranges of an input array's elements read off how each loaded value is used (kernel/draft.py draws them).

Every load of an array (`a[i]`, through a local pointer into it) is followed up through casts and
parentheses, into the locals it is the whole value of (never assigned again), and through a sum with a
positive constant or scalar (`v + eps`), to the sites where it is used. Each kind of site implies a range:

  divisor         `x / v`, `x % v`, `1.0f / v`         positive (an int from 1): never 0, never a sign flip
  root, log       `sqrtf(v)`, `logf(v + eps)`, `powf(v, e)`'s base   positive
  bit field       `((w >> s) & 0xF) - v`, `(w & 0xFF) == v`          the field's values, 0 to 2^bits - 1
  log-probability `s += expf(v)`: an exponential summed               at most 0 (-8 to 0)

A value with several uses gets the range all of them allow (a divisor compared with a nibble: 1 to 15);
uses whose ranges share nothing leave the array alone. Each range drawn is said as a guess."""

from __future__ import annotations

from dataclasses import dataclass

from . import cuda_ast
from .bounds import strip_parens
from .cuda_ast import Node, text
from .draft_pointers import pointer_aliases
from .draft_types import is_int, whole_range
from .spec import Arg

ROOTS = {"sqrtf", "sqrt", "rsqrtf", "rsqrt", "logf", "log", "log2f", "log2", "log10f", "log10", "__logf", "cbrtf"}
POWERS = {"powf", "pow", "__powf"}  # the base: a negative base to a fractional power is NaN
EXPS = {"expf", "exp", "__expf"}
COMPARED = {"-", "==", "!=", "<", "<=", ">", ">="}
LOG_LOW = -8.0  # log-probabilities: exp of them from 3e-4 to 1, a sum of a few thousand stays finite
WHY = {
    "divisor": "a value is divided by them",
    "root": "they reach a square root, a log or a power's base",
    "logp": "an exponential of them is summed (log-probabilities)",
}


@dataclass(frozen=True)
class Use:
    kind: str  # "divisor", "root", "field", "logp"
    bits: int = 0  # a bit field's width


def _up(n: Node) -> Node:
    """The outermost of the parentheses and casts around `n`."""
    while n.parent is not None and n.parent.type in ("parenthesized_expression", "cast_expression"):
        n = n.parent
    return n


def _positive(n: Node | None, scalars: set[str]) -> bool:
    """A positive number (`1e-5f`, `1`) or a scalar argument (an epsilon)."""
    n = strip_parens(n)
    if n is None:
        return False
    if n.type == "identifier":
        return text(n) in scalars
    if n.type != "number_literal":
        return False
    try:
        return float(text(n).rstrip("fFuUlL") if not text(n).lower().startswith("0x") else int(text(n), 16)) > 0
    except ValueError:
        return False


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


def _field(n: Node | None, fields: dict[str, int]) -> int:
    """The width of the bit field `n` extracts (`(w >> s) & 0xF`, a local holding one), else 0."""
    while n is not None and n.type in ("parenthesized_expression", "cast_expression"):
        n = n.child_by_field_name("value") if n.type == "cast_expression" else strip_parens(n)
    if n is None:
        return 0
    if n.type == "identifier":
        return fields.get(text(n), 0)
    if n.type == "binary_expression" and text(n.child_by_field_name("operator")) == "&":
        return _mask_bits(n.child_by_field_name("right")) or _mask_bits(n.child_by_field_name("left"))
    return 0


def _locals(fn: cuda_ast.Function) -> tuple[dict[str, list[Node]], set[str], dict[str, int]]:
    """Each local's declarators, the locals written after their declaration, and those declared as a bit
    field (-> its width)."""
    declared: dict[str, list[Node]] = {}
    written: set[str] = set()
    fields: dict[str, int] = {}
    for n in cuda_ast.walk(fn.body):
        if n.type == "init_declarator":
            d = n.child_by_field_name("declarator")
            if d is not None and d.type == "identifier":
                declared.setdefault(text(d), []).append(d)
                if bits := _field(n.child_by_field_name("value"), fields):
                    fields[text(d)] = bits
        elif n.type in ("assignment_expression", "update_expression"):
            target = strip_parens(n.child_by_field_name("left") or n.child_by_field_name("argument"))
            if target is not None and target.type == "identifier":
                written.add(text(target))
    return declared, written, fields


def _references(fn: cuda_ast.Function, name: str) -> list[Node]:
    return [
        n
        for n in cuda_ast.walk(fn.body)
        if n.type == "identifier" and text(n) == name and (n.parent is None or n.parent.type != "init_declarator")
    ]


def uses(fn: cuda_ast.Function, arrays: set[str], scalars: set[str]) -> dict[str, set[Use]]:
    """Each array of `arrays` -> the kinds of use its loaded values reach."""
    out: dict[str, set[Use]] = {}
    if fn.body is None or not arrays:
        return out
    aliases = pointer_aliases(fn, arrays)
    declared, written, fields = _locals(fn)
    for load in cuda_ast.walk(fn.body):
        if load.type != "subscript_expression":
            continue
        name = text(load.child_by_field_name("argument"))
        if (array := aliases.get(name, name)) not in arrays:
            continue
        found = out.setdefault(array, set())
        stack, seen = [load], {load.id}
        while stack:
            for use, more in _sites(_up(stack.pop()), fields, scalars):
                if use is not None:
                    found.add(use)
                for local in more:  # a local that holds the value: its reads are the value too
                    if local in written or len(declared.get(local, [])) != 1:
                        continue
                    for ref in _references(fn, local):
                        if ref.id not in seen:
                            seen.add(ref.id)
                            stack.append(ref)
    return {a: u for a, u in out.items() if u}


def _sites(v: Node, fields: dict[str, int], scalars: set[str]) -> list[tuple[Use | None, list[str]]]:
    """The use the value `v` (a load or a local holding one) is put to where it stands, and the locals
    it is the whole value of."""
    p = v.parent
    if p is None:
        return []
    if p.type == "init_declarator" and p.child_by_field_name("value") == v:
        d = p.child_by_field_name("declarator")
        return [(None, [text(d)])] if d is not None and d.type == "identifier" else []
    if p.type == "assignment_expression" and p.child_by_field_name("left") == v:
        return []  # a store, not a load
    if p.type == "binary_expression":
        op, left, right = text(p.child_by_field_name("operator")), p.child_by_field_name("left"), p.child_by_field_name("right")
        other = left if right == v else right
        if op in ("/", "%") and right == v:
            return [(Use("divisor"), [])]
        if op in COMPARED and (bits := _field(other, fields)):
            return [(Use("field", bits), [])]
        if op == "+" and _positive(other, scalars):  # `v + eps`: positive where v is
            return [(u, []) for u, _ in _sites(_up(p), fields, scalars) if u is not None and u.kind != "field"]
        return []
    if p.type == "argument_list" and p.parent is not None and p.parent.type == "call_expression":
        f = text(p.parent.child_by_field_name("function"))
        given = [c for c in p.named_children if c.type != "comment"]
        if (f in ROOTS and len(given) == 1) or (f in POWERS and given and given[0] == v):
            return [(Use("root"), [])]
        if f in EXPS and len(given) == 1 and _summed(_up(p.parent)):
            return [(Use("logp"), [])]
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
    """(init, low, high) that every use of `found` allows, else None (no use, or uses that conflict)."""
    integer = is_int(dtype)
    low, high = (whole_range(dtype) if integer else (float("-inf"), float("inf")))
    for u in found:
        if u.kind in ("divisor", "root"):
            low, high = max(low, 1 if integer else 1e-3), min(high, 100 if integer else 1.0)
        elif u.kind == "field":
            low, high = max(low, 0), min(high, (1 << u.bits) if integer else (1 << u.bits) - 1)
        elif u.kind == "logp":
            low, high = max(low, LOG_LOW), min(high, 0.0)
    if not low < high or (integer and high - low < 2):
        return None
    kinds = {u.kind for u in found}
    if kinds <= {"divisor", "root"}:
        return "positive", low, high
    return "uniform" if not integer else "random", low, high


def narrow(arg: Arg, found: set[Use] | None, guesses: list[tuple[str, str]]) -> None:
    """Draw `arg` (an array drawn at random over the default range so far) in the range its uses allow."""
    if not found or arg.init != "random" or arg.low is not None or arg.high is not None:
        return
    if (drawn := span(arg.type, found)) is None:
        return
    init, low, high = drawn
    arg.init = init
    if init != "positive":  # positive: the init's own range, above 0 (from 1 for an int) to 1 (to 100)
        arg.low, arg.high = (int(low), int(high)) if is_int(arg.type) else (low, high)
    said = [WHY[u.kind] for u in sorted(found, key=lambda u: u.kind) if u.kind in WHY]
    said += [f"they are compared with (or subtracted from) a {u.bits}-bit field" for u in found if u.kind == "field"]
    where = "above 0" if init == "positive" else f"in [{arg.low:g}, {arg.high:g})"
    guesses.append((f"args.{arg.name}", f"values {where}: {'; '.join(dict.fromkeys(said))}"))
