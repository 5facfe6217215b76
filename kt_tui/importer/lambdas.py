"""Python functions from a kernel_tuner script as expressions: their source text is parsed, never run.

`lambda p: p["block_size_x"] * p["tile"] <= 1024` becomes "block_size_x * tile <= 1024"; numbers the
function reads from the script (closure or module variables) are written in as their values.
"""

from __future__ import annotations

import ast
import inspect
import numbers
import textwrap
from typing import cast

_ALLOWED = (
    ast.Expression,
    ast.BoolOp,
    ast.And,
    ast.Or,
    ast.Compare,
    ast.BinOp,
    ast.UnaryOp,
    ast.Name,
    ast.Constant,
    ast.Load,
    ast.Tuple,
    ast.List,
    ast.Call,
    ast.operator,
    ast.unaryop,
    ast.cmpop,
    ast.IfExp,
)
_FUNCS = {"min", "max", "ceil", "floor", "int"}


def callable_name(fn) -> str:
    module = getattr(fn, "__module__", None) or "?"
    return f"{module}:{getattr(fn, '__qualname__', getattr(fn, '__name__', repr(fn)))}"


def _function_node(fn) -> ast.Lambda | ast.FunctionDef | None:
    try:
        text = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return None
    want = list(fn.__code__.co_varnames[: fn.__code__.co_argcount])
    if fn.__name__ != "<lambda>":
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return None
        return next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == fn.__name__), None)
    start = 0
    while (at := text.find("lambda", start)) >= 0:
        start = at + 1
        for end in range(len(text), at, -1):
            try:
                node = ast.parse(text[at:end].strip(), mode="eval").body
            except SyntaxError:
                continue
            if isinstance(node, ast.Tuple) and node.elts:
                node = node.elts[0]
            if isinstance(node, ast.Lambda) and [a.arg for a in node.args.args] == want and _same(node, fn):
                return node
            break
    return None


def _same(node: ast.Lambda, fn) -> bool:
    """Whether this lambda's text compiles to fn's code (compiled only, never run). A lambda that
    reads variables of the function around it is compiled inside a function that has them, so that
    it reads them the same way (as closure cells, not as globals)."""
    free = fn.__code__.co_freevars
    if free:
        outer = ast.parse("def _outer():\n" + "".join(f"    {v} = None\n" for v in free) + "    return None\n")
        cast(ast.Return, cast(ast.FunctionDef, outer.body[0]).body[-1]).value = node  # the shape parsed above
        code = next(
            c for c in compile(ast.fix_missing_locations(outer), "<lambda>", "exec").co_consts if hasattr(c, "co_code")
        )
    else:
        code = compile(ast.Expression(node), "<lambda>", "eval")
    inner = next((c for c in code.co_consts if hasattr(c, "co_code")), None)
    return (
        inner is not None
        and inner.co_code == fn.__code__.co_code
        and inner.co_names == fn.__code__.co_names
        and inner.co_consts == fn.__code__.co_consts
    )


def _body(node) -> ast.expr | None:
    if isinstance(node, ast.Lambda):
        return node.body
    stmts = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(stmts) == 1 and isinstance(stmts[0], ast.Return) and stmts[0].value is not None:
        return stmts[0].value
    return None


class _Rewrite(ast.NodeTransformer):
    def __init__(self, param: str | None, values: dict):
        self.param, self.values, self.problem = param, values, None

    def visit_Subscript(self, node):
        key = node.slice
        if (
            isinstance(node.value, ast.Name)
            and node.value.id == self.param
            and isinstance(key, ast.Constant)
            and isinstance(key.value, str)
        ):
            return ast.copy_location(ast.Name(key.value, ast.Load()), node)
        self.problem = f"cannot read {ast.unparse(node)!r}"
        return node

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id in ("np", "numpy", "math") and node.attr in _FUNCS:
            return ast.copy_location(ast.Name(node.attr, ast.Load()), node)
        self.problem = f"cannot read {ast.unparse(node)!r}"
        return node

    def visit_Name(self, node):
        if node.id == self.param:
            self.problem = f'uses {self.param!r} other than as {self.param}["name"]'
        elif node.id in self.values:
            return ast.copy_location(ast.Constant(self.values[node.id]), node)
        return node


def as_expression(fn) -> tuple[str | list[str] | None, str]:
    """(expression, "") or (None, why). A tuple-valued function gives a list of expressions."""
    node = _function_node(fn)
    if node is None:
        return None, "its source cannot be read"
    body = _body(node)
    if body is None:
        return None, "its body is more than one return expression"
    args = [a.arg for a in node.args.args]
    param = args[0] if len(args) == 1 and not _is_param_name(fn, args[0]) else None
    try:
        cv = inspect.getclosurevars(fn)
        scope = {**cv.globals, **cv.nonlocals}
    except (TypeError, ValueError):
        scope = {}
    values = {
        k: v for k, v in scope.items() if isinstance(v, numbers.Real) and not isinstance(v, bool) and k not in args
    }
    values = {k: (v.item() if hasattr(v, "item") else v) for k, v in values.items()}
    rewrite = _Rewrite(param, values)
    body = rewrite.visit(body)
    if rewrite.problem:
        return None, rewrite.problem
    for n in ast.walk(body):
        if not isinstance(n, _ALLOWED):
            return None, f"{type(n).__name__} is not in the expression language"
        if isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id in _FUNCS):
            return None, f"calls {ast.unparse(n.func)!r}"
        if isinstance(n, ast.Name) and param is None and n.id not in args and n.id not in _FUNCS:
            return None, f"reads {n.id!r} from the script"
    if isinstance(body, (ast.Tuple, ast.List)):
        return [ast.unparse(e) for e in body.elts], ""
    return ast.unparse(body), ""


def _is_param_name(fn, name: str) -> bool:
    """kernel_tuner passes one dict to a one-argument function, unless that argument is a parameter name
    (newer kernel_tuner matches argument names to tune_params); we read `p["x"]` as the dict form."""
    return name not in ("p", "params", "config", "c", "x", "d", "tp") and name.endswith(("_x", "_y", "_z"))
