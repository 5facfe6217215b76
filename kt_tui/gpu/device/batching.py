"""Several configurations in one nvcc call (the pycuda backend).

Most of an nvcc compile of a small kernel is fixed cost: the preprocessor and cicc's front end read
cuda_runtime.h again for every configuration (for a 5-parameter matmul, ~0.3 s of 0.38 s). One
translation unit holding several configurations pays it once. Each configuration keeps its own
macros and names: it sits in a namespace of its own, its kernel renamed by a macro, and every macro
it defines is undefined after it. Its functions are renamed by macros too: pycuda wraps a kernel in
extern "C", and two C functions of one name collide whatever namespace they are in. ptxas compiles each kernel on its own, so the machine code is the
same as alone; the first batch of every run is checked for that, byte for byte, against the same
configuration compiled alone (compilers.pycuda_batch), and batching stops for the run where it differs.

Kernels that an extra namespace could change are compiled alone as before: anything with #include,
#pragma once, constant or texture memory, __COUNTER__ (it counts on across the configurations of a
batch), or a name that is not a plain C identifier.
"""

from __future__ import annotations

import os
import re
import struct

UNSAFE = ("#include", "#pragma once", "__constant__", "texture", "surface", "__managed__", "__COUNTER__")
DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)
SIZE = 8  # configurations per nvcc call


def batch_size() -> int:
    """KT_TUI_COMPILE_BATCH=N: configurations per nvcc call (1: each alone)."""
    wanted = os.environ.get("KT_TUI_COMPILE_BATCH", "")
    return max(1, min(64, int(wanted))) if wanted.isdigit() else SIZE


class BatchMismatch(RuntimeError):
    """A configuration's machine code compiled in a batch differs from the same compiled alone."""


def batchable(name: str, text: str) -> bool:
    return name.isidentifier() and not any(word in text for word in UNSAFE)


def alias(name: str, i: int) -> str:
    return f"{name}__kt_batch{i}"


def functions(text: str) -> set[str]:
    """The kernels and device functions a kernel string defines (kernel/cuda_ast.py's parser)."""
    from ...kernel.cuda_ast import parse  # here: tree-sitter loads only where a batch is made

    unit = parse(text)
    return set(unit.kernels) | set(unit.devices)


def batch_source(named: list[tuple[str, str]], renamed: set[str] = frozenset()) -> str:  # type: ignore[assignment]
    """One translation unit of these (kernel name, kernel string) pairs; kernel i is `alias(name, i)`,
    and so is every function in `renamed` in its copy. Each is wrapped in extern "C" as pycuda wraps
    one alone (where it has no extern "C" of its own)."""
    parts = []
    for i, (name, text) in enumerate(named):
        body = text if 'extern "C"' in text else 'extern "C" {\n' + text + "\n}"
        names = sorted({name, *renamed})
        parts += [f"#define {n} {alias(n, i)}" for n in names]
        parts += [f"namespace kt_batch{i} {{", body, "}"]
        parts += [f"#undef {m}" for m in sorted(set(DEFINE.findall(text)) | set(names))]
    return "\n".join(parts) + "\n"


def elf_section(blob: bytes, wanted: str) -> bytes | None:
    """The bytes of one section of a 64-bit little-endian ELF file (a cubin), or None."""
    return elf_sections(blob).get(wanted)


def elf_sections(blob: bytes) -> dict[str, bytes]:
    """Every section of a 64-bit little-endian ELF file (a cubin) by name; {} for anything else.
    Written here rather than taken from pyelftools: one table walk, in the GPU worker, for a check."""
    if len(blob) < 64 or blob[:4] != b"\x7fELF" or blob[4] != 2 or blob[5] != 1:
        return {}
    shoff = struct.unpack_from("<Q", blob, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", blob, 0x3A)

    def header(i: int) -> tuple[int, int, int]:
        at = shoff + i * shentsize
        name, _, _, _, offset, size = struct.unpack_from("<IIQQQQ", blob, at)
        return name, offset, size

    out = {}
    try:
        _, names_at, names_size = header(shstrndx)
        names = blob[names_at : names_at + names_size]
        for i in range(shnum):
            name, offset, size = header(i)
            end = names.find(b"\0", name)
            out[names[name:end].decode("ascii", "replace")] = blob[offset : offset + size]
    except struct.error:
        return {}
    return out
