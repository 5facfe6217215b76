"""The device comparison's kernels built for the host with a C++ compiler and run on numpy arrays
standing for device buffers: the CPU tests of kt_tui/gpu/device/compare.py run its real kernel code
and its real Checker through this backend (compare.py's source builds for the host as well)."""

from __future__ import annotations

import ctypes
import hashlib
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

CXX = shutil.which("g++") or shutil.which("c++")
_built: dict[str, ctypes.CDLL] = {}
_WHERE = tempfile.TemporaryDirectory(prefix="kt-compare-host-")  # removed when the test process ends


def build_host(source: str) -> ctypes.CDLL:
    """The source as a host shared library (kept per source for the test session)."""
    key = hashlib.sha256(source.encode()).hexdigest()[:16]
    if key not in _built:
        where = Path(_WHERE.name) / key
        where.mkdir()
        (where / "k.cpp").write_text(source)
        cmd = [CXX or "c++", "-O2", "-ffp-contract=off", "-fno-fast-math", "-shared", "-fPIC", "-o", "k.so", "k.cpp"]
        subprocess.run(cmd, cwd=where, check=True, capture_output=True)
        _built[key] = ctypes.CDLL(str(where / "k.so"))
    return _built[key]


class HostFunctions:
    """Stands for a kernel_tuner backend object (dev.dev); its class name picks HostBackend."""

    def __init__(self, free: int = 1 << 40):
        self.free = free


class HostDevice:
    """Stands for kernel_tuner's DeviceInterface: the device buffers are numpy arrays."""

    def __init__(self, free: int = 1 << 40):
        self.dev = HostFunctions(free)

    def memcpy_dtoh(self, dest: np.ndarray, src: Any) -> None:
        np.copyto(dest, np.asarray(src).reshape(dest.shape))


class HostBackend:
    """compare.py's Backend on host memory: pointers are the arrays' addresses."""

    released: list[int] = []
    builds = 0

    def __init__(self, dev: Any):
        self.dev = dev
        self.held: dict[int, np.ndarray] = {}

    def buffer_ptr(self, buf: object) -> int | None:
        return int(buf.ctypes.data) if isinstance(buf, np.ndarray) and buf.flags.c_contiguous else None

    def buffer_nbytes(self, buf: object) -> int:
        return int(buf.nbytes)  # type: ignore[attr-defined]

    def alloc(self, nbytes: int) -> tuple[object, int]:
        mem = np.zeros(max(nbytes, 1), np.uint8)
        self.held[mem.ctypes.data] = mem
        return mem, int(mem.ctypes.data)

    def release(self, handle: object) -> None:
        ptr = int(handle.ctypes.data)  # type: ignore[attr-defined]
        HostBackend.released.append(ptr)
        self.held.pop(ptr)

    def htod(self, ptr: int, host: np.ndarray) -> None:
        ctypes.memmove(ptr, np.ascontiguousarray(host).ctypes.data, host.nbytes)

    def dtoh(self, host: np.ndarray, ptr: int) -> None:
        ctypes.memmove(host.ctypes.data, ptr, host.nbytes)

    def dtod(self, dst: int, src: int, nbytes: int) -> None:
        ctypes.memmove(dst, src, nbytes)

    def free_bytes(self) -> int:
        return int(self.dev.dev.free)

    def build(self, source: str, names: list[str]) -> dict[str, object]:
        HostBackend.builds += 1
        lib = build_host(source)
        fns = {}
        for name in names:
            fn = getattr(lib, name)
            c = ctypes
            fn.argtypes = [c.c_void_p, c.c_void_p, c.c_uint64, c.c_double, c.c_double, c.c_int64, c.c_void_p]
            fn.restype = None
            fns[name] = fn
        return fns

    def launch(self, fn: Any, blocks: int, out: int, ref: int, n: int, a: float, b: float, k: int, acc: int) -> None:
        fn(out, ref, n, a, b, k, acc)
