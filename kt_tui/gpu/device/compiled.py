"""What this GPU worker process compiled ahead, by compile job, for the jobs after it.

One worker serves a whole session, and a session compiles the same kernel strings again and again:
an LLM session's version is verified, checked at other sizes, tuned and checked again; a run's
configurations are timed again after the check's test and re-measured at the end. A compile job's
result depends only on its arguments (the kernel string, the compiler's options and the GPU's
architecture), so a second job with the same arguments takes the first one's result. Bounded in
bytes; the oldest go first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

LIMIT_BYTES = 256 * 2**20

_lock = threading.Lock()
_kept: OrderedDict[tuple[str, str], tuple[Any, int]] = OrderedDict()
_flying: dict[tuple[str, str], Future] = {}  # asked for and not back yet: a job that ended leaves them going
_sizes = [0]
reused = [0]  # compile jobs answered from here, in this process


def _size(value: Any) -> int:
    if isinstance(value, bytes | bytearray):
        return len(value)
    if isinstance(value, tuple | list):
        return sum(_size(v) for v in value)
    return 64


def _key(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[str, str]:
    return f"{fn.__module__}.{fn.__qualname__}", repr(args)


def recall(fn: Callable[..., Any], args: tuple[Any, ...]) -> Any | None:
    with _lock:
        hit = _kept.get(_key(fn, args))
        if hit is None:
            return None
        _kept.move_to_end(_key(fn, args))
        reused[0] += 1
        return hit[0]


def keep(fn: Callable[..., Any], args: tuple[Any, ...], value: Any) -> None:
    size = _size(value)
    if size > LIMIT_BYTES // 4:
        return
    with _lock:
        key = _key(fn, args)
        if key in _kept:
            return
        _kept[key] = (value, size)
        _sizes[0] += size
        while _sizes[0] > LIMIT_BYTES and _kept:
            _, (_, gone) = _kept.popitem(last=False)
            _sizes[0] -= gone


def drop(fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    with _lock:
        gone = _kept.pop(_key(fn, args), None)
        if gone is not None:
            _sizes[0] -= gone[1]


def pending(fn: Callable[..., Any], args: tuple[Any, ...]) -> Future | None:
    """The compile of these arguments still under way for an earlier job of this worker, if any: a
    job stopped to hand half of its share over keeps the other half, and its compiles."""
    with _lock:
        future = _flying.get(_key(fn, args))
    if future is None or future.cancelled() or (future.done() and future.exception() is not None):
        return None  # a failed one is asked for again
    return future


def flying(fn: Callable[..., Any], args: tuple[Any, ...], future: Future) -> None:
    """`future` makes what `fn(*args)` would (a batch member's share): later jobs may wait on it."""
    key = _key(fn, args)
    with _lock:
        _flying[key] = future

    def landed(f: Future) -> None:
        with _lock:
            if _flying.get(key) is f:
                del _flying[key]

    future.add_done_callback(landed)


def forget() -> None:
    with _lock:
        _flying.clear()
        _kept.clear()
        _sizes[0] = 0
        reused[0] = 0


def submit(pool: Executor, fn: Callable[..., Any], args: tuple[Any, ...]) -> Future:
    """`pool.submit(fn, *args)`, or a finished Future where this process already has its result."""
    hit = recall(fn, args)
    if hit is not None:
        done: Future = Future()
        done.set_result(hit)
        return done
    going = pending(fn, args)
    if going is not None:
        return going
    future = pool.submit(fn, *args)
    flying(fn, args, future)

    def remember(f: Future) -> None:
        if not f.cancelled() and f.exception() is None:
            keep(fn, args, f.result())

    future.add_done_callback(remember)
    return future
