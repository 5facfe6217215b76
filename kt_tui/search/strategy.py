"""Our default search, runnable as a kernel_tuner strategy: `tune(searchspace, runner, tuning_options)`.

Seeds first, a few random configurations, then a Gaussian-process surrogate of the configurations'
time ranks alternates two picks: the unvisited configuration with the largest expected improvement,
and the best-predicted unvisited neighbour (one parameter changed) of the best configuration so far.
Failed configurations (errors, invalid, wrong results) are told to the model as the slowest.

strategy_options: seeds (configs, dicts or tuples, evaluated first), seed (random seed; numpy's
global RNG draws one when absent), initial (random configurations before the model), max_fevals,
time_limit (kernel_tuner's budgets, enforced by its CostFunc).
"""

from __future__ import annotations

import math

import numpy as np
from kernel_tuner.strategies.common import CostFunc
from kernel_tuner.util import StopCriterionReached
from scipy.stats import norm, rankdata

from .model import GP, encode, expected_improvement

OPTIONS = ("seeds", "seed", "initial", "max_fevals", "time_limit", "searchspace_construction_options")
MAX_CANDIDATES = 20000  # configurations scored per step in large spaces (a random sample + neighbours)
WARP, WARPQ, GPKW, TS, TS_K, CYCLE = "rank", 0.75, {}, 0, 200, "GN"
SEPARATE = False
TOPK = 1
MAX_TRAIN = 300  # observations the model is fitted on (the best half, then a random rest)


class Search:
    """Ask / tell over an enumerated space of configurations (tuples in parameter order)."""

    def __init__(self, space: list[tuple], values: list[list], rng: np.random.Generator,
                 seeds: list = (), initial: int | None = None):
        self.space = list(space)
        self.index = {c: i for i, c in enumerate(self.space)}
        self.x = encode(self.space, values)
        pos = [{v: j for j, v in enumerate(vals)} for vals in values]
        self.ix = np.array([[p[v] for p, v in zip(pos, c)] for c in self.space], dtype=np.int32)
        self.rng = rng
        self.seeds = [tuple(s) for s in dict.fromkeys(map(tuple, seeds)) if tuple(s) in self.index]
        self.initial = initial if initial is not None else max(5, min(10, len(self.space) // 100))
        self.seen: dict[int, float | None] = {}  # index -> log(time); None: failed
        self.free = np.ones(len(self.space), dtype=bool)
        self.model = GP(**GPKW)
        self.steps = 0

    def tell(self, config: tuple, time: float | None) -> None:
        i = self.index.get(tuple(config))
        if i is not None:
            ok = time is not None and math.isfinite(time) and time > 0
            self.seen[i] = math.log(time) if ok else None
            self.free[i] = False

    def done(self) -> bool:
        return not self.free.any()

    def ask(self) -> tuple:
        for s in self.seeds:
            if self.free[self.index[s]]:
                return s
        free = np.flatnonzero(self.free)
        ok = sum(v is not None for v in self.seen.values())
        if SEPARATE:
            seeded = {self.index[s] for s in self.seeds}
            ok2 = sum(v is not None for i, v in self.seen.items() if i not in seeded)
        else:
            ok2 = ok
        if ok2 < self.initial or ok < 2:
            return self.space[int(self.rng.choice(free))]
        self.steps += 1
        return self.space[self._model_pick(free)]

    def _model_pick(self, free: np.ndarray) -> int:
        idx = np.array(list(self.seen))
        raw = np.array([np.inf if v is None else v for v in self.seen.values()])
        if WARP == "rank":
            y = norm.ppf((rankdata(raw) - 0.5) / len(raw))  # ranks: robust to outliers and failures
        else:
            fin = raw[np.isfinite(raw)]
            y = np.minimum(np.where(np.isfinite(raw), raw, fin.max()), np.quantile(fin, WARPQ))
        best = idx[int(np.argmin(raw))]
        if len(idx) > MAX_TRAIN:
            order = np.argsort(raw)
            keep = np.concatenate([order[:MAX_TRAIN // 2],
                                   self.rng.choice(order[MAX_TRAIN // 2:], MAX_TRAIN // 2, replace=False)])
            idx, y = idx[keep], y[keep]
        tune = len(idx) <= 60 or self.steps % 5 == 0
        self.model.fit(self.x[idx], y, tune=tune)
        tops = idx[np.argsort(raw)[:TOPK]] if TOPK > 1 else [best]
        near = free[np.min([(self.ix[free] != self.ix[t]).sum(1) for t in tops], axis=0) <= 1]
        if TS and (self.steps % 2 == 0 or TS == 2):
            from .model import _sample
            cand = free if len(free) <= MAX_CANDIDATES else self.rng.choice(free, MAX_CANDIDATES, replace=False)
            mean, sd = self.model.predict(self.x[cand])
            top = cand[np.argsort(mean - sd)[:TS_K]]
            return int(top[int(np.argmin(_sample(self.model, self.x[top], self.rng)))])
        mode = CYCLE[self.steps % len(CYCLE)]
        if mode == "L":
            tops = idx[np.argsort(y)[:3]] if len(idx) <= MAX_TRAIN else [best]
            dist = np.min([(self.ix[free] != self.ix[t]).sum(1) for t in tops], axis=0)
            loc = free[dist <= 2]
            if len(loc):
                mean, sd = self.model.predict(self.x[loc])
                return int(loc[int(np.argmax(expected_improvement(mean, sd, float(y.min()))))])
        if mode == "N" and len(near):
            mean, _ = self.model.predict(self.x[near])
            return int(near[int(np.argmin(mean))])
        cand = free if len(free) <= MAX_CANDIDATES else np.union1d(
            self.rng.choice(free, MAX_CANDIDATES, replace=False), near)
        mean, sd = self.model.predict(self.x[cand])
        return int(cand[int(np.argmax(expected_improvement(mean, sd, float(y.min()))))])


def tune(searchspace, runner, tuning_options):
    """kernel_tuner's strategy entry point."""
    opts = dict(tuning_options.strategy_options or {})
    unknown = set(opts) - set(OPTIONS)
    if unknown:
        raise ValueError(f"unknown strategy option(s) {', '.join(sorted(unknown))} (known: {', '.join(OPTIONS)})")
    names = list(searchspace.tune_params)
    seed = opts.get("seed")
    rng = np.random.default_rng(seed if seed is not None else np.random.randint(2**31))
    seeds = [tuple(s[n] for n in names) if isinstance(s, dict) else tuple(s) for s in opts.get("seeds") or ()]
    search = Search(searchspace.list, [list(v) for v in searchspace.tune_params.values()], rng, seeds,
                    opts.get("initial"))
    cost = CostFunc(searchspace, tuning_options, runner)
    try:
        while not search.done():
            config = search.ask()
            cost.eval_all([list(config)], check_restrictions=False)
            search.tell(config, result_time(cost.unique_results.get(",".join(map(str, config)))))
    except StopCriterionReached:
        pass
    return cost.results


def result_time(result: dict | None) -> float | None:
    """The time of a kernel_tuner result; None when it failed or its outputs were wrong."""
    if not result or "__error__" in result or result.get("kt_correct") == 0:
        return None
    t = result.get("time")
    return float(t) if isinstance(t, (int, float)) and math.isfinite(t) else None


class BudgetedBruteForce:
    """kernel_tuner's brute force order (the sorted space), stopping at max_fevals / time_limit."""

    @staticmethod
    def tune(searchspace, runner, tuning_options):
        cost = CostFunc(searchspace, tuning_options, runner)
        try:
            for config in searchspace.sorted_list():
                cost.eval_all([list(config)], check_restrictions=False)
        except StopCriterionReached:
            pass
        return cost.results


budgeted_brute_force = BudgetedBruteForce()
