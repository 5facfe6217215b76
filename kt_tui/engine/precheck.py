"""Compile errors first: the user's own kernel is compiled at its default configuration before a
backend is picked or anything is measured, so a typo reads as nvcc's message, not as a missing cache."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from ..errors import UserError
from ..gpu import compile as gpu_compile  # looked up at each call: tests replace them
from ..kernel.spec import Spec
from .backend import BackendChoice, BackendError


class CompileError(UserError):
    pass


def compile_spec(source: str, spec: Spec) -> gpu_compile.CompileResult:
    """Compile the kernel at the spec's default configuration, as kernel_tuner prepares it (defines,
    template wrapper included), for the default architecture."""
    return gpu_compile.compile_check(
        source, spec.baseline_params(), compiler_options=spec.compiler_options or None, spec=spec
    )


def compile_errors(source: str, spec: Spec, path: str | Path, arch: str) -> str | None:
    """None when it compiles; else nvcc's errors as `file:line:col: error: text` lines. Raises nothing."""
    result = gpu_compile.compile_check(
        source, spec.baseline_params(), arch=arch, compiler_options=spec.compiler_options or None, spec=spec
    )
    if result.ok is None:
        return ""
    if result.ok:
        return None
    lines = []
    for m in result.errors[:10]:
        where = f"{path}:{m.line}:{m.column}" if m.column else (f"{path}:{m.line}" if m.line else str(path))
        lines.append(f"{where}: error: {m.text}" + (f"\n    {m.source_line.strip()}" if m.source_line.strip() else ""))
    return "\n".join(lines) or "does not compile"


def checked_backend(
    pick: Callable[[], BackendChoice],
    source: str,
    spec: Spec,
    path: str | Path,
    quick_pick: bool = False,
    early: tuple[str, Future[str | None]] | None = None,
) -> BackendChoice:
    """`pick()` the backend, then compile-check the kernel for its GPU; a compile error wins over
    a backend error (no GPU, no recorded cache). A skipped check is said in the backend's note.

    Without quick_pick, nvcc runs for the usual arch while the backend is picked (probed). With it
    (a replay was asked for: nothing is probed) the pick comes first, and a replay of this very
    kernel version is not checked: it compiled where the cache was recorded. early: (arch, errors)
    of that check started before (front/early.py: for the arch of the GPU the remembered probe
    found, else the usual one), taken instead of starting it here."""
    ahead_arch, ahead = early if early is not None and not quick_pick else (gpu_compile.DEFAULT_ARCH, None)
    with ThreadPoolExecutor(1) as pool:
        if not quick_pick and ahead is None:
            ahead = pool.submit(compile_errors, source, spec, path, ahead_arch)
        try:
            choice, problem = pick(), None
        except BackendError as e:
            choice, problem = None, e
        if ahead is None and choice is not None and choice.simulated and choice.replays_version:
            choice.note = _noted(
                choice.note, "Compile check skipped: the recorded cache is of this very kernel version."
            )
            return choice
        arch, said = (choice or BackendChoice("sim", "")).compile_arch()
        errors = (
            ahead.result() if ahead is not None and arch == ahead_arch else compile_errors(source, spec, path, arch)
        )
    if errors:
        raise CompileError(f"{spec.kernel} does not compile ({said.replace('checked for', 'for')}):\n{errors}")
    if problem is not None:
        raise problem
    assert choice is not None  # pick() returned one or raised
    if errors == "":
        choice.note = _noted(choice.note, "Compile check skipped: no CUDA compiler found.")
    return choice


def _noted(note: str, more: str) -> str:
    return f"{note} {more}" if note else more
