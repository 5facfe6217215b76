"""How fast search strategies find good configurations, replayed on spaces recorded on a real GPU.

For each recorded space in benchmarks/spaces/recorded and each strategy (ours, with and without
the heuristic seeds, and kernel_tuner's), kernel_tuner runs in simulation mode on a cleaned copy
of the cache (configurations whose outputs were wrong become failed ones) with a budget of the
whole space. We count the evaluations (distinct configurations, as kernel_tuner's budget does)
and the simulated seconds (kernel_tuner's own accounting: compile + verification + benchmark time
of every configuration served) until a configuration within 2 % and within 5 % of the optimum is
first measured, over several random seeds (numpy's and Python's RNGs seeded per run), and report
medians. A run stops once it has reached 2 %.

An easy variant of a space (`--spaces reduction:easy`) gives its fastest tenth the time of the
tenth fastest configuration, so that a tenth of the space lies within 2 % of the optimum.

usage: python benchmarks/search.py [--seeds 20] [--strategies kt,kt_noseeds,...] [--spaces NAME[:easy],...]
                                   [--json FILE] [--run-limit SECONDS]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import tempfile
import time
import warnings
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # before numpy loads: tiny matrices, many runs
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from kernel_tuner import tune_kernel  # noqa: E402
from kernel_tuner.interface import strategy_map  # noqa: E402
from kernel_tuner.util import StopCriterionReached  # noqa: E402

from kt_tui.kernel.expr import launch_callables, restriction_function  # noqa: E402
from kt_tui.kernel.spec import load_spec  # noqa: E402
from kt_tui.search import kt_search as ours  # noqa: E402
from kt_tui.search.seeds import seed_configs  # noqa: E402

SPACES_DIR = ROOT / "benchmarks" / "spaces"
SPACES = ("matmul_tiled", "convolution", "reduction")
OURS = ("kt", "kt_noseeds")
KERNEL_TUNER = ("random_sample", "genetic_algorithm", "bayes_opt", "dual_annealing", "simulated_annealing", "pso",
                "greedy_ils", "greedy_mls", "ordered_greedy_mls", "mls", "diff_evo", "firefly_algorithm",
                "basinhopping", "minimize")
SLOW = {"basinhopping": 10}  # seconds per run are high here: fewer seeds (said in the output)
LEVELS = (0.02, 0.05)
TARGET_FRACTION = 0.10


class Space:
    def __init__(self, name: str, tmp: Path):
        self.name = name
        name, _, variant = name.partition(":")
        self.spec = load_spec(SPACES_DIR / f"{name}.cu.toml")
        self.source = (SPACES_DIR / f"{name}.cu").read_text()
        found = sorted((SPACES_DIR / "recorded").glob(f"{self.spec.kernel}-*.json"))
        if not found:
            raise SystemExit(f"no recorded cache for {name} ({self.spec.kernel}-*.json) in {SPACES_DIR / 'recorded'}")
        data = json.loads(found[0].read_text())
        self.header = data.get("kt_tui", {})
        self.gpu = self.header.get("gpu") or data.get("device_name", "")
        times = []
        for entry in data["cache"].values():
            if entry.get("kt_correct") == 0:  # wrong outputs (e.g. a launch that never ran): a failure
                entry["time"] = "RuntimeFailedConfig"
            elif isinstance(entry.get("time"), (int, float)):
                times.append(entry["time"])
        if variant == "easy":
            tenth = sorted(times)[len(times) // 10]
            for entry in data["cache"].values():
                if isinstance(entry.get("time"), (int, float)) and entry.get("kt_correct") != 0:
                    entry["time"] = max(entry["time"], tenth)
            times = [max(t, tenth) for t in times]
        elif variant:
            raise SystemExit(f"space {self.name}: unknown variant {variant!r} (known: easy)")
        self.optimum = min(times)
        self.within = {lv: sum(t <= self.optimum * (1 + lv) for t in times) for lv in LEVELS}
        self.cache = tmp / f"{name}-{variant or 'as-recorded'}.json"
        self.cache.write_text(json.dumps(data))
        self.size = None  # the space after restrictions, known after the first run
        self.seeds = [c for c, _ in seed_configs(self.spec, self.source, self.gpu)]


class Recorder:
    """A kernel_tuner strategy object that runs another strategy and notes when each level is reached."""

    def __init__(self, inner, space: Space, run_limit: float):
        self.inner, self.space, self.run_limit = inner, space, run_limit

    def tune(self, searchspace, runner, tuning_options):
        self.space.size = searchspace.size
        self.seen: set = set()
        self.sim_ms = 0.0
        self.hit: dict = {}
        self.cut = False
        started = time.perf_counter()
        calls = [0]
        rec = self
        self.runner_s = 0.0

        class Proxy:
            def __getattr__(self, name):
                return getattr(runner, name)

            def run(self, parameter_space, options):
                t = time.perf_counter()
                out = runner.run(parameter_space, options)
                rec.runner_s += time.perf_counter() - t
                for r in out:
                    if r is None:
                        continue
                    calls[0] += 1
                    rec.sim_ms += sum(r.get(k, 0) or 0 for k in ("compile_time", "verification_time", "benchmark_time"))
                    key = tuple(r[n] for n in options.tune_params)
                    if key in rec.seen:
                        continue
                    rec.seen.add(key)
                    t = ours.result_time(r)
                    for lv in LEVELS:
                        if lv not in rec.hit and t is not None and t <= rec.space.optimum * (1 + lv):
                            rec.hit[lv] = (len(rec.seen), rec.sim_ms / 1000)
                if min(LEVELS) in rec.hit:
                    raise StopCriterionReached("target reached")
                if time.perf_counter() - started > rec.run_limit or calls[0] > 50 * searchspace.size:
                    rec.cut = True
                    raise StopCriterionReached("benchmark run limit")
                return out

        try:
            self.inner.tune(searchspace, Proxy(), tuning_options)
        except StopCriterionReached:
            pass
        self.search_s = time.perf_counter() - started - self.runner_s  # the strategy's own cost
        return []


def run_one(space: Space, name: str, seed: int, run_limit: float) -> dict:
    np.random.seed(seed)
    random.seed(seed)
    options = {"max_fevals": 10**9}
    if name in OURS:
        inner = ours
        if name == "kt":
            options["seeds"] = space.seeds
    else:
        inner = strategy_map[name]
    rec = Recorder(inner, space, run_limit)
    spec = space.spec
    ps = spec.problem_size_values()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tune_kernel(spec.kernel, space.source, ps if len(ps) > 1 else ps[0], [], dict(spec.tune_params),
                    **launch_callables(spec), block_size_names=spec.block_size_names,
                    restrictions=[restriction_function(spec.restrictions, list(spec.tune_params))]
                    if spec.restrictions else None,
                    simulation_mode=True, cache=str(space.cache), strategy=rec, strategy_options=options,
                    quiet=True, lang="CUDA")
    return {"seed": seed, "evaluated": len(rec.seen), "cut": rec.cut,
            "search_ms_per_eval": 1000 * rec.search_s / max(len(rec.seen), 1),
            **{f"evals_{int(lv * 100)}": rec.hit.get(lv, (None, None))[0] for lv in LEVELS},
            **{f"sim_s_{int(lv * 100)}": rec.hit.get(lv, (None, None))[1] for lv in LEVELS}}


def model_cost(evaluations: int = 80) -> int:
    """CPU ms per `ask` of our search (what it costs on top of measuring) on a large synthetic space."""
    import itertools
    vals = [[16, 32, 64, 128, 256], [1, 2, 4, 8, 16], [1, 2, 4, 8], [1, 2, 4, 8], [2, 4, 8, 16, 32], [0, 1],
            [1, 2, 4], [0, 1, 2]]
    space = [c for c in itertools.product(*vals) if c[0] * c[1] <= 256]
    weights = np.random.default_rng(1).random(len(vals))
    search = ours.Search(space, vals, np.random.default_rng(2), products=[[0, 1]])
    costs = []
    with ours.one_blas_thread():
        for _ in range(evaluations):
            t = time.process_time()
            config = search.ask()
            costs.append(time.process_time() - t)
            search.tell(config, math.exp(sum(w * math.log2(v + 1) for w, v in zip(weights, config)) / 4))
    model = sorted(costs[search.initial:])
    print(f"our model on {len(space)} configurations, {evaluations} evaluations: CPU ms per evaluation "
          f"median {1000 * model[len(model) // 2]:.1f}, mean {1000 * sum(model) / len(model):.1f}, "
          f"max {1000 * model[-1]:.0f} (target <= 20)")
    return 0


def median(values: list) -> float:
    """The median with runs that never got there counted as infinitely late (inf: over budget)."""
    v = sorted(math.inf if x is None else x for x in values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def show(x: float, fmt: str) -> str:
    return ">budget" if math.isinf(x) else format(x, fmt)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=20, help="random seeds per strategy (default 20)")
    ap.add_argument("--strategies", default=",".join(OURS + KERNEL_TUNER), help="comma-separated")
    ap.add_argument("--spaces", default=",".join(SPACES), help="comma-separated: " + ", ".join(SPACES))
    ap.add_argument("--json", metavar="FILE", help="write every run and the summary here")
    ap.add_argument("--run-limit", type=float, default=20.0, help="wall seconds per run before it is cut")
    ap.add_argument("--model-cost", action="store_true",
                    help="only: our model's CPU cost per evaluation on a synthetic space of 21,600 configurations")
    args = ap.parse_args(argv)
    if args.model_cost:
        return model_cost()
    names = [s for s in args.strategies.split(",") if s]
    for s in names:
        if s not in OURS and s not in strategy_map:
            ap.error(f"unknown strategy {s!r} (known: {', '.join(OURS + tuple(strategy_map))})")
    t0 = time.perf_counter()
    report: dict = {"seeds": args.seeds, "spaces": {}}
    verdicts = {o: {"fraction": [], "ahead": []} for o in OURS if o in names}
    with tempfile.TemporaryDirectory() as tmp:
        for space_name in [s for s in args.spaces.split(",") if s]:
            space = Space(space_name, Path(tmp))
            rows = {}
            for s in names:
                n = min(args.seeds, SLOW.get(s, args.seeds))
                started = time.perf_counter()
                runs = [run_one(space, s, seed, args.run_limit) for seed in range(n)]
                rows[s] = {"runs": runs, "wall_s": time.perf_counter() - started, "seeds": n,
                           **{f"median_evals_{int(lv * 100)}": median([r[f"evals_{int(lv * 100)}"] for r in runs])
                              for lv in LEVELS},
                           **{f"median_sim_s_{int(lv * 100)}": median([r[f"sim_s_{int(lv * 100)}"] for r in runs])
                              for lv in LEVELS},
                           "reached_2": sum(r["evals_2"] is not None for r in runs),
                           "search_ms_per_eval": median([r["search_ms_per_eval"] for r in runs])}
            print_space(space, rows)
            report["spaces"][space_name] = {"size": space.size, "optimum_ms": space.optimum, "gpu": space.gpu,
                                            "recorded": space.header.get("recorded"), "seeds_configs": space.seeds,
                                            "strategies": rows}
            limit = TARGET_FRACTION * space.size
            theirs = {s: r["median_evals_2"] for s, r in rows.items() if s not in OURS}
            best = min(theirs, key=theirs.get) if theirs else None
            for o, v in verdicts.items():
                mine = rows[o]["median_evals_2"]
                v["fraction"].append((space_name, mine, limit, mine <= limit))
                if best:
                    v["ahead"].append((space_name, mine, best, theirs[best], mine < theirs[best]))
    print_verdicts(verdicts)
    wall = time.perf_counter() - t0
    print(f"\n{wall:.0f} s wall time.")
    if args.json:
        report["verdicts"] = verdicts
        report["wall_s"] = wall
        Path(args.json).write_text(json.dumps(report, indent=1, default=str))
    return 0


def print_space(space: Space, rows: dict) -> None:
    lines = [f"\n{space.name}: {space.size} configurations, optimum {space.optimum:.5g} ms "
             f"({space.within[0.02]} within 2 %, {space.within[0.05]} within 5 %), recorded on {space.gpu} "
             f"{space.header.get('recorded', '')[:10]}; budget {space.size} evaluations; "
             f"{len(space.seeds)} heuristic seeds",
             f"{'strategy':22s} {'runs':>4s} | {'evals to 2 %':>12s} {'% space':>8s} {'sim s':>8s} | "
             f"{'evals to 5 %':>12s} {'sim s':>8s} | {'reached 2 %':>11s} {'wall s':>7s} {'search ms/eval':>14s}"]
    for s, r in rows.items():
        e2, e5 = r["median_evals_2"], r["median_evals_5"]
        pct = show(100 * e2 / space.size, ".1f")
        note = " (cut)" if any(x["cut"] for x in r["runs"]) else ""
        lines.append(f"{s:22s} {r['seeds']:4d} | {show(e2, '12.1f'):>12s} {pct:>8s} "
                     f"{show(r['median_sim_s_2'], '8.1f'):>8s} | {show(e5, '12.1f'):>12s} "
                     f"{show(r['median_sim_s_5'], '8.1f'):>8s} | {r['reached_2']:>5d} / {r['seeds']:<3d} "
                     f"{r['wall_s']:7.1f} {r['search_ms_per_eval']:14.1f}{note}")
    fewer = [s for s in rows if rows[s]["seeds"] < max(x["seeds"] for x in rows.values())]
    if fewer:
        lines.append(f"(fewer seeds for {', '.join(fewer)}: slow in simulation)")
    print("\n".join(lines), flush=True)


def print_verdicts(verdicts: dict) -> None:
    print()
    for o, v in verdicts.items():
        ok = all(x[3] for x in v["fraction"])
        detail = ", ".join(f"{s} {show(m, '.1f')} <= {lim:.1f}" if good else f"{s} {show(m, '.1f')} > {lim:.1f}"
                           for s, m, lim, good in v["fraction"])
        print(f"{o}: reaches 2 % within 10 % of evaluations (median) on every space: {'yes' if ok else 'NO'} ({detail})")
        if v["ahead"]:
            ok = all(x[4] for x in v["ahead"])
            detail = ", ".join(f"{s} {show(m, '.1f')} vs {b} {show(bm, '.1f')}" for s, m, b, bm, _ in v["ahead"])
            print(f"{o}: ahead of kernel_tuner's best strategy on every space (median evaluations to 2 %): "
                  f"{'yes' if ok else 'NO'} ({detail})")


if __name__ == "__main__":
    sys.exit(main())
