"""The GPU worker process: owns the CUDA context, runs one job at a time, streams messages back.

Started with the "spawn" method (never fork: CUDA contexts do not survive it). Its stdout and
stderr go to a log file so that compiler and kernel_tuner chatter never reaches the terminal UI.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import sys
import threading
import time
import traceback
from collections.abc import Callable

from ..env import PR_SET_CHILD_SUBREAPER, prctl
from ..protocol import PrepareJob, ProbeJob
from ..supervise import kill_tree
from ..timeline import mark
from ..wire import Load, Ran, Run
from . import cudawarm

# Imported where used: numpy, kernel_tuner, the CUDA libraries and the job code load after the
# worker is up and its CUDA warm-up has started (and tests run this loop in their own process).


def probe_backends(backends) -> dict:
    """Try each backend for real: import it, open the device, compile and launch a tiny kernel."""
    errors: dict[str, str] = {}
    for name in backends:
        try:
            gpu = _try_backend(name)
            return {"backend": name, "gpu": gpu, "errors": errors, "arch": _arch(name), "facts": _facts(name, gpu)}
        except Exception as e:  # noqa: BLE001 - every failure is a reason to report
            errors[name] = f"{type(e).__name__}: {e}".split(", install using")[0].strip()[:300]
    return {"backend": None, "gpu": None, "errors": errors}


_PROBE_SRC = "__global__ void kt_probe(float *x) { x[threadIdx.x] = threadIdx.x; }"


def _try_backend(name: str) -> str:
    import numpy as np

    from ..ktimport import load

    load()
    from kernel_tuner import run_kernel

    from .lang import cuda_lang

    x = np.zeros(32, np.float32)
    with cuda_lang(name) as lang:  # as every job runs it (on cupy: a GPU UUID holding a zero byte padded)
        out = run_kernel("kt_probe", _PROBE_SRC, 32, [x], {"block_size_x": 32}, lang=lang, quiet=True)
    if not np.array_equal(out[0], np.arange(32, dtype=np.float32)):
        raise RuntimeError("probe kernel ran but produced wrong values")
    return _device_name(name)


def _device_name(name: str) -> str:
    if name == "pycuda":
        import pycuda.driver as drv

        drv.init()
        return drv.Device(0).name()
    if name == "cupy":
        import cupy

        return cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    from cuda.bindings import driver

    driver.cuInit(0)
    err, dev = driver.cuDeviceGet(0)
    err, raw = driver.cuDeviceGetName(256, dev)
    return raw.split(b"\0", 1)[0].decode()


def _arch(name: str) -> str:
    """The device's compute capability as nvcc's -arch ("sm_90"); "" when it cannot be read."""
    from .loaders import device_cc

    try:
        return f"sm_{device_cc(name)}"
    except Exception:  # noqa: BLE001 - the offline check then says which arch it assumed
        return ""


def _facts(name: str, gpu: str) -> dict | None:
    """The device's facts and measured peaks (gpu/device/device.py); None when they cannot be read."""
    from .device import device_facts

    try:
        return device_facts(name, gpu)
    except Exception:  # noqa: BLE001 - the backend works; the prompts then say the facts are unknown
        traceback.print_exc()
        return None


def _watch_parent(parent_pid: int) -> None:
    while True:
        if os.getppid() != parent_pid:
            kill_tree(os.getpid(), root=False)
            os._exit(0)
        time.sleep(0.5)


def main(requests, events, log_path: str | None, parent_pid: int) -> None:
    if log_path:
        fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
    mark("worker: up")
    cudawarm.start()  # the driver and the device's context start while the imports below run
    # user code (init, verify, reference functions) runs here: what it starts, a setsid daemon
    # included, stays below this process and dies with it (here at exit, by the app's kill_tree)
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
    # a daemonic process may start no children (a user's input or verify function may start a
    # process pool); the app still ends this one, and this one watches the app
    mp.current_process().daemon = False
    from ...kernel.inputs import allow_user_code
    from . import prepare  # noqa: F401 - loaded now, not in the first job's time
    from .session import Session

    allow_user_code()  # init, verify and reference functions run here
    mark("worker: imports done")
    session = Session()

    while True:
        try:
            job = requests.get(timeout=1.0)
        except queue.Empty:
            continue
        if job is None:  # the app closes the worker: nothing is left to clean up, so skip Python's
            sys.stdout.flush()  # teardown of numpy and kernel_tuner (the app waits for this exit)
            sys.stderr.flush()
            kill_tree(os.getpid(), root=False)
            os._exit(0)
        if serve(job, session, lambda message: events.put(message)):  # the app starts a new worker, Loads it again
            sys.stdout.flush()
            os._exit(3)


def serve(job, session, put: Callable[[tuple], None]) -> bool:
    """One message from the app, answered through `put`, in a local worker or a Ray actor
    (device/rayactor.py); True where the worker's CUDA context is lost and the worker must end."""
    from ...kernel.spec import spec_from_plain  # here and below: loaded once the worker is up
    from .prepare import job_args

    if isinstance(job, ProbeJob):
        put(("probe", None, probe_backends(job.backends)))
        mark("worker: probe done")
    elif isinstance(job, PrepareJob):
        try:
            job_args(spec_from_plain(job.spec), job.spec)
            _device_name(job.backend)
        except Exception:  # noqa: BLE001 - the first job meets it again and reports it
            traceback.print_exc()
        mark("worker: prepared")
    elif isinstance(job, (Load, Run)):
        event = session.handle(job)
        put(event)
        return isinstance(event[2], Ran) and event[2].context_lost
    return False
