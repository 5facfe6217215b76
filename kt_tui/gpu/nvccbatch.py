"""Several configurations in one nvcc call (the compile pool's batches, gpu/compiles.py).

Most of an nvcc compile of a small kernel is fixed cost: the preprocessor and cicc's front end read
cuda_runtime.h again for every configuration (for a 5-parameter matmul, ~0.3 s of 0.38 s). One
translation unit holding several configurations pays it once. Each configuration keeps its own
macros and names: it sits in a namespace of its own, its kernel renamed by a macro, and every macro
it defines is undefined after it. Its functions are renamed by macros too: pycuda wraps a kernel in
extern "C", and two C functions of one name collide whatever namespace they are in. ptxas compiles
each kernel on its own, so the machine code is the same as alone; the pool's first batch is checked
for that, byte for byte, against its first configuration compiled alone, and where it differs the
pool batches no more. Kernels that an extra namespace could change are compiled alone: anything
with #include, #pragma once, constant or texture memory, __COUNTER__ (it counts on across the
configurations of a batch), or a name that is not a plain C identifier.
"""

from __future__ import annotations

import os
import re
import tempfile

from .elf import elf_section
from .nvcc import Running, compile_cu, device_link, relocatable, wrapped

BATCH = 8  # configurations per nvcc call
UNSAFE = ("#include", "#pragma once", "__constant__", "texture", "surface", "__managed__", "__COUNTER__")
DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)


class BatchMismatch(RuntimeError):
    """A configuration's machine code compiled with others differs from the same compiled alone."""


def batch_size() -> int:
    wanted = os.environ.get("KT_TUI_COMPILE_BATCH", "")
    return max(1, min(64, int(wanted))) if wanted.isdigit() else BATCH


def batchable(name: str, text: str) -> bool:
    return name.isidentifier() and not any(word in text for word in UNSAFE)


def alias(name: str, i: int) -> str:
    return f"{name}__kt_batch{i}"


def functions(text: str) -> set[str]:
    """The kernels and device functions a kernel string defines (kernel/cuda_ast.py's parser)."""
    from ..kernel.cuda_ast import parse  # here: tree-sitter loads only where a batch is made

    unit = parse(text)
    return set(unit.kernels) | set(unit.devices)


def batch_source(named: list[tuple[str, str]], renamed: set[str] | frozenset[str] = frozenset()) -> str:
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


def nvcc_batch(
    named: list[tuple[str, str]],
    options: list[str],
    check: tuple[list[str], bool] | None,
    running: Running | None = None,
) -> bytes:
    """The batch in one nvcc call (`options` name every member's alias after -e), linked as one
    configuration is. `check` (the first member's own options and wrapping): that member is compiled
    alone too, and its kernel's machine code must be the batch's byte for byte, else BatchMismatch."""
    renamed: set[str] = set()
    for _, text in named:
        renamed |= functions(text)
    with tempfile.TemporaryDirectory(prefix="kt-tui-nvcc-") as d:
        cubin = compile_cu(batch_source(named, renamed), options, d, running)[0]
        if check is not None:
            (name, text), (alone_options, wrap) = named[0], check
            with tempfile.TemporaryDirectory(prefix="kt-tui-nvcc-") as d1:
                alone = compile_cu(wrapped(text, wrap), alone_options, d1, running)[0]
            mine, theirs = elf_section(cubin, f".text.{alias(name, 0)}"), elf_section(alone, f".text.{name}")
            if mine is None or mine != theirs:
                raise BatchMismatch(f"{name}: its machine code compiled with others differs from it compiled alone")
        return device_link(cubin, options, d, running) if relocatable(options) else cubin
