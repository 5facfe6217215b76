"""The GPUs of a Ray cluster (`--ray ADDRESS`) as workers of a GpuPool (gpu/pool.py).

Each GPU gets a Ray actor that runs the same jobs as the local GPU worker (kernel_tuner with our
streaming strategy, verification, checks at other sizes). `RayWorker` is a `GpuWorker` whose
process is that actor, so each GPU keeps its own watchdog: a hang or crash restarts that actor
only. Nothing here touches CUDA, and the actors never see the API key.
"""

from __future__ import annotations

import contextlib
import os
import queue
import socket
import threading
import time
from typing import Any

from .client import _ENV_LOCK, GpuWorker, WorkerError
from .env import is_secret
from .protocol import CheckJob, ProbeJob, TuneJob
from .scale import INSTALL, ScaleError

# Imported where used: ray (optional: kt-tui[ray]), the worker's modules (they run in the Ray
# actors' processes, with kernel_tuner) and kernel_tuner itself.


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


# -- inside the actor ----------------------------------------------------------------------
class _Actor:
    """Runs its jobs one at a time on one thread of its own, its messages into a queue the app
    reads; the app sets its flags. One thread for the actor's life: a CUDA context belongs to the
    thread that made it, and pycuda aborts the whole process when a thread ends with a context on
    its stack (`pycuda::context_stack::~context_stack`; with a thread per job every actor died
    after its first job: "Worker unexpectedly exits with a connection error code 2")."""

    def __init__(self, out: Any) -> None:
        self.out = out  # a Ray queue: a message is stored there before the next line can crash us
        self.flags = {"stop": threading.Event(), "pause": threading.Event()}
        self.jobs: queue.Queue = queue.Queue()
        self.ended = threading.Event()
        threading.Thread(target=self._loop, name="kt-tui-jobs", daemon=True).start()

    def _loop(self) -> None:
        self._warm()
        while True:
            job = self.jobs.get()
            if job is None:  # the app ends this actor: nothing runs when Ray then kills it
                from .timeline import mark

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

        from .timeline import mark
        from .device import cudawarm

        if ray.get_gpu_ids():
            cudawarm.start()
        try:
            from .device import checking, main, tuning  # noqa: F401 - loaded now, not in the first job's time
        except Exception:  # noqa: BLE001 - the first job meets it again and reports it
            return
        mark("worker: imports done")

    def where(self) -> dict:
        import ray

        return {"host": socket.gethostname(), "gpus": [str(g) for g in ray.get_gpu_ids()], "pid": os.getpid()}

    def submit(self, job) -> None:
        self.jobs.put(job)

    def end(self, timeout: float) -> bool:
        """Stop after the job running now (if any) and park the job thread; True once it is parked."""
        self.flags["stop"].set()
        self.flags["pause"].clear()
        self.jobs.put(None)
        return self.ended.wait(timeout)

    def ping(self) -> bool:
        return True

    def flag(self, name: str, on: bool) -> None:
        (self.flags[name].set if on else self.flags[name].clear)()

    def _put(self, message) -> None:
        self.out.put(message)

    def _run(self, job) -> None:
        from ..kernel.inputs import allow_user_code
        from .device.checking import run_check_job
        from .device.main import _explain, _stop_or_wait, probe_backends
        from .device.tuning import ContextLost, run_tune_job

        allow_user_code()  # the actor is a GPU worker: init, verify and reference functions run here
        if isinstance(job, ProbeJob):
            self._put(("probe", None, probe_backends(job.backends)))
            return
        if not isinstance(job, (TuneJob, CheckJob)):
            return  # a PrepareJob: an actor makes its inputs with its first job
        self.flags["stop"].clear()

        def emit(kind, payload):
            self._put((kind, job.run_id, payload))

        try:
            if isinstance(job, CheckJob):
                info = run_check_job(job, emit)
            else:
                info = run_tune_job(job, emit, lambda: _stop_or_wait(self.flags["stop"], self.flags["pause"]))
            self._put(("done", job.run_id, info))
        except ContextLost as e:
            self._put(("restart", job.run_id, {"reason": str(e)}))  # the app starts a fresh actor
        except Exception as e:  # noqa: BLE001 - reported to the app, which decides
            self._put(("failed", job.run_id, {"error": _explain(e)}))


# -- the app's side ------------------------------------------------------------------------
class _ActorProc:
    """What GpuWorker expects of its process, for an actor."""

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


class _Flag:
    def __init__(self, proc: _ActorProc, name: str):
        self.proc, self.name, self.on = proc, name, False

    def set(self) -> None:
        self.on = True
        self.proc.actor.flag.remote(self.name, True)

    def clear(self) -> None:
        self.on = False
        self.proc.actor.flag.remote(self.name, False)

    def is_set(self) -> bool:
        return self.on


class _Events:
    def __init__(self, proc: _ActorProc):
        self.proc = proc

    def get(self, timeout: float):
        import ray
        from ray.util.queue import Empty

        try:
            return self.proc.out.get(timeout=timeout)
        except Empty:
            raise queue.Empty from None
        except ray.exceptions.RayError as e:  # the queue is gone with its host, or killed on quit
            self.proc.dead, self.proc.exitcode = True, type(e).__name__
            time.sleep(timeout)
            raise queue.Empty from None


class RayWorker(GpuWorker):
    """A GpuWorker whose process is a Ray actor holding one GPU (none when it replays a cache)."""

    END_S = 30  # how long an orderly end waits for the job running on the actor

    def __init__(self, index: int, num_gpus: float = 1, env: dict | None = None):
        super().__init__()
        self.index, self.num_gpus, self.extra_env = index, num_gpus, dict(env or {})
        self.label = f"w{index}"
        self.actor_id: str | None = None
        self.pid: int | None = None

    def start(self) -> None:
        import ray
        from ray.util.queue import Queue

        out = Queue(actor_options={"num_cpus": 0})
        actor_class = ray.remote(_Actor).options(
            num_gpus=self.num_gpus,
            num_cpus=0 if not self.num_gpus else 1,
            max_concurrency=4,
            runtime_env={"env_vars": _actor_env() | self.extra_env},
        )
        self.proc = _ActorProc(actor_class.remote(out), out)
        self.requests, self.events = _Requests(self.proc), _Events(self.proc)
        self.stop_flag, self.pause_flag = _Flag(self.proc, "stop"), _Flag(self.proc, "pause")
        if self.paused:
            self.pause_flag.set()
        try:
            where: dict = ray.get(self.proc.actor.where.remote(), timeout=300)
        except ray.exceptions.RayError as e:
            self.proc.kill()
            raise WorkerError(f"the Ray worker {self.label} did not start: {e}") from None
        gpu = ",".join(where["gpus"])
        self.label = f"{where['host']}:gpu{gpu}" if gpu else f"{where['host']}:w{self.index}"
        self.pid, self.actor_id = where["pid"], self.proc.actor._actor_id.hex()

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
