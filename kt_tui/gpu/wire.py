"""What the app and a device worker say to each other (issue 38).

Plain, picklable, typed records. The app sends requests on the worker's request queue; the worker
answers with events `(kind, run_id, payload)` on its event queue. A device worker serves one app
for a whole session (or a Ray actor one GPU of a cluster); it holds at most one loaded job.

app -> device                                   device -> app
-------------                                   -------------
ProbeJob(backends)                              ("probe", None, {"backend","gpu","errors",...})   (unchanged)
PrepareJob(spec, backend, source)               nothing                                          (unchanged)
Load(...)                                       ("loaded", run_id, Loaded)
Run(run_id, key, params, binary)                ("ran", run_id, Ran)
None                                            the worker exits

A Load's failure (inputs cannot be made, the reference kernel fails, the cache is missing) comes
back as Loaded(error=...), and the app fails the run with that text (today's ("failed", ...)).
A Run never raises: every failure is a Result with its status (compile_error, runtime_error,
wrong_result, invalid, not_recorded ...). After a Run whose error leaves the CUDA context unusable
(illegal address, launch failure ...: today's STICKY list), Ran.context_lost is True and the
worker exits right after sending it; the app starts a new one and Loads it again before the next
Run. A worker that dies or hangs is the app's watchdog's business (per Run, as today per config).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..records import Result


@dataclass(frozen=True)
class Load:
    """Make a tuning run's data on the device: inputs (made once per spec and sizes and kept across
    Loads), output buffers, the reference (kept on the device), the kernel_tuner DeviceInterface.
    Everything a TuneJob says about the device side, and nothing about the search."""

    run_id: str
    source: str  # the kernel
    spec: dict[str, Any]  # Spec.to_dict()
    backend: str  # pycuda | nvcuda | cupy | sim
    sim_cache: str | None = None  # sim: the recorded kernel_tuner cachefile to answer Runs from
    reference: dict[str, Any] | None = None  # output name -> numpy array (the original's outputs), or None:
    # then the spec says where the reference comes from (a reference kernel, expected outputs), or
    # nothing is verified (spec.verify == "none", a timing-only run)
    capture_reference: bool = False  # the first ok Run's outputs come back in Ran.outputs (the baseline)
    result_params: tuple[str, ...] = ()  # with a reference kernel: one reference per value of these
    verify: bool = True  # False: a timing-only run (no comparison at all)
    result_values: dict[str, tuple] | None = None  # with result_params: the values each takes in this
    # run (the job's configurations, else the spec's), one reference kernel run per combination
    timed: bool = True  # False: a Run runs once and compares, and is not benchmarked (a check at another size)


@dataclass(frozen=True)
class Loaded:
    run_id: str
    device: str | None = None  # the GPU's name (kernel_tuner's env "device_name"); None for sim
    error: str | None = None  # the Load failed: the run fails with this text
    compare: str = "device"  # where outputs are compared: "device", "host: <why>", or "none"


@dataclass(frozen=True)
class Run:
    """One configuration of the loaded job: compile (or load `binary`), run once and compare, reset
    the outputs, benchmark. `binary` is the CompilePool's cubin for exactly the kernel string
    kernel_tuner would build for these params (gpu/ktsource.py); None: the worker compiles it
    itself through kernel_tuner. `compile_error`: the pool's compiler failed; the worker reports it
    as the Result (status compile_error) without running anything."""

    run_id: str
    key: str  # records.config_key of params
    params: dict[str, Any]
    binary: bytes | None = None
    symbol: str | None = None  # the kernel's name in `binary` where it is not kernel_tuner's (NVRTC's
    # lowered name, a member of an nvcc batch)
    compile_error: str | None = None
    compile_ms: float | None = None  # the pool's compile time, reported as the Result's compile_ms


@dataclass(frozen=True)
class Ran:
    run_id: str
    result: Result  # status, time_ms, times, verified, max_abs_err, first_bad, verdicts, compile_ms...
    outputs: dict[str, Any] | None = None  # capture_reference: this Run's outputs (host numpy arrays)
    context_lost: bool = False  # the worker exits after this message; the app restarts and re-Loads
    raw: dict[str, Any] = field(default_factory=dict)  # kernel_tuner's own result dict for this config
    # (the times, compile_time, verification_time, benchmark_time, ...): what the app's cachefile stores
