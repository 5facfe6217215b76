"""Device memory and kernels through the library of the kernel_tuner backend in use (pycuda, cuda-python,
cupy), for gpu/device/compare.py's Checker and OutputReset: allocations, copies, and the comparison
kernels compiled and launched."""

from __future__ import annotations

import ctypes
from typing import Any, Protocol

import numpy as np

BLOCK = 256  # threads per block: a multiple of the warp, the reduction needs whole warps


class Backend(Protocol):
    """Device memory and kernels through one kernel_tuner backend's own library; pointers are ints."""

    def buffer_ptr(self, buf: object) -> int | None: ...  # None: not a plain device buffer
    def buffer_nbytes(self, buf: object) -> int: ...
    def alloc(self, nbytes: int) -> tuple[object, int]: ...  # (what keeps it, its pointer)
    def release(self, handle: object) -> None: ...
    def htod(self, ptr: int, host: np.ndarray) -> None: ...
    def dtoh(self, host: np.ndarray, ptr: int) -> None: ...
    def dtod(self, dst: int, src: int, nbytes: int) -> None: ...
    def free_bytes(self) -> int: ...
    def build(self, source: str, names: list[str]) -> dict[str, object]: ...
    def launch(
        self, fn: object, blocks: int, out: int, ref: int, n: int, a: float, b: float, k: int, acc: int
    ) -> None: ...


class _PyCuda:
    def __init__(self, dev: Any):
        import pycuda.driver as drv  # the backend in use: only its own library is installed

        self.drv = drv
        self.modules: list[object] = []

    def buffer_ptr(self, buf: object) -> int | None:
        return int(buf) if isinstance(buf, self.drv.DeviceAllocation) else None  # type: ignore[call-overload]

    def buffer_nbytes(self, buf: object) -> int:
        return int(self.drv.mem_get_address_range(int(buf))[1])  # type: ignore[call-overload]

    def alloc(self, nbytes: int) -> tuple[object, int]:
        mem = self.drv.mem_alloc(max(nbytes, 1))
        return mem, int(mem)

    def release(self, handle: object) -> None:
        handle.free()  # type: ignore[attr-defined]

    def htod(self, ptr: int, host: np.ndarray) -> None:
        self.drv.memcpy_htod(ptr, host)

    def dtoh(self, host: np.ndarray, ptr: int) -> None:
        self.drv.memcpy_dtoh(host, ptr)

    def dtod(self, dst: int, src: int, nbytes: int) -> None:
        self.drv.memcpy_dtod(dst, src, nbytes)

    def free_bytes(self) -> int:
        return int(self.drv.mem_get_info()[0])

    def build(self, source: str, names: list[str]) -> dict[str, object]:
        from pycuda.compiler import SourceModule  # pycuda, the backend in use

        module = SourceModule(source, no_extern_c=True)
        self.modules.append(module)
        return {name: module.get_function(name) for name in names}

    def launch(self, fn: Any, blocks: int, out: int, ref: int, n: int, a: float, b: float, k: int, acc: int) -> None:
        u = np.uintp
        args = (u(out), u(ref), np.uint64(n), np.float64(a), np.float64(b), np.int64(k), u(acc))
        fn(*args, block=(BLOCK, 1, 1), grid=(blocks, 1))


def _cuda_python() -> tuple[Any, Any]:
    try:
        from cuda.bindings import driver, nvrtc  # the backend in use: only its own library is installed
    except ImportError:  # cuda-python before 12.6 (kernel_tuner's nvcuda backend takes either)
        from cuda import cuda as driver  # type: ignore[no-redef]
        from cuda import nvrtc  # type: ignore[no-redef]
    return driver, nvrtc


_CUBINS: dict[tuple[str, str], bytes] = {}  # (source, compute capability) -> NVRTC's cubin, for this process


class _NvCuda:
    def __init__(self, dev: Any):
        self.driver, self.nvrtc = _cuda_python()
        self.cc = str(dev.dev.cc)
        self.modules: list[object] = []

    def _ok(self, got: Any) -> Any:
        got = got if isinstance(got, tuple) else (got,)
        if int(getattr(got[0], "value", got[0])) != 0:
            raise RuntimeError(f"cuda-python: {got[0]}")
        return got[1] if len(got) == 2 else got[1:]

    def ptr(self, p: int) -> Any:
        return self.driver.CUdeviceptr(p)

    def buffer_ptr(self, buf: object) -> int | None:
        return int(buf) if isinstance(buf, self.driver.CUdeviceptr) else None  # type: ignore[call-overload]

    def buffer_nbytes(self, buf: object) -> int:
        return int(self._ok(self.driver.cuMemGetAddressRange(buf))[1])

    def alloc(self, nbytes: int) -> tuple[object, int]:
        mem = self._ok(self.driver.cuMemAlloc(max(nbytes, 1)))
        return mem, int(mem)

    def release(self, handle: object) -> None:
        self._ok(self.driver.cuMemFree(handle))

    def htod(self, ptr: int, host: np.ndarray) -> None:
        self._ok(self.driver.cuMemcpyHtoD(self.ptr(ptr), host, host.nbytes))

    def dtoh(self, host: np.ndarray, ptr: int) -> None:
        self._ok(self.driver.cuMemcpyDtoH(host, self.ptr(ptr), host.nbytes))

    def dtod(self, dst: int, src: int, nbytes: int) -> None:
        self._ok(self.driver.cuMemcpyDtoD(self.ptr(dst), self.ptr(src), nbytes))

    def free_bytes(self) -> int:
        return int(self._ok(self.driver.cuMemGetInfo())[0])

    def build(self, source: str, names: list[str]) -> dict[str, object]:
        key = (source, self.cc)
        if key not in _CUBINS:
            _CUBINS[key] = self._compile(source)
        module = self._ok(self.driver.cuModuleLoadData(_CUBINS[key]))
        self.modules.append(module)
        return {name: self._ok(self.driver.cuModuleGetFunction(module, name.encode())) for name in names}

    def _compile(self, source: str) -> bytes:
        nvrtc = self.nvrtc
        prog = self._ok(nvrtc.nvrtcCreateProgram(source.encode(), b"kt_compare.cu", 0, [], []))
        opts = [f"--gpu-architecture=sm_{self.cc}".encode()]
        try:
            self._ok(nvrtc.nvrtcCompileProgram(prog, len(opts), opts))
        except RuntimeError:
            size = self._ok(nvrtc.nvrtcGetProgramLogSize(prog))
            log = b" " * size
            nvrtc.nvrtcGetProgramLog(prog, log)
            raise RuntimeError(log.decode(errors="replace").strip()) from None
        cubin = b" " * self._ok(nvrtc.nvrtcGetCUBINSize(prog))
        self._ok(nvrtc.nvrtcGetCUBIN(prog, cubin))
        nvrtc.nvrtcDestroyProgram(prog)
        return cubin

    def launch(self, fn: Any, blocks: int, out: int, ref: int, n: int, a: float, b: float, k: int, acc: int) -> None:
        c = ctypes
        values = (self.ptr(out), self.ptr(ref), np.uint64(n), np.float64(a), np.float64(b), np.int64(k), self.ptr(acc))
        types = (None, None, c.c_uint64, c.c_double, c.c_double, c.c_int64, None)
        stream = self.driver.CUstream(0)
        self._ok(self.driver.cuLaunchKernel(fn, blocks, 1, 1, BLOCK, 1, 1, 0, stream, (values, types), 0))


class _Cupy:
    def __init__(self, dev: Any):
        import cupy  # the backend in use: only its own library is installed

        self.cp = cupy
        self.modules: list[object] = []

    def buffer_ptr(self, buf: object) -> int | None:
        ok = isinstance(buf, self.cp.ndarray) and buf.flags.c_contiguous
        return int(buf.data.ptr) if ok else None  # type: ignore[attr-defined]

    def buffer_nbytes(self, buf: object) -> int:
        return int(buf.nbytes)  # type: ignore[attr-defined]

    def alloc(self, nbytes: int) -> tuple[object, int]:
        mem = self.cp.cuda.alloc(max(nbytes, 1))
        return mem, int(mem.ptr)

    def release(self, handle: object) -> None:
        pass  # the MemoryPointer goes with its last reference

    def _copy(self, dst: int, src: int, nbytes: int, kind: int) -> None:
        self.cp.cuda.runtime.memcpy(dst, src, nbytes, kind)

    def htod(self, ptr: int, host: np.ndarray) -> None:
        self._copy(ptr, host.ctypes.data, host.nbytes, self.cp.cuda.runtime.memcpyHostToDevice)

    def dtoh(self, host: np.ndarray, ptr: int) -> None:
        self._copy(host.ctypes.data, ptr, host.nbytes, self.cp.cuda.runtime.memcpyDeviceToHost)

    def dtod(self, dst: int, src: int, nbytes: int) -> None:
        self._copy(dst, src, nbytes, self.cp.cuda.runtime.memcpyDeviceToDevice)

    def free_bytes(self) -> int:
        return int(self.cp.cuda.runtime.memGetInfo()[0]) + int(self.cp.get_default_memory_pool().free_bytes())

    def build(self, source: str, names: list[str]) -> dict[str, object]:
        from ..nvrtc import cupy_plain  # here: as cupy above
        from .loaders import Module  # as above

        cc = int(self.cp.cuda.Device().compute_capability)
        key = (source, f"cupy {cc}")
        if key not in _CUBINS:
            _CUBINS[key] = cupy_plain(source, cc)
        module = Module(_CUBINS[key])
        self.modules.append(module)
        return {name: module.get_function(name) for name in names}

    def launch(self, fn: Any, blocks: int, out: int, ref: int, n: int, a: float, b: float, k: int, acc: int) -> None:
        u = np.uint64
        fn((blocks,), (BLOCK,), (u(out), u(ref), u(n), np.float64(a), np.float64(b), np.int64(k), u(acc)))


# kernel_tuner's backend class name (dev.dev) -> how to reach the device through its library
BACKENDS: dict[str, type] = {"PyCudaFunctions": _PyCuda, "CudaFunctions": _NvCuda, "CupyFunctions": _Cupy}


def backend_for(dev: Any) -> tuple[Backend | None, str]:
    """The device access of kernel_tuner's DeviceInterface `dev`, or None and why not."""
    name = type(getattr(dev, "dev", None)).__name__
    made = BACKENDS.get(name)
    if made is None:
        return None, f"the {name} backend has no device comparison"
    try:
        return made(dev), ""
    except ImportError as e:
        return None, f"{name}: {e}"
