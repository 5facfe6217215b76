"""Check sizes for a kernel that combines blocks' partial results (kernel/draft.py): where one thread of a
block (`if (threadIdx.x == 0) atomicAdd(&out[t], part[0])`) adds the block's result to memory, several
blocks must share an output at every check size, or a kernel that stores its block's part instead of
adding it passes. The size along x at each check is raised past the largest block size tuned there."""

from __future__ import annotations

import re

from . import cuda_ast
from .bounds import ATOMICS
from .cuda_ast import text
from .draft_periods import raise_checks
from .spec import Spec

_FIRST = r"(?:\b{0}\s*==\s*0\b|\b0\s*==\s*{0}\b)"


def _thread_names(fn: cuda_ast.Function) -> list[str]:
    """threadIdx.x and the locals declared as it alone (`const int tid = threadIdx.x`)."""
    names = [r"threadIdx\.x"]
    for n in cuda_ast.walk(fn.body):
        if n.type == "init_declarator" and (v := n.child_by_field_name("value")) is not None:
            d = n.child_by_field_name("declarator")
            if d is not None and d.type == "identifier" and text(v).replace(" ", "").strip("()") == "threadIdx.x":
                names.append(re.escape(text(d)))
    return names


def block_partials(fn: cuda_ast.Function) -> bool:
    """Whether an atomic lies under a test that one thread of a block passes (`threadIdx.x == 0`)."""
    if fn.body is None:
        return False
    first = re.compile("|".join(_FIRST.format(name) for name in _thread_names(fn)))
    for n in cuda_ast.walk(fn.body):
        if n.type != "if_statement":
            continue
        cond = n.child_by_field_name("condition")
        if cond is None or not first.search(text(cond)):
            continue
        branch = n.child_by_field_name("consequence")
        if any(
            m.type == "call_expression" and text(m.child_by_field_name("function")) in ATOMICS
            for m in cuda_ast.walk(branch)
        ):
            return True
    return False


def fit(spec: Spec, fn: cuda_ast.Function) -> list[tuple[str, str]]:
    """Raises the x size of each check past the largest block_size_x where blocks add partial results;
    the guesses that say so ([] when nothing changed)."""
    size = spec.problem_size[0] if spec.problem_size else ""
    blocks = [v for v in spec.tune_params.get("block_size_x", []) if isinstance(v, int)]
    if size not in spec.sizes or not blocks or not block_partials(fn):
        return []
    need = max(blocks) + 1
    if spec.sizes[size] < need:
        return []
    if not raise_checks(spec, size, lambda _: need):
        return []
    return [
        (
            f"sizes.{size}",
            f"check sizes at least {need}: one thread of each block adds the block's result with an atomic, so "
            f"more than one block of up to {need - 1} threads shares an output (one block passes a kernel that "
            "stores instead of adding)",
        )
    ]
