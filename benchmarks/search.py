"""How fast search strategies find good configurations, replayed on spaces recorded on a real GPU.

For each space and each strategy (ours, with and without the heuristic seeds, and kernel_tuner's),
kernel_tuner runs in simulation mode on a cleaned copy of the cache (configurations whose outputs
were wrong become failed ones) with a budget of the whole space. We count the evaluations
(distinct configurations, as kernel_tuner's budget does) and the simulated seconds (kernel_tuner's
own accounting: compile + verification + benchmark time of every configuration served) until a
configuration within 2 % and within 5 % of the optimum is first measured, over 30 random seeds
(numpy's and Python's RNGs seeded per run; seed s is the same for every strategy). A run stops once
it has reached 2 %. Per strategy the table gives the median and the mean evaluations to 2 % (a run
that never gets there counts as the budget + 1 in the mean and the test) and the two-sided
Mann-Whitney U test against the first strategy listed (kt): its p-value, and who is ahead when
p < 0.05. Beside each space: what distinct uniform random picks, knowing nothing of the
kernel, need to reach 2 % (median and expected number; see blind).

Spaces: the ones recorded in benchmarks/spaces/recorded, and any kernel_tuner cache file given as
PATH.json (e.g. from a kernel_tuner checkout, read where it lies; its space is the configurations it
holds). Each in three variants:
- as recorded;
- easy (`NAME:easy`): the fastest tenth gets the time of the tenth-fastest configuration, so a
  tenth of the space lies within 2 % of the optimum;
- needle (`NAME:needle`): for run seed s, one measured configuration drawn with seed s becomes twice
  as fast as the recorded optimum (the only one within 2 %), and its one-step neighbours (the next or
  previous value of one parameter) 1.33 times as fast (a tiny region faster than all the rest); the
  rest stays as recorded.

`kt@REF` (and `kt_noseeds@REF`) is our search as committed at git REF, for before/after in one run.
--max-evals N caps each run (a run that gets nowhere within it counts as N + 1). --cache-dir DIR keeps
each run on disk (see search_hub.RunCache): kernel_tuner's strategies by name, kt@REF by its commit,
ours by the files of kt_tui/search, so after a change of ours only ours runs again; --cached-only
takes kernel_tuner's and kt@REF's runs only from there.
`--model-cost` measures instead each strategy's own CPU time per evaluation on synthetic spaces of
21,600 and 108,000 configurations (see model_cost).

usage: python benchmarks/search.py [--seeds 30] [--strategies kt,kt_noseeds,kt@main,...]
                                   [--spaces NAME[:easy|:needle],PATH.json[:easy|:needle],KERNEL@GPU,...]
                                   [--hub CHECKOUT] [--held-out] [--max-evals N] [--cache-dir DIR]
                                   [--json FILE] [--run-limit SECONDS]
       python benchmarks/search.py --model-cost [--strategies kt,kt@main,pso] [--evaluations 80]
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import json
import multiprocessing
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

from benchmarks import search_cost  # noqa: E402
from benchmarks.search_hub import (  # noqa: E402
    NEEDLE_SPEEDUP,
    CacheSpace,
    RunCache,
    beside,
    file_hash,
    held_only,
    held_out,
    hub_spaces,
    needle,
    read_cache,
    source_defaults,
)
from benchmarks.search_report import (  # noqa: E402,F401
    ALPHA,
    blind,
    censored,
    compare,
    median,
    print_held_out,
    print_space,
    print_summary,
    show,
)
from kt_tui.kernel.expr import launch_callables, restriction_function  # noqa: E402
from kt_tui.kernel.spec import load_spec  # noqa: E402
from kt_tui.kernel.spec_model import Spec  # noqa: E402
from kt_tui.search import kt_search as ours  # noqa: E402
from kt_tui.search.seeds import grouped_seed_configs, named_params  # noqa: E402

SPACES_DIR = ROOT / "benchmarks" / "spaces"
SPACES = ("matmul_tiled", "convolution", "reduction")
DEFAULT_SPACES = ",".join(f"{s}{':' + v if v else ''}" for s in SPACES for v in ("", "easy", "needle"))
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
LEVELS = (0.02, 0.05)
TARGET_FRACTION = 0.10
VARIANTS = ("", "easy", "needle")


class Space:
    """A recorded space (a name in SPACES) or a kernel_tuner cache file (a path ending in .json or
    .json.gz, or `where` says where its parts are; its space the configurations it holds), as
    recorded or as one of VARIANTS."""

    def __init__(self, name: str, tmp: Path, where: CacheSpace | None = None):
        self.name = name
        cached = where is not None or name.partition(":")[0].endswith((".json", ".json.gz"))
        base, _, variant = (
            name.rpartition(":") if ":" in name and not name.endswith((".json", ".gz")) else (name, "", "")
        )
        if variant not in VARIANTS:
            raise SystemExit(f"space {name}: unknown variant {variant!r} (known: {', '.join(VARIANTS[1:])})")
        self.variant, self.tmp = variant, tmp
        if cached:
            self._from_cache(where or beside(Path(base)))
        else:
            self._from_recorded(base)
        self.params = {k: list(v) for k, v in self.data["tune_params"].items()}
        times = []
        for entry in self.data["cache"].values():
            if entry.get("kt_correct") == 0:  # wrong outputs (e.g. a launch that never ran): a failure
                entry["time"] = "RuntimeFailedConfig"
            elif isinstance(entry.get("time"), (int, float)):
                times.append(entry["time"])
        if not times:
            raise SystemExit(f"space {name}: no measured configuration in its cache")
        if variant == "easy":
            tenth = sorted(times)[len(times) // 10]
            for entry in self.data["cache"].values():
                if isinstance(entry.get("time"), (int, float)):
                    entry["time"] = max(entry["time"], tenth)
            times = [max(t, tenth) for t in times]
        self.recorded_optimum = min(times)
        self.optimum = self.recorded_optimum / NEEDLE_SPEEDUP if variant == "needle" else self.recorded_optimum
        if variant == "needle":
            self.within = {lv: 1 for lv in LEVELS}
        else:
            self.within = {lv: sum(t <= self.optimum * (1 + lv) for t in times) for lv in LEVELS}
        short = (where.label if where and where.label else Path(base).name) if cached else base
        self.label = f"{short}:{variant or 'as-recorded'}"
        self.held_out = held_out(self.gpu)
        # what held-out spaces are compared by: benchmark_hub's KERNEL (convolution and convolution_milo
        # share a kernel name), else the kernel's name
        self.kernel = (
            short.partition("@")[0] if "@" in short else self.spec.kernel if self.spec else self.data.get("kernel_name")
        )
        self._caches: dict = {}
        self.size = None  # the space after restrictions, known after the first run
        self.cap: int | None = None  # evaluations per run (None: the whole space)

    @property
    def budget(self) -> int:
        """Evaluations a run may spend: the space, or the cap when smaller."""
        return min(self.size or 0, self.cap or self.size or 0)

    def _from_recorded(self, name: str) -> None:
        spec_path, source_path = SPACES_DIR / f"{name}.cu.toml", SPACES_DIR / f"{name}.cu"
        self.spec = load_spec(spec_path)
        self.source = source_path.read_text()
        found = sorted((SPACES_DIR / "recorded").glob(f"{self.spec.kernel}-*.json"))
        if not found:
            raise SystemExit(f"no recorded cache for {name} ({self.spec.kernel}-*.json) in {SPACES_DIR / 'recorded'}")
        self.hash = self.data_hash = file_hash(found[0], source_path, spec_path)
        self.data = json.loads(found[0].read_text())
        self.header = self.data.get("kt_tui", {})
        self.gpu = self.header.get("gpu") or self.data.get("device_name", "")
        self.seeds = [(c, group) for c, _, group in grouped_seed_configs(self.spec, self.source, self.gpu)]
        ps = self.spec.problem_size_values()
        restrictions = (
            [restriction_function(self.spec.restrictions, list(self.spec.tune_params))]
            if self.spec.restrictions
            else None
        )
        self.tune_args = dict(
            kernel_name=self.spec.kernel,
            kernel_source=self.source,
            problem_size=ps if len(ps) > 1 else ps[0],
            tune_params=dict(self.spec.tune_params),
            **launch_callables(self.spec),
            block_size_names=self.spec.block_size_names,
            restrictions=restrictions,
        )

    def _from_cache(self, where: CacheSpace) -> None:
        """A kernel_tuner cache file read where it lies (a checkout's, never copied): its space is the
        configurations it holds. With the kernel's source, the heuristic seeds of a session on it: its
        spec is ours when given (its tune_params must be the recorded ones), else made from the cache,
        the source's `#define`s as its defaults."""
        path = where.cache
        try:
            self.data = read_cache(path)
            names, cache = list(self.data["tune_params_keys"]), self.data["cache"]
            params = {n: list(self.data["tune_params"][n]) for n in names}
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise SystemExit(f"space {path}: not a kernel_tuner cache file: {e}") from None
        self.hash, self.data_hash = file_hash(path, where.source, where.spec), file_hash(path)
        self.header, self.gpu, self.spec, self.seeds = {}, self.data.get("device_name", ""), None, []
        held = {tuple(str(e[n]) for n in names) for e in cache.values() if isinstance(e, dict)}
        if where.source is not None:
            self.source = where.source.read_text(errors="replace")
            if where.spec is not None:
                self.spec = load_spec(where.spec)
                if {n: list(v) for n, v in self.spec.tune_params.items()} != params:
                    raise SystemExit(f"space {path}: the tune_params of {where.spec} are not the recorded ones")
            else:
                size = self.data.get("problem_size") or 1
                self.spec = Spec(
                    kernel=self.data.get("kernel_name") or "kernel",
                    args=[],
                    problem_size=[int(x) for x in (size if isinstance(size, list) else [size])],
                    tune_params=params,
                    defaults=source_defaults(self.source, params),
                )
            self.seeds = [
                (c, group)
                for c, _, group in grouped_seed_configs(self.spec, self.source, self.gpu)
                if tuple(str(c[n]) for n in names) in held
            ]
        launch = dict(**launch_callables(self.spec), block_size_names=self.spec.block_size_names) if self.spec else {}
        self.tune_args = dict(
            kernel_name=self.data.get("kernel_name") or "kernel",
            kernel_source="__global__ void kernel() {}",
            problem_size=self.data.get("problem_size") or 1,
            tune_params=params,
            restrictions=[held_only(names, held)],
            **launch,  # what a session on the kernel tells our search (its products: search/kt_search.py)
        )

    def cache_for(self, seed: int) -> Path:
        """The simulation cache of a run: the same for every run, except the needle's (its place is
        drawn from the run's seed, the same for every strategy)."""
        key = seed if self.variant == "needle" else None
        if key not in self._caches:
            data = needle(self.data, self.params, self.recorded_optimum, seed) if key is not None else self.data
            path = self.tmp / f"{abs(hash(self.name))}-{key}.json"
            path.write_text(json.dumps(data))
            self._caches[key] = path
        return self._caches[key]


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
                if rec.space.cap and len(rec.seen) >= rec.space.cap:
                    raise StopCriterionReached("evaluation cap")
                if time.perf_counter() - started > rec.run_limit or calls[0] > 50 * searchspace.size:
                    rec.cut = True
                    raise StopCriterionReached("benchmark run limit")
                return out

        self.error = None
        try:
            self.inner.tune(searchspace, Proxy(), tuning_options)
        except StopCriterionReached:
            pass
        except Exception as e:  # a strategy that breaks on this space: a run that never got there
            self.error = f"{type(e).__name__}: {e}"
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
    options: dict = {"max_fevals": 10**9}
    base, inner = strategy(name)
    if base == "kt" and space.seeds:
        options["seeds"] = [c for c, _ in space.seeds]
        if "seed_rules" in getattr(inner, "OPTIONS", ()):
            options["seed_rules"] = [group for _, group in space.seeds]
        if "seed_named" in getattr(inner, "OPTIONS", ()):
            options["seed_named"] = named_params(space.spec, [group for _, group in space.seeds])
    rec = Recorder(inner, space, run_limit)
    args = dict(space.tune_args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tune_kernel(
            args.pop("kernel_name"),
            args.pop("kernel_source"),
            args.pop("problem_size"),
            [],
            args.pop("tune_params"),
            **args,
            simulation_mode=True,
            cache=str(space.cache_for(seed)),
            strategy=rec,
            strategy_options=options,
            quiet=True,
            lang="CUDA",
        )
    return {
        "seed": seed,
        "evaluated": len(rec.seen),
        "cut": rec.cut,
        "error": rec.error,
        "search_ms_per_eval": 1000 * rec.search_s / max(len(rec.seen), 1),
        **{f"evals_{int(lv * 100)}": rec.hit.get(lv, (None, None))[0] for lv in LEVELS},
        **{f"sim_s_{int(lv * 100)}": rec.hit.get(lv, (None, None))[1] for lv in LEVELS},
    }


def model_cost(names: list[str], evaluations: int = 80, sizes: tuple = (False, True)) -> int:
    return search_cost.model_cost(names, strategy, OURS, evaluations, sizes)


CURRENT: list = []  # the space the forked workers run (closures in it do not pickle)


def _run_forked(task: tuple) -> tuple:
    name, seed, run_limit = task
    started = time.perf_counter()
    out = run_one(CURRENT[0], name, seed, run_limit)
    out["size"], out["wall_s"] = CURRENT[0].size, time.perf_counter() - started
    return name, out


def cache_name(name: str, space: Space) -> str | None:
    """What a strategy's runs are kept under: kernel_tuner's by name, kt@REF by its commit and ours as
    it is in the working tree by its files (both with the space's source and spec)."""
    base, _, ref = name.partition("@")
    if base not in OURS:
        return name
    if not ref:
        search = ROOT / "kt_tui" / "search"
        return f"{base}@tree:{file_hash(*sorted(search.rglob('*.py')), *sorted(search.rglob('*.toml')))}"
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", f"{ref}^{{commit}}"], capture_output=True, text=True)
    return f"{base}@{sha.stdout.strip()}" if sha.returncode == 0 else None


def run_all(
    space: Space, names: list[str], seeds: int, run_limit: float, jobs: int, cache: RunCache, cached_only: bool = False
) -> dict:
    """Every strategy's runs on a space: {name: (runs in seed order, wall seconds spent in them)}.
    Runs kept in `cache` are read from it, not run again (cached_only: nor run when missing)."""
    keys = {
        (name, seed): cache.key(
            space.hash if "@" in kept else space.data_hash, space.variant, kept, seed, space.cap or 0
        )
        for name in names
        if (kept := cache_name(name, space))
        for seed in range(seeds)
    }
    done = [(name, run) for (name, seed), key in keys.items() if (run := cache.get(key)) is not None]
    have = {(name, run["seed"]) for name, run in done}
    tasks = [
        (name, seed, run_limit)
        for name in names
        for seed in range(seeds)
        if (name, seed) not in have and not (cached_only and (name, seed) in keys and name not in OURS)
    ]
    CURRENT[:] = [space]
    if tasks:

        def keep(name: str, run: dict) -> None:  # at once: an interrupted table loses no finished run
            done.append((name, run))
            if (name, run["seed"]) in keys:
                cache.put(keys[name, run["seed"]], run)

        keep(*_run_forked(tasks[0]))  # here: it learns the space's size
        if jobs > 1 and len(tasks) > 1:
            for seed in range(seeds):
                space.cache_for(seed)  # written once, before the fork
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                for name, run in pool.imap_unordered(_run_forked, tasks[1:], chunksize=1):
                    keep(name, run)
        else:
            for t in tasks[1:]:
                keep(*_run_forked(t))
    space.size = space.size or next(run["size"] for _, run in done)
    out: dict = {name: ([], 0.0) for name in names}
    for name, run in sorted(done, key=lambda d: d[1]["seed"]):
        out[name] = (out[name][0] + [run], out[name][1] + run["wall_s"])
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=30, help="random seeds per strategy (default 30)")
    ap.add_argument(
        "--strategies",
        help="comma-separated (default: ours and kernel_tuner's; with --model-cost "
        "kt,pso); kt@REF and kt_noseeds@REF: ours as committed at git REF",
    )
    ap.add_argument(
        "--spaces",
        help="comma-separated NAME[:VARIANT]: a recorded space (" + ", ".join(SPACES) + "), a kernel_tuner cache "
        "file (PATH.json, read where it lies, with PATH.cu and PATH.cu.toml beside it when there) or with --hub "
        "KERNEL@GPU; VARIANT easy or needle (default: each recorded space in each variant; with --hub its spaces)",
    )
    ap.add_argument("--hub", metavar="CHECKOUT", help="a benchmark_hub checkout: its spaces (spaces/hub/hub.toml)")
    ap.add_argument(
        "--held-out", action="store_true", help="also run the spaces recorded on GPUs the search is not tuned on"
    )
    ap.add_argument("--max-evals", type=int, help="evaluations per run at most (default: the whole space)")
    ap.add_argument("--cache-dir", metavar="DIR", help="keep every run here (ours by its files), read them back")
    ap.add_argument(
        "--cached-only",
        action="store_true",
        help="with --cache-dir: kernel_tuner's and kt@REF's runs only as kept there (the runs column says how many)",
    )
    ap.add_argument("--json", metavar="FILE", help="write every run and the summary here")
    ap.add_argument("--jobs", type=int, default=1, help="runs at once, in forked processes (default 1)")
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
    hub = hub_spaces(Path(args.hub)) if args.hub else {}
    wanted = [s for s in (args.spaces or ",".join(hub) or DEFAULT_SPACES).split(",") if s]
    ref = names[0] if names[0].partition("@")[0] in OURS else None
    t0 = time.perf_counter()
    report: dict = {"seeds": args.seeds, "spaces": {}}
    summaries: dict = {False: [], True: []}  # held out or not
    cache = RunCache(Path(args.cache_dir) if args.cache_dir else None)
    with tempfile.TemporaryDirectory() as tmp:
        spaces = []
        for space_name in wanted:
            base = space_name.rpartition(":")[0] if space_name.rpartition(":")[2] in VARIANTS[1:] else space_name
            space = Space(space_name, Path(tmp), hub.get(base))
            if space.held_out and not args.held_out:
                print(
                    f"space {space.label} was recorded on {space.gpu or 'an unnamed GPU'}, which the search is not "
                    "tuned on: it is held out (run it with --held-out, once, at the end)",
                    file=sys.stderr,
                )
                return 2
            space.cap = args.max_evals
            spaces.append((space.held_out, space_name))
            del space
        print(
            f"# evaluations until within 2 % of the optimum, {args.seeds} seeds per strategy; p: two-sided Mann-Whitney"
            f" U vs {ref or '-'} (a run that never gets there counts as the budget + 1); ahead: who is ahead at p < "
            f"{ALPHA}"
        )
        for ho in (False, True):
            todo = [n for h, n in spaces if h == ho]
            if ho and todo:
                print_summary(summaries[False], OURS)
                print("\n## held out: recorded on GPUs the search was not tuned on (reported apart)", flush=True)
            for space_name in todo:
                base = space_name.rpartition(":")[0] if space_name.rpartition(":")[2] in VARIANTS[1:] else space_name
                space = Space(space_name, Path(tmp), hub.get(base))
                space.cap = args.max_evals
                rows = space_rows(space, names, args, ref, cache)
                print_space(space, rows, ref)
                report["spaces"][space.label] = {
                    "size": space.size,
                    "budget": space.budget,
                    "held_out": space.held_out,
                    "kernel": space.kernel,
                    "optimum_ms": space.optimum,
                    "gpu": space.gpu,
                    "recorded": space.header.get("recorded"),
                    "seeds_configs": space.seeds,
                    "strategies": rows,
                }
                if ref:
                    summaries[ho].append((space.label, ref, rows))
    if summaries[True]:
        print_summary(summaries[True], OURS, "held out: ")
        print_held_out(summaries, report["spaces"], ref)
    elif not any(h for h, _ in spaces):
        print_summary(summaries[False], OURS)
    wall = time.perf_counter() - t0
    print(f"\n{wall:.0f} s wall time.")
    if args.json:
        report["wall_s"] = wall
        Path(args.json).write_text(json.dumps(report, indent=1, default=str))
    return 0


def space_rows(space: Space, names: list[str], args, ref: str | None, cache: RunCache) -> dict:
    """Every strategy's row on a space: its runs and their statistics (p and who is ahead vs ref)."""
    rows = {}
    every = run_all(space, names, args.seeds, args.run_limit, args.jobs, cache, args.cached_only)
    for s in names:
        runs, wall = every[s]
        if not runs:  # --cached-only and none kept
            continue
        for r in runs:  # a strategy that asks for a batch at once may go past the cap: what came after is not counted
            for lv in LEVELS:
                if (r[f"evals_{int(lv * 100)}"] or 0) > space.budget:
                    r[f"evals_{int(lv * 100)}"] = r[f"sim_s_{int(lv * 100)}"] = None
        e2 = [r["evals_2"] for r in runs]
        rows[s] = {
            "runs": runs,
            "wall_s": wall,
            "seeds": len(runs),
            **{f"median_evals_{int(lv * 100)}": median([r[f"evals_{int(lv * 100)}"] for r in runs]) for lv in LEVELS},
            "mean_evals_2": sum(censored(e2, space.budget)) / len(e2),
            "median_sim_s_2": median([r["sim_s_2"] for r in runs]),
            "reached_2": sum(x is not None for x in e2),
            "search_ms_per_eval": median([r["search_ms_per_eval"] for r in runs]),
        }
    if ref:
        for s, r in rows.items():
            if s != ref:
                r["p"], r["ahead"] = compare(
                    [x["evals_2"] for x in rows[ref]["runs"]], [x["evals_2"] for x in r["runs"]], space.budget
                )
    return rows


if __name__ == "__main__":
    sys.exit(main())
