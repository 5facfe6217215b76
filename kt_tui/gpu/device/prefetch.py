"""Compile ahead: while the GPU measures one configuration, a pool compiles the next ones.

kernel_tuner compiles each configuration when it reaches it, one after another; the compiler is
most of the time a configuration costs. We compile the upcoming kernel strings (exactly the
strings kernel_tuner builds for them, with the options its backend would use) on other cores and
let the backend's compile step pick the result up:

- nvcuda: NVRTC to a cubin for this GPU on worker threads (NVRTC is thread-safe per program);
  the compile step loads that cubin.
- pycuda: nvcc through pycuda's own `compiler.compile`, with kernel_tuner's arguments, on worker
  threads (each compile is an nvcc process; the thread only waits for it); kernel_tuner links with
  the device runtime (DynamicSourceModule) from PTX, we link the same relocatable code as a cubin,
  so the driver has nothing left to JIT.
- cupy: the pool's processes compile through cupy itself, which fills cupy's on-disk kernel cache;
  kernel_tuner's compile then finds the module there (same source, options, GPU and NVRTC: the
  cache's own key).

The GPU worker is a daemonic process, which multiprocessing forbids to have children of its own:
the worker says so at its start (gpu/device/main.py), so that cupy's process pool can start.

A compile that fails ahead of time is simply done again the normal way, so errors read as they
always do. `KT_TUI_PREFETCH=0` turns it off; `KT_TUI_PREFETCH_WORKERS=N` sets the pool's size;
`KT_TUI_PREFETCH_STATS=FILE` appends, at the end of each job, how many compiles came from the pool
and how long the run waited on it (benchmarks/harness.py reads it).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from typing import Any, TypedDict

from ...kernel.text import compile_options
from ..timeline import mark
from . import compiled
from .batching import BatchMismatch, batch_size
from .compilers import Compiler, Cupy, Instance, Nvrtc, Pycuda, stand_in
from .sharedpool import depth

# Imported where used: kernel_tuner and ktsource (this module also loads in the app's process).

LONG_WAIT_S = 0.05  # a wait on the pool this long gets a trace mark of its own
MAX_AHEAD = 256  # configurations compiled ahead at most (the measuring process looks over them each time)


def window(batch: int) -> int:
    """Configurations compiled ahead of the one measured: `depth` jobs of `batch` each, at most MAX_AHEAD."""
    return min(depth() * batch, MAX_AHEAD)


# by kernel_tuner backend
COMPILERS: dict[str, type[Compiler]] = {"CudaFunctions": Nvrtc, "PyCudaFunctions": Pycuda, "CupyFunctions": Cupy}


class Stats(TypedDict):
    """A Prefetcher's count of its compiles (KT_TUI_PREFETCH_STATS writes it, a JSON line a job)."""

    queued: int
    used: int
    not_ahead: int
    failed: int
    waited_s: float
    loading_s: float
    first_failure: str | None
    batches: int
    batches_failed: int
    reused: int


def enabled() -> bool:
    """KT_TUI_PREFETCH=0 turns compiling ahead off, early compiles included."""
    return os.environ.get("KT_TUI_PREFETCH", "1") != "0"


class Early:
    """Compiles started before kernel_tuner has a backend: while a job's inputs are generated and
    kernel_tuner sets up, nvcc or NVRTC already works on its first configurations. The Prefetcher
    of that job adopts the pool and what it compiled."""

    def __init__(self, how: Compiler, pool: Executor, ahead: dict[str, Future]):
        self.how, self.pool, self.ahead = how, pool, ahead
        self.adopted = False

    @classmethod
    def start(cls, backend: str, spec, source: str, params_list: list[dict]) -> Early | None:
        """None where nothing can start early (another backend, no GPU, any error: it is only a head start)."""
        try:
            from ..ktsource import kernel_string

            return cls.start_texts(
                backend, list(spec.compiler_options or []), [kernel_string(spec, source, p) for p in params_list]
            )
        except Exception as e:  # noqa: BLE001 - kernel_tuner compiles as usual
            print(f"kt-tui: no early compile: {type(e).__name__}: {e}", flush=True)
            return None

    @classmethod
    def start_texts(cls, backend: str, compiler_options: list[str], named: list[tuple[str, str]]) -> Early | None:
        """Compile these (kernel name, kernel string) pairs, as kernel_tuner's `backend` would."""
        device = stand_in(backend, compile_options(compiler_options)) if named else None
        if device is None:
            return None
        makers: dict[str, type[Compiler]] = {"nvcuda": Nvrtc, "pycuda": Pycuda}
        how = makers[backend](device)
        early = cls(how, how.pool(), {})
        early.add_texts(named)
        return early

    def add(self, spec, source: str, params_list: list[dict]) -> None:
        """Also compile these configurations (kept by an early start that a job took over)."""
        from ..ktsource import kernel_string  # here: as in start()

        self.add_texts([kernel_string(spec, source, p) for p in params_list])

    def add_texts(self, named: list[tuple[str, str]]) -> None:
        for name, text in named:
            if text not in self.ahead:
                fn, args = self.how.job(Instance(name, text))
                self.ahead[text] = compiled.submit(self.pool, fn, args)

    @staticmethod
    @contextmanager
    def serving(earlies: list[Early]):
        """Inside: every kernel_tuner compile (run_kernel's included) of a string compiled early
        loads that instead; any other string, or a failed early compile, compiles as usual."""
        import kernel_tuner.core as core  # here: the app's process loads this module without kernel_tuner

        original = core.DeviceInterface.compile_kernel

        def compile_kernel(dev, instance, verbose):
            for early in earlies:
                future = early.ahead.get(getattr(instance, "kernel_string", None))
                if future is None:
                    continue
                try:
                    func = type(early.how)(dev.dev).load(future.result(), instance)
                except Exception:  # noqa: BLE001 - compiled again below, where kernel_tuner reports it as usual
                    func = None
                if func is not None:
                    return func
            return original(dev, instance, verbose)

        core.DeviceInterface.compile_kernel = compile_kernel
        try:
            yield
        finally:
            core.DeviceInterface.compile_kernel = original

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class Prefetcher:
    def __init__(self, runner, pool: Executor | None = None, early: Early | None = None):
        self.runner = runner
        self.backend = runner.dev.dev
        self.how: Compiler = COMPILERS[type(self.backend).__name__](self.backend)
        self.ahead: dict[str, Future] = {}
        if early is not None and type(early.how) is type(self.how):
            pool, self.ahead, early.adopted = pool or early.pool, dict(early.ahead), True
        self.pool = pool or self.how.pool()
        # configurations per compile job (gpu/device/batching.py: nvcc only), and compiled ahead:
        # `depth` jobs, more where one pool serves several GPUs
        self.batch = batch_size() if hasattr(self.how, "batch") else 1
        self.window = window(self.batch)
        self.waiting: list = []  # instances not sent yet: their batch is still filling
        self.members: dict[str, tuple[Future, tuple]] = {}  # kernel string: (its batch's job, its own job)
        self.mismatched = False  # a batch's machine code differed from alone: no batch is kept or trusted
        self.failed: list[Future] = []  # batch jobs that failed (their callbacks add them, on the pool's threads)
        self.checked = False  # the first batch carries the check against a configuration compiled alone
        self.queued: set[tuple] = set()
        self.original = self.backend.compile
        self.backend.compile = self.compile
        self.last: tuple[str | None, Future | None] = (None, None)
        self.reused_before = compiled.reused[0]
        self.stats: Stats = {
            "queued": 0,
            "used": 0,
            "not_ahead": 0,
            "failed": 0,
            "waited_s": 0.0,
            "loading_s": 0.0,
            "first_failure": None,
            "batches": 0,
            "batches_failed": 0,
            "reused": 0,
        }

    @staticmethod
    def usable(runner) -> bool:
        backend = getattr(getattr(runner, "dev", None), "dev", None)
        if type(backend).__name__ == "CupyFunctions" and os.environ.get("CUPY_CACHE_IN_MEMORY", "0") != "0":
            return False  # nothing on disk for kernel_tuner's compile to find
        return type(backend).__name__ in COMPILERS and not getattr(runner, "simulation_mode", False)

    def upcoming(self, params_list: Iterable[dict]) -> int:
        """Queue these configurations (in the order they will run), at most `window` ahead. Says how
        many of them it went through: those are queued or known, the rest must be offered again."""
        dev, r = self.runner.dev, self.runner
        seen = 0
        for params in params_list:
            key = tuple(params.values())
            if key not in self.queued:
                if self._pending() >= self.window:
                    break
                self.queued.add(key)
                instance = dev.create_kernel_instance(r.kernel_source, r.kernel_options, params, False)
                text = getattr(instance, "kernel_string", None)
                if text is not None and text not in self.ahead and text not in self.members:
                    self.waiting.append(instance)
                    if len(self.waiting) >= self.batch:
                        self._send()
            seen += 1
        if self.waiting and self._pending() < 2 * self.batch:  # the GPU would wait soon: no fuller batch
            self._send()
        return seen

    def _pending(self) -> int:
        return sum(not f.done() for f in self.ahead.values()) + len(self.waiting)

    def _send(self) -> None:
        instances, self.waiting = self.waiting, []
        try:
            jobs = [self.how.job(instance) for instance in instances]
            # compiled by an earlier job of this worker, or still compiling for it
            kept = [
                _finished(v) if (v := compiled.recall(fn, a)) is not None else compiled.pending(fn, a) for fn, a in jobs
            ]
            for instance, done in zip(instances, kept, strict=True):
                if done is not None:
                    self.ahead[instance.kernel_string] = done
            instances = [i for i, done in zip(instances, kept, strict=True) if done is None]
            jobs = [j for j, done in zip(jobs, kept, strict=True) if done is None]
            made = self.how.batch(instances, not self.checked) if len(instances) > 1 else None  # type: ignore[attr-defined]
            if made is None:
                for instance, (fn, args) in zip(instances, jobs, strict=True):
                    self.ahead[instance.kernel_string] = compiled.submit(self.pool, fn, args)
            else:
                fn, args, names = made
                whole = compiled.submit(self.pool, fn, args)
                whole.add_done_callback(lambda f: self._batch_done(f, jobs, names))
                self.checked = True
                self.stats["batches"] += 1
                for instance, name, own in zip(instances, names, jobs, strict=True):
                    self.ahead[instance.kernel_string] = part = _member(whole, name)
                    self.members[instance.kernel_string] = (whole, own)
                    compiled.flying(*own, part)
            self.stats["queued"] += len(instances)
        except Exception as e:  # noqa: BLE001 - a broken pool: compile the normal way from now on
            print(f"kt-tui: not compiling ahead any more: {type(e).__name__}: {e}", flush=True)
            self.stats["first_failure"] = self.stats["first_failure"] or f"pool: {type(e).__name__}: {e}"[:500]
            self.queued = _Everything()

    def _batch_done(self, whole: Future, jobs: list, names: list[str]) -> None:
        """On the pool's thread: a failed batch is noted; a good one is kept per configuration, so a
        later job of this worker that compiles one of them alone finds it (compiled.py)."""
        if whole.cancelled():
            return
        if whole.exception() is not None:
            self.mismatched = self.mismatched or isinstance(whole.exception(), BatchMismatch)
            self.failed.append(whole)
            return
        if self.mismatched:
            return
        for (fn, args), name in zip(jobs, names, strict=True):
            compiled.keep(fn, args, (*whole.result(), name))

    def _unbatch(self) -> None:
        """Members of failed batches compile alone; after a batch whose machine code differed, all do."""
        failed, self.failed = self.failed, []
        self.stats["batches_failed"] += len(failed)
        mismatch = any(isinstance(f.exception(), BatchMismatch) for f in failed)
        st = self.stats
        if mismatch or (st["batches_failed"] >= 3 and 4 * st["batches_failed"] > st["batches"]):
            # a space where many configurations fail to compile fails most batches: each is compiled twice
            self.batch = 1
            mark(f"worker: compiling one configuration at a time: {failed[0].exception()}")
        for text, (whole, (fn, args)) in list(self.members.items()):
            if mismatch:
                compiled.drop(fn, args)  # kept from a batch that finished before the one that was checked
            if (mismatch or whole in failed) and text in self.ahead:
                del self.members[text]
                self.ahead[text] = compiled.submit(self.pool, fn, args)

    def compile(self, instance):
        if self.failed:
            self._unbatch()
        if any(w.kernel_string == instance.kernel_string for w in self.waiting):
            self._send()
        self.members.pop(instance.kernel_string, None)
        future = self.ahead.pop(instance.kernel_string, None)
        if future is None and self.last[0] == instance.kernel_string:
            future = self.last[1]  # kernel_tuner compiles its first configuration twice (a warm-up run)
        if future is None:
            self.stats["not_ahead"] += 1
            return self.original(instance)
        self.last = (instance.kernel_string, future)
        t0 = time.perf_counter()
        t1 = t0
        try:
            done = future.result()
            t1 = time.perf_counter()
            func = self.how.load(done, instance)
            why = "the compiled module did not load"  # said only when func is None
        except Exception as e:  # noqa: BLE001 - compiled again below, where kernel_tuner reports it as usual
            func, why = None, f"{type(e).__name__}: {e}"
        t2 = time.perf_counter()
        waited = t2 - t0
        self.stats["waited_s"] += waited
        self.stats["loading_s"] += t2 - t1
        if waited >= LONG_WAIT_S:
            mark(f"worker: waited {waited:.3f} s on compile")
        if func is None:
            self.stats["failed"] += 1
            self.stats["first_failure"] = self.stats["first_failure"] or why[:500]
            return self.original(instance)
        self.stats["used"] += 1
        return func

    def close(self) -> None:
        self.backend.compile = self.original
        self.stats["reused"] = compiled.reused[0] - self.reused_before
        # nothing waits for the compiles under way: the next job of this worker takes them over
        # (compiled.py), a stopped job's included, where it keeps their configurations
        self.pool.shutdown(wait=False, cancel_futures=True)
        st = self.stats
        mark(
            f"worker: compile waits {st['waited_s']:.3f} s over {st['used'] + st['failed'] + st['not_ahead']} configurations"
            f" ({st['failed']} failed ahead, {st['not_ahead']} not ahead), {st['loading_s']:.3f} s of them loading;"
            f" {st['batches']} batches ({st['batches_failed']} failed), {st['reused']} compiled before"
        )
        print(
            f"kt-tui: compiled ahead {st['used']} of {st['used'] + st['failed'] + st['not_ahead']} configurations "
            f"({st['failed']} failed, {st['not_ahead']} not ahead), waited {st['waited_s']:.2f} s on the pool"
            + (f"; first failure: {st['first_failure']}" if st["first_failure"] else ""),
            flush=True,
        )
        where = os.environ.get("KT_TUI_PREFETCH_STATS")
        if where:
            try:
                with open(where, "a", encoding="utf-8") as f:
                    f.write(json.dumps(dict(st, how=type(self.how).__name__.lower())) + "\n")
            except OSError as e:  # a benchmark's record: never the job's failure
                print(f"kt-tui: KT_TUI_PREFETCH_STATS: {e}", flush=True)


def _finished(value: Any) -> Future:
    done: Future = Future()
    done.set_result(value)
    return done


def _member(whole: Future, name: str) -> Future:
    """One configuration's share of a batch job: (linked, cubin, its kernel's name there)."""
    part: Future = Future()

    def done(f: Future) -> None:
        if f.cancelled():
            part.cancel()
        elif f.exception() is not None:
            part.set_exception(f.exception())
        else:
            part.set_result((*f.result(), name))

    whole.add_done_callback(done)
    return part


class _Everything(set):
    def __contains__(self, item) -> bool:
        return True
