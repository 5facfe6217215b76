"""A kernel file and its launch spec, read for a new session (front/session.py) and, before the rest
of the app loads, for the compile check `kt-tui run` starts early (front/early.py)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..files import SPEC_MAX, FileRefused, read_text_file
from ..kernel.source import Kernel, SourceError, find_kernels, pick_kernel, read_source
from ..kernel.spec import Spec, SpecError, load_spec, spec_path_for


@dataclass
class KernelFile:
    path: Path
    source: str
    kernels: list[Kernel]


def read_kernel_file(path: str | Path) -> KernelFile:
    p = Path(path)
    source = read_source(p)
    kernels = find_kernels(source)
    if not kernels:
        raise SourceError(f"{p}: no __global__ kernel found; kt-tui tunes CUDA kernels declared with __global__")
    return KernelFile(p, source, kernels)


def load_kernel_spec(kf: KernelFile, spec_path: str | Path | None, kernel_name: str | None) -> tuple[Kernel, Spec]:
    """The kernel and its spec; SpecError when the spec is missing or broken."""
    sp = Path(spec_path) if spec_path else spec_path_for(kf.path)
    if not sp.exists():
        raise SpecError("", f"no launch spec (expected {sp}); `kt-tui {kf.path}` drafts one from the signature", sp)
    try:
        name = kernel_name or tomllib.loads(read_text_file(sp, "spec", SPEC_MAX)).get("kernel")
    except (tomllib.TOMLDecodeError, FileRefused, RecursionError):
        name = kernel_name  # load_spec reports the problem
    kernel = pick_kernel(kf.kernels, name.split("<")[0].strip() if isinstance(name, str) else None, str(kf.path))
    return kernel, load_spec(sp, kernel)
