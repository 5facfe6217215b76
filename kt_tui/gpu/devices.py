"""The app's handles on its device workers, one per GPU: a local process (`LocalDevice`) or a Ray
actor (gpu/raydevice.py). Each is started, sent messages (gpu/wire.py, gpu/protocol.py) and polled
for its events without blocking, killed and restarted; what to send and when is the runner's
(gpu/runner.py) and the Tuner's (gpu/tuner.py). Nothing here touches CUDA."""

from __future__ import annotations

import importlib
import multiprocessing as mp
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing import resource_tracker
from typing import Any, Protocol

from .env import secret_names
from .supervise import kill_tree
from .timeline import mark

_ENV_LOCK = threading.Lock()
MAX_RESTARTS_WITHOUT_PROGRESS = 3


class WorkerError(RuntimeError):
    pass


class WorkerClosed(RuntimeError):
    """The app shut the workers down on purpose (quit): the run is interrupted, not failed."""


@dataclass
class Control:
    """What the Tuner sets from other threads while a run goes on."""

    stop: bool = False
    paused: bool = False
    closing: bool = False
    held: Callable[[Device], bool] = field(default=lambda d: False)  # a device that may not run yet


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
    # by name: the device side's modules load in this process only (the app never imports them)
    importlib.import_module("kt_tui.gpu.device.main").main(*args)


class Proc(Protocol):
    """What a device handle holds of its worker: a spawned process, or a Ray actor."""

    @property
    def exitcode(self) -> int | str | None: ...
    def is_alive(self) -> bool: ...
    def kill(self) -> None: ...
    def join(self, timeout: float | None = None) -> None: ...


class Requests(Protocol):
    def put(self, job: Any, /) -> None: ...


class Events(Protocol):
    def get(self, timeout: float) -> Any: ...


def local_gpu_count() -> int | None:
    """The GPUs this host shows (CUDA_VISIBLE_DEVICES first, then nvidia-smi); None when unknown."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return len([d for d in visible.split(",") if d.strip() and not d.strip().startswith("-")])
    smi = shutil.which("nvidia-smi")
    if not smi:
        return None
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return sum(1 for line in out.splitlines() if line.startswith("GPU "))


class Device:
    """A device worker, seen from the app: send it messages, poll its events, kill and restart it."""

    label = "gpu"
    proc: Proc | None = None
    requests: Requests
    events: Events

    def __init__(self) -> None:
        self.restarts = 0
        self.asked = False  # ever sent a message: close() then lets it end on its own
        self.loaded: str | None = None  # the run_id of the Load this worker holds

    def start(self) -> None:
        raise NotImplementedError

    def alive(self) -> bool:
        return self.proc is not None and self.proc.is_alive()

    def exitcode(self) -> int | str | None:
        return self.proc.exitcode if self.proc is not None else None

    def send(self, message: Any) -> None:
        """Hand the worker a message (it is queued; nothing waits for the worker)."""
        self.asked = True
        self.requests.put(message)

    def poll(self, timeout: float = 0.0) -> tuple | None:
        """The worker's next event (kind, run_id, payload), or None when none came within `timeout`."""
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None

    def ensure(self) -> None:
        """A worker that is running: started, or started again after it died."""
        if not self.alive():
            if self.proc is not None:
                self.restarts += 1
            self.loaded = None
            self.start()

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
        self.loaded = None

    def close(self) -> None:
        """End the worker: one that was asked for something ends on its own; one that never was is
        stopped at once (it may still be importing kernel_tuner, and holds nothing)."""
        proc = self.proc
        if proc is not None and proc.is_alive() and self.asked:
            self.requests.put(None)
            proc.join(3)
        self.kill()


class LocalDevice(Device):
    """A worker process on this host: the one GPU it is given, or GPU number `index` of those
    visible (pinned with CUDA_VISIBLE_DEVICES)."""

    def __init__(self, index: int | None = None, log_path: str | None = None, warm_cuda: bool = True):
        super().__init__()
        self.warm_cuda = warm_cuda  # the CUDA driver started while it imports (device/cudawarm.py)
        base, ext = os.path.splitext(log_path) if log_path else (None, "")
        self.index = index
        self.log_path = f"{base}.gpu{index}{ext}" if base and index is not None else log_path
        self.label = f"gpu{index}" if index is not None else "gpu"
        self.env: dict[str, str] = {}
        self._ctx = mp.get_context("spawn")

    def start(self) -> None:
        env: dict[str, str] = {}
        if self.index is not None:
            visible = os.environ.get("CUDA_VISIBLE_DEVICES")
            ids = [d.strip() for d in visible.split(",")] if visible else None
            env["CUDA_VISIBLE_DEVICES"] = ids[self.index] if ids and self.index < len(ids) else str(self.index)
        if not self.warm_cuda:
            env["KT_TUI_CUDA_WARM"] = "0"
        self.env = env
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
                proc = self._ctx.Process(
                    target=_worker_entry,
                    name="kt-tui-gpu",
                    daemon=True,
                    args=(env, self.requests, _Sender(writer), self.log_path, os.getpid()),
                )
                self.proc = proc
                proc.start()
                mark("main: worker spawned")
                writer.close()
                self.events = _Receiver(reader)
            finally:
                sys.stdout, sys.stderr = streams
                os.environ.update(hidden)
