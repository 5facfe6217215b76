"""The local GPU worker, started as early as a command can: the worker imports numpy and
kernel_tuner (a few tenths of a second) while this process imports the engine and reads the kernel."""

from __future__ import annotations

from ..config import Settings
from ..gpu.client import GpuWorker


def local_worker(settings: Settings, start: bool = False) -> GpuWorker:
    logs = settings.data_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    worker = GpuWorker(log_path=str(logs / "gpu-worker.log"))
    if start:
        worker.start()
    return worker


def early_worker(settings: Settings) -> GpuWorker | None:
    """A started local worker, or None where the settings name GPUs or a Ray cluster (the
    command then makes its pool, after checking those settings)."""
    if settings.ray_address or settings.gpus not in (None, ""):
        return None
    return local_worker(settings, start=True)
