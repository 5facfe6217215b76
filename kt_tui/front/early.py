"""What a command does before the engine loads: `kt-tui run` starts the local GPU worker (it imports
numpy and kernel_tuner meanwhile), `kt-tui resume --auto` says where the session stands."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from ..gpu.client import GpuWorker
from ..paths import data_dir

if TYPE_CHECKING:
    from ..config import Settings


def local_worker(settings: Settings, start: bool = False) -> GpuWorker:
    return _worker(settings.data_dir, start, warm_cuda=settings.backend != "sim")


def early_worker(args) -> GpuWorker | None:
    """A started local worker for `kt-tui run`, or None where the flags or RAY_ADDRESS name GPUs or
    a Ray cluster (the command then makes its pool; cli.py closes this one if the config file does)."""
    if getattr(args, "gpus", None) or getattr(args, "ray_address", None) or os.environ.get("RAY_ADDRESS"):
        return None
    return _worker(data_dir(), start=True, warm_cuda=getattr(args, "backend", None) != "sim")


def _worker(data: Path, start: bool, warm_cuda: bool = True) -> GpuWorker:
    logs = data / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    worker = GpuWorker(log_path=str(logs / "gpu-worker.log"))
    worker.warm_cuda = warm_cuda
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
    line += f"; {store.count_results(s['id'])} results"
    if s.get("best_ms") is not None:
        line += f", best {s['best_ms']:.4f} ms ({s['best_key']})"
    return line
