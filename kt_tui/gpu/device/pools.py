"""A compile pool: threads for compilers that run as child processes (nvcc), processes for those
that hold the interpreter's lock while they compile (NVRTC, marked `holds_gil`).

On threads NVRTC's compiles run one at a time; in processes they run on every core
(benchmarks/compilers.py: 44 against 248 compiles/s on 15 cores of an H100 host). The processes
start at the first such call, which runs on a thread meanwhile, as do the calls after it until
they are up (a few tenths of a second). They die with the process that made the pool, killed
included: each watches its parent. Not PR_SET_PDEATHSIG: that fires when the *thread* that started
the child ends, and ProcessPoolExecutor starts a process on whichever thread submits when none is
idle; the compile server's threads end with their connections, which killed their processes and
broke the pool, so its compiles went on on threads (issue 26, session 7)."""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures import wait as wait_for
from typing import Any

from ..timeline import mark

WATCH_S = 0.2  # how often a compile process looks whether its parent is still there


def holds_gil(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Marks a compile function that is better run in a process of its own."""
    fn.holds_gil = True  # type: ignore[attr-defined]
    return fn


class CompilePool(Executor):
    def __init__(self, size: int, cores: list[int] | None = None):
        # KT_TUI_PREFETCH_WORKERS may ask for any number: processes beyond the cores only wait
        self.size, self.cores = max(1, min(size, len(cores or os.sched_getaffinity(0)))), cores
        self.threads = ThreadPoolExecutor(max_workers=size, thread_name_prefix="kt-tui-compile")
        self.processes: ProcessPoolExecutor | None = None
        self.up = threading.Event()  # the processes answered
        self.broken = False
        self.started = False
        self.lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:  # type: ignore[override]
        if getattr(fn, "holds_gil", False) and self._processes_up():
            try:
                assert self.processes is not None
                return self.processes.submit(fn, *args, **kwargs)
            except RuntimeError as e:  # broken (a process was killed): threads from now on
                self.broken = True
                mark(f"compile pool: its processes broke ({type(e).__name__}: {e}); compiling on threads")
        return self.threads.submit(fn, *args, **kwargs)

    def start(self) -> None:
        """Start the processes now, in the background, before the first compile that wants them."""
        self._processes_up()

    def _processes_up(self) -> bool:
        with self.lock:
            if not self.started:
                self.started = True
                threading.Thread(target=self._start, name="kt-tui-compile-processes", daemon=True).start()
        return self.up.is_set() and not self.broken

    def _start(self) -> None:
        """Starts the processes, in the background: the first calls run on threads meanwhile."""
        try:
            mp.current_process().daemon = False  # see compilers.allow_children
            self.processes = ProcessPoolExecutor(
                max_workers=self.size,
                mp_context=mp.get_context("spawn"),
                initializer=_child_setup,
                initargs=(self.cores, os.getpid()),
            )
            # each submit to a pool without an idle process starts one, on this thread: all of them now
            warm = [self.processes.submit(os.getpid) for _ in range(self.size)]
            warm[0].result()
            self.up.set()
        except Exception:  # noqa: BLE001 - compiles stay on threads
            self.broken = True

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.threads.shutdown(wait=wait, cancel_futures=cancel_futures)
        if self.processes is not None:
            self.processes.shutdown(wait=wait, cancel_futures=cancel_futures)


def _child_setup(cores: list[int] | None, parent: int) -> None:
    if os.getppid() != parent:  # it died already
        os._exit(0)
    threading.Thread(target=_watch, args=(parent,), name="kt-tui-parent", daemon=True).start()
    if cores:
        os.sched_setaffinity(0, cores)


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_S)
    os._exit(0)


_OWN: dict[int, CompilePool] = {}  # this process's pool, by size: it lasts as long as the process


def own_pool(size: int, cores: list[int] | None = None) -> Executor:
    """This process's compile pool, for one job: its processes start once per GPU worker, not once
    per job (an LLM session runs many small jobs)."""
    if size not in _OWN:
        _OWN[size] = CompilePool(size, cores)
    return Borrowed(_OWN[size])


class Borrowed(Executor):
    """A job's hold on a pool that outlives it: shutting it down ends this job's calls only."""

    def __init__(self, pool: Executor):
        self.pool, self.futures = pool, set[Future]()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:  # type: ignore[override]
        future = self.pool.submit(fn, *args, **kwargs)
        self.futures.add(future)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if cancel_futures:
            for f in self.futures:
                f.cancel()
        if wait:
            wait_for(self.futures)
        self.futures.clear()
