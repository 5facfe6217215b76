"""The one expression language of kt-tui: sizes, argument values, problem_size, grid divisors,
restrictions and seed rules ("n", "(n+255)//256", "64 <= block_size_x * block_size_y <= 1024").

Parsed with Python's ast and checked against a whitelist (numbers, names, arithmetic, comparisons,
and/or/not, `a if c else b`, `x in (1, 2)`, calls to min/max/abs/ceil/floor/int/round); the
checked tree becomes a tree of closures that does only those operations, never eval.

The cost model (issue 22, item 1): a tree has at most MAX_NODES parts (an `in` list's items counted) and
its closures visit each part at most once per evaluation, so an evaluation takes at most MAX_NODES
steps; each step costs O(1) because every number that enters or leaves an operation or a builtin is
below 2**63 (a float is finite), `**` takes a constant exponent of at most 64, `round` at most
MAX_ROUND_DIGITS digits either way and `min`/`max` at most MAX_ARGS arguments; strings are only compared.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NoReturn

Env = Mapping[str, Any]  # the values of the names an expression reads
Fn = Callable[[Env], Any]

MAX_CHARS = 1000
MAX_NODES = 400
MAX_DEPTH = 40
MAX_EXPONENT = 64
MAX_MAGNITUDE = 2**63
MAX_ROUND_DIGITS = 20  # round(x, n): |n| above this makes Python build 10**|n| (round(5, -10**9) hangs)
MAX_ARGS = 32  # arguments of one call
MAX_STRING = 64  # a string constant may only be compared (string-valued tunables): never computed with

_BIN = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_CMP = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
FUNCS: dict[str, Callable[..., Any]] = {
    "min": min,
    "max": max,
    "abs": abs,
    "ceil": math.ceil,
    "floor": math.floor,
    "int": int,
    "round": round,
}
_SAFE_FUNCS: dict[str, Callable[..., Any]] = {
    **FUNCS
}  # what a call runs: round with its digits bounded (set below _round)
_ALLOWED = "numbers, names, + - * / // % **, comparisons, and/or/not, `a if c else b`, `x in (1, 2)` and " + "/".join(
    FUNCS
)


class ExprError(ValueError):
    pass


@dataclass(frozen=True, eq=False)
class Expr:
    """A checked expression: its text, the names it reads, and its tree as closures (_build)."""

    text: str
    names: frozenset[str]
    fn: Fn

    def value(self, names: Env) -> Any:
        """The value at `names`; ExprError with a readable reason."""
        return self.fn(names)

    evaluate = value

    def holds(self, names: Env) -> bool:
        """For restrictions: true when it evaluates to true; an error counts as false."""
        try:
            return bool(self.value(names))
        except ExprError:
            return False


def parse(text: object, what: str = "expression") -> Expr:
    """Check `text` against the whitelist; its names are not checked here (see `check_names`)."""
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise ExprError(f"{what}: expected an expression in a string, got {text!r}")
    return _parse(str(text).strip(), what)


@lru_cache(maxsize=1024)
def _parse(text: str, what: str) -> Expr:
    if not text:
        raise ExprError(f"{what}: empty expression")
    if len(text) > MAX_CHARS:
        raise ExprError(f"{what} {text[:30]!r}...: longer than {MAX_CHARS} characters")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ExprError(f"{what} {text!r}: cannot parse") from None
    nodes = list(ast.walk(tree))
    if len(nodes) + sum(len(n.elts) for n in nodes if isinstance(n, (ast.Tuple, ast.List))) > MAX_NODES:
        raise ExprError(f"{what} {text!r}: more than {MAX_NODES} parts")
    _check(tree.body, text, what, 0)
    funcs = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    names = frozenset(n.id for n in nodes if isinstance(n, ast.Name) and id(n) not in funcs)
    return Expr(text, names, _build(tree.body, text))


def _check(node: ast.AST, src: str, what: str, depth: int, compared: bool = False) -> None:
    def bad(why: str) -> NoReturn:
        raise ExprError(f"{what} {src!r}: {why}")

    if depth > MAX_DEPTH:
        bad(f"nested more than {MAX_DEPTH} deep")
    kids: list[ast.expr] = []
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str) and compared and len(node.value) <= MAX_STRING:
            pass
        elif not isinstance(node.value, (int, float)):
            bad(
                f"{node.value!r} is not allowed: only numbers (and True/False), and short strings compared "
                "with == != in"
            )
        elif isinstance(node.value, float) and not math.isfinite(node.value) or abs(node.value) > MAX_MAGNITUDE:
            bad(f"the constant {node.value!r} exceeds 2**63 or is not a finite number")
    elif isinstance(node, ast.Name):
        if node.id.startswith("__"):
            bad(f"the name {node.id!r} is not allowed")
    elif isinstance(node, ast.BinOp) and type(node.op) in _BIN:
        if isinstance(node.op, ast.Pow):
            e = node.right
            if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
                e = e.operand
            if not (
                isinstance(e, ast.Constant)
                and isinstance(e.value, int)
                and not isinstance(e.value, bool)
                and abs(e.value) <= MAX_EXPONENT
            ):
                bad(f"** needs a constant integer exponent of at most {MAX_EXPONENT}")
        kids = [node.left, node.right]
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
        kids = [node.operand]
    elif isinstance(node, ast.BoolOp):
        kids = node.values
    elif isinstance(node, ast.Compare):
        for op in node.ops:
            if type(op) not in _CMP:
                bad(f"the comparison {type(op).__name__} is not allowed (use == != < <= > >= in, not in)")
        operands = [node.left]
        for op, right in zip(node.ops, node.comparators):
            if isinstance(op, (ast.In, ast.NotIn)):
                if not isinstance(right, (ast.Tuple, ast.List)):
                    bad("`in` needs a literal list of numbers, e.g. x in (1, 2, 4)")
                operands += right.elts
            else:
                operands.append(right)
        for k in operands:
            _check(k, src, what, depth + 1, compared=True)
    elif isinstance(node, ast.IfExp):
        kids = [node.test, node.body, node.orelse]
    elif isinstance(node, ast.Call):
        if (
            not (isinstance(node.func, ast.Name) and node.func.id in FUNCS)
            or node.keywords
            or any(isinstance(a, ast.Starred) for a in node.args)
            or not node.args
        ):
            bad(f"only {', '.join(FUNCS)} may be called, with plain arguments")
        if len(node.args) > MAX_ARGS:
            bad(f"{node.func.id}() with more than {MAX_ARGS} arguments")
        if node.func.id == "round" and len(node.args) == 2:
            _check_digits(node.args[1], bad)
        kids = node.args
    else:
        bad(f"{type(node).__name__} is not allowed (allowed: {_ALLOWED})")
    for k in kids:
        _check(k, src, what, depth + 1)


def _check_digits(node: ast.AST, bad: Callable[[str], NoReturn]) -> None:
    """round()'s digits, when they are a constant (they read no name), checked before any evaluation."""
    if any(isinstance(n, ast.Name) for n in ast.walk(node)):
        return  # checked when evaluated (_round)
    try:
        _check(node, "", "", 0)
        _round_digits(_build(node, "")({}))
    except ExprError:
        bad(f"round() takes an integer number of digits between -{MAX_ROUND_DIGITS} and {MAX_ROUND_DIGITS}")


def _round_digits(n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or abs(n) > MAX_ROUND_DIGITS:
        raise ExprError(
            f"round() takes an integer number of digits between -{MAX_ROUND_DIGITS} and {MAX_ROUND_DIGITS}, got {n!r}"
        )
    return n


def _round(x: float, n: object = None) -> float:
    return round(x) if n is None else round(x, _round_digits(n))


_SAFE_FUNCS["round"] = _round


def _number(v: Any, src: str) -> Any:
    if isinstance(v, (int, float)):
        return _bounded(v, src)
    if hasattr(v, "dtype") and hasattr(v, "item") and getattr(v, "ndim", 1) == 0:  # numpy scalars
        return _number(v.item(), src)
    raise ExprError(f"{src!r}: {v!r} is not a number")


def _bounded(v: Any, src: str) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        raise ExprError(f"{src!r}: the result is not a finite number")
    if abs(v) > MAX_MAGNITUDE:
        raise ExprError(f"{src!r}: a value exceeds 2**63")
    return v


def _build(node: ast.AST, src: str) -> Fn:
    """A function of the names dict for a checked node: the tree turned into closures once, so
    evaluating walks no ast and calls nothing but the whitelisted operations."""
    if isinstance(node, ast.Constant):
        const = node.value
        return lambda env: const
    if isinstance(node, ast.Name):
        name = node.id

        def lookup(env: Env) -> Any:
            try:
                return env[name]
            except KeyError:
                known = ", ".join(sorted(map(str, env))) or "none defined"
                raise ExprError(f"unknown name {name!r} in {src!r} (known: {known})") from None

        return lookup
    if isinstance(node, ast.BinOp):
        return _binop(node, src)
    if isinstance(node, ast.UnaryOp):
        operand = _build(node.operand, src)
        if isinstance(node.op, ast.Not):
            return lambda env: not operand(env)
        sign = -1 if isinstance(node.op, ast.USub) else 1
        return lambda env: sign * _number(operand(env), src)
    if isinstance(node, ast.BoolOp):
        parts, want = [_build(v, src) for v in node.values], isinstance(node.op, ast.Or)

        def boolop(env: Env) -> Any:
            result = None
            for part in parts:
                result = part(env)
                if bool(result) == want:
                    return result
            return result

        return boolop
    if isinstance(node, ast.Compare):
        return _compare(node, src)
    if isinstance(node, ast.IfExp):
        test, body, orelse = _build(node.test, src), _build(node.body, src), _build(node.orelse, src)
        return lambda env: body(env) if test(env) else orelse(env)
    if isinstance(node, ast.Call):
        name = node.func.id  # type: ignore[attr-defined]
        func, args, text = _SAFE_FUNCS[name], [_build(a, src) for a in node.args], ast.unparse(node)

        def call(env: Env) -> Any:
            try:
                return _bounded(func(*[_number(a(env), src) for a in args]), src)
            except (TypeError, ValueError, OverflowError) as e:
                raise ExprError(f"bad call {text!r} in {src!r}: {e}") from None

        return call
    raise ExprError(f"{src!r}: {type(node).__name__} is not allowed")  # unreachable after _check


def _binop(node: ast.BinOp, src: str) -> Fn:
    left, right, op = _build(node.left, src), _build(node.right, src), _BIN[type(node.op)]
    power = isinstance(node.op, ast.Pow)

    def binop(env: Env) -> Any:
        a, b = _number(left(env), src), _number(right(env), src)
        if power and isinstance(a, int) and isinstance(b, int) and abs(a) > 1 and b > 0 and b * math.log2(abs(a)) > 64:
            raise ExprError(f"{src!r}: a value exceeds 2**63")
        try:
            v = op(a, b)
        except ZeroDivisionError:
            raise ExprError(f"division by zero in {src!r}") from None
        except (OverflowError, TypeError, ValueError) as e:
            raise ExprError(f"cannot compute {src!r}: {e}") from None
        return _bounded(v, src)

    return binop


def _compare(node: ast.Compare, src: str) -> Fn:
    first = _build(node.left, src)
    steps: list[tuple[Callable[[Any, Any], Any], Fn]] = []
    for op, right in zip(node.ops, node.comparators):
        if isinstance(op, (ast.In, ast.NotIn)):
            elts = [_build(e, src) for e in right.elts]  # type: ignore[attr-defined]
            steps.append((_CMP[type(op)], _values(elts)))
        else:
            steps.append((_CMP[type(op)], _build(right, src)))

    def compare(env: Env) -> bool:
        a = first(env)
        for cmp, right in steps:
            b = right(env)
            try:
                if not cmp(a, b):
                    return False
            except TypeError as e:
                raise ExprError(f"cannot compare in {src!r}: {e}") from None
            a = b
        return True

    return compare


def _values(elts: list[Fn]) -> Fn:
    return lambda env: tuple(e(env) for e in elts)


def evaluate(expr: object, names: Env) -> int | float:
    """A number: `expr` itself, or the expression evaluated over `names`."""
    if isinstance(expr, bool):
        raise ExprError("expected a number or an expression, got a boolean")
    if isinstance(expr, float) and not math.isfinite(expr):
        raise ExprError(f"expected a finite number, got {expr!r}")
    if isinstance(expr, (int, float)):
        return expr
    if not isinstance(expr, str) or not expr.strip():
        raise ExprError(f"expected a number or an expression, got {expr!r}")
    value = parse(expr).value(names)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ExprError(f"{expr!r} is not a real number")
    return value


def names_in(expr: object) -> set[str]:
    """The names an expression reads; empty for a number or text that does not parse."""
    if not isinstance(expr, str):
        return set()
    try:
        return set(parse(expr).names)
    except ExprError:
        return set()


def check_names(text: object, names: Collection[str], what: str, kind: str = "a tunable parameter") -> Expr:
    """Parse `text` and require every name it reads to be in `names`."""
    e = parse(text, what)
    unknown = sorted(e.names - set(names))
    if unknown:
        raise ExprError(f"{what} {e.text!r}: unknown name {unknown[0]!r}: not {kind}")
    return e


# -- what kernel_tuner is handed: callables over our trees, never strings it would eval -----
def restriction_function(texts: list[str], param_names: list[str]) -> Callable[..., bool]:
    """One kernel_tuner restriction for all of `texts`. kernel_tuner calls it with the values
    positionally (in tune_params order, through python-constraint) or by keyword."""
    exprs = [check_names(t, param_names, f"restrictions[{i}]") for i, t in enumerate(texts)]
    names = list(param_names)

    def restrict(*values: Any, **config: Any) -> bool:
        env = config or dict(zip(names, values))
        return all(e.holds(env) for e in exprs)

    return restrict


class Divisor:
    """A kernel_tuner grid divisor (called with the configuration); `text` is what the spec says."""

    def __init__(self, text: str, param_names: Collection[str] | None = None, what: str = "grid divisor") -> None:
        self.expr = check_names(text, param_names, what) if param_names is not None else parse(text, what)
        self.text = self.expr.text

    def __call__(self, params: Env) -> int:
        v = int(evaluate(self.text, params))  # as kernel_tuner does with a string divisor
        if v <= 0:
            raise ExprError(f"grid divisor {self.text!r} is {v} at {params}: it must be above 0")
        return v

    def __repr__(self) -> str:
        return f"Divisor({self.text!r})"


def grid_divisors(
    texts: list[str] | None, param_names: Collection[str] | None = None, what: str = "grid_div"
) -> list[Divisor] | None:
    if texts is None:
        return None
    return [Divisor(t, param_names, f"{what}[{i}]") for i, t in enumerate(texts)]


def launch_callables(spec: Any) -> dict[str, list[Divisor] | None]:
    """A Spec's grid divisors as kernel_tuner options, re-checked from the stored strings."""
    names = list(spec.tune_params)
    return {k: grid_divisors(getattr(spec, k), names, k) for k in ("grid_div_x", "grid_div_y", "grid_div_z")}
