"""Every name of kernel_tuner's that is not its documented interface, in one place (kernel_tuner
1.5.0; pyproject pins >=1.5,<1.6, the range the tests ran).

kernel_tuner's public interface runs a whole tuning session (`tune_kernel`). kt-tui drives its
strategies itself (gpu/tuner.py) with a runner of its own (gpu/runner.py) and runs each
configuration through `DeviceInterface` in a device worker (gpu/device/session.py), so it builds
what `tune_kernel` would build around them:

- `kernel_tuner.interface.Options`: the dict-with-attributes `tuning_options` and `kernel_options`
  are made of; the fields strategies and CostFunc read are those of `tuning_options()` below
  (tune_params, restrictions, strategy_options, objective, objective_higher_is_better, budget,
  cache, cachefile, verbose, metrics, simulation_mode; strategies add `eps`).
- `kernel_tuner.util`: TuningBudget (the budget CostFunc checks), StopCriterionReached (CostFunc's
  end of a budget), store_cache / process_cache (the cachefile's format and checks),
  the error classes a result carries in "__error__" (ErrorConfig, InvalidConfig,
  CompilationFailedConfig, RuntimeFailedConfig), get_objective_defaults,
  check_block_size_params_names_list and append_default_block_size_names (as tune_kernel
  normalises block_size_names), get_smem_args (a configuration's shared memory size),
  check_argument_list (run_kernel's check of the arguments against the kernel's signature).
- `DeviceInterface.dev`: the backend object, for `memcpy_htod` (resetting the outputs between
  configurations: DeviceInterface only copies to the host) — `backend()` below.
- gpu/device/lang.py replaces `kernel_tuner.core._select_default_cuda_backend`,
  `kernel_tuner.core._get_cupy` and `kernel_tuner.util._get_cupy` (it says why).
"""

from __future__ import annotations

from typing import Any

from .ktimport import APP
from .ktimport import load as _load_kernel_tuner

_load_kernel_tuner(APP)  # before kernel_tuner's own imports, and no GPU backend: see gpu/ktimport.py
from kernel_tuner import util  # noqa: E402
from kernel_tuner.interface import Options  # noqa: E402

StopCriterionReached = util.StopCriterionReached
store_cache = util.store_cache
process_cache = util.process_cache
ErrorConfig = util.ErrorConfig
InvalidConfig = util.InvalidConfig
CompilationFailedConfig = util.CompilationFailedConfig
RuntimeFailedConfig = util.RuntimeFailedConfig
get_smem_args = util.get_smem_args
check_argument_list = util.check_argument_list


def tuning_options(
    tune_params: dict,
    restrictions: Any,
    strategy_options: dict,
    iterations: int,
    simulation_mode: bool = False,
) -> Options:
    """What tune_kernel hands a strategy as `tuning_options`, before the cache and the budget."""
    objective, higher = util.get_objective_defaults(None, None)
    opts = Options(
        tune_params=tune_params,
        restrictions=restrictions,
        restrictions_unmodified=restrictions,
        answer=None,
        atol=1e-6,
        verify=None,
        strategy=None,
        strategy_options=Options(strategy_options),
        iterations=iterations,
        objective=[objective],
        objective_higher_is_better=[higher],
        verbose=False,
        cache={},
        cachefile=None,
        metrics=None,
        simulation_mode=simulation_mode,
        seed=None,
        parallel=None,
        observers=None,
        simulated_time=0,
    )
    for key in ("max_fevals", "time_limit"):
        if key in strategy_options:
            opts[key] = strategy_options[key]
    return opts


def kernel_options(**fields: Any) -> Options:
    """kernel_tuner's `kernel_options` (kernel_name, kernel_source, lang, problem_size, arguments,
    grid_div_x/y/z, smem_args, cmem_args, texmem_args, block_size_names, defines), block_size_names
    normalised as tune_kernel does (with `tune_params`) or run_kernel does (without)."""
    opts = Options(fields)
    names = fields.get("block_size_names")
    if "tune_params" in fields:  # a tuning run's (run_kernel's are taken as given)
        names = util.check_block_size_params_names_list(names, opts.pop("tune_params"))
    util.append_default_block_size_names(names)
    opts["block_size_names"] = names
    return opts


def budget(time_limit: float | None, max_fevals: int | None) -> Any:
    return util.TuningBudget(time_limit, max_fevals)


def backend(dev: Any) -> Any:
    """The backend object (PyCudaFunctions, CudaFunctions, CupyFunctions) of a DeviceInterface."""
    return dev.dev
