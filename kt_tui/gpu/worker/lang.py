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
        yield "CUDA"
    finally:
        core._select_default_cuda_backend = saved


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
