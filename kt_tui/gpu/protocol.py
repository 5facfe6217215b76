"""What the app and the GPU worker process say to each other (picklable, plain data)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

from ..errors import UserError
from ..records import Known, Result

BACKENDS = ("pycuda", "nvcuda", "cupy")
MAX_SIM_PACE_S = 60.0


def sim_pace(environ=None) -> float:
    """KT_TUI_SIM_PACE: the seconds a replay waits per configuration (demos, tests); UserError, naming
    the variable, for anything but a number from 0 to MAX_SIM_PACE_S. Read by the app before the
    worker starts (cli.py) and by the worker."""
    text = (os.environ if environ is None else environ).get("KT_TUI_SIM_PACE") or "0"
    try:
        pace = float(text)
    except ValueError:
        pace = math.nan
    if not 0 <= pace <= MAX_SIM_PACE_S:
        raise UserError(
            f"KT_TUI_SIM_PACE: expected the seconds a replay waits per configuration, from 0 to "
            f"{MAX_SIM_PACE_S:g}, got {text[:40]!r}"
        )
    return pace


# how a tuning run walks its space: ours, or kernel_tuner's strategies (kernel_tuner.interface.strategy_map)
SEARCHES = (
    "kt",
    "brute_force",
    "random_sample",
    "genetic_algorithm",
    "bayes_opt",
    "dual_annealing",
    "simulated_annealing",
    "pso",
    "greedy_ils",
    "greedy_mls",
    "ordered_greedy_mls",
    "mls",
    "diff_evo",
    "firefly_algorithm",
    "basinhopping",
    "minimize",
)


@dataclass
class TuneJob:
    run_id: str
    source: str
    spec: dict  # Spec.to_dict()
    backend: str  # pycuda | nvcuda | cupy | sim
    cachefile: str | None = None  # kernel_tuner cachefile this run appends to (real backends)
    sim_cache: str | None = None  # recorded cachefile to replay (sim)
    configs: list[dict] | None = None  # explicit configurations; None means the whole space
    known: dict[str, Known | Result] = field(default_factory=dict)  # config key -> stored result, not re-run
    reference: dict | None = None  # output name -> array, to verify against
    capture_reference: bool = False  # send the first config's outputs back as the reference
    search: str = "brute_force"  # one of SEARCHES
    search_options: dict = field(default_factory=dict)
    max_configs: int | None = None  # budget: configurations evaluated in this run
    time_limit_s: float | None = None  # budget: seconds of tuning in this run
    seeds: list[dict] = field(default_factory=list)  # configurations to evaluate first
    one_worker: bool = False  # several GPUs: run on the first only (a re-measure compares on one device)
    result_params: list[str] = field(default_factory=list)  # tuned parameters that change the outputs:
    # with a [reference] kernel, each configuration is checked against its outputs at their values
    run_seed: int | None = None  # kernel_tuner's strategies draw from numpy's and Python's generators: seeded with it
    timed: bool = True  # False: each configuration runs once and is compared, not benchmarked (a check)


@dataclass
class ProbeJob:
    backends: tuple[str, ...] = BACKENDS


@dataclass
class PrepareJob:
    """Sent once the backend is known, while the app still compile-checks the kernel: the worker
    makes the spec's inputs and opens the device's driver, which the first job then finds ready.
    Nothing is sent back; what fails here, the first job reports."""

    spec: dict  # Spec.to_dict()
    backend: str
    source: str = ""  # the kernel: its baseline starts compiling too


# A TuneJob runs in the app (gpu/tunerun.py), which calls its on_event(kind, payload) with
#   ("space", {"total": int}), ("begin", {"key": str, "params": dict}), ("result", records.Result,
#   see gpu/results.py normalize_result), ("reference", {name: array}) and returns what "done" carried
#   ({"device": str, "stopped": bool, "simulated": bool, ...}). The device worker's own messages: gpu/wire.py.


@dataclass
class CheckJob:
    """Run the original kernel (reference) and a candidate at other sizes and compare outputs: in
    the app (gpu/checking.py), as untimed TuneJobs of one configuration."""

    run_id: str
    source: str
    spec: dict  # the candidate's Spec.to_dict()
    ref_source: str
    ref_spec: dict
    ref_params: dict
    backend: str
    sizes: list[dict]  # [{"label": "n=37", "sizes": {...}}]
    configs: list[dict]  # the candidate's configurations to check
    partial: list[str] = field(default_factory=list)  # outputs the original leaves partly unwritten at the spec size
    result_params: list[str] = field(default_factory=list)  # as TuneJob.result_params
