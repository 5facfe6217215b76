"""What one configuration's compile gives back (`Compiled`), the compiler's refusal
(`CompileFailed`), and which refusals kernel_tuner skips as a configuration too big."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Compiled:
    """One configuration's compile: its binary (a cubin; PTX where NVRTC cannot make code for this
    GPU's architecture), or the compiler's text. Neither: not compiled here, the device worker
    compiles it through kernel_tuner. `symbol`: the kernel's name in `binary` where it is not the
    kernel_tuner instance's name (NVRTC's lowered name of a C++ kernel, a member of an nvcc batch).
    `log`: NVRTC's output beside a binary (its warnings)."""

    binary: bytes | None
    error: str | None
    ms: float
    symbol: str | None = None
    log: str = ""


# what kernel_tuner 1.5's DeviceInterface.compile_kernel reads as a configuration to skip (too much
# shared or local memory) rather than a compile error; NVRTC's and nvcc's ptxas say it here, where
# kernel_tuner's own nvcuda compile hears it from the driver (CUDA_ERROR_INVALID_PTX) as the first
SKIPPABLE = (
    r"uses too much shared data",
    r"local memory limit exceeded",
    r"local memory \(\d+\) exceeds limit \(\d+\)",
)


def skippable(error: str) -> bool:
    """Whether kernel_tuner skips a configuration whose compile says `error` (as too big) rather
    than failing it."""
    return any(re.search(pattern, error) for pattern in SKIPPABLE)


class CompileFailed(RuntimeError):
    """The compiler refused the kernel string: its output is the message. `log`: its whole output;
    `status`: nvcc's exit status, None where it ran past its time limit and was stopped."""

    def __init__(self, message: str, log: str | None = None, status: int | None = 1):
        super().__init__(message)
        self.log, self.status = message if log is None else log, status
