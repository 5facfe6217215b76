"""How fast each search finds a good configuration, on the spaces recorded in full on a GPU
(benchmarks/spaces/recorded), replayed by kernel_tuner's simulation mode.

For every space and strategy, over several random seeds: the number of evaluations, and the
simulated seconds (the recorded compile + verification + benchmark time of every configuration
evaluated so far), until the search first measures a configuration within 2 % and within 5 % of
the space's optimum. Configurations kt-tui found wrong (kt_correct = 0) count as failures.
Prints the medians as a table per space, then whether the targets hold.

Every strategy gets the same budget, 10 % of the space by default (the target is to reach 2 %
within that); one that does not get there in most runs shows ">budget".

usage: python benchmarks/search.py [--seeds 20] [--budget 0.1] [--strategies kt,random_sample,...] [--spaces ...]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SPACES = {"matmul_tiled": "matmul_tiled-066a8be83f3c46fd", "convolution": "convolution-68001e7889699263",
          "reduction": "reduce_sum-30b4e504e39738b1"}
THEIRS = ("random_sample", "genetic_algorithm", "dual_annealing", "simulated_annealing", "greedy_ils", "mls",
          "pso", "diff_evo", "firefly_algorithm", "basinhopping", "bayes_opt")
SLOW = {"bayes_opt": 5}  # seeds at most: its model refits make every run take minutes
OURS = ("kt", "kt-noseeds")


def load(name: str, tmp: str):
    """The kernel, its spec, a cleaned copy of the recorded cache, and the recorded entries."""
    from kt_tui.engine.session import load_kernel_spec, read_kernel_file

    kf = read_kernel_file(ROOT / "benchmarks" / "spaces" / f"{name}.cu")
    _, spec = load_kernel_spec(kf, None, None)
    data = json.loads((ROOT / "benchmarks" / "spaces" / "recorded" / f"{SPACES[name]}.json").read_text())
    for entry in data["cache"].values():
        if entry.get("kt_correct") == 0:
            entry["time"] = "RuntimeFailedConfig"
    path = Path(tmp) / f"{name}.json"
    path.write_text(json.dumps(data))
    return kf, spec, str(path), data["cache"]


def timed(entry: dict) -> float | None:
    t = entry.get("time")
    return t if isinstance(t, (int, float)) and t < 1e19 else None


def run_once(kf, spec, cache_path: str, args, strategy: str, seed: int, budget: int) -> list[dict]:
    from kernel_tuner import tune_kernel

    from kt_tui.search import strategy as ours
    from kt_tui.search.seeds import seed_configs

    random.seed(seed)
    np.random.seed(seed)
    options = {"max_fevals": budget}
    chosen = strategy
    if strategy in OURS:
        chosen = ours
        options["seed"] = seed
        if strategy == "kt":
            options["seeds"] = [c for c, _ in seed_configs(spec, kf.source, "NVIDIA H200")]
    ps = spec.problem_size_values()
    results, _ = tune_kernel(spec.kernel, kf.source, ps if len(ps) > 1 else ps[0], args, dict(spec.tune_params),
                             grid_div_x=spec.grid_div_x, grid_div_y=spec.grid_div_y,
                             restrictions=spec.restrictions or None, lang="CUDA", simulation_mode=True,
                             cache=cache_path, strategy=chosen, strategy_options=options, quiet=True)
    return results


def reach(results: list[dict], cache: dict, names: list[str], target: float) -> tuple[float, float]:
    """(evaluations, simulated seconds) until the first result within `target`; inf if never."""
    seconds, seen = 0.0, set()
    for r in results:
        key = ",".join(str(r[n]) for n in names)
        if key in seen:
            continue
        seen.add(key)
        entry = cache.get(key, {})
        seconds += sum(float(entry.get(k) or 0) for k in ("compile_time", "verification_time", "benchmark_time")) / 1000
        t = timed(entry)
        if t is not None and t <= target:
            return len(seen), seconds
    return math.inf, math.inf


def median(xs: list[float]) -> float:
    xs = sorted(xs)
    if sum(math.isinf(x) for x in xs) * 2 >= len(xs):
        return math.inf
    return statistics.median(xs)


def fmt(x: float, budget: int, digits: int = 0) -> str:
    return ">budget" if math.isinf(x) else (f"{x:.{digits}f}" if digits else f"{x:.0f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--strategies", default=",".join(OURS + THEIRS))
    ap.add_argument("--spaces", default=",".join(SPACES))
    ap.add_argument("--budget", type=float, default=0.10,
                    help="evaluations allowed per run, as a fraction of the space (default 0.10: the target)")
    ap.add_argument("--json", help="also write every run here")
    a = ap.parse_args()
    os.environ.setdefault("PYTHONHASHSEED", "0")
    from kt_tui.kernel.inputs import make_args

    strategies = a.strategies.split(",")
    rows, verdict = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for space in a.spaces.split(","):
            kf, spec, cache_path, cache = load(space, tmp)
            names = list(spec.tune_params)
            optimum = min(t for t in map(timed, cache.values()) if t is not None)
            valid = sum(timed(e) is not None for e in cache.values())
            budget = max(1, round(a.budget * len(cache)))
            args = make_args(spec)
            print(f"\n{space}: {len(cache)} configurations, {valid} valid, optimum {optimum:.4f} ms "
                  f"(NVIDIA H200, 2026-11-22); median over seeds, budget {budget} evaluations")
            print(f"{'strategy':20} {'seeds':>5} {'evals to 2%':>12} {'evals to 5%':>12} {'sim s to 2%':>12} "
                  f"{'sim s to 5%':>12} {'wall s':>7}")
            for name in strategies:
                n = min(a.seeds, SLOW.get(name, a.seeds))
                runs = []
                t0 = time.perf_counter()
                for seed in range(n):
                    res = run_once(kf, spec, cache_path, args, name, seed, budget)
                    runs.append((reach(res, cache, names, optimum * 1.02), reach(res, cache, names, optimum * 1.05)))
                wall = time.perf_counter() - t0
                e2, e5 = median([r[0][0] for r in runs]), median([r[1][0] for r in runs])
                s2, s5 = median([r[0][1] for r in runs]), median([r[1][1] for r in runs])
                rows.append({"space": space, "strategy": name, "seeds": n, "evals_2": e2, "evals_5": e5,
                             "sim_s_2": s2, "sim_s_5": s5, "budget": budget, "wall_s": wall})
                print(f"{name:20} {n:5d} {fmt(e2, budget):>12} {fmt(e5, budget):>12} {fmt(s2, budget, 1):>12} "
                      f"{fmt(s5, budget, 1):>12} {wall:7.1f}", flush=True)
            mine = next((r for r in rows if r["space"] == space and r["strategy"] == "kt"), None)
            best_theirs = min((r["evals_2"] for r in rows if r["space"] == space and r["strategy"] in THEIRS),
                              default=math.inf)
            if mine:
                verdict[space] = (mine["evals_2"] <= 0.10 * budget, mine["evals_2"] < best_theirs)
    for space, (within, ahead) in verdict.items():
        print(f"{space}: ours reaches 2 % within 10 % of the evaluations: {'yes' if within else 'NO'}; "
              f"ahead of kernel_tuner's best strategy: {'yes' if ahead else 'NO'}")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1, default=str))


if __name__ == "__main__":
    main()
