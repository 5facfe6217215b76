"""Device facts: what a performance engineer knows of the GPU before reading a time. The GPU worker
reads them with its backend's API and measures two peaks once (gpu/device/device.py); the backend
probe's cache keeps them per GPU and driver (gpu/probe_cache.py), a recorded cache's header carries
them (gpu/simcache.py) and a session stores them. Every copy read back from a file or a database is
untrusted: `clean_facts` keeps only the known fields, as numbers or short texts."""

from __future__ import annotations

import math
from typing import Any

NUMBERS = (
    "sms",  # streaming multiprocessors
    "sm_clock_mhz",
    "mem_clock_mhz",
    "bus_width_bits",
    "memory_bytes",
    "l2_bytes",
    "smem_per_block",
    "smem_per_block_optin",
    "smem_per_sm",
    "regs_per_sm",
    "max_threads_per_block",
    "max_threads_per_sm",
    "bandwidth_gbps",  # theoretical: 2 transfers a memory clock over the bus
    "copy_gbps",  # measured: a device-to-device copy, bytes read + written per second
    "fma_gflops",  # measured: FP32 fused multiply-adds, 2 FLOP each
    "launch_us",  # measured: kernel_tuner's time of a kernel that does next to nothing (worker/device.py)
    "measure_s",  # what measuring the two peaks cost, once
)
TEXTS = ("name", "cc", "backend", "recorded", "peak_error")
MAX_TEXT = 200


def clean_facts(value: Any) -> dict[str, Any] | None:
    """The known fields of `value` with sane types (None when nothing usable is there)."""
    if not isinstance(value, dict):
        return None
    out: dict[str, Any] = {}
    for k in NUMBERS:
        v = value.get(k)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and 0 <= v < 1e18:
            out[k] = v
    for k in TEXTS:
        v = value.get(k)
        if isinstance(v, str) and v:
            out[k] = "".join(c for c in v[:MAX_TEXT] if c.isprintable())
    return out if out.get("name") else None


def theoretical_gbps(mem_clock_mhz: float, bus_width_bits: float) -> float:
    """DRAM bandwidth from the clock and the bus: two transfers per clock (DDR / HBM)."""
    return 2 * mem_clock_mhz * 1e6 * bus_width_bits / 8 / 1e9
