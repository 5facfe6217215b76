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

`kt@REF` (and `kt_noseeds@REF`) is our search as committed at git REF, for before/after in one run.
`--model-cost` measures instead each strategy's own CPU time per evaluation on synthetic spaces of
21,600 and 108,000 configurations (see model_cost).

usage: python benchmarks/search.py [--seeds 20] [--strategies kt,kt_noseeds,kt@main,...] [--spaces NAME[:easy],...]
                                   [--json FILE] [--run-limit SECONDS]
       python benchmarks/search.py --model-cost [--strategies kt,kt@main,pso] [--evaluations 80]
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import json
import math
import os
import random
import shutil
import subprocess
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
KERNEL_TUNER = (
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


def strategy(name: str):
    """A strategy by name: (its base name, its module); kt@REF is our search as committed at git REF."""
    base, _, ref = name.partition("@")
    if base not in OURS:
        return base, strategy_map[base]
    return base, baseline(ref) if ref else ours


def baseline(ref: str):
    """kt_tui/search at a git ref, imported as a package of its own (its model and search code)."""
    if ref not in BASELINES:
        listing = subprocess.run(
            ["git", "-C", str(ROOT), "ls-tree", "--name-only", f"{ref}:kt_tui/search"], capture_output=True, text=True
        )
        if listing.returncode:
            raise SystemExit(f"--strategies: no kt_tui/search at git ref {ref!r}: {listing.stderr.strip()}")
        pkg = Path(tempfile.mkdtemp(prefix="kt-baseline-"))
        atexit.register(shutil.rmtree, pkg, True)
        name = f"kt_baseline_{len(BASELINES)}"
        (pkg / name).mkdir()
        for f in listing.stdout.split():
            if f.endswith(".py"):
                text = subprocess.run(
                    ["git", "-C", str(ROOT), "show", f"{ref}:kt_tui/search/{f}"],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
                (pkg / name / f).write_text(text.replace("from ..", "from kt_tui."))
        sys.path.insert(0, str(pkg))
        BASELINES[ref] = importlib.import_module(f"{name}.kt_search")
    return BASELINES[ref]


BASELINES: dict = {}


def run_one(space: Space, name: str, seed: int, run_limit: float) -> dict:
    np.random.seed(seed)
    random.seed(seed)
    options = {"max_fevals": 10**9}
    base, inner = strategy(name)
    if base == "kt":
        options["seeds"] = space.seeds
    rec = Recorder(inner, space, run_limit)
    spec = space.spec
    ps = spec.problem_size_values()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tune_kernel(
            spec.kernel,
            space.source,
            ps if len(ps) > 1 else ps[0],
            [],
            dict(spec.tune_params),
            **launch_callables(spec),
            block_size_names=spec.block_size_names,
            restrictions=[restriction_function(spec.restrictions, list(spec.tune_params))]
            if spec.restrictions
            else None,
            simulation_mode=True,
            cache=str(space.cache),
            strategy=rec,
            strategy_options=options,
            quiet=True,
            lang="CUDA",
        )
    return {
        "seed": seed,
        "evaluated": len(rec.seen),
        "cut": rec.cut,
        "search_ms_per_eval": 1000 * rec.search_s / max(len(rec.seen), 1),
        **{f"evals_{int(lv * 100)}": rec.hit.get(lv, (None, None))[0] for lv in LEVELS},
        **{f"sim_s_{int(lv * 100)}": rec.hit.get(lv, (None, None))[1] for lv in LEVELS},
    }


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


def model_cost(names: list[str], evaluations: int = 80, sizes: tuple = (False, True)) -> int:
    """Each strategy's own CPU cost per evaluation on two large synthetic spaces, in kernel_tuner's
    simulation mode: the time between its calls to the runner, per new configuration."""
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
                options = {"max_fevals": evaluations, **({"seed": 0, "initial": COST_INITIAL} if base in OURS else {})}
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
                ms = sorted(1000 * c for c in timed.per_eval[COST_INITIAL - 1 if base in OURS else 0 :])
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
    ap.add_argument(
        "--strategies",
        help="comma-separated (default: ours and kernel_tuner's; with --model-cost "
        "kt,pso); kt@REF and kt_noseeds@REF: ours as committed at git REF",
    )
    ap.add_argument("--spaces", default=",".join(SPACES), help="comma-separated: " + ", ".join(SPACES))
    ap.add_argument("--json", metavar="FILE", help="write every run and the summary here")
    ap.add_argument("--run-limit", type=float, default=20.0, help="wall seconds per run before it is cut")
    ap.add_argument(
        "--model-cost",
        action="store_true",
        help="only: the strategies' own CPU cost per evaluation on synthetic spaces of 21,600 and "
        "108,000 configurations",
    )
    ap.add_argument("--evaluations", type=int, default=80, help="with --model-cost: evaluations per run (80)")
    args = ap.parse_args(argv)
    default = "kt,pso" if args.model_cost else ",".join(OURS + KERNEL_TUNER)
    names = [s for s in (args.strategies or default).split(",") if s]
    for s in names:
        base, _, ref = s.partition("@")
        if base not in OURS and (ref or base not in strategy_map):
            ap.error(f"unknown strategy {s!r} (known: {', '.join(OURS + tuple(strategy_map))}, kt@REF)")
    if args.model_cost:
        return model_cost(names, args.evaluations)
    t0 = time.perf_counter()
    report: dict = {"seeds": args.seeds, "spaces": {}}
    verdicts = {o: {"fraction": [], "ahead": []} for o in names if o.partition("@")[0] in OURS}
    with tempfile.TemporaryDirectory() as tmp:
        for space_name in [s for s in args.spaces.split(",") if s]:
            space = Space(space_name, Path(tmp))
            rows = {}
            for s in names:
                n = min(args.seeds, SLOW.get(s, args.seeds))
                started = time.perf_counter()
                runs = [run_one(space, s, seed, args.run_limit) for seed in range(n)]
                rows[s] = {
                    "runs": runs,
                    "wall_s": time.perf_counter() - started,
                    "seeds": n,
                    **{
                        f"median_evals_{int(lv * 100)}": median([r[f"evals_{int(lv * 100)}"] for r in runs])
                        for lv in LEVELS
                    },
                    **{
                        f"median_sim_s_{int(lv * 100)}": median([r[f"sim_s_{int(lv * 100)}"] for r in runs])
                        for lv in LEVELS
                    },
                    "reached_2": sum(r["evals_2"] is not None for r in runs),
                    "search_ms_per_eval": median([r["search_ms_per_eval"] for r in runs]),
                }
            print_space(space, rows)
            report["spaces"][space_name] = {
                "size": space.size,
                "optimum_ms": space.optimum,
                "gpu": space.gpu,
                "recorded": space.header.get("recorded"),
                "seeds_configs": space.seeds,
                "strategies": rows,
            }
            limit = TARGET_FRACTION * space.size
            theirs = {s: r["median_evals_2"] for s, r in rows.items() if s.partition("@")[0] not in OURS}
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
    lines = [
        f"\n{space.name}: {space.size} configurations, optimum {space.optimum:.5g} ms "
        f"({space.within[0.02]} within 2 %, {space.within[0.05]} within 5 %), recorded on {space.gpu} "
        f"{space.header.get('recorded', '')[:10]}; budget {space.size} evaluations; "
        f"{len(space.seeds)} heuristic seeds",
        f"{'strategy':22s} {'runs':>4s} | {'evals to 2 %':>12s} {'% space':>8s} {'sim s':>8s} | "
        f"{'evals to 5 %':>12s} {'sim s':>8s} | {'reached 2 %':>11s} {'wall s':>7s} {'search ms/eval':>14s}",
    ]
    for s, r in rows.items():
        e2, e5 = r["median_evals_2"], r["median_evals_5"]
        pct = show(100 * e2 / space.size, ".1f")
        note = " (cut)" if any(x["cut"] for x in r["runs"]) else ""
        lines.append(
            f"{s:22s} {r['seeds']:4d} | {show(e2, '12.1f'):>12s} {pct:>8s} "
            f"{show(r['median_sim_s_2'], '8.1f'):>8s} | {show(e5, '12.1f'):>12s} "
            f"{show(r['median_sim_s_5'], '8.1f'):>8s} | {r['reached_2']:>5d} / {r['seeds']:<3d} "
            f"{r['wall_s']:7.1f} {r['search_ms_per_eval']:14.1f}{note}"
        )
    fewer = [s for s in rows if rows[s]["seeds"] < max(x["seeds"] for x in rows.values())]
    if fewer:
        lines.append(f"(fewer seeds for {', '.join(fewer)}: slow in simulation)")
    print("\n".join(lines), flush=True)


def print_verdicts(verdicts: dict) -> None:
    print()
    for o, v in verdicts.items():
        ok = all(x[3] for x in v["fraction"])
        detail = ", ".join(
            f"{s} {show(m, '.1f')} <= {lim:.1f}" if good else f"{s} {show(m, '.1f')} > {lim:.1f}"
            for s, m, lim, good in v["fraction"]
        )
        print(
            f"{o}: reaches 2 % within 10 % of evaluations (median) on every space: {'yes' if ok else 'NO'} ({detail})"
        )
        if v["ahead"]:
            ok = all(x[4] for x in v["ahead"])
            detail = ", ".join(f"{s} {show(m, '.1f')} vs {b} {show(bm, '.1f')}" for s, m, b, bm, _ in v["ahead"])
            print(
                f"{o}: ahead of kernel_tuner's best strategy on every space (median evaluations to 2 %): "
                f"{'yes' if ok else 'NO'} ({detail})"
            )


if __name__ == "__main__":
    sys.exit(main())
