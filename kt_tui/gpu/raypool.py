"""Tuning on several GPUs at once, on this host (`--gpus N|all`) or on a Ray cluster (`--ray ADDRESS`).

Each GPU gets a Ray actor that runs the same jobs as the local GPU worker (kernel_tuner with our
streaming strategy, verification, checks at other sizes). `RayWorker` is a `GpuWorker` whose
process is that actor, so each GPU keeps its own watchdog: a hang or crash restarts that actor
only. `GpuPool` splits a run's configurations over the workers and merges what they stream.
Nothing here touches CUDA, and the actors never see the API key.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import queue
import socket
import threading
import time

from ..errors import UserError
from ..kernel.spec import spec_from_plain
from ..search.lazy import LazySpace, is_huge
from ..search.space import configurations
from .client import _ENV_LOCK, GpuWorker, WorkerClosed, WorkerError
from .env import is_secret
from .protocol import BACKENDS, CheckJob, ProbeJob, TuneJob
from .simcache import finalize_cache

# Imported where used: ray (optional: kt-tui[ray]), the worker's modules (they run in the Ray
# actors' processes, with kernel_tuner) and kernel_tuner itself.

INSTALL = "pip install 'kt-tui[ray]' (Ray 2.9 or newer)"


class ScaleError(UserError):
    pass


def parse_gpus(value) -> int | str | None:
    """`--gpus` / config `gpus`: a positive number, "all", or unset (None)."""
    if value in (None, "", 0):
        return None
    text = str(value).strip().lower()
    if text == "all":
        return "all"
    if text.isdigit() and int(text) > 0:
        return int(text)
    raise ScaleError(f"--gpus: expected a number of GPUs or 'all', got {value!r}")


def wanted(settings) -> bool:
    """True when the settings ask for more than today's one local GPU worker."""
    return bool(settings.ray_address) or parse_gpus(settings.gpus) not in (None, 1)


def check_settings(settings) -> None:
    """Before a session starts: a clear message (exit 2) for a bad --gpus or a missing Ray."""
    parse_gpus(settings.gpus)
    if wanted(settings):
        require_ray()


def require_ray():
    try:
        import ray
    except ImportError:
        raise ScaleError(f"--gpus and --ray need Ray, which is not installed: {INSTALL}") from None
    return ray


@contextlib.contextmanager
def _no_secrets():
    """A local Ray cluster's processes inherit this environment: keys and tokens are taken out."""
    with _ENV_LOCK:
        hidden = {k: os.environ.pop(k) for k in list(os.environ) if is_secret(k, os.environ[k]) and not k.startswith("RAY_")}
        try:
            yield
        finally:
            os.environ.update(hidden)


def _actor_env() -> dict:
    """What an actor's environment gets from ours: kt-tui's own switches, never a secret."""
    return {k: v for k, v in os.environ.items() if k.startswith("KT_TUI_") and not is_secret(k, v)
            and k not in ("KT_TUI_DB", "KT_TUI_CONFIG_DIR", "KT_TUI_DATA_DIR")}


# -- inside the actor ----------------------------------------------------------------------
class _Actor:
    """Runs one job at a time in a thread, its messages into a queue the app reads; the app sets its flags."""

    def __init__(self, out):
        self.out = out  # a Ray queue: a message is stored there before the next line can crash us
        self.flags = {"stop": threading.Event(), "pause": threading.Event()}

    def where(self) -> dict:
        import ray
        return {"host": socket.gethostname(), "gpus": [str(g) for g in ray.get_gpu_ids()], "pid": os.getpid()}

    def submit(self, job) -> None:
        threading.Thread(target=self._run, args=(job,), daemon=True).start()

    def ping(self) -> bool:
        return True

    def flag(self, name: str, on: bool) -> None:
        (self.flags[name].set if on else self.flags[name].clear)()

    def _put(self, message) -> None:
        self.out.put(message)

    def _run(self, job) -> None:
        from .worker.checking import run_check_job
        from .worker.tuning import ContextLost, run_tune_job
        from .worker.main import _explain, _stop_or_wait, probe_backends
        if isinstance(job, ProbeJob):
            self._put(("probe", None, probe_backends(job.backends)))
            return
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

    def __init__(self, index: int, num_gpus: float = 1):
        super().__init__()
        self.index, self.num_gpus = index, num_gpus
        self.label = f"w{index}"

    def start(self) -> None:
        import ray
        from ray.util.queue import Queue
        out = Queue(actor_options={"num_cpus": 0})
        actor_class = ray.remote(_Actor).options(
            num_gpus=self.num_gpus, num_cpus=0 if not self.num_gpus else 1, max_concurrency=4,
            runtime_env={"env_vars": _actor_env()})
        self.proc = _ActorProc(actor_class.remote(out), out)
        self.requests, self.events = _Requests(self.proc), _Events(self.proc)
        self.stop_flag, self.pause_flag = _Flag(self.proc, "stop"), _Flag(self.proc, "pause")
        if self.paused:
            self.pause_flag.set()
        try:
            where = ray.get(self.proc.actor.where.remote(), timeout=300)
        except ray.exceptions.RayError as e:
            self.proc.kill()
            raise WorkerError(f"the Ray worker {self.label} did not start: {e}") from None
        gpu = ",".join(where["gpus"])
        self.label = f"{where['host']}:gpu{gpu}" if gpu else f"{where['host']}:w{self.index}"


class GpuPool:
    """Several RayWorkers behind GpuWorker's interface: what the engine calls is the same."""

    def __init__(self, gpus: int | str | None = None, address: str | None = None, allow_mixed: bool = False):
        self.gpus, self.address, self.allow_mixed = gpus or "all", address or None, allow_mixed
        self.workers: list[RayWorker] = []
        self.devices: dict[str, str] = {}  # worker label -> GPU model, from the probe
        self.closing = False
        self.paused = False
        self.lock = threading.Lock()

    @property
    def restarts(self) -> int:
        return sum(w.restarts for w in self.workers)

    # -- workers -----------------------------------------------------------------------
    def _connect(self):
        ray = require_ray()
        if not ray.is_initialized():
            with _no_secrets():
                kwargs = dict(include_dashboard=False, log_to_driver=False, configure_logging=False)
                if self.address:  # kt-tui's own code goes with the session; its dependencies must be there
                    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
                    kwargs.update(address=self.address, runtime_env={"py_modules": [here]})
                try:
                    ray.init(**kwargs)
                except (ConnectionError, RuntimeError, ValueError) as e:
                    raise ScaleError(f"--ray {self.address or '(local)'}: cannot start or join the Ray cluster: "
                                     f"{e}") from None
        return ray

    def _ensure(self, num_gpus: float) -> list[RayWorker]:
        if self.workers and all(w.num_gpus == num_gpus for w in self.workers):
            return self.workers
        self.close()
        ray = self._connect()
        have = int(ray.cluster_resources().get("GPU", 0))
        if self.gpus == "all":
            if num_gpus and not have:
                raise ScaleError(f"--gpus all: the Ray cluster {self.address or '(local)'} has no GPUs")
            n = have or 1
        else:
            n = int(self.gpus)
            if num_gpus and n > have:
                raise ScaleError(f"--gpus {n}: the Ray cluster {self.address or '(local)'} has {have} GPUs")
        self.workers = [RayWorker(i, num_gpus) for i in range(n)]
        self._each(lambda w: w.start())
        for w in self.workers:
            w.pause(self.paused)
        return self.workers

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
            raise ScaleError("the workers have different GPU models (" + ", ".join(
                f"{k}: {v}" for k, v in self.devices.items()) + "), so their timings would not compare; "
                "--allow-mixed tunes on them anyway and records the device of every result")
        return dict(found[0], gpu=" + ".join(models) if len(models) > 1 else models[0])

    def _each_probe(self, backends, timeout) -> list[dict]:
        started = self.workers and all(w.num_gpus for w in self.workers)
        if not started and not self._connect().cluster_resources().get("GPU"):
            # like one worker on a machine without a GPU: `--backend auto` goes on to replay a cache
            where = self.address or "(local)"
            return [{"backend": None, "gpu": None, "errors": {"ray": f"no GPU in the Ray cluster {where}"}}]
        self._ensure(1)
        return self._each(lambda w: w.probe(backends, timeout))

    def run(self, job: TuneJob | CheckJob, on_event, timeout_s: float) -> dict:
        workers = self._ensure(0 if job.backend == "sim" else 1)
        if (len(workers) > 1 and isinstance(job, TuneJob) and job.search == "kt" and job.configs is None
                and not job.max_configs and not job.time_limit_s):
            # what an unbudgeted kt search does on one GPU, in two runs: the model's picks on one
            # worker, then the rest of the space in order, dealt over all of them
            from .worker.tuning import MODEL_STEPS
            got: dict = {}

            def keep(kind, payload):
                if kind == "result":
                    got[payload["key"]] = payload
                on_event(kind, payload)
            first = self._run_split(dataclasses.replace(job, max_configs=MODEL_STEPS + len(job.seeds)), keep, timeout_s)
            if first["stopped"]:
                return first
            rest = self._run_split(dataclasses.replace(job, search="brute_force", seeds=[],
                                                       known={**job.known, **got}), keep, timeout_s)
            return dict(rest, evaluated=first["evaluated"] + rest["evaluated"])
        return self._run_split(job, on_event, timeout_s)

    def _run_split(self, job: TuneJob | CheckJob, on_event, timeout_s: float) -> dict:
        workers = self.workers
        if self.address and isinstance(job, TuneJob):
            job = dataclasses.replace(job, cachefile=None)  # its path is on this host, the workers are elsewhere
        shards = split(job, len(workers))
        parts = []
        if len(shards) > 1 and isinstance(job, TuneJob) and job.cachefile:
            # one kernel_tuner cachefile per worker, merged into the run's afterwards
            parts = [f"{job.cachefile[:-5]}.w{i}.json" for i in range(len(shards))]
            shards = [dataclasses.replace(s, cachefile=parts[i]) for i, s in enumerate(shards)]
        if len(shards) > 1 and job.configs is None:
            total = sum(len(s.configs) for s in shards) + len(job.known)
            on_event("space", {"total": total})
        infos: list = [None] * len(shards)
        closed: list = []
        failed: list = []

        def one(i: int, shard) -> None:
            w = workers[i]
            seen: set = set()

            def forward(kind: str, payload: dict) -> None:
                if kind == "space" and len(shards) > 1:
                    return
                if kind == "result":
                    seen.add(payload["key"])
                    payload = dict(payload, worker=w.label, device=self.devices.get(w.label))
                with self.lock:
                    on_event(kind, payload)
            try:
                infos[i] = w.run(shard, forward, timeout_s)
            except WorkerClosed as e:
                closed.append(e)
            except Exception as e:  # noqa: BLE001 - a worker that gives up fails its share, not the run
                failed.append(e if isinstance(e, WorkerError) else WorkerError(f"{type(e).__name__}: {e}"))
                if isinstance(shard, TuneJob):
                    lost(shard, seen, w.label, str(e), forward)
        threads = [threading.Thread(target=one, args=(i, s)) for i, s in enumerate(shards)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if parts:
            merge_caches(job.cachefile, parts)
        if closed or self.closing:
            raise WorkerClosed("the GPU workers were shut down")
        done = [i for i in infos if i]
        if not done:
            raise failed[0] if failed else WorkerError("no GPU worker finished the run")
        devices = sorted({i.get("device") for i in done if i.get("device")})
        return {"device": " + ".join(devices) or None, "stopped": any(i.get("stopped") for i in done),
                "simulated": job.backend == "sim", "evaluated": sum(i.get("evaluated") or 0 for i in done),
                "workers": len(shards)}

    def request_stop(self) -> None:
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

    def close(self) -> None:
        for w in self.workers:
            w.close()
        self.workers = []


def split(job: TuneJob | CheckJob, n: int) -> list:
    """One job per worker: a run's configurations dealt round-robin. Checks, single configurations
    and adaptive searches (each pick depends on the last result) stay on the first worker."""
    if n < 2 or not isinstance(job, TuneJob):
        return [job]
    if job.configs is not None:
        todo = job.configs
    elif job.search == "brute_force":
        spec = spec_from_plain(job.spec)
        if is_huge(spec) and job.max_configs:  # a budget needs only the first configurations in order
            found = LazySpace(spec).first(job.max_configs + len(job.known) + len(job.seeds))
        else:
            found = configurations(spec)
        todo = [dict(zip(spec.tune_params, c)) for c in found]
    else:
        return [job]
    names = list(spec_names(job))
    keys, pending = set(), []
    for c in [*job.seeds, *todo]:  # seeds first, dealt like the rest
        key = ",".join(str(c[k]) for k in names)
        if key not in job.known and key not in keys:
            keys.add(key)
            pending.append(c)
    if len(pending) < 2:
        return [job]
    budget = job.max_configs
    n = min(n, len(pending), budget or n)
    return [dataclasses.replace(job, configs=pending[i::n], known=dict(job.known), seeds=[],
                                max_configs=(budget // n + (i < budget % n)) if budget else None)
            for i in range(n)]


def spec_names(job: TuneJob) -> list[str]:
    return list(job.spec["tune_params"])


def lost(shard: TuneJob, seen: set, label: str, why: str, forward) -> None:
    """A worker that failed for good: its configurations not measured yet are marked failed."""
    names = spec_names(shard)
    for c in shard.configs or []:
        key = ",".join(str(c[k]) for k in names)
        if key in seen or key in shard.known:
            continue
        seen.add(key)
        forward("result", {"key": key, "params": {k: c[k] for k in names}, "time_ms": None, "times": None,
                           "status": "crash", "error": f"GPU worker {label} gave up: {why}", "verified": None,
                           "max_abs_err": None, "first_bad": None, "compile_ms": None, "source": "measured",
                           "timestamp": time.strftime("%Y-%m-%d %H:%M:%S")})


def merge_caches(main: str, parts: list[str]) -> None:
    """The workers' kernel_tuner cachefiles, as one: the run's, which the engine then closes."""
    from .ktimport import load
    load()
    from kernel_tuner.util import read_cache

    found = [p for p in parts if os.path.exists(p)]
    if not found:
        return
    base = read_cache(main, open_cache=False) if os.path.exists(main) else read_cache(found[0], open_cache=False)
    for p in found:
        base["cache"].update(read_cache(p, open_cache=False)["cache"])
    cache = base.pop("cache")
    with open(main, "w") as f:
        f.write(json.dumps(base, indent="")[:-2] + ',\n"cache": {' + ",".join(
            "\n" + json.dumps({k: v})[1:-1] for k, v in cache.items()) + "\n}\n}")
    finalize_cache(main, {})
    for p in found:
        os.remove(p)
