"""The app's one compile pool (issue 38): the binaries of the configurations the search will run,
compiled ahead of the queue, each handed with its Run to whichever device worker takes it.

kernel_tuner compiles each configuration when it reaches it; the compiler is most of what a
configuration costs. Here the kernel string kernel_tuner would build for a configuration
(gpu/ktsource.py kernel_string) is compiled as that backend would compile it, to a cubin the device worker only
loads (gpu/device/loaders.py):

- pycuda: nvcc as pycuda runs it (gpu/nvcc.py), on threads here, each pinned to the compile cores
  (nvcc, cicc and ptxas inherit it). Several configurations go into one nvcc call where that is
  safe (gpu/nvccbatch.py).
- nvcuda and cupy: NVRTC as each backend runs it (gpu/nvrtc.py). NVRTC holds the interpreter's
  lock while it compiles, so it runs in spawned processes (benchmarks/compilers.py: 44 against 248
  compiles/s on 15 cores of an H100 host).
A compile that fails comes back as the compiler's text (Compiled.error, gpu/compiled.py).

The same (kernel string, options, architecture) compiles once: a session compiles the same strings
again and again (an LLM version verified, checked at other sizes, tuned, checked again); the cache
is bounded in bytes, the oldest going first.

Every child (nvcc and what it starts, the NVRTC processes) gets the environment without secrets
(gpu/env.py). `KT_TUI_PREFETCH=0` turns compiling ahead off; `KT_TUI_PREFETCH_WORKERS=N` sets the
pool's size, `KT_TUI_COMPILE_BATCH=N` the configurations per nvcc call (1: each alone).
"""

from __future__ import annotations

import functools
import hashlib
import math
import multiprocessing as mp
import os
import re
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Iterable
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from .compiled import Compiled, CompileFailed
from .env import SECRETS_LOCK, limit_compile_memory, secret_names
from .nvcc import Running, nvcc_cubin, pycuda_arguments
from .nvccbatch import BatchMismatch, alias, batch_size, batchable, nvcc_batch
from .nvrtc import nvrtc_job
from .protocol import BACKENDS
from .timeline import mark

CACHE_BYTES = 256 * 2**20  # binaries kept, at most
WINDOW = 24  # configurations compiled ahead of the queue's head, at least
AHEAD = 8  # compiles ahead per compile core: a run of slow ones (large tiles, unrolled) is met by
# those compiled meanwhile (2 a core left one H100 waiting 2.7 s in 300 configurations, 8: 1.6 s)
MAX_AHEAD = 256
RESTARTS = 3  # NVRTC pools started again after a crash, at most
WATCH_S = 0.2  # how often an NVRTC process looks whether the app is still there


def enabled() -> bool:
    """KT_TUI_PREFETCH=0 turns compiling ahead off (then kernel_tuner compiles each configuration)."""
    return os.environ.get("KT_TUI_PREFETCH", "1") != "0"


def _pin(cores: list[int] | None) -> None:
    if cores:
        os.sched_setaffinity(0, cores)  # this thread, and every nvcc it starts


def _child_setup(cores: list[int] | None, parent: int) -> None:
    """An NVRTC process: on the compile cores, and gone when the app is (killed, even)."""
    if os.getppid() != parent:
        os._exit(0)
    threading.Thread(target=_watch, args=(parent,), name="kt-tui-parent", daemon=True).start()
    _pin(cores)
    limit_compile_memory()


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_S)
    os._exit(0)


def compile_cores(gpus: int = 1) -> list[int]:
    """The host's cores less one for each device worker, as long as one is left to compile on."""
    have = sorted(os.sched_getaffinity(0))
    return have[min(max(0, gpus), len(have) - 1) :]


# -- the pool ----------------------------------------------------------------------------------------
@dataclass
class _Item:
    ck: str  # the compile's key: (backend, architecture, options, name, kernel string)
    key: str  # the caller's key (a configuration)
    name: str
    text: str
    future: Future


class _Cache:
    """Finished compiles by their key, bounded in bytes, the least recently used going first."""

    def __init__(self, limit: int):
        self.limit, self.size = limit, 0
        self.kept: OrderedDict[str, Compiled] = OrderedDict()

    def get(self, ck: str) -> Compiled | None:
        hit = self.kept.get(ck)
        if hit is not None:
            self.kept.move_to_end(ck)
        return hit

    def put(self, ck: str, done: Compiled) -> None:
        size = len(done.binary or b"") + len(done.error or "") + 64
        if ck in self.kept or size > self.limit // 4:
            return
        self.kept[ck] = done
        self.size += size
        while self.size > self.limit and self.kept:
            _, gone = self.kept.popitem(last=False)
            self.size -= len(gone.binary or b"") + len(gone.error or "") + 64


class CompilePool:
    """`submit` one configuration's compile now; `ahead` the configurations the queue will run, in
    order: at most `window` of them compiled or compiling and not yet asked for by `submit` (the
    device workers take them through it), the rest following as those are asked for: a Future from
    `ahead` beyond the window resolves once those before it are asked for. `drop` forgets what is
    queued (a stopped search). `close` ends every thread, process and nvcc."""

    def __init__(
        self,
        backend: str,
        cc: str,
        compiler_options: list[str],
        *,
        gpus: int = 1,
        size: int | None = None,
        window: int | None = None,
        batch: int | None = None,
    ):
        if backend not in BACKENDS:
            raise ValueError(f"compile pool: no compiler for backend {backend!r} (one of {', '.join(BACKENDS)})")
        if not re.fullmatch(r"\d{2,3}", cc):
            raise ValueError(f"compile pool: compute capability {cc!r} is not digits such as '90'")
        self.backend, self.cc, self.options = backend, cc, list(compiler_options)
        self.cores = compile_cores(gpus)
        wanted = os.environ.get("KT_TUI_PREFETCH_WORKERS", "")
        self.size = size or (int(wanted) if wanted.isdigit() and int(wanted) > 0 else len(self.cores))
        # a batch's members all carry the batch's one cubin (each its symbol): `batch=1` where a
        # binary must hold its kernel alone (the check child compares machine code)
        self.batch = (batch or batch_size()) if backend == "pycuda" else 1
        depth = max(WINDOW, math.ceil(AHEAD * self.size / max(1, gpus)))
        self.window = window or min(MAX_AHEAD, depth * self.batch)
        self.cache = _Cache(CACHE_BYTES)
        self.flying: dict[str, Future] = {}  # compiles under way or queued, by compile key
        self.queue: deque[_Item] = deque()  # ahead, in order (an item asked for meanwhile is skipped)
        self.queued: dict[str, _Item] = {}  # the queue's items not started yet, by compile key
        self.urgent: deque[_Item] = deque()  # asked for and not started: these go first
        self.jobs = 0  # compile jobs handed to the threads or processes and not finished
        self.unasked: set[str] = set()  # compile keys compiled or compiling ahead, not yet asked for (by any key)
        self.running = Running()  # nvcc processes under way
        self.lock = threading.RLock()
        self.closed = False
        self.checked = False  # a batch carrying the check against its first member alone was sent
        self.trusted = False  # that check passed
        self.batches = self.batches_failed = 0
        self.compiled = self.restarts = 0
        self.threads: ThreadPoolExecutor | None = None
        self.processes: ProcessPoolExecutor | None = None
        if backend == "pycuda":
            self.threads = ThreadPoolExecutor(
                max_workers=self.size, thread_name_prefix="kt-tui-compile", initializer=_pin, initargs=(self.cores,)
            )
        else:
            self.processes = self._start_processes()

    def _start_processes(self) -> ProcessPoolExecutor:
        """All the NVRTC processes, now (each submit to a pool without an idle process starts one),
        while the app's environment has no secrets in it."""
        pool = ProcessPoolExecutor(
            max_workers=self.size,
            mp_context=mp.get_context("spawn"),
            initializer=_child_setup,
            initargs=(self.cores, os.getpid()),
        )
        with SECRETS_LOCK:
            hidden = {k: os.environ.pop(k) for k in secret_names()}
            try:
                for _ in range(self.size):
                    pool.submit(os.getpid)
            finally:
                os.environ.update(hidden)
        return pool

    def _key(self, name: str, text: str) -> str:
        blob = repr((self.backend, self.cc, self.options, name, text)).encode("utf-8", "surrogatepass")
        return hashlib.sha256(blob).hexdigest()

    # -- asking ----------------------------------------------------------------------------------
    def submit(self, key: str, name: str, text: str) -> Future:
        """Future[Compiled] of this configuration: compiled before, under way, or next (ahead of
        anything queued by `ahead`)."""
        ck = self._key(name, text)
        with self.lock:
            self._open()
            self.unasked.discard(ck)
            known = self._known(ck)
            if known is None:
                item = _Item(ck, key, name, text, Future())
                self.flying[ck] = known = item.future
                self.urgent.append(item)
            elif ck in self.queued:
                self.urgent.append(self.queued.pop(ck))
            self._pump()
            return known

    def ahead(self, items: Iterable[tuple[str, str, str]]) -> dict[str, Future]:
        """Queue these (key, kernel name, kernel string) in the order they will run; Future[Compiled]
        of each by key."""
        out: dict[str, Future] = {}
        with self.lock:
            self._open()
            for key, name, text in items:
                ck = self._key(name, text)
                known = self._known(ck)
                if known is None:
                    item = _Item(ck, key, name, text, Future())
                    self.flying[ck] = known = item.future
                    self.queue.append(item)
                    self.queued[ck] = item
                out[key] = known
            self._pump()
        return out

    def drop(self) -> None:
        """Forget every compile queued ahead and not started: their futures are cancelled."""
        with self.lock:
            for item in self.queued.values():
                self.flying.pop(item.ck, None)
                item.future.cancel()
            self.queue.clear()
            self.queued.clear()
            self.unasked.clear()

    def _open(self) -> None:
        if self.closed:
            raise RuntimeError("compile pool: closed")

    def _known(self, ck: str) -> Future | None:
        done = self.cache.get(ck)
        if done is not None:
            return _finished(done)
        return self.flying.get(ck)

    # -- compiling -------------------------------------------------------------------------------
    def _pump(self) -> None:
        """Hand the compilers their next jobs, one a thread or process: what was asked for first,
        then the queue, while fewer than `window` started ahead are not asked for yet. Jobs wait
        here rather than in the executor, so what is asked for goes next and batches form from
        what is queued when a compiler is free."""
        while not self.closed and self.jobs < self.size:
            if self.urgent:
                group = [self.urgent.popleft()]
            elif len(self.unasked) < self.window:
                # no batch beside the first one until its check says batches make the same code
                group = self._next(self.batch if self.trusted or not self.checked else 1)
                self.unasked.update(item.ck for item in group)
            else:
                return
            if not group:
                return
            self._start(group)

    def _next(self, most: int) -> list[_Item]:
        """The queue's next compile job: one configuration, or up to `most` that can share an nvcc call."""
        group: list[_Item] = []
        while self.queue and len(group) < most:
            item = self.queue[0]
            if self.queued.get(item.ck) is not item:  # asked for meanwhile, or dropped
                self.queue.popleft()
                continue
            if group and not batchable(item.name, item.text):
                break
            self.queue.popleft()
            del self.queued[item.ck]
            group.append(item)
            if not batchable(item.name, item.text):
                break
        return group

    def _start(self, group: list[_Item]) -> None:
        self.jobs += 1
        try:
            if self.backend == "pycuda":
                assert self.threads is not None
                self.threads.submit(self._nvcc_job, group)
            else:
                self._nvrtc_submit(group[0])
        except RuntimeError as e:  # the pool shut down or broke for good: the device workers compile them
            self.jobs -= 1
            for item in group:
                self._settle(item, Compiled(None, None, 0.0), f"{type(e).__name__}: {e}")

    def _nvrtc_submit(self, item: _Item) -> None:
        assert self.processes is not None
        pool = self.processes
        try:
            job = pool.submit(nvrtc_job, item.text, item.name, self.backend, tuple(self.options), self.cc)
        except BrokenProcessPool:
            if not self._restart(pool):
                raise
            pool = self.processes
            job = pool.submit(nvrtc_job, item.text, item.name, self.backend, tuple(self.options), self.cc)
        job.add_done_callback(functools.partial(self._nvrtc_done, item, pool))

    def _nvcc_job(self, group: list[_Item]) -> None:
        """On a pool thread: one nvcc job, then the next ones handed out."""
        try:
            if len(group) > 1:
                self._nvcc_batch(group)
            else:
                self._nvcc_alone(group[0])
        finally:
            with self.lock:
                self.jobs -= 1
                self._pump()

    def _nvcc_alone(self, item: _Item) -> None:
        options, wrap = pycuda_arguments(self.cc, self.options, item.name, item.text)
        t0 = time.perf_counter()
        try:
            done, why = Compiled(nvcc_cubin(item.text, options, wrap, self.running), None, _ms(t0)), ""
        except CompileFailed as e:
            done, why = Compiled(None, str(e), _ms(t0)), ""
        except Exception as e:  # noqa: BLE001 - no nvcc, a full disk: the device worker compiles it
            done, why = Compiled(None, None, _ms(t0)), f"{type(e).__name__}: {e}"
        self._settle(item, done, why)

    def _nvcc_batch(self, group: list[_Item]) -> None:
        first, wrap = pycuda_arguments(self.cc, self.options, group[0].name, group[0].text)
        names = [alias(item.name, i) for i, item in enumerate(group)]
        options = list(first)
        options[options.index("-e") + 1] = ",".join(names)
        with self.lock:
            check = None if self.checked else (first, wrap)
            self.checked = True
            self.batches += 1
        t0 = time.perf_counter()
        try:
            binary = nvcc_batch([(item.name, item.text) for item in group], options, check, self.running)
        except Exception as e:  # noqa: BLE001 - each compiled alone, for its own error or code
            self._unbatch(group, e, check is not None)
            return
        if check is not None:
            with self.lock:
                self.trusted = True
        ms = _ms(t0) / len(group)
        for item, symbol in zip(group, names, strict=True):
            self._settle(item, Compiled(binary, None, ms, symbol), "")

    def _unbatch(self, group: list[_Item], error: Exception, checking: bool) -> None:
        """A failed batch: its members go next, each alone (for its own error, or its code)."""
        with self.lock:
            self.batches_failed += 1
            if checking and not isinstance(error, BatchMismatch):
                self.checked = False  # the next batch carries the check
            if isinstance(error, BatchMismatch) or (
                self.batches_failed >= 3 and 4 * self.batches_failed > self.batches
            ):
                # a space where many configurations fail to compile fails most batches: each compiled twice
                self.batch = 1
                mark(f"compile pool: one configuration a call from now on: {error}"[:300])
            self.urgent.extendleft(reversed(group))

    def _nvrtc_done(self, item: _Item, pool: ProcessPoolExecutor, job: Future) -> None:
        if job.cancelled():
            done, why = Compiled(None, None, 0.0), "cancelled"
        elif (error := job.exception()) is None:
            binary, symbol, ms, log = job.result()
            done, why = Compiled(binary, None, ms, None if symbol == item.name else symbol, log), ""
        elif isinstance(error, CompileFailed):
            done, why = Compiled(None, str(error), 0.0), ""
        else:  # no NVRTC, a process killed: the device worker compiles it
            done, why = Compiled(None, None, 0.0), f"{type(error).__name__}: {error}"
        with self.lock:
            self.jobs -= 1
            if isinstance(error, BrokenProcessPool):
                self._restart(pool)
        self._settle(item, done, why)

    def _restart(self, broken: ProcessPoolExecutor) -> bool:
        """New NVRTC processes for those a crash broke (NVRTC itself, on some kernel string, or a
        process killed), a few times a pool; after that the device workers compile. Whether there
        are new ones."""
        with self.lock:
            if broken is not self.processes:
                return True  # started again already
            _end(broken)
            if self.closed or self.restarts >= RESTARTS:
                return False
            self.restarts += 1
            mark(f"compile pool: its processes broke; started again ({self.restarts} of {RESTARTS})")
            self.processes = self._start_processes()
            return True

    def _settle(self, item: _Item, done: Compiled, why: str) -> None:
        with self.lock:
            if self.flying.get(item.ck) is item.future:
                del self.flying[item.ck]
            if done.binary is not None or done.error is not None:
                self.cache.put(item.ck, done)
                self.compiled += 1
            elif why:
                mark(f"compile pool: {item.key} not compiled ahead: {why}"[:300])
            self._pump()
        if not item.future.done():
            item.future.set_result(done)

    def close(self) -> None:
        """Cancel what is queued, stop what runs (nvcc killed, the NVRTC processes ended)."""
        with self.lock:
            self.closed = True
            self.drop()
            self.urgent.clear()
            for ck in list(self.flying):
                self.flying.pop(ck).cancel()
        if self.threads is not None:
            self.threads.shutdown(wait=False, cancel_futures=True)
            self.running.kill()
            self.threads.shutdown(wait=True)
        if self.processes is not None:
            _end(self.processes)

    def __enter__(self) -> CompilePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _end(pool: ProcessPoolExecutor) -> None:
    """Its processes killed and waited for (ProcessPoolExecutor's shutdown waits for their jobs)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())  # concurrent.futures' own table
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        p.kill()
    for p in procs:
        p.join(5)


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def _finished(value: Compiled) -> Future:
    done: Future = Future()
    done.set_result(value)
    return done
