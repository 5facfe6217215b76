"""The app's one compile pool (issue 38): the binaries of the configurations the search will run,
compiled ahead of the queue, each handed with its Run to whichever device worker takes it.

kernel_tuner compiles each configuration when it reaches it; the compiler is most of what a
configuration costs. Here the kernel string kernel_tuner would build for a configuration
(`instance_text`) is compiled as that backend would compile it, to a cubin the device worker only
loads (gpu/device/loaders.py):

- pycuda: nvcc with kernel_tuner's pycuda arguments (`pycuda_arguments`), run as pycuda's compiler
  runs it; relocatable code (kernel_tuner's DynamicSourceModule) is then linked with the device
  runtime by `nvcc -dlink`, where pycuda links it in the driver. nvcc runs as a child process: on
  threads here, each pinned to the compile cores (nvcc, cicc and ptxas inherit it). Several
  configurations go into one nvcc call where that is safe (see `batch_source`).
- nvcuda: NVRTC with kernel_tuner's NVRTC options, for the GPU's architecture, to a cubin.
- cupy: NVRTC as cupy compiles a RawModule (cupy's own NVRTC, options and include folders).
NVRTC holds the interpreter's lock while it compiles, so it runs in spawned processes (benchmarks/
compilers.py: 44 against 248 compiles/s on 15 cores of an H100 host); nothing here opens the CUDA
driver or a device. A compile that fails comes back as the compiler's text (Compiled.error).

The same (kernel string, options, architecture) compiles once: a session compiles the same strings
again and again (an LLM version verified, checked at other sizes, tuned, checked again); the cache
is bounded in bytes, the oldest going first.

Every child (nvcc and what it starts, the NVRTC processes) gets the environment without secrets
(gpu/env.py). `KT_TUI_PREFETCH=0` turns compiling ahead off; `KT_TUI_PREFETCH_WORKERS=N` sets the
pool's size, `KT_TUI_COMPILE_BATCH=N` the configurations per nvcc call (1: each alone).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import math
import multiprocessing as mp
import os
import re
import signal
import struct
import subprocess
import tempfile
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Iterable
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from ..kernel.spec import Spec, SpecError
from .env import scrubbed_env, secret_names
from .timeline import mark

BACKENDS = ("pycuda", "nvcuda", "cupy")
CACHE_BYTES = 256 * 2**20  # binaries kept, at most
WINDOW = 24  # configurations compiled ahead of the queue's head, at least
AHEAD = 8  # compiles ahead per compile core: a run of slow ones (large tiles, unrolled) is met by
# those compiled meanwhile (2 a core left one H100 waiting 2.7 s in 300 configurations, 8: 1.6 s)
MAX_AHEAD = 256
BATCH = 8  # configurations per nvcc call
RESTARTS = 3  # NVRTC pools started again after a crash, at most
WATCH_S = 0.2  # how often an NVRTC process looks whether the app is still there
_SPAWN_LOCK = threading.Lock()  # secrets are out of os.environ while NVRTC processes start


@dataclass(frozen=True)
class Compiled:
    """One configuration's compile: its binary (a cubin; PTX where NVRTC cannot make code for this
    GPU's architecture), or the compiler's text. Neither: not compiled here, the device worker
    compiles it through kernel_tuner. `symbol`: the kernel's name in `binary` where it is not the
    kernel_tuner instance's name (NVRTC's lowered name of a C++ kernel, a member of an nvcc batch)."""

    binary: bytes | None
    error: str | None
    ms: float
    symbol: str | None = None


# what kernel_tuner 1.5's DeviceInterface.compile_kernel reads as a configuration to skip (too much
# shared or local memory) rather than a compile error; NVRTC's and nvcc's ptxas say it here, where
# kernel_tuner's own nvcuda compile hears it from the driver (CUDA_ERROR_INVALID_PTX) as the first
SKIPPABLE = (
    r"uses too much shared data",
    r"local memory limit exceeded",
    r"local memory \(\d+\) exceeds limit \(\d+\)",
)


def skippable(error: str) -> bool:
    """Whether kernel_tuner skips a configuration whose compile says `error` (as too big) rather
    than failing it."""
    return any(re.search(pattern, error) for pattern in SKIPPABLE)


def enabled() -> bool:
    """KT_TUI_PREFETCH=0 turns compiling ahead off (then kernel_tuner compiles each configuration)."""
    return os.environ.get("KT_TUI_PREFETCH", "1") != "0"


class CompileFailed(RuntimeError):
    """The compiler refused the kernel string: its output is the message."""


class BatchMismatch(RuntimeError):
    """A configuration's machine code compiled with others differs from the same compiled alone."""


# -- the kernel string --------------------------------------------------------------------------
def instance_text(spec: Spec, source: str, params: dict, backend: str, sizes: dict | None = None) -> tuple[str, str]:
    """(kernel name, kernel string) of kernel_tuner's KernelInstance for `params`, as
    `DeviceInterface.create_kernel_instance` makes it for a run set up as the device worker sets
    kernel_tuner up (gpu/ktsource.py: its KernelSource and defines, grid and block from the problem
    size and divisors, its template wrapper). What a backend adds when it compiles (pycuda's
    `extern "C"` around a kernel without one) is the pool's part."""
    if backend not in BACKENDS:
        raise SpecError("backend", f"{backend!r}: the compile pool compiles for {', '.join(BACKENDS)}")
    from .ktsource import kernel_string  # here: kernel_tuner loads at the first kernel string

    return kernel_string(spec, source, params, sizes)


def pycuda_arguments(cc: str, compiler_options: list[str], name: str, text: str) -> tuple[list[str], bool]:
    """nvcc's options as kernel_tuner 1.5's pycuda backend has pycuda run it (PyCudaFunctions.compile:
    its SourceModule class, DynamicSourceModule from compute capability 3.5, adds -rdc=true and
    -lcudadevrt; pycuda.compiler.compile then -arch, -code and its include folder), and whether pycuda
    wraps the string in `extern "C"`."""
    options = ["-Xcompiler=-Wall", *compiler_options, "-e", name]
    if cc != "00" and int(cc) >= 35:
        options += [o for o in ("-rdc=true", "-lcudadevrt") if o not in options]
    if cc != "00":
        options += ["-arch", f"compute_{cc}", "-code", f"sm_{cc}"]
    spec = importlib.util.find_spec("pycuda")  # found, not imported: pycuda's import opens the driver
    if spec is not None and spec.origin:
        options.append("-I" + os.path.abspath(os.path.join(spec.origin, os.path.pardir, "cuda")))
    return options, 'extern "C"' not in text


def _relocatable(options: list[str]) -> bool:
    return "-rdc=true" in options


# -- nvcc (a child process per compile; the calling thread only waits) --------------------------
class Running:
    """The nvcc processes under way for a pool; once closed, any that starts is killed at once."""

    def __init__(self) -> None:
        self.procs: set[subprocess.Popen] = set()
        self.closed = False
        self.lock = threading.Lock()

    def add(self, proc: subprocess.Popen) -> None:
        with self.lock:
            self.procs.add(proc)
            if self.closed:
                _kill_group(proc)

    def discard(self, proc: subprocess.Popen) -> None:
        with self.lock:
            self.procs.discard(proc)

    def kill(self) -> None:
        with self.lock:
            self.closed = True
            for proc in self.procs:
                _kill_group(proc)


def _kill_group(proc: subprocess.Popen) -> None:
    """nvcc and what it started (cicc, ptxas): it leads a session of its own."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()


def _nvcc(args: list[str], cwd: str, running: Running | None) -> tuple[int, str]:
    proc = subprocess.Popen(
        ["nvcc", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=scrubbed_env(),
        start_new_session=True,  # a terminal's Ctrl-C is the app's to handle
    )
    if running is not None:
        running.add(proc)
    try:
        out, _ = proc.communicate()
    finally:
        if running is not None:
            running.discard(proc)
    return proc.returncode, out.decode("utf-8", "replace")


def _compile_cu(source: str, options: list[str], folder: str, running: Running | None) -> bytes:
    """pycuda.compiler.compile's nvcc call: a kernel.cu in a folder of its own, `nvcc --cubin`."""
    with open(os.path.join(folder, "kernel.cu"), "w", encoding="utf-8") as f:
        f.write(source)
    rc, log = _nvcc(["--cubin", *options, "kernel.cu"], folder, running)
    path = os.path.join(folder, "kernel.cubin")
    if rc != 0 or not os.path.exists(path):
        raise CompileFailed(log.strip() or f"nvcc failed with status {rc}")
    with open(path, "rb") as f:
        return f.read()


def _wrapped(text: str, wrap: bool) -> str:
    return 'extern "C" {\n' + text + "\n}\n" if wrap else text


def nvcc_cubin(text: str, options: list[str], wrap: bool, running: Running | None = None) -> bytes:
    """One configuration through nvcc as pycuda compiles it, to a cubin; relocatable code linked
    with the device runtime (`device_link`)."""
    with tempfile.TemporaryDirectory(prefix="kt-tui-nvcc-") as d:
        cubin = _compile_cu(_wrapped(text, wrap), options, d, running)
        return device_link(cubin, options, d, running) if _relocatable(options) else cubin


def device_link(cubin: bytes, options: list[str], folder: str, running: Running | None = None) -> bytes:
    """`nvcc -dlink --cubin` of relocatable device code with the device runtime: what pycuda's
    DynamicModule links in the driver (cuLink* with libcudadevrt), made on the compile cores."""
    if "-code" not in options:
        raise CompileFailed("nvcc -dlink: no -code to link for")
    code = options[options.index("-code") + 1]
    with open(os.path.join(folder, "rdc.cubin"), "wb") as f:
        f.write(cubin)
    args = ["-dlink", "--cubin", f"-arch={code}", "rdc.cubin", "-lcudadevrt", "-o", "linked.cubin"]
    rc, log = _nvcc(args, folder, running)
    if rc != 0:
        raise CompileFailed("nvcc -dlink: " + (log.strip() or f"status {rc}"))
    with open(os.path.join(folder, "linked.cubin"), "rb") as f:
        return f.read()


# -- several configurations in one nvcc call ----------------------------------------------------
# Most of an nvcc compile of a small kernel is fixed cost: the preprocessor and cicc's front end read
# cuda_runtime.h again for every configuration (for a 5-parameter matmul, ~0.3 s of 0.38 s). One
# translation unit holding several configurations pays it once. Each configuration keeps its own
# macros and names: it sits in a namespace of its own, its kernel renamed by a macro, and every macro
# it defines is undefined after it. Its functions are renamed by macros too: pycuda wraps a kernel in
# extern "C", and two C functions of one name collide whatever namespace they are in. ptxas compiles
# each kernel on its own, so the machine code is the same as alone; the pool's first batch is checked
# for that, byte for byte, against its first configuration compiled alone, and where it differs the
# pool batches no more. Kernels that an extra namespace could change are compiled alone: anything
# with #include, #pragma once, constant or texture memory, __COUNTER__ (it counts on across the
# configurations of a batch), or a name that is not a plain C identifier.
UNSAFE = ("#include", "#pragma once", "__constant__", "texture", "surface", "__managed__", "__COUNTER__")
DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)


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
        cubin = _compile_cu(batch_source(named, renamed), options, d, running)
        if check is not None:
            (name, text), (alone_options, wrap) = named[0], check
            with tempfile.TemporaryDirectory(prefix="kt-tui-nvcc-") as d1:
                alone = _compile_cu(_wrapped(text, wrap), alone_options, d1, running)
            mine, theirs = elf_section(cubin, f".text.{alias(name, 0)}"), elf_section(alone, f".text.{name}")
            if mine is None or mine != theirs:
                raise BatchMismatch(f"{name}: its machine code compiled with others differs from it compiled alone")
        return device_link(cubin, options, d, running) if _relocatable(options) else cubin


def elf_section(blob: bytes, wanted: str) -> bytes | None:
    """The bytes of one section of a 64-bit little-endian ELF file (a cubin), or None."""
    return elf_sections(blob).get(wanted)


def elf_sections(blob: bytes) -> dict[str, bytes]:
    """Every section of a 64-bit little-endian ELF file (a cubin) by name; {} for anything else."""
    if len(blob) < 64 or blob[:4] != b"\x7fELF" or blob[4] != 2 or blob[5] != 1:
        return {}
    shoff = struct.unpack_from("<Q", blob, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", blob, 0x3A)

    def header(i: int) -> tuple[int, int, int]:
        name, _, _, _, offset, size = struct.unpack_from("<IIQQQQ", blob, shoff + i * shentsize)
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


# -- NVRTC (in the pool's processes) --------------------------------------------------------------
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
) -> tuple[bytes, str, float]:
    """In a pool process: (binary, the kernel's lowered name, ms) as `flavour`'s backend compiles
    `text` (nvcuda: cuda-python's NVRTC; cupy: cupy's own), or CompileFailed with NVRTC's log."""
    t0 = time.perf_counter()
    if flavour == "cupy":
        binary, symbol = _cupy_nvrtc(text, name, list(compiler_options), cc)
    else:
        binary, symbol = _nvcuda_nvrtc(text, name, list(compiler_options), cc)
    return binary, symbol, (time.perf_counter() - t0) * 1000


def _nvcuda_nvrtc(text: str, name: str, compiler_options: list[str], cc: str) -> tuple[bytes, str]:
    from cuda.bindings import nvrtc  # here: only in the pool's processes, with the nvcuda backend

    def check(result: Any) -> Any:
        err, *rest = result if isinstance(result, tuple) else (result,)
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise RuntimeError(f"nvrtc: {err}")
        return rest[0] if len(rest) == 1 else rest

    supported = [int(a) for a in check(nvrtc.nvrtcGetSupportedArchs())]
    options = nvcuda_options(compiler_options, cc, supported, _cuda_home())
    program = check(nvrtc.nvrtcCreateProgram(text.encode(), b"CUDAProgram", 0, [], []))
    try:
        check(nvrtc.nvrtcAddNameExpression(program, name.encode()))
        result = nvrtc.nvrtcCompileProgram(program, len(options), [o.encode() for o in options])
        err = result[0] if isinstance(result, tuple) else result
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            size = check(nvrtc.nvrtcGetProgramLogSize(program))
            log = b" " * size
            check(nvrtc.nvrtcGetProgramLog(program, log))
            raise CompileFailed(log.rstrip(b"\0 ").decode("utf-8", "replace") or f"nvrtc: {err}")
        if _makes_code(options):
            size = check(nvrtc.nvrtcGetCUBINSize(program))
            binary = b" " * size
            check(nvrtc.nvrtcGetCUBIN(program, binary))
        else:
            size = check(nvrtc.nvrtcGetPTXSize(program))
            binary = b" " * size
            check(nvrtc.nvrtcGetPTX(program, binary))
        lowered = check(nvrtc.nvrtcGetLoweredName(program, name.encode()))
        return binary, lowered.decode() if isinstance(lowered, bytes) else str(lowered)
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


def _cupy_nvrtc(text: str, name: str, compiler_options: list[str], cc: str) -> tuple[bytes, str]:
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
        return binary, nvrtc.getLoweredName(program, name)
    finally:
        nvrtc.destroyProgram(program)


def _pin(cores: list[int] | None) -> None:
    if cores:
        os.sched_setaffinity(0, cores)  # this thread, and every nvcc it starts


def _child_setup(cores: list[int] | None, parent: int) -> None:
    """An NVRTC process: on the compile cores, and gone when the app is (killed, even)."""
    if os.getppid() != parent:
        os._exit(0)
    threading.Thread(target=_watch, args=(parent,), name="kt-tui-parent", daemon=True).start()
    _pin(cores)


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_S)
    os._exit(0)


def compile_cores(gpus: int = 1, cores: list[int] | None = None) -> list[int]:
    """The host's cores less one for each device worker, as long as one is left to compile on."""
    have = sorted(cores if cores is not None else os.sched_getaffinity(0))
    return have[min(max(0, gpus), len(have) - 1) :]


# -- the pool ----------------------------------------------------------------------------------------
@dataclass
class _Item:
    ck: str  # the compile's key: (backend, architecture, options, name, kernel string)
    key: str  # the caller's key (a configuration)
    name: str
    text: str
    future: Future


class _Cache:
    """Finished compiles by their key, bounded in bytes, the least recently used going first."""

    def __init__(self, limit: int):
        self.limit, self.size = limit, 0
        self.kept: OrderedDict[str, Compiled] = OrderedDict()

    def get(self, ck: str) -> Compiled | None:
        hit = self.kept.get(ck)
        if hit is not None:
            self.kept.move_to_end(ck)
        return hit

    def put(self, ck: str, done: Compiled) -> None:
        size = len(done.binary or b"") + len(done.error or "") + 64
        if ck in self.kept or size > self.limit // 4:
            return
        self.kept[ck] = done
        self.size += size
        while self.size > self.limit and self.kept:
            _, gone = self.kept.popitem(last=False)
            self.size -= len(gone.binary or b"") + len(gone.error or "") + 64


class CompilePool:
    """`submit` one configuration's compile now; `ahead` the configurations the queue will run, in
    order: at most `window` of them compiled or compiling and not yet asked for by `submit` (the
    device workers take them through it), the rest following as those are asked for: a Future from
    `ahead` beyond the window resolves once those before it are asked for. `drop` forgets what is
    queued (a stopped search). `close` ends every thread, process and nvcc."""

    def __init__(
        self,
        backend: str,
        cc: str,
        compiler_options: list[str],
        *,
        gpus: int = 1,
        size: int | None = None,
        window: int | None = None,
        cores: list[int] | None = None,
        batch: int | None = None,
    ):
        if backend not in BACKENDS:
            raise ValueError(f"compile pool: no compiler for backend {backend!r} (one of {', '.join(BACKENDS)})")
        if not re.fullmatch(r"\d{2,3}", cc):
            raise ValueError(f"compile pool: compute capability {cc!r} is not digits such as '90'")
        self.backend, self.cc, self.options = backend, cc, list(compiler_options)
        self.cores = compile_cores(gpus, cores)
        wanted = os.environ.get("KT_TUI_PREFETCH_WORKERS", "")
        self.size = size or (int(wanted) if wanted.isdigit() and int(wanted) > 0 else len(self.cores))
        # a batch's members all carry the batch's one cubin (each its symbol): `batch=1` where a
        # binary must hold its kernel alone (the check child compares machine code)
        self.batch = (batch or batch_size()) if backend == "pycuda" else 1
        depth = max(WINDOW, math.ceil(AHEAD * self.size / max(1, gpus)))
        self.window = window or min(MAX_AHEAD, depth * self.batch)
        self.cache = _Cache(CACHE_BYTES)
        self.flying: dict[str, Future] = {}  # compiles under way or queued, by compile key
        self.queue: deque[_Item] = deque()  # ahead, in order (an item asked for meanwhile is skipped)
        self.queued: dict[str, _Item] = {}  # the queue's items not started yet, by compile key
        self.urgent: deque[_Item] = deque()  # asked for and not started: these go first
        self.jobs = 0  # compile jobs handed to the threads or processes and not finished
        self.unasked: set[str] = set()  # caller keys compiled or compiling ahead, not yet asked for
        self.running = Running()  # nvcc processes under way
        self.lock = threading.RLock()
        self.closed = False
        self.checked = False  # a batch carrying the check against its first member alone was sent
        self.trusted = False  # that check passed
        self.batches = self.batches_failed = 0
        self.compiled = self.reused = self.restarts = 0
        self.threads: ThreadPoolExecutor | None = None
        self.processes: ProcessPoolExecutor | None = None
        if backend == "pycuda":
            self.threads = ThreadPoolExecutor(
                max_workers=self.size, thread_name_prefix="kt-tui-compile", initializer=_pin, initargs=(self.cores,)
            )
        else:
            self.processes = self._start_processes()

    def _start_processes(self) -> ProcessPoolExecutor:
        """All the NVRTC processes, now (each submit to a pool without an idle process starts one),
        while the app's environment has no secrets in it."""
        pool = ProcessPoolExecutor(
            max_workers=self.size,
            mp_context=mp.get_context("spawn"),
            initializer=_child_setup,
            initargs=(self.cores, os.getpid()),
        )
        with _SPAWN_LOCK:
            hidden = {k: os.environ.pop(k) for k in secret_names()}
            try:
                for _ in range(self.size):
                    pool.submit(os.getpid)
            finally:
                os.environ.update(hidden)
        return pool

    def _key(self, name: str, text: str) -> str:
        blob = repr((self.backend, self.cc, self.options, name, text)).encode("utf-8", "surrogatepass")
        return hashlib.sha256(blob).hexdigest()

    # -- asking ----------------------------------------------------------------------------------
    def submit(self, key: str, name: str, text: str) -> Future:
        """Future[Compiled] of this configuration: compiled before, under way, or next (ahead of
        anything queued by `ahead`)."""
        ck = self._key(name, text)
        with self.lock:
            self._open()
            self.unasked.discard(key)
            known = self._known(ck)
            if known is None:
                item = _Item(ck, key, name, text, Future())
                self.flying[ck] = known = item.future
                self.urgent.append(item)
            elif ck in self.queued:
                self.urgent.append(self.queued.pop(ck))
            self._pump()
            return known

    def ahead(self, items: Iterable[tuple[str, str, str]]) -> dict[str, Future]:
        """Queue these (key, kernel name, kernel string) in the order they will run; Future[Compiled]
        of each by key."""
        out: dict[str, Future] = {}
        with self.lock:
            self._open()
            for key, name, text in items:
                ck = self._key(name, text)
                known = self._known(ck)
                if known is None:
                    item = _Item(ck, key, name, text, Future())
                    self.flying[ck] = known = item.future
                    self.queue.append(item)
                    self.queued[ck] = item
                out[key] = known
            self._pump()
        return out

    def drop(self) -> None:
        """Forget every compile queued ahead and not started: their futures are cancelled."""
        with self.lock:
            for item in self.queued.values():
                self.flying.pop(item.ck, None)
                item.future.cancel()
            self.queue.clear()
            self.queued.clear()
            self.unasked.clear()

    def _open(self) -> None:
        if self.closed:
            raise RuntimeError("compile pool: closed")

    def _known(self, ck: str) -> Future | None:
        done = self.cache.get(ck)
        if done is not None:
            self.reused += 1
            return _finished(done)
        return self.flying.get(ck)

    # -- compiling -------------------------------------------------------------------------------
    def _pump(self) -> None:
        """Hand the compilers their next jobs, one a thread or process: what was asked for first,
        then the queue, while fewer than `window` started ahead are not asked for yet. Jobs wait
        here rather than in the executor, so what is asked for goes next and batches form from
        what is queued when a compiler is free."""
        while not self.closed and self.jobs < self.size:
            if self.urgent:
                group = [self.urgent.popleft()]
            elif len(self.unasked) < self.window:
                # no batch beside the first one until its check says batches make the same code
                group = self._next(self.batch if self.trusted or not self.checked else 1)
                self.unasked.update(item.key for item in group)
            else:
                return
            if not group:
                return
            self._start(group)

    def _next(self, most: int) -> list[_Item]:
        """The queue's next compile job: one configuration, or up to `most` that can share an nvcc call."""
        group: list[_Item] = []
        while self.queue and len(group) < most:
            item = self.queue[0]
            if self.queued.get(item.ck) is not item:  # asked for meanwhile, or dropped
                self.queue.popleft()
                continue
            if group and not batchable(item.name, item.text):
                break
            self.queue.popleft()
            del self.queued[item.ck]
            group.append(item)
            if not batchable(item.name, item.text):
                break
        return group

    def _start(self, group: list[_Item]) -> None:
        self.jobs += 1
        try:
            if self.backend == "pycuda":
                assert self.threads is not None
                self.threads.submit(self._nvcc_job, group)
            else:
                self._nvrtc_submit(group[0])
        except RuntimeError as e:  # the pool shut down or broke for good: the device workers compile them
            self.jobs -= 1
            for item in group:
                self._settle(item, Compiled(None, None, 0.0), f"{type(e).__name__}: {e}")

    def _nvrtc_submit(self, item: _Item) -> None:
        assert self.processes is not None
        pool = self.processes
        try:
            job = pool.submit(nvrtc_job, item.text, item.name, self.backend, tuple(self.options), self.cc)
        except BrokenProcessPool:
            if not self._restart(pool):
                raise
            pool = self.processes
            job = pool.submit(nvrtc_job, item.text, item.name, self.backend, tuple(self.options), self.cc)
        job.add_done_callback(functools.partial(self._nvrtc_done, item, pool))

    def _nvcc_job(self, group: list[_Item]) -> None:
        """On a pool thread: one nvcc job, then the next ones handed out."""
        try:
            if len(group) > 1:
                self._nvcc_batch(group)
            else:
                self._nvcc_alone(group[0])
        finally:
            with self.lock:
                self.jobs -= 1
                self._pump()

    def _nvcc_alone(self, item: _Item) -> None:
        options, wrap = pycuda_arguments(self.cc, self.options, item.name, item.text)
        t0 = time.perf_counter()
        try:
            done, why = Compiled(nvcc_cubin(item.text, options, wrap, self.running), None, _ms(t0)), ""
        except CompileFailed as e:
            done, why = Compiled(None, str(e), _ms(t0)), ""
        except Exception as e:  # noqa: BLE001 - no nvcc, a full disk: the device worker compiles it
            done, why = Compiled(None, None, _ms(t0)), f"{type(e).__name__}: {e}"
        self._settle(item, done, why)

    def _nvcc_batch(self, group: list[_Item]) -> None:
        first, wrap = pycuda_arguments(self.cc, self.options, group[0].name, group[0].text)
        names = [alias(item.name, i) for i, item in enumerate(group)]
        options = list(first)
        options[options.index("-e") + 1] = ",".join(names)
        with self.lock:
            check = None if self.checked else (first, wrap)
            self.checked = True
            self.batches += 1
        t0 = time.perf_counter()
        try:
            binary = nvcc_batch([(item.name, item.text) for item in group], options, check, self.running)
        except Exception as e:  # noqa: BLE001 - each compiled alone, for its own error or code
            self._unbatch(group, e, check is not None)
            return
        if check is not None:
            with self.lock:
                self.trusted = True
        ms = _ms(t0) / len(group)
        for item, symbol in zip(group, names, strict=True):
            self._settle(item, Compiled(binary, None, ms, symbol), "")

    def _unbatch(self, group: list[_Item], error: Exception, checking: bool) -> None:
        """A failed batch: its members go next, each alone (for its own error, or its code)."""
        with self.lock:
            self.batches_failed += 1
            if checking and not isinstance(error, BatchMismatch):
                self.checked = False  # the next batch carries the check
            if isinstance(error, BatchMismatch) or (
                self.batches_failed >= 3 and 4 * self.batches_failed > self.batches
            ):
                # a space where many configurations fail to compile fails most batches: each compiled twice
                self.batch = 1
                mark(f"compile pool: one configuration a call from now on: {error}"[:300])
            self.urgent.extendleft(reversed(group))

    def _nvrtc_done(self, item: _Item, pool: ProcessPoolExecutor, job: Future) -> None:
        if job.cancelled():
            done, why = Compiled(None, None, 0.0), "cancelled"
        elif (error := job.exception()) is None:
            binary, symbol, ms = job.result()
            done, why = Compiled(binary, None, ms, None if symbol == item.name else symbol), ""
        elif isinstance(error, CompileFailed):
            done, why = Compiled(None, str(error), 0.0), ""
        else:  # no NVRTC, a process killed: the device worker compiles it
            done, why = Compiled(None, None, 0.0), f"{type(error).__name__}: {error}"
        with self.lock:
            self.jobs -= 1
            if isinstance(error, BrokenProcessPool):
                self._restart(pool)
        self._settle(item, done, why)

    def _restart(self, broken: ProcessPoolExecutor) -> bool:
        """New NVRTC processes for those a crash broke (NVRTC itself, on some kernel string, or a
        process killed), a few times a pool; after that the device workers compile. Whether there
        are new ones."""
        with self.lock:
            if broken is not self.processes:
                return True  # started again already
            _end(broken)
            if self.closed or self.restarts >= RESTARTS:
                return False
            self.restarts += 1
            mark(f"compile pool: its processes broke; started again ({self.restarts} of {RESTARTS})")
            self.processes = self._start_processes()
            return True

    def _settle(self, item: _Item, done: Compiled, why: str) -> None:
        with self.lock:
            if self.flying.get(item.ck) is item.future:
                del self.flying[item.ck]
            if done.binary is not None or done.error is not None:
                self.cache.put(item.ck, done)
                self.compiled += 1
            elif why:
                mark(f"compile pool: {item.key} not compiled ahead: {why}"[:300])
            self._pump()
        if not item.future.done():
            item.future.set_result(done)

    def close(self) -> None:
        """Cancel what is queued, stop what runs (nvcc killed, the NVRTC processes ended)."""
        with self.lock:
            self.closed = True
            self.drop()
            self.urgent.clear()
            for ck in list(self.flying):
                self.flying.pop(ck).cancel()
        if self.threads is not None:
            self.threads.shutdown(wait=False, cancel_futures=True)
            self.running.kill()
            self.threads.shutdown(wait=True)
        if self.processes is not None:
            _end(self.processes)

    def __enter__(self) -> CompilePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _end(pool: ProcessPoolExecutor) -> None:
    """Its processes killed and waited for (ProcessPoolExecutor's shutdown waits for their jobs)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())  # concurrent.futures' own table
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        p.kill()
    for p in procs:
        p.join(5)


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def _finished(value: Compiled) -> Future:
    done: Future = Future()
    done.set_result(value)
    return done
