"""The check's child (gpu/checkrun.py main): every kernel it runs compiled from its start on the
compile pool a tuning run compiles on (gpu/device/loaders.py Ahead), the mutants sorted by the
machine code of those compiles (Kernels), and their runs on guarded inputs (gpu/mutants.py child_runs)."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..kernel.spec import Spec
from .compiles import enabled
from .mutants import RECORDS, child_runs, machine_code, read_jsonl, sizes_in_order
from .nvrtc import backend_options
from .timeline import mark

if TYPE_CHECKING:
    from .device.loaders import Ahead


class Kernels:
    """The check child's kernels, by spec (at a size), source and parameters, compiled on `ahead`, each
    alone: a batch's members would all carry the batch's one cubin (every mutant "the same code" as
    the original). `loaded`: the runs load these binaries (device/outputs.py loading); with
    KT_TUI_PREFETCH=0 they only sort the mutants, and kernel_tuner compiles what runs."""

    def __init__(self, spec: Spec, ahead: Ahead, loaded: bool = True):
        self.spec, self.ahead, self.loaded = spec, ahead, loaded
        self.waited = 0.0

    def text(self, source: str, sizes: dict | None = None, params: dict | None = None) -> tuple[str, str] | None:
        from .ktsource import kernel_string  # in the child only: kernel_tuner

        try:
            return kernel_string(self.spec, source, params or self.spec.baseline_params(), sizes)
        except Exception:  # noqa: BLE001 - it fails where it runs, and is stillborn there
            return None

    def compile_at(self, s: Spec, source: str, params: dict | None = None) -> None:
        named = self.text(source, s.sizes, params)
        if named is not None:
            self.ahead.add([named])

    def ready(self, s: Spec, source: str, params: dict | None = None) -> bool:
        """Whether the kernel this run loads is compiled and done (waited for here, so that its
        compile is not in the run's time)."""
        named = self.text(source, s.sizes, params) if self.loaded else None
        return named is not None and isinstance(self.code(named[1]), bytes)

    def code(self, text: str) -> bytes | str | None:
        """The machine code of a kernel string, the compiler's text, or None (not compiled here, or PTX)."""
        t0 = time.monotonic()
        try:
            done = self.ahead.binary(self.ahead.pool.options, text)
        finally:
            self.waited += time.monotonic() - t0
        return (machine_code(done[0]) or None) if isinstance(done, tuple) else done

    def sorter(self, first: Spec, source: str) -> Callable[[str], tuple[str, str]]:
        """sort(mutant source) for child_runs, against `source` (the original) at the first size."""
        original = self.text(source, first.sizes)

        def sort(mutant: str) -> tuple[str, str]:
            mine = self.text(mutant, first.sizes)
            theirs = self.code(original[1]) if original is not None else None
            code = self.code(mine[1]) if mine is not None else None
            if isinstance(code, str):
                return "stillborn", code
            if isinstance(code, bytes) and code == theirs:
                return "equivalent", f"compiles to the same code as the original (sm_{self.ahead.pool.cc})"
            return "live", ""

        return sort

    def close(self) -> None:
        mark(f"check child: waited {self.waited:.3f} s on the compiles of mutants")
        self.ahead.close()


@contextmanager
def compiled_ahead(spec: Spec, job: dict[str, Any], out: Path) -> Iterator[Kernels | None]:
    """In the check's child, from its start: the kernels of the original's runs (job["runs"]), the
    original at every check size and, when there are mutants, each of them at the first size, compiled
    on every core but one; the runs inside load them (device/outputs.py loading). A child started again after
    one died (a mutant's illegal address, a poisoned index) compiles only what is left to run, and
    loads what the one before compiled (kept in DIR/cubins)."""
    from .device.loaders import Ahead  # in the child only: it reads the GPU
    from .ktsource import kernel_string  # in the child only: kernel_tuner

    done = {r["id"] for r in read_jsonl(out / RECORDS) if r.get("case") is None}
    mutants = [m for m in job.get("mutants") or [] if m["id"] not in done]
    ahead = kernels = None
    try:
        runs = [kernel_string(spec, r["source"], r["params"]) for r in job.get("runs") or []]
        if (out / "state.json").exists():
            runs = runs[:1]  # judged already: the original's kernel is all it runs again
        ahead = Ahead.start(
            job["backend"], backend_options(job["backend"], spec.compiler_options), runs, batch=1, keep=out / "cubins"
        )
        if ahead is not None:
            kernels = Kernels(spec, ahead, loaded=enabled())
            if mutants:
                order = sizes_in_order(spec, job)
                ahead.add([kernel_string(spec, job["source"], spec.baseline_params(), s.sizes) for _, s in order])
                ahead.add([t for m in mutants if (t := kernels.text(m["source"], order[0][1].sizes)) is not None])
    except Exception as e:  # noqa: BLE001 - only a head start: kernel_tuner compiles as usual
        print(f"kt-tui: no compile ahead: {type(e).__name__}: {e}", flush=True)
        if ahead is not None:
            ahead.close()
        kernels = None
    if kernels is None:
        yield None
        return
    from .device.outputs import loading  # in the child only: kernel_tuner and the CUDA driver

    try:
        with loading(kernels.ahead if kernels.loaded else None):
            yield kernels
    finally:
        kernels.close()


def run_in_child(spec: Spec, job: dict, out: Path, run_arrays: Callable, kernels: Kernels | None) -> None:
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

    if kernels is None:
        child_runs(spec, job, out, run, say)
        return
    first = sizes_in_order(spec, job)[0][1]
    child_runs(spec, job, out, run, say, kernels.sorter(first, job["source"]), kernels.compile_at, kernels.ready)
