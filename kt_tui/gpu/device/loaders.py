"""A compiled configuration into kernel_tuner's backend: what `DeviceInterface.compile_kernel`
would return, from the binary the app's compile pool made (gpu/compiles.py), with the backend's
state set as its own compile sets it.

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

from typing import Any


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
