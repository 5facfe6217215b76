"""A compiled configuration into kernel_tuner's backend: what `DeviceInterface.compile_kernel`
would return, from a binary compiled ahead (gpu/compiles.py: the app's compile pool for a tuning
run, `Ahead` below in a child that runs kernels itself), with the backend's state set as its own
compile sets it.

The one module that touches kernel_tuner's backends' internals, read from kernel_tuner 1.5.0
(pyproject pins >=1.5,<1.6):
- `DeviceInterface.dev`: the backend object (PyCudaFunctions, CudaFunctions, CupyFunctions);
- on it, what each backend's `compile` sets: `current_module` (copy_constant_memory_args and
  copy_texture_memory_args look symbols up in it), `func` and `num_regs` (the RegisterObserver's).
The backends' `current_module` is what each compile made: pycuda a SourceModule or
DynamicSourceModule (get_function, get_global, get_texref: a pycuda.driver.Module has them all),
nvcuda the CUmodule, cupy a RawModule (get_function, get_global: `Module` below).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from ..compiles import CompilePool


def load(dev: Any, instance: Any, binary: bytes, symbol: str | None = None) -> Any:
    """The kernel function of `instance` from `binary` (a cubin, or PTX the driver compiles), as
    `dev.compile_kernel(instance, False)` would return it; `symbol`: its name in the binary where it
    is not `instance.name` (Compiled.symbol). Raises where the driver refuses the binary."""
    backend = dev.dev
    name = symbol or instance.name
    kind = type(backend).__name__
    if kind == "PyCudaFunctions":
        return _pycuda(backend, binary, name)
    if kind == "CudaFunctions":
        return _nvcuda(backend, binary, name)
    if kind == "CupyFunctions":
        return _cupy(backend, binary, name)
    raise ValueError(f"no loader for kernel_tuner backend {kind}")


def function(
    dev: Any,
    instance: Any,
    compiled: tuple[bytes, str | None] | str | None,
    said: Callable[[str], None] = lambda why: print(f"kt-tui: {why}", flush=True),
) -> Any:
    """The kernel function of `instance`: `compiled`'s (binary, symbol) loaded where there is one,
    else compiled as kernel_tuner compiles it (also where the driver refuses the binary for a reason
    kernel_tuner would not skip the configuration for: `said` gets why); None where kernel_tuner
    skips it (too much shared memory). A compiler's text in `compiled`: compiled again by
    kernel_tuner, which fails as it reports it."""
    if isinstance(compiled, tuple):
        from kernel_tuner.util import SkippableFailure  # with the backend kernel_tuner loaded

        try:
            return load(dev, instance, *compiled)
        except SkippableFailure:
            return None
        except Exception as e:  # noqa: BLE001 - compiled below instead
            said(f"the binary compiled ahead did not load: {type(e).__name__}: {e}"[:300])
    return dev.compile_kernel(instance, False)


def _pycuda(backend: Any, binary: bytes, name: str) -> Any:
    import pycuda.driver as drv  # here and below: only the backend in use need be installed

    module = drv.module_from_buffer(binary)
    backend.current_module = module
    backend.func = module.get_function(name)
    backend.num_regs = backend.func.num_regs
    return backend.func


def _nvcuda(backend: Any, binary: bytes, name: str) -> Any:
    import numpy as np  # here: as pycuda above
    from cuda.bindings import driver  # as pycuda above
    from kernel_tuner.util import SkippableFailure  # with the backend kernel_tuner loaded

    err, module = driver.cuModuleLoadData(np.char.array(binary))
    if err == driver.CUresult.CUDA_ERROR_INVALID_PTX:  # kernel_tuner's own reading of it
        raise SkippableFailure("uses too much shared data")
    _check(driver, err, "cuModuleLoadData")
    backend.current_module = module
    err, backend.func = driver.cuModuleGetFunction(module, name.encode())
    _check(driver, err, f"cuModuleGetFunction({name})")
    err, backend.num_regs = driver.cuFuncGetAttribute(
        driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS, backend.func
    )
    _check(driver, err, "cuFuncGetAttribute")
    return backend.func


def _check(driver: Any, err: Any, what: str) -> None:
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"{what}: {err.name if hasattr(err, 'name') else err}")


def _cupy(backend: Any, binary: bytes, name: str) -> Any:
    module = Module(binary)
    backend.current_module = module
    backend.func = module.get_function(name)
    backend.num_regs = module.num_regs(backend.func)
    return backend.func


class Module:
    """A cupy module loaded from a binary, with what kernel_tuner's cupy backend asks of the
    RawModule it compiles: `get_function` (a kernel called as a RawKernel is: grid, block, args,
    stream=, shared_mem=) and `get_global` (a constant's memory, as RawModule.get_global gives it).
    Not a RawModule: one made from a file is kept by cupy for the process's life, one a configuration."""

    def __init__(self, binary: bytes):
        import cupy  # as pycuda above

        self.module = cupy.cuda.function.Module()
        self.module.load(binary)

    def get_function(self, name: str) -> Any:
        return self.module.get_function(name)

    def get_global(self, name: str) -> Any:
        import cupy  # as pycuda above

        ptr = self.module.get_global_var(name)
        memory = cupy.cuda.memory.UnownedMemory(ptr, 0, self.module, cupy.cuda.runtime.getDevice())
        return cupy.cuda.memory.MemoryPointer(memory, 0)

    @staticmethod
    def num_regs(func: Any) -> int:
        import cupy  # as pycuda above

        attribute = 4  # CU_FUNC_ATTRIBUTE_NUM_REGS
        return int(cupy.cuda.driver.funcGetAttribute(attribute, func.ptr))


def device_cc(backend: str) -> str:
    """Device 0's compute capability ("90"), as kernel_tuner's backend reads it, without a context."""
    if backend == "cupy":
        import cupy  # as pycuda above

        props = cupy.cuda.runtime.getDeviceProperties(0)
        return f"{props['major']}{props['minor']}"
    if backend == "pycuda":
        import pycuda.driver as drv  # as pycuda above

        drv.init()
        major, minor = drv.Device(0).compute_capability()
        return f"{major}{minor}"
    from cuda.bindings import driver  # as pycuda above

    driver.cuInit(0)
    attr = driver.CUdevice_attribute
    major = driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0)[1]
    minor = driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0)[1]
    return f"{major}{minor}"


class Ahead:
    """Kernel strings compiled from the start of a child process that runs them itself (the mutants'
    check child) on a CompilePool (gpu/compiles.py, as a tuning run's: nvcc for pycuda, NVRTC in
    processes for nvcuda and cupy), every one once; device/outputs.py's run_kernel loads their
    binaries inside `outputs.loading(ahead)`. With `keep` (a folder), each binary is also kept
    there, and one found there is not compiled again: a process started again after another died
    (after a mutant's illegal address) loads what the first compiled."""

    def __init__(self, pool: CompilePool, keep: Path | None = None):
        self.pool = pool
        self.keep = keep
        self.futures: dict[str, Future] = {}  # kernel string: Future[Compiled]
        self.names: dict[str, tuple[str, str]] = {}  # kernel string: (the pool's key, kernel name)
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)

    @classmethod
    def start(
        cls,
        backend: str,
        compiler_options: list[str],
        named: list[tuple[str, str]],
        batch: int | None = None,
        keep: Path | None = None,
    ) -> Ahead | None:
        """None where nothing is compiled ahead: nothing to compile, or no GPU or compiler to read here."""
        if not named:
            return None
        try:
            # every one queued at once: batches form from all of them, none waits to be asked for
            pool = CompilePool(backend, device_cc(backend), compiler_options, window=1 << 20, batch=batch)
        except Exception as e:  # noqa: BLE001 - only a head start: kernel_tuner compiles as usual
            print(f"kt-tui: no compile ahead: {type(e).__name__}: {e}", flush=True)
            return None
        ahead = cls(pool, keep)
        ahead.add(named)
        return ahead

    def add(self, named: list[tuple[str, str]]) -> None:
        todo = [
            (_key(text), name, text)
            for name, text in named
            if text not in self.futures and self._kept(_key(text)) is None
        ]
        futures = self.pool.ahead(todo)
        for key, name, text in todo:
            self.futures[text], self.names[text] = futures[key], (key, name)
            if self.keep is not None:
                futures[key].add_done_callback(functools.partial(self._keep, key))

    def binary(self, options: list[str], text: str) -> tuple[bytes, str | None] | str | None:
        """(binary, symbol) of a kernel string compiled here with `options` (waited for), the
        compiler's text where it failed, or None: not compiled here."""
        if list(options) != list(self.pool.options):
            return None
        kept = self._kept(_key(text))
        if kept is not None:
            return kept
        future = self.futures.get(text)
        if future is None:
            return None
        if not future.done():  # asked for now: it goes before those queued behind it
            key, name = self.names[text]
            try:
                future = self.pool.submit(key, name, text)
            except RuntimeError:  # the pool closed: kernel_tuner compiles it as usual
                return None
        try:
            done = future.result()
        except Exception:  # noqa: BLE001 - cancelled or broken: kernel_tuner compiles it as usual
            return None
        if done.binary is not None:
            return done.binary, done.symbol
        return done.error

    def _kept(self, key: str) -> tuple[bytes, str | None] | None:
        if self.keep is None:
            return None
        try:
            symbol = json.loads((self.keep / f"{key}.json").read_text())["symbol"]
            return (self.keep / f"{key}.bin").read_bytes(), symbol if isinstance(symbol, str) else None
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _keep(self, key: str, future: Future) -> None:
        if self.keep is None or future.cancelled() or future.exception() is not None:
            return
        done = future.result()
        if done.binary is None:
            return
        try:  # the binary first: a symbol file says its binary is whole
            (self.keep / f"{key}.bin").write_bytes(done.binary)
            (self.keep / f"{key}.json").write_text(json.dumps({"symbol": done.symbol}))
        except OSError:
            pass

    def close(self) -> None:
        self.pool.close()


class Given:
    """Binaries the app's compile pool made (a profile's targets), each given as
    (compiler options, kernel string, binary, symbol); `binary` answers as `Ahead.binary`."""

    def __init__(self, binaries: Iterable[tuple[list[str], str, bytes, str | None]]):
        self.binaries = {(tuple(options), text): (binary, symbol) for options, text, binary, symbol in binaries}

    def binary(self, options: list[str], text: str) -> tuple[bytes, str | None] | None:
        return self.binaries.get((tuple(options), text))


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
