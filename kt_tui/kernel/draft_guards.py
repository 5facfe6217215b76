"""Scalars that steer a kernel's branches rather than size or scale its work (kernel/draft.py): a float
tolerance compared with the magnitude of a computed value (`fabsf(det) > eps`) and a floor that keeps what
a log, a root or a denominator takes off 0 (`logf(fmaxf(acc, floor_val))`) are small, far below the data;
an int only tested for truth (a flag: `unit_diag ? r : r / d`) takes the branch that does more work. A
magnitude compared with a float that nothing then divides by (`fabsf(c - blur) > t ? c + a * d : c`) is
no guard: that float is a threshold on the data's scale; and a float added to a constant that divides
(`x / (1.0f + eta)`) is a damping, not an epsilon (the constant keeps the denominator off 0)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from . import cuda_ast
from .cuda_ast import text
from .draft_roles import _MAX, _POSITIVE_ONLY, Node, _locals, _through, strip_parens

TOLERANCE = 1e-5  # far below the drafted floats' scale (standard normal): one near 1 zeroes most results
TOLERANCE_WHY = (
    "compared with the magnitude of a computed value (a tolerance for 'near 0'): small, far below the data, so "
    "the ordinary path is checked; near the data's scale it would take the degenerate path almost everywhere"
)
EPSILON = 1e-5  # a term added under a root or a denominator to keep it off 0: far below the data's scale
EPSILON_WHY = (
    "added to what a root, a log or a denominator takes (an epsilon that keeps it off 0): small beside the data"
)
ADDED_TOLERANCE = 1e-3  # small beside the relative term on standard normal data, yet not lost in its rounding
ADDED_TOLERANCE_WHY = (
    "an absolute tolerance added to the other side of a comparison with the magnitude of a computed value "
    "(|a - b| <= atol + rtol * |b|): small, so the other term decides most comparisons; 0 would pass a kernel "
    "that drops it"
)
BRACKET_TOLERANCE = 1e-3  # a bracket's width at which halving stops: far below the data, above float rounding
BRACKET_TOLERANCE_WHY = (
    "compared with a difference in a loop's test (`while (hi - lo > tol)`: the width at which a bisection or an "
    "iteration stops): small, so the loop runs many steps; near the data's scale it would stop at once"
)
LOG_CUT = 0.1  # a fraction whose log lowers a cut below a value: a tenth, so some values pass and some not
LOG_CUT_WHY = (
    "its log is added to a value that is then compared with (`x >= m + t * log(p)`: a cut a fraction p below a "
    "largest value, in log space): a fraction in (0, 1), small, so some values pass and some are cut; above 1 "
    "the cut passes the largest value and everything is cut"
)
FLOOR_WHY = (
    "the floor of a max that a log, a root or a denominator takes (it keeps that off 0): small, far below the "
    "data, else it hides every value under it"
)
DAMPING = 0.05  # a damping per step: small beside 1, far above an epsilon
DAMPING_WHY = (
    "added to a constant that divides (`x / (1 + eta)`: a damping or relaxation coefficient): small beside "
    "that constant, in (0, 1); not an epsilon, which the constant makes needless, and not 0, which passes a "
    "kernel that drops it"
)
THRESHOLD = 0.1  # a tenth of data drawn in [0, 1): differences fall on both sides of it
THRESHOLD_WHY = (
    "compared with the magnitude of a value computed from reads (`fabsf(c - blur) > t`) that nothing then divides "
    "by: a threshold on the data's scale (the data drawn in [0, 1)), a tenth of it, so values fall on both sides; "
    "near 0 every value passes it"
)
_NUMBER = re.compile(r"^\(*\s*(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?[fF]?\s*\)*$")
_MAGNITUDES = ("fabsf", "fabs", "abs", "llabs", "__habs")
_ARITHMETIC = ("+", "-", "*", "/")


def _op(n: Node | None) -> str:
    return text(n.child_by_field_name("operator")) if n is not None and n.type == "binary_expression" else ""


def _uses(fn: cuda_ast.Function, name: str) -> list[Node]:
    return [n for n in cuda_ast.walk(fn.body) if n.type == "identifier" and text(n) == name]


def _up(n: Node) -> Node | None:
    """The node whose operand `n` is, past the parentheses around it."""
    p = n.parent
    while p is not None and p.type == "parenthesized_expression":
        p = p.parent
    return p


def _computed(n: Node | None, locals_: dict[str, list[Node]], depth: int = 0) -> bool:
    """Whether `n`, followed through locals, holds arithmetic on values (one computed, not one read: an
    array's index is not followed)."""
    n = strip_parens(n)
    if n is None or depth > 20 or n.type == "subscript_expression":
        return False
    if n.type == "binary_expression" and text(n.child_by_field_name("operator")) in _ARITHMETIC:
        return True
    if n.type == "identifier":
        return any(_computed(v, locals_, depth + 1) for v in locals_.get(text(n), []))
    return any(_computed(c, locals_, depth + 1) for c in n.named_children)


def _against_magnitude(use: Node, locals_: dict[str, list[Node]]) -> bool:
    """Whether `use` is one side of a comparison whose other side is |a computed value|."""
    return _compared_with_magnitude(use, _up(use), locals_)


def _added_to_magnitude(use: Node, locals_: dict[str, list[Node]]) -> bool:
    """Whether `use` is a term of a sum that is one side of a comparison whose other side is |a computed
    value| (`fabsf(a - b) <= atol + rtol * fabsf(b)`)."""
    side = use
    while (up := _up(side)) is not None and up.type == "binary_expression":
        if text(up.child_by_field_name("operator")) != "+":
            break
        side = up
    return side is not use and _compared_with_magnitude(side, up, locals_)


def _ordered_with(use: Node, cmp: Node | None) -> Node | None:
    """The other side of `cmp` where it is an ordering (<, <=, >, >=) with `use` on one side, else None."""
    if cmp is None or cmp.type != "binary_expression":
        return None
    if text(cmp.child_by_field_name("operator")) not in ("<", "<=", ">", ">="):
        return None
    sides = [strip_parens(cmp.child_by_field_name(f)) for f in ("left", "right")]
    return next((s for s in sides if s is not None and s.start_byte != use.start_byte), None)


def _compared_with_magnitude(use: Node, cmp: Node | None, locals_: dict[str, list[Node]]) -> bool:
    """Whether `cmp` is a comparison with `use` on one side and |a computed value| on the other."""
    other = _ordered_with(use, cmp)
    if other is None or other.type != "call_expression":
        return False
    if text(other.child_by_field_name("function")) not in _MAGNITUDES:
        return False
    return _computed(other.child_by_field_name("arguments"), locals_)


def regularizers(fn: cuda_ast.Function, floats: set[str]) -> set[str]:
    """Float scalar arguments added to what a square root, a log or a division's denominator takes
    (`rsqrtf(ss / n + eps)`, `x / (norm + eps)`, through locals): an epsilon that keeps it off 0, small
    beside the data, else it swamps what it is added to."""
    out: set[str] = set()
    for m in positive_taken(fn):
        if m.type == "binary_expression" and text(m.child_by_field_name("operator")) == "+":
            sides = (strip_parens(m.child_by_field_name("left")), strip_parens(m.child_by_field_name("right")))
            out |= {text(x) for x in sides if x is not None and x.type == "identifier"}
    return out & floats


def positive_taken(fn: cuda_ast.Function) -> Iterator[Node]:
    """Every node of what a square root, a log or a division's denominator takes, through locals."""
    if fn.body is None:
        return
    locals_ = _locals(fn)
    for n in cuda_ast.walk(fn.body):
        if n.type == "call_expression" and text(n.child_by_field_name("function")) in _POSITIVE_ONLY:
            taken = n.child_by_field_name("arguments")
        elif n.type == "binary_expression" and text(n.child_by_field_name("operator")) == "/":
            taken = n.child_by_field_name("right")
        else:
            continue
        yield from _through(taken, locals_)


def added_tolerances(fn: cuda_ast.Function, floats: set[str]) -> set[str]:
    """Float scalar arguments used only as a term of a sum compared with the absolute value of a computed
    value (`fabsf(a - b) <= atol + rtol * fabsf(b)`): an absolute tolerance beside a relative one."""
    if fn.body is None:
        return set()
    locals_ = _locals(fn)
    return {n for n in floats if (uses := _uses(fn, n)) and all(_added_to_magnitude(u, locals_) for u in uses)}


def tolerances(fn: cuda_ast.Function, floats: set[str]) -> set[str]:
    """Float scalar arguments used only in comparisons with the absolute value of a computed value
    (`fabsf(det) > eps ? 1.0f / det : 0.0f`, `fabsf(a - b) < tol`): a tolerance for a value near 0."""
    if fn.body is None:
        return set()
    locals_ = _locals(fn)
    out: set[str] = set()
    for name in floats:
        uses = _uses(fn, name)
        if uses and all(_against_magnitude(u, locals_) for u in uses):
            out.add(name)
    return out


def thresholds(fn: cuda_ast.Function, floats: set[str]) -> dict[str, set[str]]:
    """The tolerances (tolerances()) whose compared magnitude's value is no division's denominator (`fabsf(d) >
    t ? c + a * d : c`, not `fabsf(det) > eps ? 1 / det : 0`), each to the arrays read into that value."""
    if fn.body is None:
        return {}
    locals_ = _locals(fn)
    divided: set[str] = set()  # the texts of denominators and the names they read
    for n in cuda_ast.walk(fn.body):
        if _op(n) == "/" and (d := strip_parens(n.child_by_field_name("right"))) is not None:
            divided |= {text(d)} | {text(m) for m in cuda_ast.walk(d) if m.type == "identifier"}
    out: dict[str, set[str]] = {}
    for name in tolerances(fn, floats):
        read: set[str] = set()
        for use in _uses(fn, name):
            magnitude = _ordered_with(use, _up(use))
            taken = magnitude.child_by_field_name("arguments") if magnitude is not None else None
            value = strip_parens(taken.named_children[0]) if taken is not None and taken.named_children else None
            if value is None or text(value) in divided:
                break
            read |= {
                text(m.child_by_field_name("argument"))
                for m in _through(value, locals_)
                if m.type == "subscript_expression"
            }
        else:
            if read:
                out[name] = read
    return out


_LOOPS = ("for_statement", "while_statement", "do_statement")


def _in_loop_test(n: Node) -> bool:
    """Whether `n` lies in a loop's condition, or in the condition of an `if` whose branch is `break`."""
    child, up = n, n.parent
    for _ in range(64):
        if up is None or up.type in ("compound_statement", "function_definition"):
            return False
        if up.type in _LOOPS and child.start_byte == getattr(up.child_by_field_name("condition"), "start_byte", -1):
            return True
        if up.type == "if_statement" and child.start_byte == getattr(
            up.child_by_field_name("condition"), "start_byte", -1
        ):
            branch = strip_parens(up.child_by_field_name("consequence"))
            return branch is not None and text(branch).replace(" ", "").strip("{};\n") == "break"
        child, up = up, up.parent
    return False


def _against_difference(use: Node) -> bool:
    """Whether `use` is one side of an ordering whose other side is a difference (`hi - lo > tol`)."""
    cmp = _up(use)
    other = _ordered_with(use, cmp)
    return (
        other is not None and other.type == "binary_expression" and text(other.child_by_field_name("operator")) == "-"
    )


def bracket_tolerances(fn: cuda_ast.Function, floats: set[str]) -> set[str]:
    """Float scalar arguments used only in orderings against a difference, at least one in a loop's test
    (`for (...; hi - lo > tol; ...)`, `if (b - a < tol) break;`): the width where an iteration stops."""
    if fn.body is None:
        return set()
    out: set[str] = set()
    for name in floats:
        uses = _uses(fn, name)
        if uses and all(_against_difference(u) for u in uses) and any(_in_loop_test(u) for u in uses):
            out.add(name)
    return out


_LOGS = ("logf", "log", "__logf", "log2f", "log2", "__log2f", "log10f", "log10", "__log10f")


def _compared_sum(n: Node, body: Node) -> bool:
    """Whether `n` (a log's call) is a factor of a term of a sum that is a side of an ordering, directly or
    as the value of a local every later use of which is one."""
    up = _up(n)
    while up is not None and up.type == "binary_expression" and text(up.child_by_field_name("operator")) == "*":
        n, up = up, _up(up)
    if up is None or up.type != "binary_expression" or text(up.child_by_field_name("operator")) not in ("+", "-"):
        return False
    while (above := _up(up)) is not None and above.type == "binary_expression":
        if text(above.child_by_field_name("operator")) not in ("+", "-"):
            break
        up = above
    cmp = _up(up)
    if cmp is not None and cmp.type == "binary_expression":
        return text(cmp.child_by_field_name("operator")) in ("<", "<=", ">", ">=")
    if cmp is None or cmp.type != "init_declarator":
        return False
    local = cmp.child_by_field_name("declarator")
    if local is None or local.type != "identifier":
        return False
    later = [
        m
        for m in cuda_ast.walk(body)
        if m.type == "identifier" and text(m) == text(local) and m.start_byte > local.start_byte
    ]
    return bool(later) and all(
        (c := _up(m)) is not None
        and c.type == "binary_expression"
        and text(c.child_by_field_name("operator")) in ("<", "<=", ">", ">=")
        for m in later
    )


def log_cuts(fn: cuda_ast.Function, floats: set[str]) -> set[str]:
    """Float scalar arguments used only as what a log takes alone, each log a term of a sum compared with
    (`x[v] >= m + t * logf(p)`): a fraction whose log sets a cut below a value."""
    if fn.body is None:
        return set()
    out: set[str] = set()
    for name in floats:
        uses = _uses(fn, name)
        calls = [_up(u) for u in uses]
        calls = [c.parent if c is not None and c.type == "argument_list" else None for c in calls]
        if uses and all(
            c is not None
            and c.type == "call_expression"
            and text(c.child_by_field_name("function")) in _LOGS
            and len((c.child_by_field_name("arguments") or c).named_children) == 1
            and _compared_sum(c, fn.body)
            for c in calls
        ):
            out.add(name)
    return out


def floors(fn: cuda_ast.Function, floats: set[str]) -> set[str]:
    """Float scalar arguments that are a side of a max a log, a root or a division's denominator takes
    (`logf(fmaxf(energy, floor_val))`, `x / fmaxf(norm, eps)`, through locals)."""
    out: set[str] = set()
    for m in positive_taken(fn):
        if m.type == "call_expression" and text(m.child_by_field_name("function")) in _MAX:
            args = m.child_by_field_name("arguments")
            sides = [strip_parens(a) for a in args.named_children] if args is not None else []
            out |= {text(s) for s in sides if s is not None and s.type == "identifier"}
    return out & floats


FLAG_WHY = (
    "an int only tested for truth (a flag): 0 or 1, the value whose branch does more work (1 where neither "
    "does more; the other branch is not checked); set the value you use"
)
_WORK = ("subscript_expression", "call_expression", "binary_expression", "assignment_expression", "update_expression")


def _work(n: Node | None) -> int:
    """Operations under `n`: reads, calls, arithmetic, stores."""
    return 0 if n is None else sum(1 for m in cuda_ast.walk(n) if m.type in _WORK)


def _same(a: Node | None, b: Node | None) -> bool:
    return a is not None and b is not None and (a.start_byte, a.end_byte) == (b.start_byte, b.end_byte)


def _zero(n: Node | None) -> bool:
    n = strip_parens(n)
    return n is not None and n.type == "number_literal" and text(n).rstrip("uUlL") in ("0", "0x0")


def _truth_test(use: Node) -> int | None:
    """For a use of an int that only a test reads (`if (f)`, `f ? a : b`, `!f`, `f == 0`, `f && x`,
    `ok = f && x`): the work its truth adds (the taken branch's operations less the other's; negative when
    false does more; 0 for a truth that steers no branch); None when the use is anything else."""
    node, truthy, tested = use, True, False
    while True:
        parent = node.parent
        if parent is None:
            return 0 if tested else None
        op = (
            text(parent.child_by_field_name("operator"))
            if parent.type in ("binary_expression", "unary_expression")
            else ""
        )
        if parent.type in ("parenthesized_expression", "condition_clause"):
            node = parent
        elif parent.type == "unary_expression" and op == "!":
            node, truthy, tested = parent, not truthy, True
        elif parent.type == "binary_expression" and op in ("&&", "||"):
            node, tested = parent, True
        elif (
            parent.type == "binary_expression"
            and op in ("==", "!=")
            and any(_zero(parent.child_by_field_name(f)) for f in ("left", "right"))
        ):
            node, truthy, tested = parent, truthy != (op == "=="), True
        elif parent.type in ("if_statement", "conditional_expression"):
            if not _same(parent.child_by_field_name("condition"), node):
                return 0 if tested else None
            more = _work(parent.child_by_field_name("consequence")) - _work(parent.child_by_field_name("alternative"))
            return more if truthy else -more
        else:
            return 0 if tested else None


def flags(fn: cuda_ast.Function, ints: set[str]) -> dict[str, int]:
    """Int scalar arguments used only as truth tests -> 1 or 0: the value whose branches do more work
    (`unit_diag ? r : r / diag` -> 0, the division and the diagonal's read checked); 1 where the branches do
    as much (`uplo == 0 ? i < j : i > j`, `ok = equal_nan && isnan(x)`): a truth, not an arbitrary int."""
    if fn.body is None:
        return {}
    out: dict[str, int] = {}
    for name in ints:
        uses = _uses(fn, name)
        more = [_truth_test(u) for u in uses]
        if uses and all(m is not None for m in more):
            out[name] = 0 if sum(m for m in more if m is not None) < 0 else 1
    return out


SELECTOR_WHY = (
    "an int only compared with constants (`uplo == 0`, `mode != 2`, `switch (op)`: a selector): one of those "
    "constants, the least, as a value none of them names takes no branch the code was written for; set the one "
    "you use"
)


MAX_SELECTOR_USES = 64  # a scalar used more often is read as no selector: each use may walk a switch's body


def _compared_constant(use: Node, values: dict[str, int]) -> int | None:
    """The constant that `use` is compared with by == or != (`k == 2`, `(k) != MODE_B`), else None."""
    n, p = use, use.parent
    while p is not None and p.type == "parenthesized_expression":
        n, p = p, p.parent
    if p is None or p.type != "binary_expression" or text(p.child_by_field_name("operator")) not in ("==", "!="):
        return None
    other = p.child_by_field_name("right" if _same(p.child_by_field_name("left"), n) else "left")
    return cuda_ast.constant(other, values)


def _switched(use: Node, values: dict[str, int]) -> list[int] | None:
    """The case constants of the switch whose condition `use` alone is, else None."""
    cond = use.parent
    if cond is None or cond.type not in ("condition_clause", "parenthesized_expression"):
        return None
    switch = cond.parent
    if switch is None or switch.type != "switch_statement" or switch.child_by_field_name("body") is None:
        return None
    cases = [
        cuda_ast.constant(c.child_by_field_name("value"), values)
        for c in cuda_ast.walk(switch.child_by_field_name("body"))
        if c.type == "case_statement" and c.child_by_field_name("value") is not None
    ]
    return [c for c in cases if c is not None] or None


def selectors(fn: cuda_ast.Function, ints: set[str], values: dict[str, int]) -> dict[str, int]:
    """Int scalar arguments used only in == / != comparisons with constant integers (`values`: the
    #defines), switch conditions and truth tests, with some constant other than 0 -> the least such
    constant (0 counts where a truth test is): a value the code names, not an arbitrary int."""
    if fn.body is None:
        return {}
    out: dict[str, int] = {}
    for name in ints:
        named: set[int] = set()
        uses = _uses(fn, name)
        if len(uses) > MAX_SELECTOR_USES:
            continue
        for u in uses:
            if (k := _compared_constant(u, values)) is not None:
                named.add(k)
            elif (cases := _switched(u, values)) is not None:
                named.update(cases)
            elif _truth_test(u) is not None:
                named.add(0)
            else:
                break
        else:
            if named - {0}:
                out[name] = min((k for k in named if k >= 0), default=min(named))
    return out


def damping_scalars(fn: cuda_ast.Function, floats: set[str]) -> set[str]:
    """Float scalars of `floats` added to a number other than 0 in a division's denominator, through
    locals (`(... ) / (1.0f + eta)`)."""
    out: set[str] = set()
    if fn.body is None or not floats:
        return out
    locals_ = _locals(fn)
    for n in cuda_ast.walk(fn.body):
        if _op(n) != "/":
            continue
        for m in _through(n.child_by_field_name("right"), locals_):
            if _op(m) != "+":
                continue
            sides = [strip_parens(m.child_by_field_name(f)) for f in ("left", "right")]
            for a, b in (sides, sides[::-1]):
                if a is None or b is None or a.type != "identifier" or text(a) not in floats:
                    continue
                if _NUMBER.match(text(b)) and float(text(b).strip("() ").rstrip("fF")) != 0:
                    out.add(text(a))
    return out


def guard_values(
    fn: cuda_ast.Function, floats: set[str], others: set[str], values: dict[str, int] | None = None
) -> dict[str, tuple[float | int, str]]:
    """The value and the reason of each scalar argument above: `floats` (float scalars) may be a floor
    or a tolerance, `others` (the other scalars) a flag or a selector (`values`: the #defines)."""
    out: dict[str, tuple[float | int, str]] = {n: (TOLERANCE, FLOOR_WHY) for n in floors(fn, floats)}
    out.update({n: (BRACKET_TOLERANCE, BRACKET_TOLERANCE_WHY) for n in bracket_tolerances(fn, floats)})
    out.update({n: (LOG_CUT, LOG_CUT_WHY) for n in log_cuts(fn, floats)})
    out.update({n: (TOLERANCE, TOLERANCE_WHY) for n in tolerances(fn, floats)})
    out.update({n: (THRESHOLD, THRESHOLD_WHY) for n in thresholds(fn, floats)})
    out.update({n: (ADDED_TOLERANCE, ADDED_TOLERANCE_WHY) for n in added_tolerances(fn, floats)})
    out.update({n: (DAMPING, DAMPING_WHY) for n in damping_scalars(fn, floats)})
    out.update({n: (v, FLAG_WHY) for n, v in flags(fn, others).items()})
    out.update({n: (v, SELECTOR_WHY) for n, v in selectors(fn, others - set(out), values or {}).items()})
    return out
