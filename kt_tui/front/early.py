"""What a command does before the engine loads: `kt-tui run` starts the local GPU worker (it imports
numpy and kernel_tuner meanwhile) and the kernel's compile check (nvcc runs while the app loads),
`kt-tui resume --auto` says where the session stands."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING

from ..gpu.timeline import mark
from ..gpu.tuner import Tuner
from ..paths import data_dir
from ..words import counted

if TYPE_CHECKING:
    from ..config import Settings
    from ..kernel.conditions import Macros
    from ..kernel.spec import Spec

_CHECK: dict[str, tuple[str, Future[str | None]]] = {}  # what the early check checks -> its arch, its errors


def local_worker(settings: Settings, start: bool = False) -> Tuner:
    return _worker(settings.data_dir, start, warm_cuda=settings.backend != "sim")


def early_worker(args) -> Tuner | None:
    """A started local worker for `kt-tui run`, or None where the flags or RAY_ADDRESS name GPUs or
    a Ray cluster (the command then makes its pool; cli.py closes this one if the config file does)."""
    if getattr(args, "gpus", None) or getattr(args, "ray_address", None) or os.environ.get("RAY_ADDRESS"):
        start_compile_check(args)
        return None
    worker = _worker(data_dir(), start=True, warm_cuda=getattr(args, "backend", None) != "sim")
    start_compile_check(args)
    return worker


def start_compile_check(args) -> None:
    """Where a GPU may be used: read the kernel and its spec and start nvcc's check of it (for the
    arch of the GPU the remembered probe found, else the usual one) on a thread, so that it runs while the settings, the engine and the store load.
    The thread starts once everything it needs is loaded (no import runs on two threads at once).
    Anything amiss here is left to the command, which reads them again and says what is wrong."""
    if (getattr(args, "backend", None) or os.environ.get("KT_TUI_BACKEND")) == "sim":
        return  # a replay of a recorded version is not checked (engine/precheck.py)
    try:
        from ..engine import precheck  # here: `resume` and the listings load no compile check
        from ..gpu import compile as gpu_compile  # here: as above
        from ..gpu import ktsource  # noqa: F401 - loaded here rather than on the checking thread
        from .kernelfile import load_kernel_spec, read_kernel_file  # here: as above (the spec needs pydantic)

        kf = read_kernel_file(args.kernel_path)
        _, spec = load_kernel_spec(kf, args.spec, args.kernel)
        key = _check_key(kf.source, spec, kf.path)
        request = getattr(args, "backend", None) or os.environ.get("KT_TUI_BACKEND") or "auto"
        from ..kernel.conditions import names_of  # here: as above

        arch = _remembered_arch(request, kf.source, spec.kernel, spec.compiler_options, names_of(spec))
    except Exception:  # noqa: BLE001 - see above
        return
    arch = arch or gpu_compile.DEFAULT_ARCH
    future: Future[str | None] = Future()

    def check() -> None:
        try:
            future.set_result(precheck.compile_errors(kf.source, spec, kf.path, arch))
        except Exception as e:  # noqa: BLE001 - handed to whoever takes the result, as an executor would
            future.set_exception(e)
        mark("main: early compile check done")

    _CHECK.clear()
    _CHECK[key] = (arch, future)
    threading.Thread(target=check, name="kt-tui-compile-check").start()
    mark("main: early compile check started")


def take_compile_check(source: str, spec: Spec, path: str | Path) -> tuple[str, Future[str | None]] | None:
    """The early compile check of this very kernel, spec and path: (the arch, its errors), or None."""
    return _CHECK.pop(_check_key(source, spec, path), None)


def _remembered_arch(
    request: str, source: str = "", kernel: str | None = None, options: Sequence[str] = (), names: Macros | None = None
) -> str:
    """The arch of the GPU this machine's remembered probe found for the request (gpu/probe_cache.py),
    asked in the order the session will probe for this kernel (engine/backend.py probe_order), or ""
    (the usual arch is checked, and again for the GPU's once the probe has said)."""
    from ..engine.backend import BackendError, probe_order  # here: as below
    from ..gpu.probe_cache import remembered  # here: the commands that start no check need no probe cache

    try:
        backends = probe_order(request, source, kernel, options, names)
    except BackendError:  # refused: the command says so
        return ""
    answer = remembered(data_dir() / "backend-probe.json", tuple(backends))
    arch = (answer or {}).get("arch")
    return arch if isinstance(arch, str) else ""


def _check_key(source: str, spec: Spec, path: str | Path) -> str:
    return json.dumps([source, spec.to_dict(), str(path)], sort_keys=True, default=str)


def _worker(data: Path, start: bool, warm_cuda: bool = True) -> Tuner:
    logs = data / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    worker = Tuner(log_path=str(logs / "gpu-worker.log"), warm_cuda=warm_cuda)
    if start:
        worker.start()
    return worker


def resume_line(db: str, sid: str | None) -> str | None:
    """Where the session `resume --auto` goes on with stands: its state, the decision it waits at,
    its results and best so far, from a few indexed reads (it may hold 100,000 results). None for
    a session not found (the command says so)."""
    from ..store import Store  # here: `run` starts its worker without loading the store first

    try:
        store = Store(db)
        rows = store.sessions()
    except (sqlite3.Error, OSError):
        return None
    found = [r for r in rows if r["id"] == sid] or [r for r in rows if sid and r["id"].startswith(sid)]
    s = (found[0] if len(found) == 1 else None) if sid else (rows[0] if rows else None)
    if s is None:
        return None
    pending = store.conn.execute(
        "SELECT title FROM gates WHERE session = ? AND state = 'pending' ORDER BY seq DESC LIMIT 1", [s["id"]]
    ).fetchone()
    line = f"session {s['id']} ({s['strategy']}, {s['kernel_name']}): {s['state']}"
    line += f' at "{pending[0]}"' if pending else ""
    line += f"; {counted(store.count_results(s['id']), 'result')}"
    if s.get("best_ms") is not None:
        line += f", best {s['best_ms']:.4f} ms ({s['best_key']})"
    return line
