"""Restrictions: kernel_tuner-style expressions over parameter names, in kt-tui's one expression
language (kernel/expr.py), and the implicit thread limit on the block sizes."""

from __future__ import annotations

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
