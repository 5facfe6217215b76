"""The app's side of the GPU worker: start it, feed it jobs, watch it, and restart it when a kernel
hangs or takes the CUDA context down. Nothing here touches CUDA."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing import resource_tracker
from typing import Any, Protocol

from ..records import Result
from .env import secret_names
from .protocol import BACKENDS, CheckJob, PrepareJob, ProbeJob, TuneJob
from .supervise import kill_tree
from .timeline import mark

_ENV_LOCK = threading.Lock()
MAX_RESTARTS_WITHOUT_PROGRESS = 3


class WorkerError(RuntimeError):
    pass


class WorkerClosed(RuntimeError):
    """The app shut the worker down on purpose (quit): the run is interrupted, not failed."""


class _Sender:
    """The worker's end: a pipe, so that a message is out before the next line can crash the
    process (a multiprocessing.Queue sends from a background thread and can lose it)."""

    def __init__(self, conn) -> None:
        self.conn = conn

    def put(self, message) -> None:
        self.conn.send(message)


class _Receiver:
    def __init__(self, conn) -> None:
        self.conn = conn

    def get(self, timeout: float):
        try:
            if self.conn.poll(timeout):
                return self.conn.recv()
        except (EOFError, OSError):
            time.sleep(timeout)  # the worker is gone; the caller sees it is not alive
        raise queue.Empty


def _tracker_to(log_path: str | None) -> None:
    """Start multiprocessing's resource tracker (once per process) with its stderr in the worker's
    log: what it reports at exit about a killed worker's semaphores is no message for the user's
    terminal (and would be drawn over the UI)."""
    if getattr(resource_tracker._resource_tracker, "_fd", None) is not None:
        return  # already running
    try:
        fd = os.open(log_path or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    except OSError:
        return
    saved = os.dup(2)
    try:
        os.dup2(fd, 2)
        resource_tracker.ensure_running()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(fd)


def _worker_entry(env: dict, *args) -> None:
    """The worker process's first step: its own variables (a GPU pinned with CUDA_VISIBLE_DEVICES)
    are set before anything loads CUDA; the app's environment is never changed for them."""
    os.environ.update(env)
    # Ctrl-C at a terminal reaches the whole process group: the app stops the run through the stop
    # flag, so the worker (and nvcc, which inherits this) never dies mid-configuration from it
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from .device.main import main  # here: the app's process needs none of the worker's modules

    main(*args)


class Proc(Protocol):
    """What GpuWorker holds of its worker: a spawned process, or a Ray actor (gpu/raypool.py)."""

    @property
    def exitcode(self) -> int | str | None: ...
    def is_alive(self) -> bool: ...
    def kill(self) -> None: ...
    def join(self, timeout: float | None = None) -> None: ...


class Requests(Protocol):
    def put(self, job: Any, /) -> None: ...


class Events(Protocol):
    def get(self, timeout: float) -> Any: ...


class Flag(Protocol):
    def set(self) -> None: ...
    def clear(self) -> None: ...
    def is_set(self) -> bool: ...


class GpuWorker:
    env: dict[str, str] = {}  # set in the worker process before it loads anything
    warm_cuda = True  # start the CUDA driver while the worker imports (gpu/device/cudawarm.py); off for a replay
    proc: Proc | None
    requests: Requests
    events: Events
    stop_flag: Flag
    pause_flag: Flag

    def __init__(self, log_path: str | None = None):
        self.log_path = log_path
        self._ctx = mp.get_context("spawn")
        self.proc = None
        self.restarts = 0
        self.closing = False
        self.paused = False
        self.asked = False  # ever given a job or a probe: close() then lets it end on its own

    # -- process lifecycle ---------------------------------------------------------------
    def start(self) -> None:
        with _ENV_LOCK:
            # the worker never sees API keys or tokens
            hidden = {k: os.environ.pop(k) for k in secret_names()}
            # a UI may have replaced stdout/stderr with objects whose fileno() is no real fd, and
            # multiprocessing hands stderr's fd to its resource tracker
            streams = sys.stdout, sys.stderr
            sys.stdout, sys.stderr = sys.__stdout__ or sys.stdout, sys.__stderr__ or sys.stderr
            try:
                _tracker_to(self.log_path)
                self.requests = self._ctx.Queue()
                reader, writer = self._ctx.Pipe(duplex=False)
                self.stop_flag = self._ctx.Event()
                self.pause_flag = self._ctx.Event()
                if self.paused:
                    self.pause_flag.set()
                proc = self._ctx.Process(
                    target=_worker_entry,
                    name="kt-tui-gpu",
                    daemon=True,
                    args=(
                        dict(self.env) | ({} if self.warm_cuda else {"KT_TUI_CUDA_WARM": "0"}),
                        self.requests,
                        _Sender(writer),
                        self.stop_flag,
                        self.log_path,
                        os.getpid(),
                        self.pause_flag,
                    ),
                )
                self.proc = proc
                proc.start()
                mark("main: worker spawned")
                writer.close()
                self.events = _Receiver(reader)
            finally:
                sys.stdout, sys.stderr = streams
                os.environ.update(hidden)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.is_alive()

    def kill(self) -> None:
        proc = self.proc  # the UI thread and the engine thread may both get here
        if proc is not None:
            if proc.is_alive():
                pid = getattr(proc, "pid", None)
                if isinstance(pid, int):
                    kill_tree(pid)  # the worker and all that user code in it started
                else:
                    proc.kill()  # a Ray actor: Ray ends it
            proc.join(5)
            self.proc = None

    def restart(self) -> None:
        self.kill()
        self.restarts += 1
        self.start()

    def shutdown(self) -> None:
        """Quit now, from any thread: a run in progress ends with WorkerClosed, nothing is recorded."""
        self.closing = True
        self.request_stop()
        self.kill()

    def close(self) -> None:
        """End the worker: one that was asked for something ends on its own; one that never was is
        stopped at once (it may still be importing kernel_tuner, and holds nothing)."""
        proc = self.proc
        if proc is not None and proc.is_alive() and self.asked:
            self.requests.put(None)
            proc.join(3)
        self.kill()

    def request_stop(self) -> None:
        """Stop after the configuration that is running now (a paused run stops at once)."""
        if self.proc is not None:
            self.stop_flag.set()
        self.pause(False)

    def pause(self, on: bool) -> None:
        """Hold (or go on) between configurations: the one running now finishes first."""
        self.paused = on
        if self.proc is not None:
            (self.pause_flag.set if on else self.pause_flag.clear)()

    def _ensure(self) -> None:
        if not self.alive():
            if self.proc is not None:
                self.restarts += 1
            self.start()

    # -- jobs ----------------------------------------------------------------------------
    def probe(self, backends=BACKENDS, timeout: float = 180) -> dict:
        self._ensure()
        self.asked = True
        self.requests.put(ProbeJob(tuple(backends)))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                kind, _, payload = self.events.get(timeout=0.5)
            except queue.Empty:
                if not self.alive():
                    self.proc = None
                    return {"backend": None, "gpu": None, "errors": {"worker": "the probe crashed the worker"}}
                continue
            if kind == "probe":
                return payload
        self.kill()
        return {"backend": None, "gpu": None, "errors": {"worker": f"no answer within {timeout:.0f}s"}}

    def test_check(
        self, source: str, spec: dict, backend: str, timeout_s: float, gpu_free: Callable[[], None] | None = None
    ) -> dict:
        """Whether the original's check can fail (gpu/checkrun.py): its state. The sanitizer and the
        runs are child processes of this one, beside the worker, each with its time limit;
        `gpu_free` is called once they have left the GPU."""
        from .checkrun import test_check  # here: numpy, at a session's first baseline only

        return test_check(source, spec, backend, timeout_s, gpu_free=gpu_free)

    def prepare(self, spec: dict, backend: str, source: str = "") -> None:
        """Have a running worker make the spec's inputs and open the device before the first job
        (gpu/protocol.py PrepareJob). A worker only prepared is still stopped at once by close()."""
        if self.alive():
            self.requests.put(PrepareJob(spec, backend, source))

    def run(self, job: TuneJob | CheckJob, on_event: Callable[[str, dict], None], timeout_s: float) -> dict:
        """Run `job` to its end. Hangs and crashes cost one configuration, not the run."""
        self._ensure()
        self.asked = True
        self.stop_flag.clear()
        self.requests.put(job)
        mark(f"main: job {job.run_id} sent")
        current, started, first = None, 0.0, True
        fruitless, results = 0, 0
        while True:
            try:
                kind, run_id, payload = self.events.get(timeout=0.2)
            except queue.Empty:
                if self.closing:
                    raise WorkerClosed("the GPU worker was shut down") from None
                lost = None
                if not self.alive():
                    lost = (
                        "crash",
                        "the GPU worker process died (exit code "
                        f"{self.proc.exitcode if self.proc else '?'}) while running this configuration",
                    )
                elif current and time.monotonic() - started > timeout_s * (2 if first else 1):
                    lost = (
                        "timeout",
                        f"no result within {timeout_s:g}s; the kernel was killed and the worker restarted",
                    )
                if lost is None:
                    continue
                fruitless += 1
                if current:
                    self._record_lost(job, current, *lost, on_event)
                if fruitless > MAX_RESTARTS_WITHOUT_PROGRESS:
                    self.kill()
                    raise WorkerError(f"the GPU worker failed {fruitless} times in a row: {lost[1]}") from None
                stop = self.stop_flag.is_set()
                self.restart()
                if stop:
                    return {"stopped": True, "device": None, "simulated": job.backend == "sim"}
                self.requests.put(job)
                current, first = None, True
                continue
            if run_id != job.run_id:
                continue
            if kind == "begin":
                current, started = payload, time.monotonic()
            elif kind == "result" and isinstance(job, TuneJob):
                results += 1
                if results == 1:
                    mark(f"main: first result {job.run_id}")
                current, first, fruitless = None, False, 0
                job.known[payload.key] = payload
                on_event(kind, payload)
            elif kind == "check" and isinstance(job, CheckJob):
                current, first, fruitless = None, False, 0
                job.done[payload["unit"]] = payload
                on_event(kind, payload)
            elif kind in ("space", "reference"):
                on_event(kind, payload)
            elif kind == "done":
                return payload
            elif kind == "failed":
                raise WorkerError(payload["error"])
            elif kind == "restart":
                self.restart()
                self.requests.put(job)
                current, first = None, True

    def _record_lost(self, job: TuneJob | CheckJob, current: dict, status: str, why: str, on_event) -> None:
        if isinstance(job, CheckJob):
            from .device.checking import lost_entry  # here: it loads numpy and kernel_tuner (worker side)

            lost = lost_entry(job, current["key"], status, why)
            job.done[lost["unit"]] = lost
            on_event("check", lost)
            return
        result = Result(
            key=current["key"],
            params=current["params"],
            status=status,
            error=why,
            source="measured",
            timestamp=time.strftime("%Y-%m-%d %H:%M:%S"),
        )
        job.known[result.key] = result
        on_event("result", result)
        if job.cachefile and os.path.exists(job.cachefile):
            entry = dict(
                current["params"],
                time="RuntimeFailedConfig",
                compile_time=0,
                verification_time=0,
                benchmark_time=0,
                kt_status=status,
                kt_error=why,
                timestamp=result.timestamp,
            )
            with open(job.cachefile, "a") as f:
                f.write("\n" + json.dumps({current["key"]: entry})[1:-1] + ",")
