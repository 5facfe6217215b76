"""NVRTC as kernel_tuner's nvcuda backend (cuda-python's NVRTC) and cupy backend (cupy's own, as a
RawModule compiles) run it, to a cubin for this GPU: `nvrtc_job`, run in the compile pool's
processes (NVRTC holds the interpreter's lock while it compiles). Nothing here opens the CUDA
driver or a device."""

from __future__ import annotations

import importlib
import os
import shutil
import time
from typing import Any

from ..kernel.text import compile_options
from .compiled import CompileFailed

PROGRAM = "CUDAProgram"  # the nvcuda program's name (kernel_tuner's), which NVRTC's messages name


def nvcuda_options(compiler_options: list[str], cc: str, supported: list[int], cuda_home: str | None) -> list[str]:
    """NVRTC's options as kernel_tuner 1.5's nvcuda backend passes them (CudaFunctions.compile: the
    user's, --std=c++11 unless they name a standard, the architecture unless they name one, CUDA's
    include folder), but code for this GPU (sm_) where kernel_tuner asks for PTX that the driver
    then compiles for it: the same machine code, compiled here. Where NVRTC cannot make code for
    this GPU's architecture, PTX for the nearest below it, as kernel_tuner does."""
    options = list(compiler_options)
    if not any(o.startswith(("-std=", "--std=")) for o in options):
        options.append("--std=c++11")
    if not any(o.startswith(("-arch", "--arch", "--gpu-architecture=")) for o in options):
        arch = max((a for a in supported if a <= int(cc)), default=75)
        options.append(f"--gpu-architecture={'sm' if arch == int(cc) else 'compute'}_{arch}")
    if cuda_home:
        options.append(f"-I{os.path.join(cuda_home, 'include')}")
    return options


# <math.h>'s constants, which nvcc's implicit include gives every kernel and NVRTC (no host headers)
# does not: as their bit patterns, for the NVRTC backends
NVRTC_MATH = (
    "-DINFINITY=__int_as_float(0x7f800000)",
    "-DHUGE_VALF=__int_as_float(0x7f800000)",
    "-DNAN=__int_as_float(0x7fc00000)",
    "-DHUGE_VAL=__longlong_as_double(0x7ff0000000000000LL)",
)


def backend_options(backend: str, compiler_options: list[str] | tuple[str, ...] | None) -> list[str]:
    """The options every compile of a kernel for `backend` gets (the pool's, kernel_tuner's own, the
    sanitizer's child's): compile_options, and for the NVRTC backends what makes NVRTC compile what
    nvcc does: NVRTC_MATH (unless the user defines the name) and, for nvcuda, the toolkit's include
    folder where no CUDA_HOME names it to kernel_tuner (nvcc finds its own) and CUDA 13's CCCL folder
    (cuda/std, which cooperative_groups includes; nvcc adds it itself, cupy adds its own)."""
    options = compile_options(compiler_options)
    if backend not in ("nvcuda", "cupy"):
        return options
    extra = nvrtc_math(options)
    home = _toolkit() if backend == "nvcuda" else None
    if home is not None:
        folders = [] if _cuda_home() else [os.path.join(home, "include")]
        folders += [cccl] if (cccl := _cccl()) else []
        extra += [f"-I{f}" for f in folders if f"-I{f}" not in options]
    return [*options, *extra]


def nvrtc_math(options: list[str]) -> list[str]:
    """NVRTC_MATH's definitions of the names `options` do not define."""
    named = {o.split("=", 1)[0] for o in options if o.startswith("-D")}
    return [d for d in NVRTC_MATH if d.split("=", 1)[0] not in named]


def _toolkit() -> str | None:
    """The CUDA toolkit's folder: CUDA_HOME's (as kernel_tuner finds it), the nvcc on PATH's, or
    /usr/local/cuda; the first that holds include/cuda_runtime.h."""
    nvcc = shutil.which("nvcc")
    for home in (_cuda_home(), nvcc and os.path.dirname(os.path.dirname(os.path.realpath(nvcc))), "/usr/local/cuda"):
        if home and os.path.isfile(os.path.join(home, "include", "cuda_runtime.h")):
            return home
    return None


def _cccl() -> str | None:
    """CUDA 13's CCCL include folder, in the toolkit's (_toolkit); None before CUDA 13."""
    home = _toolkit()
    folder = os.path.join(home, "include", "cccl") if home else None
    return folder if folder and os.path.isdir(folder) else None


def _cuda_home() -> str | None:
    """kernel_tuner.utils.nvcuda.find_cuda_home's answer (the first of these variables naming a folder)."""
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        path = os.environ.get(var)
        if path and os.path.exists(path):
            return path
    return None


def _makes_code(options: list[str]) -> bool:
    """Whether NVRTC makes a cubin (an sm_ architecture) rather than PTX with these options."""
    archs = [o for o in options if o.startswith(("-arch", "--arch", "--gpu-architecture"))]
    return bool(archs) and "sm_" in archs[-1]


def nvrtc_job(
    text: str, name: str, flavour: str, compiler_options: tuple[str, ...], cc: str
) -> tuple[bytes, str, float, str]:
    """In a pool process: (binary, the kernel's lowered name, ms, NVRTC's log) as `flavour`'s backend
    compiles `text` (nvcuda: cuda-python's NVRTC; cupy: cupy's own), or CompileFailed with the log."""
    t0 = time.perf_counter()
    if flavour == "cupy":
        binary, symbol, log = _cupy_nvrtc(text, name, list(compiler_options), cc)
    else:
        binary, symbol, log = _nvcuda_nvrtc(text, name, list(compiler_options), cc)
    return binary, symbol, (time.perf_counter() - t0) * 1000, log


def _nvcuda_nvrtc(text: str, name: str, compiler_options: list[str], cc: str) -> tuple[bytes, str, str]:
    from cuda.bindings import nvrtc  # here: only in the pool's processes, with the nvcuda backend

    def check(result: Any) -> Any:
        err, *rest = result if isinstance(result, tuple) else (result,)
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise RuntimeError(f"nvrtc: {err}")
        return rest[0] if len(rest) == 1 else rest

    supported = [int(a) for a in check(nvrtc.nvrtcGetSupportedArchs())]
    options = nvcuda_options(compiler_options, cc, supported, _cuda_home())
    program = check(nvrtc.nvrtcCreateProgram(text.encode(), PROGRAM.encode(), 0, [], []))
    try:
        check(nvrtc.nvrtcAddNameExpression(program, name.encode()))
        result = nvrtc.nvrtcCompileProgram(program, len(options), [o.encode() for o in options])
        err = result[0] if isinstance(result, tuple) else result
        raw = b" " * check(nvrtc.nvrtcGetProgramLogSize(program))
        check(nvrtc.nvrtcGetProgramLog(program, raw))
        log = raw.rstrip(b"\0 ").decode("utf-8", "replace")
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise CompileFailed(log or f"nvrtc: {err}")
        if _makes_code(options):
            size = check(nvrtc.nvrtcGetCUBINSize(program))
            binary = b" " * size
            check(nvrtc.nvrtcGetCUBIN(program, binary))
        else:
            size = check(nvrtc.nvrtcGetPTXSize(program))
            binary = b" " * size
            check(nvrtc.nvrtcGetPTX(program, binary))
        lowered = check(nvrtc.nvrtcGetLoweredName(program, name.encode()))
        return binary, lowered.decode() if isinstance(lowered, bytes) else str(lowered), log
    finally:
        nvrtc.nvrtcDestroyProgram(program)


def cupy_options(compiler_options: list[str], cc: str, max_cc: int) -> list[str]:
    """NVRTC's options for kernel_tuner 1.5's cupy backend (CupyFunctions.compile: --std=c++11 first
    unless the user's name a standard) as cupy's RawModule adds to them (its include folders,
    -ftz=true, the architecture, --device-as-default-execution-space)."""
    options = list(compiler_options)
    if not any("-std=" in o for o in options):
        options = ["--std=c++11", *options]
    try:  # cupy >= 14: its own assembly of the options (include folders, the standard)
        from cupy._core.core import assemble_cupy_compiler_options  # here: in a pool process, for cupy

        options = list(assemble_cupy_compiler_options(tuple(options)))
    except ImportError:
        from cupy._core.core import _get_header_dir_path  # as above, an older cupy
        from cupy.cuda import get_cuda_path  # as above

        options.append(f"-I{_get_header_dir_path()}")
        if get_cuda_path():
            options.append(f"-I{os.path.join(get_cuda_path(), 'include')}")
    arch = min(int(cc), max_cc)
    kind = "compute" if os.environ.get("CUPY_COMPILE_WITH_PTX", "0") == "1" or arch != int(cc) else "sm"
    return [*options, "-ftz=true", f"-arch={kind}_{arch}", "--device-as-default-execution-space"]


def _cupy_nvrtc(text: str, name: str, compiler_options: list[str], cc: str) -> tuple[bytes, str, str]:
    nvrtc = importlib.import_module("cupy_backends.cuda.libs.nvrtc")  # cupy's own NVRTC

    options = cupy_options(compiler_options, cc, max(int(a) for a in nvrtc.getSupportedArchs()))
    program = nvrtc.createProgram(text, "kern.cu", (), ())
    try:
        nvrtc.addNameExpression(program, name)
        try:
            nvrtc.compileProgram(program, options)
        except nvrtc.NVRTCError as e:
            raise CompileFailed(nvrtc.getProgramLog(program).strip() or str(e)) from None
        binary = nvrtc.getCUBIN(program) if _makes_code(options) else nvrtc.getPTX(program)
        return binary, nvrtc.getLoweredName(program, name), nvrtc.getProgramLog(program).strip()
    finally:
        nvrtc.destroyProgram(program)


def cupy_plain(source: str, cc: int) -> bytes:
    """`source` (extern "C" kernels) compiled by cupy's NVRTC with the architecture alone: a cubin for
    compute capability `cc`, or PTX where this NVRTC is older than the GPU. RuntimeError with the log."""
    nvrtc = importlib.import_module("cupy_backends.cuda.libs.nvrtc")  # cupy's own NVRTC
    arch = min(cc, max(int(a) for a in nvrtc.getSupportedArchs()))
    program = nvrtc.createProgram(source, "kt_compare.cu", (), ())
    try:
        try:
            nvrtc.compileProgram(program, [f"--gpu-architecture={'sm' if arch == cc else 'compute'}_{arch}"])
        except nvrtc.NVRTCError as e:
            raise RuntimeError(f"compare kernels: {nvrtc.getProgramLog(program).strip() or e}") from None
        return nvrtc.getCUBIN(program) if arch == cc else nvrtc.getPTX(program)
    finally:
        nvrtc.destroyProgram(program)
