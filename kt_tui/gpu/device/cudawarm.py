"""The CUDA driver started on a thread while the worker imports numpy and kernel_tuner.

cuInit and the device's primary context (the one kernel_tuner's pycuda and cuda-python backends
retain and cupy's runtime uses) take a large part of a second on a big GPU. Called through ctypes,
they run without the GIL, so the imports go on meanwhile. The context stays retained for the
worker's life: the backend's own retain then finds it made. Without a driver (no GPU, a replay
machine) nothing happens. KT_TUI_CUDA_WARM=0 turns it off (the app does so for --backend sim).
"""

from __future__ import annotations

import ctypes
import os
import threading

from ..timeline import mark

LIBRARY = "libcuda.so.1"
_KEPT: list[object] = []  # the driver library and the retained context, kept for the worker's life


def start() -> threading.Thread | None:
    """Start the warm-up thread, or None where it is turned off."""
    if os.environ.get("KT_TUI_CUDA_WARM", "1") == "0":
        return None
    thread = threading.Thread(target=warm, name="kt-tui-cuda-warm", daemon=True)
    thread.start()
    return thread


def warm() -> bool:
    """cuInit, then device 0's primary context retained. False (and a trace mark) where either fails."""
    try:
        lib = ctypes.CDLL(LIBRARY)
    except OSError:
        mark("worker: no CUDA driver")
        return False
    dev, ctx = ctypes.c_int(0), ctypes.c_void_p()
    try:
        ok = (
            lib.cuInit(0) == 0
            and lib.cuDeviceGet(ctypes.byref(dev), 0) == 0
            and lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
        )
    except AttributeError:  # a library of that name without the driver's functions
        ok = False
    if not ok:
        mark("worker: CUDA warm-up failed")  # the backend meets the same problem and says what it is
        return False
    _KEPT.extend((lib, ctx))
    mark("worker: CUDA context up")
    return True
