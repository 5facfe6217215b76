"""The GPUs of a Ray cluster (`--ray ADDRESS`) as device workers of the Tuner (gpu/tuner.py).

Each GPU gets a Ray actor (gpu/device/rayactor.py) that answers the same messages as the local
device worker (Load, Run, probes, checks at other sizes). `RayDevice` is a device handle whose
process is that actor, so each GPU keeps its own watchdog: a hang or crash restarts that actor
only. Nothing here touches CUDA, and the actors never see the API key.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import queue
import threading
import time
from typing import Any

from .devices import _ENV_LOCK, Device, WorkerError
from .env import is_secret
from .scale import INSTALL, ScaleError

# Imported where used: ray (optional: kt-tui[ray]); the actor's module is named, never imported
# here: it runs in the Ray actors' processes, with kernel_tuner.


def require_ray():
    try:
        import ray
    except ImportError:
        raise ScaleError(f"--ray needs Ray, which is not installed: {INSTALL}") from None
    return ray


def connect(address: str | None, log_path: str | None = None):
    """Join the cluster at `address`, or start a local one. Ray's own processes inherit our
    stdout and stderr as they start: both point at the session's log meanwhile, so that nothing
    of Ray's reaches the user's terminal or the JSON that `run --json` prints."""
    ray = require_ray()
    if ray.is_initialized():
        return ray
    with _no_secrets(), _output_to(log_path):
        kwargs: dict[str, Any] = dict(include_dashboard=False, log_to_driver=False, configure_logging=False)
        if address:  # kt-tui's own code goes with the session; its dependencies must be there
            here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            kwargs.update(address=address, runtime_env={"py_modules": [here]})
        try:
            ray.init(**kwargs)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise ScaleError(f"--ray {address or '(local)'}: cannot start or join the Ray cluster: {e}") from None
    _errors_to(log_path)
    return ray


def _errors_to(log_path: str | None) -> None:
    """Ray's driver prints the cluster's error messages (a worker died, ...) to sys.stdout from a
    thread of its own, whatever log_to_driver says: they go to the log instead. (Ray 2.60's
    `ray._private.worker.print_to_stdstream`; where it is not there, nothing is changed.)"""
    try:
        from ray._private import worker as ray_worker  # here: Ray's own driver module, after init
    except ImportError:
        return
    if not hasattr(ray_worker, "print_to_stdstream"):
        return

    def to_log(data: dict, ignore_prefix: bool = False) -> None:
        try:
            with open(log_path or os.devnull, "a") as f:
                for line in data.get("lines", []):
                    f.write(f"ray ({data.get('pid')}): {line}\n")
        except OSError:
            pass

    ray_worker.print_to_stdstream = to_log


class _ByThread:
    """sys.stdout or sys.stderr while Ray starts: the main thread's lines go where they always go,
    every other thread's (Ray's, as it starts on a thread of the pool) to the log."""

    def __init__(self, real, log):
        self.real, self.log, self.main = real, log, threading.main_thread()

    def write(self, text: str) -> int:
        return (self.real if threading.current_thread() is self.main else self.log).write(text)

    def flush(self) -> None:
        for stream in (self.real, self.log):
            with contextlib.suppress(Exception):
                stream.flush()

    def __getattr__(self, name: str):
        return getattr(self.real, name)


@contextlib.contextmanager
def _output_to(log_path: str | None):
    import sys

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        fd = os.open(log_path or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    except OSError:
        fd = os.open(os.devnull, os.O_WRONLY)
    saved = [os.dup(1), os.dup(2)]
    streams = sys.stdout, sys.stderr
    routed: list[_ByThread] = []
    if threading.current_thread() is not threading.main_thread():
        # the main thread goes on meanwhile: its own output still reaches the terminal
        log = open(os.dup(fd), "w", buffering=1, errors="replace")  # noqa: SIM115 - see below
        for stream, real in zip(streams, (sys.__stdout__, sys.__stderr__)):
            if stream is real:  # fd 1 or 2, which point at the log meanwhile: a copy of what they were
                stream = open(os.dup(saved[len(routed)]), "w", buffering=1, errors="replace")  # noqa: SIM115
            routed.append(_ByThread(stream, log))
        sys.stdout, sys.stderr = routed[0], routed[1]
    try:
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        if routed:
            # left open: a handler Ray made meanwhile may hold them (its threads' lines then go to the log)
            sys.stdout, sys.stderr = streams
        for f in (*saved, fd):
            os.close(f)


@contextlib.contextmanager
def _no_secrets():
    """A local Ray cluster's processes inherit this environment: keys and tokens are taken out."""
    with _ENV_LOCK:
        hidden = {
            k: os.environ.pop(k) for k in list(os.environ) if is_secret(k, os.environ[k]) and not k.startswith("RAY_")
        }
        try:
            yield
        finally:
            os.environ.update(hidden)


def _actor_env() -> dict:
    """What an actor's environment gets from ours: kt-tui's own switches, never a secret."""
    return {
        k: v
        for k, v in os.environ.items()
        if k.startswith("KT_TUI_")
        and not is_secret(k, v)
        and k not in ("KT_TUI_DB", "KT_TUI_CONFIG_DIR", "KT_TUI_DATA_DIR")
    }


# -- the app's side ------------------------------------------------------------------------
class _ActorProc:
    """What a device handle expects of its process, for an actor."""

    def __init__(self, actor, out):
        self.actor, self.out, self.dead, self.exitcode = actor, out, False, None

    def is_alive(self) -> bool:
        import ray

        if not self.dead:
            try:
                ray.get(self.actor.ping.remote(), timeout=10)
            except ray.exceptions.GetTimeoutError:
                pass  # busy, not dead: the watchdog judges by time
            except ray.exceptions.RayError as e:
                self.dead, self.exitcode = True, type(e).__name__
        return not self.dead

    def kill(self) -> None:
        import ray

        self.dead = True
        for actor in (self.actor, self.out.actor):
            with contextlib.suppress(Exception):
                ray.kill(actor, no_restart=True)

    def join(self, timeout=None) -> None:
        pass


class _Requests:
    def __init__(self, proc: _ActorProc):
        self.proc = proc

    def put(self, job) -> None:
        if job is not None:
            self.proc.actor.submit.remote(job)


class _Events:
    def __init__(self, proc: _ActorProc):
        self.proc = proc

    def get(self, timeout: float):
        import ray
        from ray.util.queue import Empty

        try:
            # a wait of 0 never finds what is there (the queue's actor cancels its read before it
            # runs): no wait is a read without blocking
            return self.proc.out.get(block=False) if timeout <= 0 else self.proc.out.get(timeout=timeout)
        except Empty:
            raise queue.Empty from None
        except ray.exceptions.RayError as e:  # the queue is gone with its host, or killed on quit
            self.proc.dead, self.proc.exitcode = True, type(e).__name__
            time.sleep(timeout)
            raise queue.Empty from None


class RayDevice(Device):
    """A device worker that is a Ray actor holding one GPU (none when it replays a cache)."""

    END_S = 30  # how long an orderly end waits for the job running on the actor

    def __init__(self, index: int, num_gpus: float = 1):
        super().__init__()
        self.index, self.num_gpus = index, num_gpus
        self.label = f"w{index}"
        self.actor_id: str | None = None
        self.pid: int | None = None

    def start(self) -> None:
        import ray
        from ray.util.queue import Queue

        actor = importlib.import_module("kt_tui.gpu.device.rayactor").Actor  # by name: the actor's side
        out = Queue(actor_options={"num_cpus": 0})
        actor_class = ray.remote(actor).options(
            num_gpus=self.num_gpus,
            num_cpus=0 if not self.num_gpus else 1,
            max_concurrency=4,
            runtime_env={"env_vars": _actor_env()},
        )
        proc = _ActorProc(actor_class.remote(out), out)
        self.proc = proc
        self.requests, self.events = _Requests(proc), _Events(proc)
        try:
            where: dict = ray.get(proc.actor.where.remote(), timeout=300)
        except ray.exceptions.RayError as e:
            proc.kill()
            raise WorkerError(f"the Ray worker {self.label} did not start: {e}") from None
        gpu = ",".join(where["gpus"])
        self.label = f"{where['host']}:gpu{gpu}" if gpu else f"{where['host']}:w{self.index}"
        self.pid, self.actor_id = where["pid"], proc.actor._actor_id.hex()

    def exitcode(self) -> int | str | None:
        return self.proc.exitcode if self.proc is not None else None

    def close(self) -> None:
        """An orderly end: the actor finishes what it runs and ends its job thread, its last
        messages are read, and only then are it and its queue killed (never in the middle of a call)."""
        import ray

        proc = self.proc
        if isinstance(proc, _ActorProc) and not proc.dead:
            try:
                ray.get(proc.actor.end.remote(self.END_S), timeout=self.END_S + 10)
            except ray.exceptions.RayError:
                pass  # gone already, or stuck in a kernel: killed below as before
        self.kill()
