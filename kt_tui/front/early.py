"""The local GPU worker, started as early as a command can: `kt-tui run` starts it before the
settings' and the engine's libraries load, and the worker imports numpy and kernel_tuner meanwhile."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..dirs import data_dir
from ..gpu.client import GpuWorker

if TYPE_CHECKING:
    from ..config import Settings


def local_worker(settings: Settings, start: bool = False) -> GpuWorker:
    return _worker(settings.data_dir, start)


def early_worker(args) -> GpuWorker | None:
    """A started local worker for `kt-tui run`, or None where the flags or RAY_ADDRESS name GPUs or
    a Ray cluster (the command then makes its pool; cli.py closes this one if the config file does)."""
    if getattr(args, "gpus", None) or getattr(args, "ray_address", None) or os.environ.get("RAY_ADDRESS"):
        return None
    return _worker(data_dir(), start=True)


def _worker(data: Path, start: bool) -> GpuWorker:
    logs = data / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    worker = GpuWorker(log_path=str(logs / "gpu-worker.log"))
    if start:
        worker.start()
    return worker
