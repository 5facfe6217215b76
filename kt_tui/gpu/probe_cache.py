"""The backend probe, remembered per machine: compiling and launching the probe kernel costs
seconds at every start, and its answer only changes with the driver, the GPUs or the Python
packages. A successful probe (the backend, the GPU's name, its arch and its facts with the two
measured peaks, gpu/facts.py) is stored with a
fingerprint of those; a different fingerprint (a new driver, another GPU, pycuda upgraded) probes
again. Failures are never remembered.
`KT_TUI_PROBE_CACHE=0` always probes."""

from __future__ import annotations

import glob
import hashlib
import json
import os
import platform
import re
import sys
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from .facts import clean_facts

ARCH = re.compile(r"sm_[0-9]{2,3}[a-z]?")
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
    probe: Callable[..., dict[str, Any]], path: Path, fingerprint: Callable[[], str | None] = fingerprint
) -> Callable[[Sequence[str]], dict[str, Any]]:
    """`probe` with its successful answers remembered in `path` (JSON), keyed by the fingerprint."""

    def run(backends: Sequence[str]) -> dict[str, Any]:
        if os.environ.get("KT_TUI_PROBE_CACHE", "1") == "0":
            return probe(backends)
        mark = fingerprint()
        known = _answer(path, tuple(backends), mark)
        if known is not None:
            return dict(known, errors={}, cached=True)
        found = probe(backends)
        if mark is not None and found.get("backend"):
            stored = _read(path)
            answers = stored.get("answers") if stored.get("fingerprint") == mark else None
            answers = answers if isinstance(answers, dict) else {}
            answer = {"backend": found["backend"], "gpu": found["gpu"]}
            answer |= {k: found[k] for k in ("arch", "facts") if found.get(k)}
            answers[",".join(backends)] = answer
            _write(path, {"fingerprint": mark, "answers": answers})
        return found

    return run


def remembered(path: Path, backends: tuple[str, ...]) -> dict | None:
    """The stored answer for these backends on this machine as it is now, or None (nothing probed)."""
    if os.environ.get("KT_TUI_PROBE_CACHE", "1") == "0":
        return None
    return _answer(path, backends, fingerprint())


def _answer(path: Path, backends: tuple[str, ...], mark: str | None) -> dict | None:
    stored = _read(path)
    answers = stored.get("answers")
    answer = answers.get(",".join(backends)) if isinstance(answers, dict) else None
    if mark is None or stored.get("fingerprint") != mark or not isinstance(answer, dict):
        return None
    if not (isinstance(answer.get("arch"), str) and ARCH.fullmatch(answer["arch"])):
        answer.pop("arch", None)  # the file is read, not trusted: an arch goes to nvcc's command line
    facts = clean_facts(answer.pop("facts", None))
    return answer | ({"facts": facts} if facts else {})


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
