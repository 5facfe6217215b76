"""Runs inside the GPU worker, once per GPU and driver (the backend probe's cache keeps the answer):
the device's facts read with the backend's own API, and two peaks measured with kernel_tuner on the
same backend as every job (lang "CUDA" pinned to it): a device-to-device copy (bytes read + written
per second) and FP32 fused multiply-adds. A few seconds, once; a peak that cannot be measured is left
out and `peak_error` says why.

With them, what kernel_tuner's time of any kernel carries besides the kernel: its start event is
recorded before the host has launched the kernel, so every time includes the launch. On the H100
(pycuda, 2026-12-06) the vector add of examples/ timed 0.101 ms where Nsight Compute's DRAM
throughput means about 0.076 ms of kernel. `launch_us` is kernel_tuner's time of the copy kernel on
one block, which does next to nothing: a share of the peak is said with it (engine/limits.py), and no
time is ever corrected by it."""

from __future__ import annotations

import os
import time
from typing import Any

from ..facts import theoretical_gbps

# Imported where used: the backend's own module (pycuda, cupy or cuda-python: only the one the probe
# found loads) and kernel_tuner with numpy, for the peaks.

# CUdevice_attribute names (pycuda's device_attribute has the same, cuda-python's the prefix too)
ATTRS = {
    "sms": "MULTIPROCESSOR_COUNT",
    "sm_clock_khz": "CLOCK_RATE",
    "mem_clock_khz": "MEMORY_CLOCK_RATE",
    "bus_width_bits": "GLOBAL_MEMORY_BUS_WIDTH",
    "l2_bytes": "L2_CACHE_SIZE",
    "smem_per_block": "MAX_SHARED_MEMORY_PER_BLOCK",
    "smem_per_block_optin": "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
    "smem_per_sm": "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR",
    "regs_per_sm": "MAX_REGISTERS_PER_MULTIPROCESSOR",
    "max_threads_per_block": "MAX_THREADS_PER_BLOCK",
    "max_threads_per_sm": "MAX_THREADS_PER_MULTIPROCESSOR",
    "cc_major": "COMPUTE_CAPABILITY_MAJOR",
    "cc_minor": "COMPUTE_CAPABILITY_MINOR",
}
# cupy's getDeviceProperties keys for the same
CUPY_PROPS = {
    "sms": "multiProcessorCount",
    "sm_clock_khz": "clockRate",
    "mem_clock_khz": "memoryClockRate",
    "bus_width_bits": "memoryBusWidth",
    "l2_bytes": "l2CacheSize",
    "smem_per_block": "sharedMemPerBlock",
    "smem_per_block_optin": "sharedMemPerBlockOptin",
    "smem_per_sm": "sharedMemPerMultiprocessor",
    "regs_per_sm": "regsPerMultiprocessor",
    "max_threads_per_block": "maxThreadsPerBlock",
    "max_threads_per_sm": "maxThreadsPerMultiProcessor",
    "cc_major": "major",
    "cc_minor": "minor",
}

COPY_BYTES = 512 << 20  # per buffer: ten times an H100's L2, so the copy runs from DRAM
COPY_SRC = """
__global__ void kt_copy_peak(float4 *dst, const float4 *src, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) dst[i] = src[i];
}
"""
FMA_ITERS = 4096
FMA_SRC = """
__global__ void kt_fma_peak(float *out, int iters) {
    float b = 0.999f, c = 1e-3f, x0 = threadIdx.x * 1e-7f;
    float x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6, x7 = x0 + 7;
    for (int i = 0; i < iters; ++i) {
        x0 = fmaf(x0, b, c); x1 = fmaf(x1, b, c); x2 = fmaf(x2, b, c); x3 = fmaf(x3, b, c);
        x4 = fmaf(x4, b, c); x5 = fmaf(x5, b, c); x6 = fmaf(x6, b, c); x7 = fmaf(x7, b, c);
    }
    out[blockIdx.x * block_size_x + threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}
"""


def device_facts(backend: str, name: str, peaks: bool | None = None) -> dict[str, Any]:
    """The facts of device 0 as `backend` reads them (gpu/facts.py names the fields); the peaks are
    measured unless KT_TUI_PEAKS=0 (the tests: each has a data dir of its own, so nothing is cached)."""
    if peaks is None:
        peaks = os.environ.get("KT_TUI_PEAKS", "1") != "0"
    raw = _read(backend)
    facts: dict[str, Any] = {"name": name, "backend": backend, "recorded": time.strftime("%Y-%m-%d")}
    facts["cc"] = f"{raw.pop('cc_major', 0)}.{raw.pop('cc_minor', 0)}"
    facts["sm_clock_mhz"] = raw.pop("sm_clock_khz", 0) / 1000
    facts["mem_clock_mhz"] = raw.pop("mem_clock_khz", 0) / 1000
    facts.update(raw)
    if facts["mem_clock_mhz"] and facts.get("bus_width_bits"):
        facts["bandwidth_gbps"] = round(theoretical_gbps(facts["mem_clock_mhz"], facts["bus_width_bits"]), 1)
    if peaks:
        started = time.monotonic()
        try:
            facts.update(measure_peaks(backend, int(facts.get("sms") or 0)))
        except Exception as e:  # noqa: BLE001 - the facts stand without the peaks, which say why
            facts["peak_error"] = f"{type(e).__name__}: {e}"[:200]
        facts["measure_s"] = round(time.monotonic() - started, 2)
    return facts


def _read(backend: str) -> dict[str, Any]:
    if backend == "cupy":
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(0)
        out = {k: int(props[p]) for k, p in CUPY_PROPS.items() if p in props}
        out["memory_bytes"] = int(props.get("totalGlobalMem", 0))
        return out
    if backend == "pycuda":
        import pycuda.driver as drv

        drv.init()
        dev = drv.Device(0)
        out = {}
        for k, a in ATTRS.items():
            attr = getattr(drv.device_attribute, a, None)
            if attr is not None:
                out[k] = int(dev.get_attribute(attr))
        out["memory_bytes"] = int(dev.total_memory())
        return out
    from cuda.bindings import driver

    driver.cuInit(0)
    _, dev = driver.cuDeviceGet(0)
    out = {}
    for k, a in ATTRS.items():
        attr = getattr(driver.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{a}", None)
        if attr is not None:
            err, v = driver.cuDeviceGetAttribute(attr, dev)
            if err == driver.CUresult.CUDA_SUCCESS:
                out[k] = int(v)
    err, total = driver.cuDeviceTotalMem(dev)
    if err == driver.CUresult.CUDA_SUCCESS:
        out["memory_bytes"] = int(total)
    return out


def measure_peaks(backend: str, sms: int) -> dict[str, float]:
    """The copy bandwidth and the FP32 FMA throughput, each the best of kernel_tuner's runs; and the
    launch: kernel_tuner's time (the mean of its runs, as every result's) of the copy on one block."""
    import numpy as np

    from ..ktimport import load

    load()
    from kernel_tuner import tune_kernel

    from .lang import cuda_lang, numpy_arguments

    def times_ms(name: str, src: str, size: int, args: list[Any]) -> tuple[float, float]:
        """(the best, kernel_tuner's time)"""
        with cuda_lang(backend) as lang, numpy_arguments(backend):
            results, _ = tune_kernel(
                name, src, size, args, {"block_size_x": [256]}, lang=lang, quiet=True, iterations=10
            )
        times = results[0].get("times") or [results[0]["time"]]
        return float(min(times)), float(results[0]["time"])

    def copy_ms(n4: int) -> tuple[float, float]:
        src = np.zeros(n4 * 4, np.float32)
        return times_ms("kt_copy_peak", COPY_SRC, n4, [np.zeros_like(src), src, np.int32(n4)])

    threads = max(sms, 1) * 8 * 256
    fma_ms = times_ms("kt_fma_peak", FMA_SRC, threads, [np.zeros(threads, np.float32), np.int32(FMA_ITERS)])[0]
    return {
        "copy_gbps": round(2 * COPY_BYTES / (copy_ms(COPY_BYTES // 16)[0] * 1e-3) / 1e9, 1),
        "fma_gflops": round(threads * FMA_ITERS * 8 * 2 / (fma_ms * 1e-3) / 1e9, 1),
        "launch_us": round(copy_ms(256)[1] * 1e3, 1),  # one block of 256 threads, 8 KiB moved
    }
