"""A Ray actor holding one GPU of a cluster (`--ray`): the device worker's loop (gpu/device/main.py)
as an actor. The app's handle on it is gpu/raydevice.py RayDevice."""

from __future__ import annotations

import contextlib
import os
import queue
import socket
import threading
from typing import Any

from ..timeline import mark
from . import cudawarm

# Imported where used: ray (its actor's process has it; this module is named by the app, never
# imported there) and the worker's modules (numpy, kernel_tuner: loaded as the actor warms up).


class Actor:
    """Runs its jobs one at a time on one thread of its own, its messages into a queue the app
    reads. One thread for the actor's life: a CUDA context belongs to the
    thread that made it, and pycuda aborts the whole process when a thread ends with a context on
    its stack (`pycuda::context_stack::~context_stack`; with a thread per job every actor died
    after its first job: "Worker unexpectedly exits with a connection error code 2")."""

    def __init__(self, out: Any) -> None:
        self.out = out  # a Ray queue: a message is stored there before the next line can crash us
        self.session: Any = None  # gpu/device/session.py Session, made with the first Load
        self.jobs: queue.Queue = queue.Queue()
        self.ended = threading.Event()
        threading.Thread(target=self._loop, name="kt-tui-jobs", daemon=True).start()

    def _loop(self) -> None:
        self._warm()
        while True:
            job = self.jobs.get()
            if job is None:  # the app ends this actor: nothing runs when Ray then kills it
                mark("worker: jobs ended")
                self.ended.set()
                # the thread stays: ending it with pycuda's context on its stack aborts the process
                # (SIGABRT in ~context_stack, seen on the 2-GPU host as one "unexpected" death per actor)
                threading.Event().wait()
            try:
                self._run(job)
            except BaseException as e:  # noqa: BLE001 - the loop outlives any one job
                with contextlib.suppress(Exception):
                    self._put(("failed", getattr(job, "run_id", None), {"error": f"{type(e).__name__}: {e}"}))

    def _warm(self) -> None:
        """What the local worker does as it starts, before the first job comes: the CUDA driver on
        a thread of its own (an actor holding a GPU) while the worker's modules and kernel_tuner load."""
        import ray

        if ray.get_gpu_ids():
            cudawarm.start()
        try:
            from . import main, session  # noqa: F401 - loaded now, not in the first job's time
        except Exception:  # noqa: BLE001 - the first job meets it again and reports it
            return
        mark("worker: imports done")

    def where(self) -> dict:
        import ray

        return {"host": socket.gethostname(), "gpus": [str(g) for g in ray.get_gpu_ids()], "pid": os.getpid()}

    def submit(self, job) -> None:
        self.jobs.put(job)

    def end(self, timeout: float) -> bool:
        """End after the message handled now (if any) and park the job thread; True once it is parked."""
        self.jobs.put(None)
        return self.ended.wait(timeout)

    def ping(self) -> bool:
        return True

    def _put(self, message) -> None:
        self.out.put(message)

    def _run(self, job) -> None:
        from ...kernel.inputs import allow_user_code
        from .main import serve
        from .session import Session

        allow_user_code()  # the actor is a GPU worker: init, verify and reference functions run here
        if self.session is None:
            self.session = Session()
        serve(job, self.session, self._put)  # a lost context: the app kills this actor and starts a fresh one
