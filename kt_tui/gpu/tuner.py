"""The engine's GPU (`self.gpu`): one object for one GPU or several (`--gpus N` on this host, or a
Ray cluster with `--ray`). A tuning run's search runs here, in the app: kernel_tuner's strategy (or
our `kt` search) over kernel_tuner's Searchspace, its configurations evaluated by the QueueRunner
(gpu/runner.py) on every device worker at once, each pulling from the same queue; a CheckJob's
runs (gpu/checking.py) on the first. Nothing here touches CUDA."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from typing import Any

from ..words import counted
from .compiling import Compiling
from .devices import (
    Control,
    Device,
    LocalDevice,
    WorkerClosed,
    WorkerError,
    local_gpu_count,
)
from .protocol import BACKENDS, CheckJob, PrepareJob, ProbeJob, TuneJob
from .scale import INSTALL, ScaleError, check_settings, parse_gpus, wanted  # noqa: F401 - said here too
from .timeline import mark

# Imported where used: the run of a TuneJob (gpu/tunerun.py: numpy, kernel_tuner, the runner) and
# Ray (gpu/raydevice.py). The front starts a worker before the first frame with this module alone.

__all__ = ["INSTALL", "ScaleError", "Tuner", "WorkerClosed", "WorkerError", "local_gpu_count"]


class Busy:
    """Whether something is running (held until released)."""

    def __init__(self) -> None:
        self._count = 0
        self._lock = threading.Lock()

    def busy(self) -> bool:
        return self._count > 0

    def hold(self) -> Callable[[], None]:
        """Busy until the returned call (later calls of it do nothing)."""
        with self._lock:
            self._count += 1
        left = threading.Lock()

        def release() -> None:
            if left.acquire(blocking=False):
                with self._lock:
                    self._count -= 1

        return release


class Tuner:
    """The device workers of a session behind the engine's one interface.

    via "one" (the default): one local worker on the GPU this host gives it. via "local"
    (`--gpus N`): one worker process per GPU, each pinned with CUDA_VISIBLE_DEVICES. via "ray"
    (`--ray ADDRESS`): one Ray actor per GPU of the cluster (gpu/raydevice.py)."""

    def __init__(
        self,
        log_path: str | None = None,
        gpus: int | str | None = None,
        address: str | None = None,
        allow_mixed: bool = False,
        via: str | None = None,
        warm_cuda: bool = True,
    ):
        self.log_path = log_path
        self.gpus, self.address, self.allow_mixed = gpus or "all", address or None, allow_mixed
        self.via = via or ("ray" if self.address else "local" if gpus is not None else "one")
        # each local worker starts the CUDA driver while it imports (device/cudawarm.py); not for a replay
        self.warm_cuda = warm_cuda
        self.workers: list[Device] = [LocalDevice(None, log_path, warm_cuda)] if self.via == "one" else []
        self.devices: dict[str, str] = {}  # worker label -> GPU model, from the probe
        self.facts: dict | None = None
        self.control = Control(held=self._held)
        self.checking = Busy()  # the check's test is running (on check_gpu's GPU)
        self._starting = threading.Lock()
        self._early: threading.Thread | None = None
        self._early_error: BaseException | None = None
        self._early_done = threading.Event()
        self._connected = threading.Event()
        self._connect_error: ScaleError | None = None
        self.arch: str | None = None  # the GPU's architecture (sm_90), from the probe (or the remembered one)
        self.compiling = Compiling(self.cc, lambda: self.size, lambda: self.control.closing, lambda: self.facts)

    # -- what the engine and the front read --------------------------------------------------
    @property
    def restarts(self) -> int:
        return sum(w.restarts for w in self.workers)

    @property
    def size(self) -> int:
        return len(self.workers) if self.via != "one" else 1

    @property
    def proc(self) -> Any:
        return self.workers[0].proc if self.workers else None

    def start(self) -> None:
        """Start the (first) worker now, so that it imports while the app does other things."""
        self._ensure(1)[0].ensure()

    def alive(self) -> bool:
        return bool(self.workers) and self.workers[0].alive()

    def kill(self) -> None:
        """End every worker now (their processes and all they started)."""
        for w in self.workers:
            w.kill()

    # -- the workers ---------------------------------------------------------------------------
    def _connect(self):
        from .raydevice import connect

        if self._early is not None and threading.current_thread() is not self._early:
            self._connected.wait()  # the early start joins the cluster; a second ray.init would race it
            if self._connect_error is not None:
                raise self._connect_error  # the cluster is not there: said once, not tried again
        return connect(self.address, self.log_path)

    def start_early(self) -> None:
        """Start the workers now, in the background, while the session loads, compile-checks the
        kernel, probes and measures its baseline: the first job then finds them up (a failure is
        raised by that job). Ray is joined on that thread too, which then stays: the processes of a
        local cluster die with the thread that started them (Ray sets their parent-death signal)."""

        def start() -> None:
            try:
                gpus = 1
                if self.via == "ray":
                    try:
                        gpus = 1 if self._connect().cluster_resources().get("GPU") else 0
                    except ScaleError as e:
                        self._connect_error = e
                        raise
                    finally:
                        self._connected.set()
                mark("main: pool connected")
                self._ensure(gpus)
                mark("main: pool workers up")
            except BaseException as e:  # noqa: BLE001 - raised by the first call that needs the workers
                self._early_error = e
            finally:
                self._connected.set()
                self._early_done.set()
            if self.via == "ray":
                threading.Event().wait()

        self._early = threading.Thread(target=start, name="kt-tui-pool-start", daemon=True)
        self._early.start()

    def wait_connected(self) -> None:
        """Before a session is made: a Ray cluster that cannot be joined is a ScaleError (exit 2)."""
        if self.via == "ray":
            self._connect()

    def _ensure(self, num_gpus: float) -> list[Device]:
        if self._early is not None and threading.current_thread() is not self._early:
            self._early_done.wait()
            if self._connect_error is not None:
                raise self._connect_error
            if self._early_error is not None:  # tried again for what is asked now (a replay needs no GPU)
                self._early_error = None
                self._close_workers()
        with self._starting:
            if self.via == "one":
                return self.workers
            # a worker holding a GPU replays a cache too: the workers are kept for every run of the session
            if self.workers and (
                self.via == "local" or all(getattr(w, "num_gpus", 1) >= num_gpus for w in self.workers)
            ):
                return self.workers
            self._close_workers()
            self.workers = self._local() if self.via == "local" else self._ray(num_gpus)
            self._each(lambda w: w.ensure())
            return self.workers

    def _local(self) -> list[Device]:
        n = (local_gpu_count() or 1) if self.gpus == "all" else int(self.gpus)
        return [LocalDevice(i, self.log_path, self.warm_cuda) for i in range(n)]

    def _ray(self, num_gpus: float) -> list[Device]:
        from .raydevice import RayDevice

        ray = self._connect()
        have = int(ray.cluster_resources().get("GPU", 0))
        where = self.address or "(local)"
        if self.gpus == "all":
            if num_gpus and not have:
                raise ScaleError(f"--gpus all: the Ray cluster {where} has no GPUs")
            n = have or 1
        else:
            n = int(self.gpus)
            if num_gpus and n > have:
                raise ScaleError(f"--gpus {n}: the Ray cluster {where} has {have} GPUs")
        return [RayDevice(i, num_gpus) for i in range(n)]

    def _each(self, fn) -> list:
        out: list = [None] * len(self.workers)
        errors: list = []

        def one(i, w):
            try:
                out[i] = fn(w)
            except Exception as e:  # noqa: BLE001 - raised below, after the others ended
                errors.append(e)

        threads = [threading.Thread(target=one, args=(i, w)) for i, w in enumerate(self.workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        return out

    # -- probe, prepare, the check's test ----------------------------------------------------------
    def probe(self, backends=BACKENDS, timeout: float = 180) -> dict:
        if self.via == "one":
            answer = self._probe_one(self.workers[0], backends, timeout)
            self._facts(answer)
            return answer
        if self.via == "local":
            workers, have = self._ensure(1), local_gpu_count()
            if have is not None and len(workers) > have and isinstance(self.gpus, int):
                raise ScaleError(f"--gpus {self.gpus}: this host has {counted(have, 'GPU')}")
        else:
            started = self.workers and all(getattr(w, "num_gpus", 1) for w in self.workers)
            if not started and not self._connect().cluster_resources().get("GPU"):
                # like one worker on a machine without a GPU: `--backend auto` goes on to replay a cache
                where = self.address or "(local)"
                return {"backend": None, "gpu": None, "errors": {"ray": f"no GPU in the Ray cluster {where}"}}
            self._ensure(1)
        found = self._each(lambda w: self._probe_one(w, backends, timeout))
        ok = [f for f in found if f.get("backend")]
        if len(ok) < len(found):
            return next(f for f in found if not f.get("backend"))
        self.devices = {w.label: f["gpu"] for w, f in zip(self.workers, found)}
        models = sorted(set(self.devices.values()))
        if len(models) > 1 and not self.allow_mixed:
            raise ScaleError(
                "the workers have different GPU models ("
                + ", ".join(f"{k}: {v}" for k, v in self.devices.items())
                + "), so their timings would not compare; "
                "--allow-mixed tunes on them anyway and records the device of every result"
            )
        self._facts(found[0])
        return dict(found[0], gpu=" + ".join(models) if len(models) > 1 else models[0])

    def _facts(self, found: dict) -> None:
        if found.get("backend") and isinstance(found.get("facts"), dict):
            self.facts = found["facts"]
        if found.get("backend") and isinstance(found.get("arch"), str):
            self.arch = found["arch"]

    # -- the compile pool ------------------------------------------------------------------------
    def cc(self) -> str | None:
        """The GPU's compute capability as digits ("90"), from the probe."""
        for said in (self.arch, (self.facts or {}).get("cc")):
            digits = re.fullmatch(r"(?:sm_|compute_)?(\d+)\.?(\d*)[a-z]?", str(said or ""))
            if digits:
                return digits.group(1) + digits.group(2)
        return None

    def compile_pool(self, spec: Any, backend: str) -> Any:
        """The session's CompilePool for this backend, GPU and compiler options, or None (gpu/compiling.py)."""
        return self.compiling.pool_for(spec, backend)

    def binaries(self, runs: list[tuple[Any, str, dict, dict | None]], backend: str, timeout_s: float) -> list:
        """These runs' binaries from the session's compile pool (gpu/compiling.py binaries)."""
        return self.compiling.binaries(runs, backend, timeout_s)

    @property
    def compiles(self) -> Any:
        return self.compiling.pool

    @staticmethod
    def _probe_one(w: Device, backends, timeout: float) -> dict:
        w.ensure()
        w.send(ProbeJob(tuple(backends)))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            event = w.poll(0.5)
            if event is None:
                if not w.alive():
                    w.kill()
                    return {"backend": None, "gpu": None, "errors": {"worker": "the probe crashed the worker"}}
                continue
            if event[0] == "probe":
                return event[2]
        w.kill()
        return {"backend": None, "gpu": None, "errors": {"worker": f"no answer within {timeout:.0f}s"}}

    def prepare(self, spec: dict, backend: str, source: str = "") -> None:
        """Have the running local workers make the spec's inputs and open their device before the
        first job (gpu/protocol.py PrepareJob), and the compile pool start on the baseline and the
        sweep's first configurations. A worker only prepared is still stopped at once by close()."""
        for w in self.workers:
            if isinstance(w, LocalDevice) and w.alive():
                w.requests.put(PrepareJob(spec, backend, source))
        if source:
            self.compiling.early(spec, backend, source)

    def check_gpu(self) -> str | None:
        """The worker whose GPU the check's test runs on (the last of several local ones: the
        first measures the baseline), or None where it runs on whichever GPU this host gives it."""
        local = [w for w in self.workers if isinstance(w, LocalDevice) and w.index is not None]
        return local[-1].label if self.via == "local" and len(local) > 1 else None

    def _held(self, device: Device) -> bool:
        """The check's test is on this device's GPU: it joins the queue once the test has left it."""
        return self.checking.busy() and device.label == self.check_gpu() and len(self.workers) > 1

    def test_check(
        self, source: str, spec: dict, backend: str, timeout_s: float, gpu_free: Callable[[], None] | None = None
    ) -> dict:
        """Whether the original's check can fail (gpu/checkrun.py): its state. The sanitizer and the
        runs are child processes of this one, beside the workers, each with its time limit; of
        several local GPUs, on check_gpu's, whose worker joins the queue once the test has left that
        GPU (`gpu_free`), not once it has judged."""
        from .checkrun import test_check  # here: numpy, at a session's first baseline only

        label = self.check_gpu()
        device = next(
            (
                w.env.get("CUDA_VISIBLE_DEVICES")
                for w in self.workers
                if isinstance(w, LocalDevice) and w.label == label
            ),
            None,
        )
        release = self.checking.hold()

        def free() -> None:
            release()
            if gpu_free is not None:
                gpu_free()

        try:
            return test_check(source, spec, backend, timeout_s, device, gpu_free=free)
        finally:
            release()

    # -- runs ------------------------------------------------------------------------------------
    def request_stop(self) -> None:
        """Stop after the configurations running now (a paused run stops at once)."""
        self.control.stop = True
        self.pause(False)

    def pause(self, on: bool) -> None:
        """Hold (or go on) between configurations: those running now finish first."""
        self.control.paused = on

    def shutdown(self) -> None:
        """Quit now, from any thread: a run in progress ends with WorkerClosed, nothing is recorded."""
        self.control.closing = True
        self.request_stop()
        for w in self.workers:
            w.kill()
        self.compiling.close(wait=False)

    def close(self) -> None:
        if self._early is not None and threading.current_thread() is not self._early:
            self._early_done.wait()
        self.compiling.close(wait=True)
        self._close_workers()

    def _close_workers(self) -> None:
        self._each(lambda w: w.close())  # each ends in order, all at once
        if self.via != "one":
            self.workers = []

    def run(self, job: TuneJob | CheckJob, on_event: Callable[[str, Any], None], timeout_s: float) -> dict:
        """Run `job` to its end. Hangs and crashes cost one configuration, not the run."""
        workers = self._ensure(0 if job.backend == "sim" and self.via == "ray" else 1)
        self.control.stop = False
        if isinstance(job, CheckJob):  # each of its runs a TuneJob of one configuration, on one worker
            from .checking import check

            return check(self, workers[0], job, on_event, timeout_s)
        if job.one_worker:
            workers = workers[:1]
        from .tunerun import tune  # here: numpy and kernel_tuner load with the first tuning run

        return tune(self, workers, job, on_event, timeout_s)
