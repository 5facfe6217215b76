"""The session's one compile pool (gpu/compiles.py), held for the Tuner: made at the first need for
the backend, the GPU's compute capability and the spec's compiler options (one compiling for others
is closed), started early by prepare() on the baseline and the sweep's first configurations.
Nothing here touches CUDA."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from .nvrtc import backend_options
from .timeline import mark

EARLY = 8  # the sweep's first configurations compiled from prepare() on


class Compiling:
    def __init__(
        self,
        cc: Callable[[], str | None],
        size: Callable[[], int],
        closing: Callable[[], bool],
        facts: Callable[[], dict | None],
    ):
        self.cc, self.size, self.closing, self.facts = cc, size, closing, facts
        self.pool: Any = None  # the CompilePool, made at the first need
        self._for: tuple | None = None  # (backend, cc, compiler options) it compiles for
        self._lock = threading.Lock()
        self._off = False
        self._early: list[threading.Thread] = []

    def pool_for(self, spec: Any, backend: str, replace: bool = True) -> Any:
        """The pool for this backend, GPU and the spec's compiler options, or None: a replay, a
        backend the pool cannot compile for, a GPU not probed yet, KT_TUI_PREFETCH=0 (the device
        workers compile), or (not `replace`) a pool compiling for others."""
        from .compiles import CompilePool, enabled  # here: the compilers' modules at the first run
        from .protocol import BACKENDS as COMPILED  # as above

        cc = self.cc()
        if backend not in COMPILED or cc is None or self.closing() or self._off or not enabled():
            return None
        options = backend_options(backend, spec.compiler_options)
        target = (backend, cc, tuple(options))
        with self._lock:
            if self._for != target or self.pool is None:
                if not replace and self.pool is not None:
                    return None
                self._close()
                try:
                    self.pool = CompilePool(backend, cc, options, gpus=self.size())
                except (ValueError, OSError) as e:
                    mark(f"main: no compile pool: {e}"[:300])
                    return None
                self._for = target
            return self.pool

    def binaries(self, runs: list[tuple[Any, str, dict, dict | None]], backend: str, timeout_s: float) -> list:
        """(options, kernel string, binary, symbol) of each of these (spec, source, params, sizes),
        compiled on the pool at once, before anything queued (a tuned configuration's is in its
        cache), for a process that runs them to load: a profile's child.
        The pool is the last run's spec's (one compiling for other options is left alone); a run
        not here (other options, a compile error, one slower than `timeout_s`) is compiled there by
        kernel_tuner, and fails or hangs there as a configuration does."""
        from .ktsource import kernel_string  # as above

        pool = self.pool_for(runs[-1][0], backend, replace=False) if runs else None
        if pool is None:
            return []
        asked: list[tuple[str, str, Any]] = []  # (name, kernel string, Future[Compiled])
        for spec, source, params, sizes in runs:
            try:
                if backend_options(backend, spec.compiler_options) == pool.options:
                    name, text = kernel_string(spec, source, params, sizes)
                    asked.append((name, text, pool.submit(f"{name} {len(asked)}", name, text)))
            except Exception:  # noqa: BLE001 - that process meets it and says it
                continue
        deadline, out = time.monotonic() + timeout_s, []
        for name, text, future in asked:
            try:
                done = future.result(timeout=max(0.0, deadline - time.monotonic()))
            except Exception as e:  # noqa: BLE001 - a pool closed, a compile too slow: compiled there
                mark(f"main: {name} not compiled ahead: {type(e).__name__}: {e}"[:300])
                continue
            if done.binary is not None:
                out.append((pool.options, text, done.binary, done.symbol))
        return out

    def early(self, spec: dict, backend: str, source: str) -> None:
        """On a thread: the baseline's compile and the sweep's first configurations, ahead."""
        thread = threading.Thread(
            target=self._compile_early, args=(spec, backend, source), name="kt-tui-compile-early", daemon=True
        )
        self._early = [t for t in self._early if t.is_alive()] + [thread]
        thread.start()

    def _compile_early(self, spec: dict, backend: str, source: str) -> None:
        try:
            from ..kernel.spec import spec_from_plain  # on this thread: the first frame waits for none of these
            from ..records import config_key  # as above
            from ..search.lazy import LazySpace  # as above
            from .ktsource import kernel_string  # as above

            plain = spec_from_plain(spec)
            pool = self.pool_for(plain, backend)
            if pool is None:
                return
            names = list(plain.tune_params)
            base = plain.baseline_params()
            pool.submit(config_key(names, base), *kernel_string(plain, source, base))
            max_threads = (self.facts() or {}).get("max_threads_per_block")
            first = LazySpace(plain, int(max_threads) if max_threads else None).first(EARLY, quiet=True)
            items = []
            for values in first:
                params = dict(zip(names, values))
                items.append((config_key(names, params), *kernel_string(plain, source, params)))
            pool.ahead(items)
            mark("main: early compiles queued")
        except Exception as e:  # noqa: BLE001 - the run compiles what this could not
            mark(f"main: no early compiles: {type(e).__name__}: {e}"[:300])

    def close(self, wait: bool) -> None:
        """Close the pool; `wait`: first let the early compiles end (none is made meanwhile)."""
        if wait:
            self._off = True
            for thread in self._early:
                thread.join()
        with self._lock:
            self._close()
        self._off = False

    def _close(self) -> None:
        pool, self.pool, self._for = self.pool, None, None
        if pool is not None:
            pool.close()
