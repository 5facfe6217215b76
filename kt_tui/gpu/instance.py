"""The kernel string kernel_tuner builds for one configuration, for the backends the compile pool
(gpu/compiles.py) compiles for."""

from __future__ import annotations

from ..kernel.spec import Spec, SpecError
from .protocol import BACKENDS


def instance_text(spec: Spec, source: str, params: dict, backend: str, sizes: dict | None = None) -> tuple[str, str]:
    """(kernel name, kernel string) of kernel_tuner's KernelInstance for `params`, as
    `DeviceInterface.create_kernel_instance` makes it for a run set up as the device worker sets
    kernel_tuner up (gpu/ktsource.py: its KernelSource and defines, grid and block from the problem
    size and divisors, its template wrapper). What a backend adds when it compiles (pycuda's
    `extern "C"` around a kernel without one) is the pool's part."""
    if backend not in BACKENDS:
        raise SpecError("backend", f"{backend!r}: the compile pool compiles for {', '.join(BACKENDS)}")
    from .ktsource import kernel_string  # here: kernel_tuner loads at the first kernel string

    return kernel_string(spec, source, params, sizes)
