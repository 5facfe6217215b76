"""The compilers compile-ahead uses (gpu/device/prefetch.py), one per backend, each making what that
backend's kernel_tuner compile step would make: NVRTC cubins (nvcuda), nvcc cubins through pycuda
(pycuda), cupy's on-disk cache (cupy); and the pools they run on."""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any, Protocol

from .batching import BatchMismatch, alias, batch_source, batchable, elf_section, functions
from .pools import holds_gil, own_pool
from .sharedpool import compile_cores, own_plan, shared_pool

# Imported where used: the backend's own libraries (pycuda, cupy, cuda-python), of which only the
# one in use need be installed, and kernel_tuner (this module also loads in the app's process).


def pool_size(limit: int = 16) -> int:
    wanted = os.environ.get("KT_TUI_PREFETCH_WORKERS")
    if wanted and wanted.isdigit() and int(wanted) > 0:
        return int(wanted)
    return max(1, min(limit, len(os.sched_getaffinity(0)) - 1))


def thread_pool() -> Executor:
    """The host's shared compile pool where the app started one (gpu/device/sharedpool.py), else
    threads here, one per compile core of this worker's plan; each thread is pinned to those cores,
    and so is every nvcc it starts (a child keeps the affinity of the thread that made it)."""
    shared = shared_pool()
    if shared is not None:
        return shared
    mine = own_plan()
    return ThreadPoolExecutor(max_workers=mine.size, initializer=_pin, initargs=(mine.cores,))


class Compiler(Protocol):
    """One backend's compile ahead: its pool, the pool's job for a kernel instance, and loading
    what that job made into kernel_tuner's backend (None: kernel_tuner compiles it itself)."""

    def __init__(self, backend: Any) -> None: ...
    def pool(self) -> Executor: ...
    def job(self, instance: Any, /) -> tuple[Callable[..., Any], tuple[Any, ...]]: ...
    def load(self, done: Any, instance: Any, /) -> Any: ...


class Instance:
    def __init__(self, name: str, kernel_string: str):
        self.name, self.kernel_string = name, kernel_string


class StandIn:
    """What the compile jobs read of a kernel_tuner backend, before kernel_tuner made one."""

    def __init__(self, cc: str, compiler_options: list[str], source_mod=None):
        self.cc, self.compiler_options, self.source_mod = cc, compiler_options, source_mod


def stand_in(backend: str, compiler_options: list[str]) -> StandIn | None:
    """Device 0's compute capability as kernel_tuner's backend reads it, without a context."""
    if backend == "pycuda":
        import pycuda.driver as drv
        from pycuda.compiler import DynamicSourceModule, SourceModule

        drv.init()
        major, minor = drv.Device(0).compute_capability()
        cc = f"{major}{minor}"
        return StandIn(cc, compiler_options, DynamicSourceModule if int(cc) >= 35 else SourceModule)
    if backend == "nvcuda":
        from cuda.bindings import driver

        driver.cuInit(0)
        attr = driver.CUdevice_attribute
        major = driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0)[1]
        minor = driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0)[1]
        return StandIn(f"{major}{minor}", compiler_options)
    return None


def allow_children() -> None:
    """Lets this daemonic process start a pool: the app still ends it at exit (it started it as a
    daemon, and the worker watches its parent), and the pool's processes end with their pipes."""
    mp.current_process().daemon = False


def process_pool(limit: int) -> ProcessPoolExecutor:
    # spawn: the measuring process owns a CUDA context, which a forked child must not inherit;
    # on the host's compile cores where several GPUs share them (gpu/device/sharedpool.py)
    return ProcessPoolExecutor(
        max_workers=pool_size(limit), mp_context=mp.get_context("spawn"), initializer=_pin, initargs=(compile_cores(),)
    )


def _pin(cores: list[int] | None) -> None:
    if cores:
        os.sched_setaffinity(0, cores)


class Nvrtc:
    def __init__(self, backend):
        from cuda.bindings import driver, nvrtc  # noqa: F401 - fail here when the backend is not nvcuda

        self.backend = backend
        self.options = self._options()

    def pool(self) -> Executor:
        # NVRTC holds the interpreter's lock while it compiles: processes (gpu/device/pools.py)
        mine = own_plan()
        return shared_pool() or own_pool(mine.size, mine.cores)

    def _options(self) -> list[bytes]:
        from ..ktimport import load

        load()
        from kernel_tuner.utils.nvcuda import find_cuda_home, to_valid_nvrtc_gpu_arch_cc

        b = self.backend
        opts = [o for o in b.compiler_options if not o.startswith(("-arch", "--arch", "--gpu-architecture"))]
        opts.append(f"--gpu-architecture=sm_{to_valid_nvrtc_gpu_arch_cc(b.cc)}")
        home = find_cuda_home()
        if home:
            opts.append(f"-I{os.path.join(home, 'include')}")
        return [o.encode() for o in opts]

    def job(self, instance):
        return nvrtc_cubin, (instance.kernel_string, instance.name, self.options)

    def load(self, done, instance):
        import numpy as np
        from cuda.bindings import driver

        cubin, lowered = done
        b = self.backend
        err, b.current_module = driver.cuModuleLoadData(np.char.array(cubin))
        if err != driver.CUresult.CUDA_SUCCESS:
            return None
        err, b.func = driver.cuModuleGetFunction(b.current_module, lowered)
        if err != driver.CUresult.CUDA_SUCCESS:
            return None
        err, b.num_regs = driver.cuFuncGetAttribute(driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS, b.func)
        return b.func


class Pycuda:
    def __init__(self, backend):
        import pycuda.compiler  # noqa: F401 - fail here when pycuda is not there

        self.backend = backend
        self.renamed: set[str] | None = None

    def pool(self) -> Executor:
        return thread_pool()

    def job(self, instance):
        args = pycuda_arguments(self.backend, instance)
        return pycuda_cubin, (instance.kernel_string, args, self.backend.source_mod.__name__ != "SourceModule")

    def batch(self, instances: list, check: bool) -> tuple[Callable[..., Any], tuple[Any, ...], list[str]] | None:
        """One nvcc call for these configurations (gpu/device/batching.py), or None where they must go alone."""
        named = [(i.name, i.kernel_string) for i in instances]
        if not all(batchable(name, text) for name, text in named):
            return None
        if self.renamed is None:
            self.renamed = functions(named[0][1])  # one kernel source a run: its functions' names
        names = [alias(name, i) for i, (name, _) in enumerate(named)]
        first = pycuda_arguments(self.backend, instances[0])
        options = list(first["options"])
        options[options.index("-e") + 1] = ",".join(names)
        args = dict(first, options=options, no_extern_c=True)
        relocatable = self.backend.source_mod.__name__ != "SourceModule"
        checking = (named[0][1], first, named[0][0], names[0]) if check else None
        return pycuda_batch, (batch_source(named, self.renamed), args, relocatable, checking), names

    def load(self, done: tuple, instance):
        from pycuda.compiler import DynamicModule, SourceModule
        from pycuda.driver import jit_input_type, module_from_buffer

        b = self.backend
        linked, cubin = done[:2]
        name = done[2] if len(done) > 2 else instance.name  # its name in a batch (gpu/device/batching.py)
        if b.source_mod is SourceModule or linked:
            module = SourceModule.__new__(SourceModule)
            module.module = module_from_buffer(cubin)
            module._bind_module()
        else:  # DynamicSourceModule: relocatable code linked with the device runtime, as pycuda does
            args = pycuda_arguments(b, instance)
            module = DynamicModule(arch=args["arch"], code=args["code"], no_extern_c=args["no_extern_c"])
            module.add_data(cubin, jit_input_type.CUBIN, "kernel.cubin")
            module.add_stdlib("cudadevrt")
            module.link()
        b.current_module = module
        b.func = module.get_function(name)
        if not isinstance(b.func, str):
            b.num_regs = b.func.num_regs
        return b.func


def pycuda_arguments(backend, instance) -> dict:
    """What kernel_tuner's pycuda backend passes to its SourceModule class for this instance
    (backends/pycuda.py, compile), plus what DynamicSourceModule adds for relocatable code."""
    from pycuda.compiler import SourceModule

    options = ["-Xcompiler=-Wall"] + list(backend.compiler_options or []) + ["-e", instance.name]
    if backend.source_mod is not SourceModule:
        options += [o for o in ("-rdc=true", "-lcudadevrt") if o not in options]
    cc = backend.cc
    return {
        "options": options,
        "arch": f"compute_{cc}" if cc != "00" else None,
        "code": f"sm_{cc}" if cc != "00" else None,
        "cache_dir": False,
        "no_extern_c": 'extern "C"' in instance.kernel_string,
    }


class Cupy:
    def __init__(self, backend):
        import cupy  # noqa: F401 - fail here when cupy is not there

        self.backend = backend

    def pool(self) -> Executor:
        return process_pool(8)  # each process opens a CUDA context to load what it compiled

    def job(self, instance):
        # the options name the standard (kernel/text.py compile_options), so cupy adds none
        return cupy_compile, (instance.kernel_string, instance.name, tuple(self.backend.compiler_options or []))

    def load(self, done, instance):
        return None  # kernel_tuner's own compile now finds the module in cupy's cache


@holds_gil
def nvrtc_cubin(source: str, name: str, options: list[bytes]) -> tuple[bytes, bytes]:
    from cuda.bindings import nvrtc

    def check(result):
        err, *rest = result if isinstance(result, tuple) else (result,)
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise RuntimeError(f"nvrtc: {err}")
        return rest[0] if len(rest) == 1 else rest

    program = check(nvrtc.nvrtcCreateProgram(source.encode(), b"kt_tui", 0, [], []))
    try:
        check(nvrtc.nvrtcAddNameExpression(program, name.encode()))
        check(nvrtc.nvrtcCompileProgram(program, len(options), options))
        size = check(nvrtc.nvrtcGetCUBINSize(program))
        buf = b" " * size
        check(nvrtc.nvrtcGetCUBIN(program, buf))
        lowered = check(nvrtc.nvrtcGetLoweredName(program, name.encode()))
        return buf, lowered
    finally:
        nvrtc.nvrtcDestroyProgram(program)


def pycuda_cubin(source: str, arguments: dict, relocatable: bool = False) -> tuple[bool, bytes]:
    """On the compile pool: nvcc through pycuda, to a cubin (pycuda runs nvcc in a temporary folder
    of its own); relocatable code is then linked with the device runtime there too (nvcc -dlink), so
    the measuring process only loads it. (True, linked cubin), or (False, cubin) where that link
    failed: the measuring process links it then, as pycuda's DynamicModule does."""
    from pycuda.compiler import compile

    cubin = compile(source, target="cubin", **arguments)
    if not relocatable or not arguments.get("code"):
        return False, cubin
    linked = device_link(cubin, arguments["code"])
    return (True, linked) if linked is not None else (False, cubin)


def pycuda_batch(
    source: str, arguments: dict, relocatable: bool, check: tuple[str, dict, str, str] | None = None
) -> tuple[bool, bytes]:
    """On the compile pool: the batch through pycuda's nvcc, then linked as `compilers.pycuda_cubin`
    links one configuration. `check` (the first member's own kernel string, its arguments, its
    kernel name, its alias here): compiled alone too, and its kernel's machine code must be the
    batch's byte for byte, else BatchMismatch."""
    from pycuda.compiler import compile

    cubin = compile(source, target="cubin", **arguments)
    if check is not None:
        text, alone_arguments, name, renamed = check
        alone = compile(text, target="cubin", **alone_arguments)
        mine, theirs = elf_section(cubin, f".text.{renamed}"), elf_section(alone, f".text.{name}")
        if mine is None or mine != theirs:
            raise BatchMismatch(f"{name}: its machine code compiled with others differs from it compiled alone")
    if not relocatable or not arguments.get("code"):
        return False, cubin
    linked = device_link(cubin, arguments["code"])
    return (True, linked) if linked is not None else (False, cubin)


def device_link(cubin: bytes, code: str) -> bytes | None:
    """`nvcc -dlink -cubin` of relocatable device code with the device runtime (what pycuda's
    DynamicModule links in the CUDA driver, cuLink* with libcudadevrt), or None where nvcc cannot."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="kt-tui-dlink-") as d:
        src, out = os.path.join(d, "kernel.cubin"), os.path.join(d, "linked.cubin")
        with open(src, "wb") as f:
            f.write(cubin)
        cmd = ["nvcc", "-dlink", "--cubin", f"-arch={code}", src, "-lcudadevrt", "-o", out]
        try:
            subprocess.run(cmd, check=True, capture_output=True, timeout=120)
            with open(out, "rb") as f:
                return f.read()
        except (OSError, subprocess.SubprocessError):
            return None


def cupy_compile(source: str, name: str, options: tuple) -> bool:
    """In a pool process: cupy compiles (and caches on disk) what kernel_tuner will ask it for."""
    import cupy

    cupy.RawModule(code=source, options=options, name_expressions=[name]).compile()
    return True
