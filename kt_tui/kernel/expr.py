"""A small, safe evaluator for the size expressions in launch specs ("n", "m*k", "(n+255)//256")."""

from __future__ import annotations

import ast
import math
import operator

_BIN = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_FUNCS = {"min": min, "max": max, "ceil": math.ceil, "floor": math.floor, "int": int}


class ExprError(ValueError):
    pass


def evaluate(expr: str | int | float, names: dict[str, int | float]) -> int | float:
    """Evaluate an arithmetic expression over `names`; raise ExprError with a readable reason."""
    if isinstance(expr, bool):
        raise ExprError("expected a number or an expression, got a boolean")
    if isinstance(expr, (int, float)):
        return expr
    if not isinstance(expr, str) or not expr.strip():
        raise ExprError(f"expected a number or an expression, got {expr!r}")
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError:
        raise ExprError(f"cannot parse expression {expr!r}") from None
    value = _eval(tree.body, names, expr)
    if not isinstance(value, (int, float)):
        raise ExprError(f"{expr!r} is not a real number")
    return value


def _eval(node: ast.AST, names: dict, src: str):
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in names:
            known = ", ".join(sorted(names)) or "none defined"
            raise ExprError(f"unknown name {node.id!r} in {src!r} (known: {known})")
        return names[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
        left, right = _eval(node.left, names, src), _eval(node.right, names, src)
        try:
            return _BIN[type(node.op)](left, right)
        except ZeroDivisionError:
            raise ExprError(f"division by zero in {src!r}") from None
        except (OverflowError, TypeError, ValueError) as e:
            raise ExprError(f"cannot compute {src!r}: {e}") from None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _eval(node.operand, names, src)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS and not node.keywords:
        args = [_eval(a, names, src) for a in node.args]
        try:
            return _FUNCS[node.func.id](*args)
        except (TypeError, ValueError) as e:
            raise ExprError(f"bad call {ast.unparse(node)!r} in {src!r}: {e}") from None
    raise ExprError(f"unsupported syntax in {src!r}: only numbers, names, + - * / // % ** and min/max/ceil/floor")


def names_in(expr: str | int | float) -> set[str]:
    if not isinstance(expr, str):
        return set()
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError:
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - set(_FUNCS)
