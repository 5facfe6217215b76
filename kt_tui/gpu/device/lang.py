"""kernel_tuner's `lang` decides two things at once: which backend runs (PYCUDA, NVCUDA, CUPY, or
CUDA for its own pick) and how the kernel string is prepared. Only lang "CUDA" gets
`constexpr int loop_unroll_factor_* = N;` and template wrapping (kernel_tuner 1.5.0, util and
core); under lang "pycuda" the same parameter becomes a #define that `#pragma unroll` does not
expand, and the kernel no longer compiles. kt-tui always passes lang "CUDA", so every kernel is
prepared as a kernel_tuner script with lang "CUDA" would prepare it, and pins the backend that
kernel_tuner's CUDA pick returns to the one the session chose.
"""

from __future__ import annotations

import importlib
from contextlib import contextmanager
from typing import Any

from ..ktimport import load

BACKENDS = {
    "pycuda": ("kernel_tuner.backends.pycuda", "PyCudaFunctions"),
    "nvcuda": ("kernel_tuner.backends.nvcuda", "CudaFunctions"),
    "cupy": ("kernel_tuner.backends.cupy", "CupyFunctions"),
}


@contextmanager
def cuda_lang(backend: str):
    """Inside: kernel_tuner's lang "CUDA" runs on `backend`. Yields the lang to pass."""
    if backend not in BACKENDS:
        yield backend
        return
    load()
    import kernel_tuner.core as core  # after load(): kernel_tuner without torch

    module, name = BACKENDS[backend]
    chosen = getattr(importlib.import_module(module), name)
    saved = core._select_default_cuda_backend
    core._select_default_cuda_backend = lambda: chosen
    try:
        with whole_uuids(backend):
            yield "CUDA"
    finally:
        core._select_default_cuda_backend = saved


@contextmanager
def whole_uuids(backend: str):
    """cupy returns a device's 16-byte UUID cut at its first zero byte, and kernel_tuner's cupy
    backend then fails in `uuid.UUID(bytes=...)` ("bytes is not a 16-char string") on every GPU
    whose UUID holds a zero byte. Inside: the UUID is padded back to 16 bytes (the bytes after the
    cut are lost; kernel_tuner only records it)."""
    runtime = _cupy_runtime() if backend == "cupy" else None
    if runtime is None:
        yield
        return
    saved = runtime.getDeviceProperties
    runtime.getDeviceProperties = padded_uuid(saved)
    try:
        yield
    finally:
        runtime.getDeviceProperties = saved


def _cupy_runtime() -> Any:
    try:
        import cupy  # here: only a session on the cupy backend loads it
    except ImportError:
        return None
    return cupy.cuda.runtime


def padded_uuid(get):
    def properties(device):
        props = get(device)
        found = props.get("uuid") if isinstance(props, dict) else None
        if isinstance(found, bytes) and len(found) < 16:
            props = dict(props, uuid=found.ljust(16, b"\0"))
        return props

    return properties


@contextmanager
def numpy_arguments(backend: str):
    """Inside, outside cupy: kernel_tuner's question "is cupy there?", asked of every argument, is
    answered no. kt-tui's arguments are numpy arrays, and importing cupy to find that out cost 0.7 s
    per job on the H100. (benchmarks/plain_kt.py leaves kernel_tuner to pay it, as a script does.)"""
    if backend == "cupy":
        yield
        return
    load()
    import kernel_tuner.core as core  # after load(): kernel_tuner without torch
    import kernel_tuner.util as util  # after load(), as above

    saved = core._get_cupy, util._get_cupy
    core._get_cupy = util._get_cupy = _no_cupy
    try:
        yield
    finally:
        core._get_cupy, util._get_cupy = saved


def _no_cupy():
    return None


def by_value(args: list[Any], backend: str) -> list[Any]:
    """The arguments as `backend` takes them: cupy passes no structured numpy scalar (a CUDA vector
    of 16 bytes passed by value, float4 or double2: kernel/inputs.py vector_value), so there the same
    16 bytes go as a complex128, which it passes by value; pycuda takes the struct (cuda-python takes
    none: engine/backend.py never picks nvcuda for a kernel taking one)."""
    if backend != "cupy":
        return args
    import numpy as np  # in the GPU worker only

    return [
        np.frombuffer(a.tobytes(), np.complex128)[0] if isinstance(a, np.void) and a.dtype.itemsize == 16 else a
        for a in args
    ]
