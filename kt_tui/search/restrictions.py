"""Restrictions: kernel_tuner-style expressions over parameter names, in kt-tui's one expression
language (kernel/expr.py), and the implicit thread limit on the block sizes."""

from __future__ import annotations

import ast

from ..kernel.expr import Expr, ExprError, parse
from ..kernel.spec import Spec

MAX_THREADS = 1024  # threads per block on every NVIDIA GPU kernel_tuner targets
DEFAULT_BLOCK_NAMES = ("block_size_x", "block_size_y", "block_size_z")


class SpaceError(ValueError):
    """A problem with the space, a restriction or an edit; `param` names the parameter when there is one."""

    def __init__(self, message: str, param: str | None = None):
        super().__init__(message)
        self.param = param


def parse_expression(text: str, what: str = "restriction") -> Expr:
    """Parse and check an expression (kernel/expr.py); its names are not checked."""
    try:
        return parse(text, what)
    except ExprError as e:
        raise SpaceError(str(e)) from None


def compile_restriction(text: str, names) -> Expr:
    r = parse_expression(text)
    unknown = sorted(r.names - set(names))
    if unknown:
        raise SpaceError(
            f"restriction {text!r}: unknown name {unknown[0]!r} (parameters: {', '.join(names)})", unknown[0]
        )
    return r


def block_names(spec: Spec) -> list[str]:
    return [n for n in (spec.block_size_names or DEFAULT_BLOCK_NAMES) if n in spec.tune_params]


def thread_limit(spec: Spec, max_threads: int | None = MAX_THREADS) -> str | None:
    """kernel_tuner's implicit restriction: the product of the block sizes is at most max_threads."""
    names = block_names(spec)
    return f"{' * '.join(names)} <= {max_threads}" if names and max_threads else None


def restrictions(spec: Spec, max_threads: int | None = MAX_THREADS) -> list[Expr]:
    names = list(spec.tune_params)
    out = [compile_restriction(r, names) for r in spec.restrictions]
    limit = thread_limit(spec, max_threads)
    return out + ([compile_restriction(limit, names)] if limit else [])


def parts(restriction: Expr) -> list[Expr]:
    """A restriction as parts that all hold exactly when it holds: `a and b` split at its top-level
    `and`s, `x < y <= z` into `x < y` and `y <= z` (each part parsed and checked again). A part names
    fewer parameters, so a walk or a solver checks it as soon as those are set, and parameters that only
    a split `and` tied fall into groups of their own. An error in a part fails it, as it fails the whole."""
    tree = ast.parse(restriction.text, mode="eval").body  # parsed before: cannot fail
    if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And):
        pieces = [ast.unparse(v) for v in tree.values]
    elif isinstance(tree, ast.Compare) and len(tree.ops) > 1:
        operands = [tree.left, *tree.comparators]
        pieces = [
            ast.unparse(ast.Compare(left=a, ops=[op], comparators=[b]))
            for a, op, b in zip(operands, tree.ops, operands[1:])
        ]
    else:
        return [restriction]
    try:
        return [p for piece in pieces for p in parts(parse(piece, "restriction"))]
    except ExprError:  # a piece the whitelist reads only inside the whole (`x in (1, 2) < y`)
        return [restriction]
