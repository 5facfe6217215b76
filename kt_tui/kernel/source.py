"""Read CUDA source files and find the `__global__` kernels in them."""

from __future__ import annotations

import re
from pathlib import Path

from ..files import KERNEL_MAX, FileRefused, read_bytes_file
from .cuda_ast import MAX_SOURCE
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
from .syntax import code_text, global_head, strip_comments
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


_LONE_CR = re.compile(r"\r(?!\n)")


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
        text = kernel_text(text, str(p))
    except KernelTextError as e:
        raise SourceError(str(e)) from None
    return _LONE_CR.sub("\n", text)  # a lone CR (classic Mac line ends) ends a line for nvcc: one newline here


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


def kernel_body(src: str, kernel: Kernel) -> str:
    """The text of the kernel's body (comments blanked), or "" when only declared."""
    clean = strip_comments(src)
    head = global_head(clean, kernel.name)
    if head is None:
        return ""
    start = clean.find("{", head[1])
    semi = clean.find(";", head[1])
    if start < 0 or 0 <= semi < start:
        return ""
    depth = 0
    for i in range(start, len(clean)):
        depth += {"{": 1, "}": -1}.get(clean[i], 0)
        if depth == 0:
            return clean[start : i + 1]
    return clean[start:]


def kernel_alone(src: str, kernel: Kernel) -> str:
    """A file too large to parse whole: its #defines and the kernel's own text ("" if that is too
    large too); its __device__ helpers are lost. Read raw: a brace in a comment may cut it short."""
    defines = "\n".join(
        re.findall(r"(?m)^[ \t]*#[ \t]*define[ \t]+\w+[ \t]+\(?[ \t]*\d+[ \t]*\)?[ \t]*$", src)[:10_000]
    )
    head = global_head(src, kernel.name)
    if head is None:
        return defines
    depth, start = 0, src.rfind("\n", 0, head[0]) + 1
    for b in re.finditer(r"[{}]", src[head[1] : head[1] + MAX_SOURCE]):
        depth += 1 if b.group() == "{" else -1
        if depth == 0:
            return defines + "\n" + src[start : head[1] + b.end()]
    return ""
