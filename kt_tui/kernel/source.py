"""Read CUDA source files and find the `__global__` kernels in them."""

from __future__ import annotations

from pathlib import Path

from ..files import KERNEL_MAX, FileRefused, read_bytes_file
from .kernels import (
    MAX_HEAD,
    MAX_PARAM,
    Kernel,
    Param,
    SourceError,
    match_paren,
    parse_param,
    split_params,
)
from .parsed import ParsedKernel, parsed
from .syntax import code_text, strip_comments
from .text import KernelTextError, kernel_text

__all__ = [  # kernels.py's names are read here by importer/, front/, gpu/ and ui/; syntax's by draft.py
    "MAX_HEAD",
    "MAX_PARAM",
    "Kernel",
    "Param",
    "ParsedKernel",
    "SourceError",
    "code_text",
    "find_kernels",
    "match_paren",
    "parse_param",
    "pick_kernel",
    "read_source",
    "split_params",
    "strip_comments",
]


def read_source(path: str | Path) -> str:
    """Read a .cu file as UTF-8 text, with a clear error for anything else."""
    p = Path(path)
    try:
        data = read_bytes_file(p, "kernel", KERNEL_MAX)
    except FileRefused as e:
        raise SourceError(str(e)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SourceError(
            f"{p}: not UTF-8 text (byte {e.start}: {data[e.start : e.start + 1]!r}); save it as UTF-8"
        ) from None
    try:
        return kernel_text(text, str(p))
    except KernelTextError as e:
        raise SourceError(str(e)) from None


def find_kernels(src: str | ParsedKernel, *, unread: bool = False) -> list[Kernel]:
    """All `__global__` functions (definitions and declarations) in source order, by name once, as the
    compiler sees them: not in comments, strings, macro bodies or `#if 0` groups (`unread`: in those
    last two as well, for the review)."""
    return parsed(src).kernels(unread)


def pick_kernel(kernels: list[Kernel], name: str | None, where: str) -> Kernel:
    """The kernel named `name`, or the only one; clear errors otherwise."""
    if not kernels:
        raise SourceError(f"{where}: no __global__ kernel found")
    if name:
        for k in kernels:
            if k.name == name:
                return k
        have = ", ".join(k.name for k in kernels)
        raise SourceError(f"{where}: no kernel named {name!r} (found: {have})")
    if len(kernels) > 1:
        have = ", ".join(k.name for k in kernels)
        raise SourceError(f'{where}: several kernels ({have}); say which one with kernel = "..." in the spec')
    return kernels[0]
