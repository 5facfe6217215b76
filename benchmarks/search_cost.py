"""benchmarks/search.py --model-cost: each strategy's own CPU time per evaluation on synthetic spaces
of 21,600 and 108,000 configurations, in kernel_tuner's simulation mode."""

from __future__ import annotations

import json
import math
import random
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
from kernel_tuner import tune_kernel
from kernel_tuner.util import StopCriterionReached

from kt_tui.kernel.expr import restriction_function
from kt_tui.search import kt_search as ours

COST_VALUES = [
    [16, 32, 64, 128, 256],
    [1, 2, 4, 8, 16],
    [1, 2, 4, 8],
    [1, 2, 4, 8],
    [2, 4, 8, 16, 32],
    [0, 1],
    [1, 2, 4],
    [0, 1, 2],
]  # with block_size_x * work_x <= 256: 21,600 configurations
COST_NAMES = ["block_size_x", "work_x", "tile_a", "tile_b", "unroll", "flag", "vec", "mode", "split"]
COST_EXTRA = [1, 2, 3, 4, 5]  # a ninth parameter for the larger space: 108,000 configurations
COST_INITIAL = 10  # random configurations before our model (its default on these spaces)


def cost_space(tmp: Path, large: bool) -> tuple[dict, Path, float]:
    """A synthetic space, a simulation cache of it (a smooth bowl with its optimum inside) and its optimum."""
    import itertools

    vals = COST_VALUES + ([COST_EXTRA] if large else [])
    names = COST_NAMES[: len(vals)]
    rng = np.random.default_rng(1)
    weights, centers = rng.random(len(vals)), rng.random(len(vals))
    cache, best = {}, math.inf
    for c in itertools.product(*vals):
        if c[0] * c[1] > 256:
            continue
        pos = [v.index(x) / max(len(v) - 1, 1) for v, x in zip(vals, c)]
        t = math.exp(sum(w * (p - m) ** 2 for w, p, m in zip(weights, pos, centers)))
        best = min(best, t)
        cache[",".join(map(str, c))] = {
            **dict(zip(names, c)),
            "time": t,
            "times": [t],
            "compile_time": 0.0,
            "verification_time": 0.0,
            "benchmark_time": 0.0,
        }
    path = tmp / f"cost-{len(cache)}.json"
    path.write_text(
        json.dumps(
            {
                "device_name": "synthetic",
                "kernel_name": "synthetic",
                "problem_size": 1,
                "tune_params_keys": names,
                "tune_params": dict(zip(names, vals)),
                "objective": "time",
                "cache": cache,
            }
        )
    )
    return dict(zip(names, vals)), path, best


class Timed:
    """A kernel_tuner strategy object that runs another one and notes the CPU time it spends between
    the runner's calls (its own cost: picking, kernel_tuner's bookkeeping), per new configuration."""

    def __init__(self, inner, evaluations: int):
        self.inner, self.evaluations = inner, evaluations

    def tune(self, searchspace, runner, tuning_options):
        self.setup_s, self.per_eval, self.best = None, [], math.inf
        seen: set = set()
        last = [time.process_time()]
        rec = self

        class Proxy:
            def __getattr__(self, name):
                return getattr(runner, name)

            def run(self, parameter_space, options):
                gap = time.process_time() - last[0]
                out = runner.run(parameter_space, options)
                new = 0
                for r in out:
                    key = r and tuple(r[n] for n in options.tune_params)
                    if key and key not in seen and len(seen) < rec.evaluations:
                        seen.add(key)
                        new += 1
                        rec.best = min(rec.best, ours.result_time(r) or math.inf)
                if rec.setup_s is None:  # the first call: setting up, then picking what it holds
                    rec.setup_s = gap
                elif new:
                    rec.per_eval += [gap / new] * new
                if len(seen) >= rec.evaluations:
                    raise StopCriterionReached("benchmark budget")
                last[0] = time.process_time()
                return out

        try:
            self.inner.tune(searchspace, Proxy(), tuning_options)
        except StopCriterionReached:
            pass
        return []


def model_cost(
    names: list[str], strategy: Callable, ours_names: tuple, evaluations: int = 80, sizes: tuple = (False, True)
) -> int:
    """Each strategy's own CPU cost per evaluation on two large synthetic spaces, in kernel_tuner's
    simulation mode: the time between its calls to the runner, per new configuration. `strategy`:
    search.py's (a name to its kernel_tuner strategy module); `ours_names`: those that are ours."""
    print(
        f"# CPU ms per evaluation, {evaluations} evaluations, one run per strategy and space. setup: from the "
        "start to the first configuration (pso: its first population too). mean .. max: each later "
        "configuration (kt: the model's picks, after its random start; pso: each population's cost shared "
        "among its configurations). run: setup and all evaluations, per evaluation."
    )
    print(
        f"{'space':>8s} {'strategy':16s} {'setup ms':>8s} | {'mean':>6s} {'median':>6s} {'p95':>6s} {'max':>6s} | "
        f"{'run':>6s} | {'best found':>10s}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for large in sizes:
            params, cache, optimum = cost_space(Path(tmp), large)
            size = len(json.loads(cache.read_text())["cache"])
            for name in names:
                base, module = strategy(name)
                options = {
                    "max_fevals": evaluations,
                    **({"seed": 0, "initial": COST_INITIAL} if base in ours_names else {}),
                }
                timed = Timed(module, evaluations)
                np.random.seed(0)
                random.seed(0)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tune_kernel(
                        "synthetic",
                        "__global__ void synthetic() {}",
                        1,
                        [],
                        params,
                        grid_div_x=["block_size_x", "work_x"],
                        restrictions=[restriction_function(["block_size_x * work_x <= 256"], list(params))],
                        simulation_mode=True,
                        cache=str(cache),
                        strategy=timed,
                        strategy_options=options,
                        quiet=True,
                        lang="CUDA",
                    )
                ms = sorted(1000 * c for c in timed.per_eval[COST_INITIAL - 1 if base in ours_names else 0 :])
                run = 1000 * (timed.setup_s + sum(timed.per_eval)) / evaluations
                stats = (
                    (
                        f"{sum(ms) / len(ms):6.1f} {ms[len(ms) // 2]:6.1f} {ms[int(0.95 * (len(ms) - 1))]:6.1f} "
                        f"{ms[-1]:6.1f}"
                    )
                    if ms
                    else f"{'-':>6s} {'-':>6s} {'-':>6s} {'-':>6s}"
                )
                print(
                    f"{size:8d} {name:16s} {1000 * timed.setup_s:8.0f} | {stats} | {run:6.1f} | "
                    f"{100 * (timed.best / optimum - 1):8.1f} %",
                    flush=True,
                )
    print("targets for kt on the ~20 k space: mean <= 20 ms, max < 100 ms. best found: % above the optimum")
    return 0
