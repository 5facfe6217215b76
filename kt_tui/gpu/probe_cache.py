"""The backend probe, remembered per machine: compiling and launching the probe kernel costs
seconds at every start, and its answer only changes with the driver, the GPUs or the Python
packages. A successful probe is stored with a fingerprint of those; a different fingerprint (a
new driver, another GPU, pycuda upgraded) probes again. Failures are never remembered.
`KT_TUI_PROBE_CACHE=0` always probes."""

from __future__ import annotations

import glob
import hashlib
import json
import os
import platform
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

PACKAGES = ("pycuda", "cupy", "cupy-cuda12x", "cupy-cuda13x", "cuda-python", "cuda-bindings", "kernel_tuner")


def fingerprint() -> str | None:
    """What the probe's answer depends on, or None where there is no NVIDIA driver to read."""
    try:
        driver = Path("/proc/driver/nvidia/version").read_text()
    except OSError:
        return None
    gpus = []
    for info in sorted(glob.glob("/proc/driver/nvidia/gpus/*/information")):
        try:
            gpus.append(Path(info).read_text())
        except OSError:
            pass
    versions = []
    for name in PACKAGES:
        try:
            versions.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            pass
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    text = "\n".join([platform.node(), sys.executable, driver, *gpus, *versions, f"visible={visible}"])
    return hashlib.sha256(text.encode()).hexdigest()


def cached_probe(
    probe: Callable[[tuple], dict], path: Path, fingerprint: Callable[[], str | None] = fingerprint
) -> Callable[[tuple], dict]:
    """`probe` with its successful answers remembered in `path` (JSON), keyed by the fingerprint."""

    def run(backends) -> dict:
        if os.environ.get("KT_TUI_PROBE_CACHE", "1") == "0":
            return probe(backends)
        mark = fingerprint()
        key = ",".join(backends)
        stored = _read(path)
        if mark is not None and stored.get("fingerprint") == mark and key in stored.get("answers", {}):
            return dict(stored["answers"][key], errors={}, cached=True)
        found = probe(backends)
        if mark is not None and found.get("backend"):
            answers = stored.get("answers", {}) if stored.get("fingerprint") == mark else {}
            answers[key] = {"backend": found["backend"], "gpu": found["gpu"]}
            _write(path, {"fingerprint": mark, "answers": answers})
        return found

    return run


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _write(path: Path, data: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, path)
    except OSError:
        pass  # remembering is an optimisation
