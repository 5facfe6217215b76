"""Several GPUs in one session: `--gpus N` on this host (one worker process per GPU) or a Ray
cluster (`--ray ADDRESS`, gpu/raypool.py). `GpuPool` has GpuWorker's interface: it deals a run's
configurations over its workers and merges what they stream, so the engine calls it as it calls
one worker. Nothing here touches CUDA."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import subprocess
import threading
from collections.abc import Callable
from typing import Any

from ..kernel.spec import spec_from_plain
from ..records import Result, as_result, replace
from ..search.lazy import is_huge
from ..search.space import configurations
from .client import _ENV_LOCK, GpuWorker, WorkerClosed, WorkerError
from .dealing import Busy, Dealer, split
from .env import secret_names
from .protocol import BACKENDS, CheckJob, TuneJob
from .raypool import RayWorker, connect
from .scale import INSTALL, ScaleError, check_settings, parse_gpus, wanted  # noqa: F401 - said here too
from .shares import lost, merge_caches
from .timeline import mark

# Imported where used: the worker's modules and kernel_tuner (they load numpy and CUDA's libraries,
# which the app's process need not hold).


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


class DeviceWorker(GpuWorker):
    """The local GPU worker, pinned to this host's GPU number `index` (of those visible)."""

    def __init__(self, index: int, num_gpus: float = 1, log_path: str | None = None, extra_env: dict | None = None):
        base, ext = os.path.splitext(log_path) if log_path else (None, "")
        super().__init__(log_path=f"{base}.gpu{index}{ext}" if base else None)
        self.index, self.num_gpus, self.extra_env = index, num_gpus, dict(extra_env or {})
        self.label = f"gpu{index}"

    def start(self) -> None:
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        ids = [d.strip() for d in visible.split(",")] if visible else None
        device = ids[self.index] if ids and self.index < len(ids) else str(self.index)
        self.env = {"CUDA_VISIBLE_DEVICES": device, **self.extra_env}
        super().start()


class GpuPool:
    """Several GPU workers behind GpuWorker's interface: what the engine calls is the same.

    via "local" (`--gpus N` on this host): one worker process per GPU, each pinned to its device
    with CUDA_VISIBLE_DEVICES, as the single local worker is (no Ray: nothing to start but the
    processes). via "ray" (`--ray ADDRESS`): one Ray actor per GPU of the cluster."""

    def __init__(
        self,
        gpus: int | str | None = None,
        address: str | None = None,
        allow_mixed: bool = False,
        via: str | None = None,
        log_path: str | None = None,
    ):
        self.gpus, self.address, self.allow_mixed = gpus or "all", address or None, allow_mixed
        self.via = via or ("ray" if self.address else "local")
        self.log_path = log_path
        self.workers: list = []
        self.devices: dict[str, str] = {}  # worker label -> GPU model, from the probe
        self.closing = False
        self.paused = False
        self.lock = threading.Lock()
        self._starting = threading.Lock()
        self._early: threading.Thread | None = None
        self._early_error: BaseException | None = None
        self._early_done = threading.Event()
        self._connected = threading.Event()
        self._connect_error: ScaleError | None = None
        self.compiles: Any = None  # the host's one compile-ahead pool (gpu/device/sharedpool.py Server)
        self.checking = Busy()  # the check's test is running (on check_gpu's GPU)
        self.stop_asked = False

    @property
    def restarts(self) -> int:
        return sum(w.restarts for w in self.workers)

    # -- workers -----------------------------------------------------------------------
    def _connect(self):
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

    def _wait_early(self) -> None:
        if self._early is not None and threading.current_thread() is not self._early:
            self._early_done.wait()

    def _ensure(self, num_gpus: float) -> list:
        if self._early is not None and threading.current_thread() is not self._early:
            self._early_done.wait()
            if self._connect_error is not None:
                raise self._connect_error
            if self._early_error is not None:  # tried again for what is asked now (a replay needs no GPU)
                self._early_error = None
                self._close_workers()
        with self._starting:
            # a worker holding a GPU replays a cache too: the workers are kept for every run of the session
            if self.workers and (self.via == "local" or all(w.num_gpus >= num_gpus for w in self.workers)):
                return self.workers
            self._close_workers()
            self.workers = self._local(num_gpus) if self.via == "local" else self._ray(num_gpus)
            self._each(lambda w: w.start())
            for w in self.workers:
                w.pause(self.paused)
            self._compiles_up()
            return self.workers

    def _compile_env(self, gpus: int) -> dict:
        """The host's one compile-ahead pool for these workers, started once: its variable, or none.
        The workers start meanwhile; they reach it at their first compile."""
        if gpus < 2 or os.environ.get("KT_TUI_PREFETCH") == "0":
            return {}
        if self.compiles is None:
            from .device.sharedpool import Server, plan  # here: only a session on several GPUs starts one

            try:
                with _ENV_LOCK:  # the pool's process and nvcc never see API keys or tokens, as the workers
                    hidden = {k: os.environ.pop(k) for k in secret_names()}
                    try:
                        self.compiles = Server(plan(gpus))
                    finally:
                        os.environ.update(hidden)
            except OSError as e:
                self._log(f"compile-ahead: no shared pool ({e}); each GPU worker compiles on its own")
                return {}
        return self.compiles.env()

    def _compiles_up(self) -> None:
        """Says the pool's numbers in the session's log once it listens (or that it did not start)."""
        server = self.compiles
        if server is None or server.reader is None:
            return
        if server.wait():
            self._log(server.plan.describe())
            mark(f"main: {server.plan.describe()}")
        else:
            self._log("compile-ahead: the shared pool did not start; each GPU worker compiles on its own")

    def _log(self, line: str) -> None:
        if self.log_path:
            with contextlib.suppress(OSError), open(self.log_path, "a") as f:
                f.write(f"kt-tui: {line}\n")

    def _local(self, num_gpus: float) -> list:
        n = (local_gpu_count() or 1) if self.gpus == "all" else int(self.gpus)
        env = self._compile_env(n)
        return [DeviceWorker(i, num_gpus, self.log_path, env) for i in range(n)]

    def _ray(self, num_gpus: float) -> list:
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
        env = self._compile_env(n) if num_gpus else {}
        return [RayWorker(i, num_gpus, env) for i in range(n)]

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

    # -- GpuWorker's interface -----------------------------------------------------------
    def probe(self, backends=BACKENDS, timeout: float = 180) -> dict:
        found = self._each_probe(backends, timeout)
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
        return dict(found[0], gpu=" + ".join(models) if len(models) > 1 else models[0])

    def _each_probe(self, backends, timeout) -> list[dict]:
        started = self.workers and all(w.num_gpus for w in self.workers)
        if self.via == "local":
            workers, have = self._ensure(1), local_gpu_count()
            if have is not None and len(workers) > have and isinstance(self.gpus, int):
                raise ScaleError(f"--gpus {self.gpus}: this host has {have} GPU{'s' if have != 1 else ''}")
            return self._each(lambda w: w.probe(backends, timeout))
        if not started and not self._connect().cluster_resources().get("GPU"):
            # like one worker on a machine without a GPU: `--backend auto` goes on to replay a cache
            where = self.address or "(local)"
            return [{"backend": None, "gpu": None, "errors": {"ray": f"no GPU in the Ray cluster {where}"}}]
        self._ensure(1)
        return self._each(lambda w: w.probe(backends, timeout))

    def prepare(self, spec: dict, backend: str, source: str = "") -> None:
        """Each local worker makes its inputs and opens its device while the app compile-checks;
        with NVRTC the host's compile processes start too."""
        if backend == "nvcuda" and self.compiles is not None:
            self.compiles.start_processes()
        for w in self.workers:
            if isinstance(w, DeviceWorker):
                w.prepare(spec, backend, source)

    def run(self, job: TuneJob | CheckJob, on_event, timeout_s: float) -> dict:
        workers = self._ensure(0 if job.backend == "sim" and self.via == "ray" else 1)
        if isinstance(job, TuneJob) and job.one_worker:
            return self._run_split(job, on_event, timeout_s, workers[:1])
        if (
            len(workers) > 1
            and isinstance(job, TuneJob)
            and job.search == "kt"
            and job.configs is None
            and not job.max_configs
            and not job.time_limit_s
        ):
            # what an unbudgeted kt search does on one GPU, in two runs: the model's picks on one
            # worker, then the rest of the space in order, dealt over all of them; a small space runs
            # in order at once, dealt over all of them (every configuration runs anyway)
            from .device.tuning import MODEL_STEPS, SMALL_SPACE

            spec = spec_from_plain(job.spec)
            if not is_huge(spec) and len(configurations(spec)) <= SMALL_SPACE:
                return self._run_split(dataclasses.replace(job, search="brute_force"), on_event, timeout_s)

            got: dict = {}

            def keep(kind, payload):
                if kind == "result":
                    got[payload.key] = payload
                on_event(kind, payload)

            first = self._run_split(dataclasses.replace(job, max_configs=MODEL_STEPS + len(job.seeds)), keep, timeout_s)
            if first["stopped"]:
                return first
            rest = self._run_split(
                dataclasses.replace(job, search="brute_force", seeds=[], known={**job.known, **got}), keep, timeout_s
            )
            return dict(rest, evaluated=first["evaluated"] + rest["evaluated"])
        return self._run_split(job, on_event, timeout_s)

    def _run_split(self, job: TuneJob | CheckJob, on_event, timeout_s: float, workers: list | None = None) -> dict:
        workers = workers or self.workers
        self.stop_asked = False
        if self.address and isinstance(job, TuneJob):
            job = dataclasses.replace(job, cachefile=None)  # its path is on this host, the workers are elsewhere
        shards: list = split(job, len(workers))
        late = self._late(workers) if len(shards) == len(workers) > 1 else None
        if late is not None:  # it starts once the check's test has left its GPU, from the others' shares
            shards = split(job, len(workers) - 1, dealt=True)
            shards.insert(late, None)
        cachefile = job.cachefile if isinstance(job, TuneJob) else None
        parts: list[str] = []
        if len(shards) > 1 and cachefile:
            # one kernel_tuner cachefile per worker, merged into the run's afterwards
            parts = [f"{cachefile[:-5]}.w{i}.json" for i in range(len(shards))]
        if len(shards) > 1 and job.configs is None:
            total = sum(len(s.configs) for s in shards if s is not None) + len(job.known)
            on_event("space", {"total": total})
        infos: list = []
        closed: list = []
        failed: list = []
        dealer = Dealer(workers[: len(shards)], shards, lambda: self.stop_asked or self.closing, lambda: self.paused)

        def one(i: int) -> None:
            w = workers[i]
            todo = dealer.first(i)
            if i == late:
                self.checking.wait_clear()
                todo = dealer.steal(i)
            while todo is not None:
                if parts:
                    todo = dataclasses.replace(todo, cachefile=parts[i])
                seen: set = set()

                def forward(kind: str, payload: dict, seen: set = seen) -> None:
                    if kind == "space" and len(shards) > 1:
                        return
                    event: dict | Result = payload
                    if kind == "result":
                        event = replace(as_result(payload), worker=w.label, device=self.devices.get(w.label))
                        seen.add(event.key)
                        dealer.measured(i, event.key)
                    with self.lock:
                        on_event(kind, event)

                try:
                    info = w.run(todo, forward, timeout_s)
                except WorkerClosed as e:
                    closed.append(e)
                    dealer.failed(i)
                    return
                except Exception as e:  # noqa: BLE001 - a worker that gives up fails its share, not the run
                    failed.append(e if isinstance(e, WorkerError) else WorkerError(f"{type(e).__name__}: {e}"))
                    dealer.failed(i)
                    if isinstance(todo, TuneJob):
                        lost(todo, seen, w.label, str(e), forward)
                    return
                todo, info = dealer.next(i, info) if isinstance(todo, TuneJob) and len(shards) > 1 else (None, info)
                with self.lock:
                    infos.append(info)

        threads = [threading.Thread(target=one, args=(i,)) for i in range(len(shards))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if cachefile and parts:
            merge_caches(cachefile, [p for p in parts if os.path.exists(p)])
        if closed or self.closing:
            raise WorkerClosed("the GPU workers were shut down")
        done = [i for i in infos if i]
        if not done:
            raise failed[0] if failed else WorkerError("no GPU worker finished the run")
        devices = sorted({i.get("device") for i in done if i.get("device")})
        return {
            "device": " + ".join(devices) or None,
            "stopped": any(i.get("stopped") for i in done),
            "simulated": job.backend == "sim",
            "evaluated": sum(i.get("evaluated") or 0 for i in done),
            "workers": len(shards),
        }

    def _late(self, workers: list) -> int | None:
        """The worker whose GPU the check's test is on now, if it is one of several: it starts late."""
        label = self.check_gpu() if self.checking.busy() else None
        index = next((n for n, w in enumerate(workers) if w.label == label), None)
        return index if len(workers) > 1 else None

    def request_stop(self) -> None:
        self.stop_asked = True
        for w in self.workers:
            w.request_stop()

    def pause(self, on: bool) -> None:
        self.paused = on
        for w in self.workers:
            w.pause(on)

    def shutdown(self) -> None:
        self.closing = True
        for w in self.workers:
            w.shutdown()

    def check_gpu(self) -> str | None:
        """The worker whose GPU the check's test runs on (the last of several local ones: the
        first measures the baseline), or None where it runs on whichever GPU this host gives it."""
        local = [w for w in self.workers if isinstance(w, DeviceWorker) and w.env.get("CUDA_VISIBLE_DEVICES")]
        return local[-1].label if self.via == "local" and len(local) > 1 else None

    def test_check(
        self, source: str, spec: dict, backend: str, timeout_s: float, gpu_free: Callable[[], None] | None = None
    ) -> dict:
        """The original's check tested from this process on this host's GPU, beside the workers
        (on a Ray head without a GPU it comes back not tested, with why); of several local GPUs,
        on check_gpu's: what the others measure meanwhile is not disturbed. Its GPU's worker
        starts once the test has left that GPU (`gpu_free`), not once it has judged."""
        from .checkrun import test_check  # here: numpy, at a session's first baseline only

        label = self.check_gpu()
        device = next((w.env["CUDA_VISIBLE_DEVICES"] for w in self.workers if w.label == label), None)
        release = self.checking.hold()

        def free() -> None:
            release()
            if gpu_free is not None:
                gpu_free()

        try:
            return test_check(source, spec, backend, timeout_s, device, gpu_free=free)
        finally:
            release()

    def close(self) -> None:
        self._wait_early()
        self._close_workers()
        if self.compiles is not None:
            self.compiles.close()
            self.compiles = None

    def _close_workers(self) -> None:
        self._each(lambda w: w.close())  # each ends in order, all at once
        self.workers = []

    @property
    def size(self) -> int:
        return len(self.workers)
