"""The check's child (gpu/checkrun.py main): every kernel it runs compiled ahead, from its start (Ahead),
the mutants sorted by their machine code, and their runs on guarded inputs (gpu/mutants.py child_runs)."""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..kernel.spec import Spec
from ..kernel.text import compile_options
from .compile import find_nvcc
from .mutants import RECORDS, _cubin, child_runs, gpu_arch, machine_code, read_jsonl, sizes_in_order
from .timeline import mark


class Ahead:
    """Every kernel the check's child runs, compiled once, from its start, on every core but one: the
    original's runs, the original at every check size, each mutant at the first size; a mutant's next
    size once it passes one. pycuda and nvcuda compile on a compile pool as kernel_tuner's backend
    would (gpu/compiles.py, nvcc in batches for pycuda; gpu/device/loaders.py Ahead), and the runs
    load those cubins (device/outputs.py run_kernel); cupy compiles through its own cache at the
    run, so here nvcc makes the cubins that sort the mutants only."""

    def __init__(self, spec: Spec, backend: str, runs: list[tuple[str, str]], keep: Path | None = None):
        from .device.loaders import Ahead as Pool  # in the child only: it loads the CUDA driver

        self.spec = spec
        self.waited = 0.0
        # each kernel compiled alone: the mutants are sorted by their machine code, and a batch's
        # members would all carry the batch's one cubin (every mutant "the same code" as the original)
        self.early = Pool.start(backend, compile_options(spec.compiler_options), runs, batch=1, keep=keep)
        self.nvcc = find_nvcc() if self.early is None else None
        self.pool = ThreadPoolExecutor(max(1, (os.cpu_count() or 2) - 1)) if self.nvcc else None
        self.mine: dict[str, Future] = {}
        if self.pool is not None:  # the runs' kernels are cupy's to compile: only the mutants' are sorted here
            self.arch = gpu_arch()
            self.options = compile_options([o for o in spec.compiler_options if o not in ("-lineinfo", "-G")])

    def add(self, named: list[tuple[str, str]]) -> None:
        if self.early is not None:
            self.early.add(named)
        elif self.pool is not None and self.nvcc is not None:
            nvcc = self.nvcc
            for _, text in named:
                if text not in self.mine:
                    self.mine[text] = self.pool.submit(_cubin, nvcc, text, self.arch, self.options, 120)

    def text(self, source: str, sizes: dict | None = None, params: dict | None = None) -> tuple[str, str] | None:
        from .ktsource import kernel_string  # in the child only: kernel_tuner

        try:
            return kernel_string(self.spec, source, params or self.spec.baseline_params(), sizes)
        except Exception:  # noqa: BLE001 - it fails where it runs, and is stillborn there
            return None

    def compile_at(self, s: Spec, source: str, params: dict | None = None) -> None:
        named = self.text(source, s.sizes, params)
        if named is not None:
            self.add([named])

    def ready(self, s: Spec, source: str, params: dict | None = None) -> bool:
        """Whether the kernel kernel_tuner loads for this run is compiled ahead and done (waited for
        here, so that its compile is not in the run's time); cupy compiles at the run: never."""
        named = self.text(source, s.sizes, params) if self.early is not None else None
        return named is not None and isinstance(self._code(named[1]), bytes)

    def _code(self, text: str) -> bytes | str | None:
        """The machine code of a kernel string, nvcc's error, or None (no compile of it ahead)."""
        t0 = time.monotonic()
        try:
            if self.early is not None:
                done = self.early.binary(self.early.pool.options, text)
                return (machine_code(done[0]) or None) if isinstance(done, tuple) else done
            future = self.mine.get(text)
            if future is None:
                return None
            try:
                got = future.result()
            except Exception:  # noqa: BLE001 - compiled again at the run, where a failure is said as usual
                return None
            return got if isinstance(got, str) else machine_code(got) or None
        finally:
            self.waited += time.monotonic() - t0

    def sorter(self, first: Spec, source: str) -> Callable[[str], tuple[str, str]]:
        """sort(mutant source) for child_runs, against `source` (the original) at the first size."""
        original = self.text(source, first.sizes)
        arch = self.arch if self.pool is not None else "this GPU"

        def sort(mutant: str) -> tuple[str, str]:
            mine = self.text(mutant, first.sizes)
            theirs = self._code(original[1]) if original is not None else None
            code = self._code(mine[1]) if mine is not None else None
            if isinstance(code, str):
                return "stillborn", code
            if isinstance(code, bytes) and code == theirs:
                return "equivalent", f"compiles to the same code as the original ({arch})"
            return "live", ""

        return sort

    def close(self) -> None:
        mark(f"check child: waited {self.waited:.3f} s on the compiles of mutants")
        if self.early is not None:
            self.early.close()
        if self.pool is not None:  # nothing waits for a compile still running: its result is not needed
            self.pool.shutdown(wait=False, cancel_futures=True)


@contextmanager
def compiled_ahead(spec: Spec, job: dict[str, Any], out: Path) -> Iterator[Ahead | None]:
    """In the check's child, from its start: the kernels of the original's runs (job["runs"]), the
    original at every check size and, when there are mutants, each of them at the first size, compiled
    on every core but one; the runs inside load them (device/outputs.py loading). A child started again after
    one died (a mutant's illegal address, a poisoned index) compiles only what is left to run, and
    loads what the one before compiled (kept in DIR/cubins)."""
    from .ktsource import kernel_string  # in the child only: kernel_tuner

    done = {r["id"] for r in read_jsonl(out / RECORDS) if r.get("case") is None}
    mutants = [m for m in job.get("mutants") or [] if m["id"] not in done]
    try:
        runs = [kernel_string(spec, r["source"], r["params"]) for r in job.get("runs") or []]
        if (out / "state.json").exists():
            runs = runs[:1]  # judged already: the original's kernel is all it runs again
        ahead = Ahead(spec, job["backend"], runs, keep=out / "cubins")
        if mutants:
            order = sizes_in_order(spec, job)
            ahead.add([kernel_string(spec, job["source"], spec.baseline_params(), s.sizes) for _, s in order])
            ahead.add([t for m in mutants if (t := ahead.text(m["source"], order[0][1].sizes)) is not None])
    except Exception as e:  # noqa: BLE001 - only a head start: kernel_tuner compiles as usual
        print(f"kt-tui: no compile ahead: {type(e).__name__}: {e}", flush=True)
        yield None
        return
    from .device.outputs import loading  # in the child only: kernel_tuner and the CUDA driver

    try:
        with loading(ahead.early):
            yield ahead
    finally:
        ahead.close()


def run_in_child(spec: Spec, job: dict, out: Path, run_arrays: Callable, ahead: Ahead | None) -> None:
    """The mutants' runs (child_runs) on guarded inputs (kernel/guards.py), made once per size: the
    check sizes' are kept, a stronger case's until the next one's."""
    from ..kernel.guards import Guarded  # numpy, in the child only
    from ..kernel.inputs import make_args  # numpy, in the child only

    inputs: OrderedDict[str, Guarded] = OrderedDict()
    keep = 1 + len(job.get("sizes") or [])

    def run(s: Spec, source: str, params: dict) -> dict:
        key = repr((sorted(s.sizes.items()), s.args))
        made = inputs.get(key)
        if made is None:
            if len(inputs) > keep:
                inputs.popitem()  # the last stronger case's
            made = inputs[key] = Guarded(s, make_args(s, s.sizes))
        return made.unguard(run_arrays(s, source, params, None, job["backend"], made.args))

    def say(line: str) -> None:
        print(line, flush=True)

    if ahead is None:
        child_runs(spec, job, out, run, say)
        return
    first = sizes_in_order(spec, job)[0][1]
    child_runs(spec, job, out, run, say, ahead.sorter(first, job["source"]), ahead.compile_at, ahead.ready)
