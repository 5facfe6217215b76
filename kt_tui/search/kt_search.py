"""Our default search, runnable as a kernel_tuner strategy: `tune(searchspace, runner, tuning_options)`.

Seeds (the heuristic rules' picks; the first one given, then each the farthest from those before it)
are weighed by what they measure. Before any other pick, each seed sharing no rule with those measured
runs: on two rules of two patterns each, the first seed's opposite, so both patterns of every rule are
measured at once. Once two measured seeds share no rule (they judge each other), or else once one
random pick stands beside them, a seed of rules measuring in the fast half of all seen goes before
anything else; once they share none, or else once two picks that are not seeds stand beside them, a
seed all of whose rules measure in the slow half waits (for good, unless later measurements redeem a
rule; see Search._next_seed). A rule whose every pick measured slower than every configuration no
rule picked is proven poor: its seeds are not asked again. A seed asked once INITIAL results are in
keeps what its rules name and takes the other parameters (the spec's defaults until then) from the
model (Search._complete). Random picks take each parameter's values about equally often
(value_balance); once one measures faster than every seed, seeds no longer take turns (only seeds
of rules measuring fast go). After INITIAL configurations (with seeds: after one random pick, or
none once two seeds sharing no rule are measured) a surrogate picks each next one. It averages a Gaussian
process and a forest of randomized trees, both fitted to what has been measured (see targets: ranks
for the first EARLY picks, then the log times), over the parameters (a method selector as one column
per choice: model.categorical) plus the log of their products that matter on a GPU (threads per
block, work per block and per thread, read from the grid divisors). Its first EARLY picks alternate
between the largest expected improvement anywhere and the best-predicted configuration one
parameter away from the best so far; then the largest expected improvement one or two parameters
away (two changed together: move_pairs) takes a turn too. Once STALL observations have brought no
new best, every fourth pick explores (Search._explore: the most unexplored surroundings, expected
improvement among equals), and every other one while fewer than EXPLORE_FRUITLESS explore picks
since the last new best measured in the slow half: exploring backs off when it does not pay. Where the
space has a method selector, until stalled the best-predicted neighbour's turn goes to a method the
best does not take (a selector's value, in turn; Search._other_choice), the model filling the other
parameters. The GP's length
scales and the trees are refitted at every step while the observations are few, then each time
their number has grown by a fixed factor; in between, the GP keeps its length scales and the trees
their splits, and both take the new observations (the trees' leaves take the current targets).

strategy_options: seeds (configurations, dicts or tuples), seed_rules (the rules that picked each
seed: a name, or names joined by " + "), seed_named (per seed, the parameters its rules name),
seed (random seed; drawn from numpy's global RNG when absent), initial (configurations before the
model), known (what the session measured before the run, the baseline among them: configuration key
"v1,v2,..." -> time, None for a failure; the search learns from them and asks none of them again),
max_fevals and time_limit (kernel_tuner's budgets, enforced by its CostFunc).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from contextlib import nullcontext
from typing import Any

import numpy as np
from kernel_tuner.strategies.common import CostFunc
from kernel_tuner.util import StopCriterionReached
from scipy.special import ndtri

from ..words import counted, plural
from .model import GP, Trees, categorical, encode, expected_improvement
from .space_shape import (
    Adjacency,
    choice_positions,
    coupled_pairs,
    product_features,
    product_groups,
    value_balance,
)

OPTIONS = (
    "seeds",
    "seed_rules",
    "seed_named",
    "seed",
    "initial",
    "known",
    "max_fevals",
    "time_limit",
    "searchspace_construction_options",
)
MAX_CANDIDATES = 2000  # configurations scored per step in large spaces (a random sample + neighbours)
MAX_TRAIN = 300  # observations the models are fitted on (the best half, then a random rest)
MAX_TUNE = 150  # of those, the ones the GP's length scales are fitted on (chosen the same way)
TUNE_ALWAYS = 60  # the length scales are refitted at every step up to this many observations,
TUNE_GROWTH = 1.1  # then when the observations have grown by this factor since the last refit
TREES_ALWAYS, TREES_GROWTH = 100, 1.05
INITIAL = 3  # configurations measured before the model, seeds included (JUDGE_AFTER random ones unless contrasted)
JUDGE_AFTER = 1  # random configurations measured before seed rules measuring fast are followed
SKIP_AFTER = 2  # configurations not seeds (random or the model's) measured before a seed of rules measuring slow waits
STALL = 10  # observations without a new best after which model picks explore (see _pick)
EARLY = 8  # the model's first picks: on ranks (see targets), in turn anywhere and one step away
EXPLORE_FRUITLESS = 6  # explore picks in the slow half since the last new best after which half as many explore
CHOICE_EVERY = 4  # until stalled, one model pick in this many takes a method the best does not (_other_choice)


class Search:
    """Ask / tell over an enumerated space of configurations (tuples in parameter order).

    seeds: configurations to consider first; seed_rules: the rules that picked each, a name or names
    joined by " + " (seeds share the evidence of their rules; without seed_rules all are one rule).
    products: groups of parameter positions whose product the models also see (see product_groups)."""

    def __init__(
        self,
        space: list[tuple[Any, ...]],
        values: list[list[Any]],
        rng: np.random.Generator,
        seeds: Sequence[tuple[Any, ...]] = (),
        initial: int | None = None,
        products: Sequence[list[int]] = (),
        seed_rules: Sequence[str] | None = None,
        names: Sequence[str] | None = None,
        seed_named: Sequence[Sequence[str]] | None = None,
    ):
        self.space = list(space)
        self.index = {c: i for i, c in enumerate(self.space)}
        self.x = np.concatenate([encode(self.space, values), product_features(self.space, products)], axis=1)
        self.values = [list(v) for v in values]
        self.rng = rng
        rules = list(seed_rules) if seed_rules is not None else ["seeds"] * len(seeds)
        if len(rules) != len(seeds):
            raise ValueError(f"seed_rules: {counted(len(rules), 'rule')} for {counted(len(seeds), 'seed')}")
        rules_of: dict[tuple[Any, ...], tuple[str, ...]] = {}  # sorted: sums in the same order in any process
        for s, r in zip(seeds, rules):
            if tuple(s) in self.index:
                rules_of.setdefault(tuple(s), tuple(sorted({part.strip() for part in str(r).split(" + ")})))
        self.seed_rules = rules_of
        names = list(names) if names is not None else names_of(len(values))
        self.seed_free: dict[tuple[Any, ...], list[int]] = {}  # the parameters no rule of the seed names
        for s, named in zip(seeds, seed_named or ()):
            if tuple(s) in self.index:
                self.seed_free.setdefault(tuple(s), [j for j, n in enumerate(names) if n not in set(named)])
        self.taken: set[tuple[Any, ...]] = set()  # seeds asked for (as given or completed)
        self.seeds = spread(list(rules_of), lambda s: self.x[self.index[s]])
        self.dropped: set[str] = set()  # rules whose picks measured in the slow part of what has been seen
        self.initial = initial if initial is not None else INITIAL
        self.randoms = self.seed_picks = 0  # random picks and seed picks made so far
        self.contrasted = False  # two measured seeds share no rule: they judge each other
        self.seen: dict[int, float | None] = {}  # space index -> log(time); None: failed
        self.free = np.ones(len(self.space), dtype=bool)
        self.gp = GP()
        self.trees = Trees(20, rng=rng)
        self.steps = 0
        self.best, self.improved_at = math.inf, 0  # the best log(time) so far, and at which observation
        self.grid = Adjacency(self.space, self.values)
        self.covered = np.zeros(len(self.space), dtype=bool)  # a configuration one step from one seen (or seen)
        self.tuned_at = self.trees_at = 0  # observations at the last fit of the length scales, of the trees
        self.pairs = move_pairs(names, self.values, products)
        self.explored: set[int] = set()  # the explore picks (space indices)
        self.fruitless = 0  # explore picks since the last new best that measured in the slow half
        self.balance = value_balance(self.space)  # random picks' weights
        self.random_picks: set[int] = set()  # space indices
        self.choosers = [j for j, v in enumerate(self.values) if categorical(v)]  # method selectors
        self.choice_at = choice_positions(self.space, self.values, self.choosers)
        self.choice_turns = 0

    def tell(self, config: tuple[Any, ...], time: float | None) -> None:
        i = self.index.get(tuple(config))
        if i is not None:
            value = math.log(time) if time is not None and math.isfinite(time) and time > 0 else None
            self.seen[i] = value
            self.free[i] = False
            self.covered[i] = True
            around = self.grid.adjacent(np.array([i]))
            self.covered[around[around >= 0]] = True
            if value is not None and value < self.best:
                self.best, self.improved_at, self.fruitless = value, len(self.seen), 0
            elif i in self.explored and (value is None or value > float(np.median(self._values()))):
                self.fruitless += 1

    def done(self) -> bool:
        return not self.free.any()

    def ask(self) -> tuple[Any, ...]:
        seed = self._next_seed()
        if seed is not None:
            self.taken.add(seed)
            config = self._complete(seed)
            self.seed_rules.setdefault(config, self.seed_rules[seed])
            return config
        free = np.flatnonzero(self.free)
        randoms = 0 if self.contrasted else min(self.initial, JUDGE_AFTER) if self.seeds else self.initial
        ok = sum(v is not None for v in self.seen.values())
        if self.randoms < randoms or ok < max(self.initial, 2):
            self.randoms += 1
            weight = self.balance[free]
            pick = int(self.rng.choice(free, p=weight / weight.sum()))
            self.random_picks.add(pick)
            return self.space[pick]
        self.steps += 1
        return self.space[self._pick(free)]

    def evidence(self) -> dict[str, float]:
        """Per rule with measured picks: the mean quantile of its picks among all that has been seen
        (0: faster than everything else, 1: slower; failed picks count as 1)."""
        if not self.seen:
            return {}
        raw = np.array([np.inf if v is None else v for v in self.seen.values()])
        quantile = (average_ranks(raw) - 0.5) / len(raw)
        per: dict[str, list[float]] = {}
        for i, q in zip(self.seen, quantile):
            for rule in self.seed_rules.get(self.space[i], ()):
                per.setdefault(rule, []).append(1.0 if self.seen[i] is None else float(q))
        return {r: sum(qs) / len(qs) for r, qs in per.items()}

    def _next_seed(self) -> tuple[Any, ...] | None:
        """The next seed to measure, or None. A seed's score is the mean evidence of the rules that
        picked it (a rule never measured counts as the middle, 0.5); the lowest goes first, the
        seeds' order breaking ties. Before any other pick, a seed none of whose rules was measured
        goes first (these screening picks after the first do not count in the alternation below).
        Once two measured seeds share no rule (they judge each other), or JUDGE_AFTER random picks
        stand beside them, a seed scoring in the fast half is asked before anything else; once two
        measured seeds share no rule, or SKIP_AFTER picks that are not seeds (random or the model's)
        stand beside them, a rule measuring in the slow half is noted in `dropped`, and a seed all of
        whose rules measure there is not asked (a seed that such a rule shares with one measuring
        fast, or not measured yet, stays, ranked by its score: the evidence cannot tell which of its
        rules was slow). Otherwise seeds alternate with the other picks (random, then the model's) while
        no random pick measured faster than every seed: once chance beat the rules, their seeds wait
        for their rules to measure in the fast half (dedispersion on the A100, where the rules' 256
        threads are middling and a tenth of the space is within 2 %)."""
        score = self.evidence()

        def rank(s: tuple[Any, ...]) -> float:
            rules = self.seed_rules[s]
            return sum(score.get(r, 0.5) for r in rules) / len(rules)

        tried = [self.seed_rules[s] for s in self.seeds if s in self.taken or not self.free[self.index[s]]]
        self.contrasted = self.contrasted or any(
            set(a).isdisjoint(b) for i, a in enumerate(tried) for b in tried[i + 1 :]
        )
        skip = self.randoms + self.steps >= SKIP_AFTER or self.contrasted
        if skip:
            self.dropped.update(r for r, q in score.items() if q > 0.5)
        poor = self._proven_poor()
        self.dropped |= poor
        pending = [
            s
            for s in self.seeds
            if s not in self.taken
            and self.free[self.index[s]]
            and not (skip and self._all_slow(s, score))
            and not set(self.seed_rules[s]) <= poor
        ]
        if not pending:
            return None
        measured = {r for rules in tried for r in rules}
        fresh = [s for s in pending if measured.isdisjoint(self.seed_rules[s])]
        if fresh and not self.randoms + self.steps:
            self.seed_picks += not tried  # the others only screen the rules: they wait for no other pick
            return fresh[0]
        best = min(pending, key=rank)  # min keeps the first of equals: the seeds' order
        judged = self.randoms >= JUDGE_AFTER or self.contrasted
        if judged and rank(best) < 0.5 or self.seed_picks <= self.randoms + self.steps and self._seeds_lead():
            self.seed_picks += 1
            return best
        return None

    def _complete(self, seed: tuple[Any, ...]) -> tuple[Any, ...]:
        """The seed with the parameters no rule of it names (the spec's defaults there) set to those the
        model predicts fastest, among the free configurations that keep what its rules named; the
        seed as given while fewer than INITIAL results are measured."""
        free_pos = self.seed_free.get(seed)
        ok = sum(v is not None for v in self.seen.values())
        if not free_pos or ok < INITIAL or not self.grid.ok:
            return seed
        keep = [j for j in range(len(self.values)) if j not in free_pos]
        at = self.grid.pos[self.index[seed]]
        mask = self.free & (self.grid.pos[:, keep] == at[keep]).all(axis=1)
        cand = np.flatnonzero(mask)
        if len(cand) <= 1:
            return seed
        if len(cand) > MAX_CANDIDATES:
            cand = np.union1d(self.rng.choice(cand, MAX_CANDIDATES, replace=False), [self.index[seed]])
        self._fit()
        mean, _ = self._predict(self.x[cand])
        return self.space[int(cand[int(np.argmin(mean))])]

    def _proven_poor(self) -> set[str]:
        """The rules whose every measured pick is slower than every configuration measured that no rule
        picked (random, the model's, known before the run), or failed: not to be followed again."""
        others = [v for i, v in self.seen.items() if self.space[i] not in self.seed_rules]
        if not others:
            return set()
        slowest = max((v for v in others if v is not None), default=-math.inf)
        picks: dict[str, list[float | None]] = {}
        for i, v in self.seen.items():
            for rule in self.seed_rules.get(self.space[i], ()):
                picks.setdefault(rule, []).append(v)
        return {r for r, vs in picks.items() if all(v is None or v > slowest for v in vs)}

    def _seeds_lead(self) -> bool:
        """Whether no random pick measured faster than every seed."""
        mine = [v for i, v in self.seen.items() if self.space[i] in self.seed_rules and v is not None]
        others = [v for i in self.random_picks if (v := self.seen.get(i)) is not None]
        return not others or bool(mine) and min(mine) <= min(others)

    def _all_slow(self, seed: tuple[Any, ...], score: dict[str, float]) -> bool:
        """Whether every rule that picked the seed measures in the slow half (an unmeasured one does not)."""
        return all(score.get(r, 0.5) > 0.5 for r in self.seed_rules[seed])

    def _predict(self, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        m1, s1 = self.gp.predict(xs)
        m2, s2 = self.trees.predict(xs)
        return (m1 + m2) / 2, (s1 + np.maximum(s2, 1e-6)) / 2

    def _tune_now(self, n: int) -> bool:
        if n <= TUNE_ALWAYS or n >= TUNE_GROWTH * self.tuned_at:
            self.tuned_at = n
            return True
        return False

    def _values(self) -> np.ndarray:
        return np.array([np.inf if v is None else v for v in self.seen.values()])

    def _neighbours(self, i: int, pairs: bool = True) -> np.ndarray:
        """The free configurations one parameter away from configuration i, or (pairs) two of them
        (see move_pairs) together, looked up, not searched for."""
        c = self.space[i]
        out = [self.index.get(c[:j] + (v,) + c[j + 1 :]) for j, vals in enumerate(self.values) for v in vals]
        for j, k in self.pairs if pairs else ():
            for a in self.values[j]:
                if a != c[j]:
                    row = c[:j] + (a,) + c[j + 1 :]
                    out += [self.index.get(row[:k] + (b,) + row[k + 1 :]) for b in self.values[k] if b != c[k]]
        return np.array(sorted({k for k in out if k is not None and self.free[k]}), dtype=np.int64)

    def _refit_trees_now(self, n: int) -> bool:
        if n <= TREES_ALWAYS or n >= TREES_GROWTH * self.trees_at:
            self.trees_at = n
            return True
        return False

    def _best_and_random(self, order: np.ndarray, k: int) -> np.ndarray:
        """At most k of order (best first): its best half, then a random rest."""
        if len(order) <= k:
            return order
        return np.concatenate([order[: k // 2], self.rng.choice(order[k // 2 :], k - k // 2, replace=False)])

    def _fit(self) -> tuple[int, float]:
        """Fit the models to what has been seen (see targets); returns the best configuration seen and
        the lowest target."""
        idx = np.array(list(self.seen))
        raw = self._values()
        y = targets(raw, self.steps <= EARLY)
        best = int(idx[int(np.argmin(raw))])
        train = self._best_and_random(np.argsort(raw, kind="stable"), MAX_TRAIN)
        idx, y = idx[train], y[train]
        tune = self._tune_now(len(raw))
        self.gp.fit(
            self.x[idx], y, tune=tune, tune_on=self._best_and_random(np.arange(len(idx)), MAX_TUNE) if tune else None
        )
        if self._refit_trees_now(len(raw)):
            self.trees.fit(self.x[idx], y)
        else:
            self.trees.refresh(self.x[idx], y)
        return best, float(y.min())

    def _pick(self, free: np.ndarray) -> int:
        """The first EARLY picks alternate between the largest expected improvement anywhere (turn 1)
        and the best-predicted configuration one parameter away from the best so far (turn 2); then
        the largest expected improvement one or two parameters away takes turn 0. Once STALL results
        brought no new best, turn 3 explores (see _explore), and turn 1 too while fewer than
        EXPLORE_FRUITLESS explore picks since the last new best measured in the slow half. Where the
        space has a method selector, turn 2 takes a method the best does not until stalled (see
        _other_choice); once stalled, such picks went to far, slow corners of methods that differ
        little (test_search_refine's stalled bowl) and cost the exploring its needle."""
        best, low = self._fit()
        turn = (1 if self.steps % 2 else 2) if self.steps <= EARLY else self.steps % 4
        stalled = len(self.seen) - self.improved_at >= STALL
        if stalled and (turn == 3 or turn == 1 and self.fruitless < EXPLORE_FRUITLESS):
            pick = self._explore(free, low)
            self.explored.add(pick)
            return pick
        if CHOICE_EVERY and self.steps % CHOICE_EVERY == CHOICE_EVERY - 2 and not stalled:
            other = self._other_choice(free, best, low)
            if other is not None:
                return other
        if turn in (0, 2):
            near = self._neighbours(best, pairs=turn == 0)
            if len(near):
                mean, sd = self._predict(self.x[near])
                score = -mean if turn == 2 else expected_improvement(mean, sd, low)
                return int(near[int(np.argmax(score))])
        near = self._neighbours(best, pairs=False)
        cand = (
            free
            if len(free) <= MAX_CANDIDATES
            else np.union1d(self.rng.choice(free, MAX_CANDIDATES, replace=False), near)
        )
        mean, sd = self._predict(self.x[cand])
        return int(cand[int(np.argmax(expected_improvement(mean, sd, low)))])

    def _other_choice(self, free: np.ndarray, best: int, target: float) -> int | None:
        """Of the free configurations taking a choice the best does not (a value of a method selector, see
        model.categorical; the choices in turn), the one of largest expected improvement: the model
        fills the other parameters. A method's best other parameters can differ from the best one's
        (pnpoly: use_method 0 fastest with the largest tile, 2 with a middling one), and the local
        moves around the best rarely leave its method for one the model predicts slow from a few points
        measured elsewhere. Flags (two values) are left to the local moves: taking their other value in
        turn cost convolution_milo@A100 (166.5 -> 179 evaluations to 2 %, means 202.5 -> 234.7)."""
        c = self.space[best]
        choices = [(j, k) for j in self.choosers for k, v in enumerate(self.values[j]) if v != c[j]]
        if not choices:
            return None
        self.choice_turns += 1
        j, k = choices[self.choice_turns % len(choices)]
        cand = free[self.choice_at[free, self.choosers.index(j)] == k]
        if not len(cand):
            return None
        if len(cand) > MAX_CANDIDATES:
            cand = self.rng.choice(cand, MAX_CANDIDATES, replace=False)
        mean, sd = self._predict(self.x[cand])
        return int(cand[int(np.argmax(expected_improvement(mean, sd, target)))])

    def _explore(self, free: np.ndarray, target: float) -> int:
        """Of a sample of the free configurations, one that with its adjacent configurations (one step
        in one parameter) holds the most unexplored ones (neither seen nor adjacent to one seen): a
        small fast region that nothing seen borders is likeliest found there; the expected
        improvement, scaled to less than one such configuration, chooses among equals. The farthest
        from all seen when nothing is adjacent."""
        if not self.grid.ok:
            return self._farthest(free)
        cand = free if len(free) <= MAX_CANDIDATES else self.rng.choice(free, MAX_CANDIDATES, replace=False)
        around = self.grid.adjacent(cand)
        open_ = ~self.covered
        score = open_[cand].astype(int) + np.where(around >= 0, open_[np.maximum(around, 0)], False).sum(1)
        mean, sd = self._predict(self.x[cand])
        ei = expected_improvement(mean, sd, target)
        return int(cand[int(np.argmax(score + ei / max(float(ei.max()), 1e-300)))])

    def _farthest(self, free: np.ndarray) -> int:
        """Of a sample of the free configurations, the one farthest from every configuration seen."""
        cand = free if len(free) <= MAX_CANDIDATES else self.rng.choice(free, MAX_CANDIDATES, replace=False)
        seen = self.x[np.fromiter(self.seen, dtype=np.int64)]
        xs = self.x[cand]
        d2 = (xs * xs).sum(1)[:, None] + (seen * seen).sum(1)[None, :] - 2.0 * xs @ seen.T
        return int(cand[int(np.argmax(d2.min(axis=1)))])


def names_of(n: int) -> list[str]:
    return [f"p{j}" for j in range(n)]


SLOW_CAP = 0.9  # the quantile of the measured times above which the models see all times alike


def targets(raw: np.ndarray, early: bool = False) -> np.ndarray:
    """What the models are fitted to, from the log times (inf: failed). Early (the model's first EARLY
    picks): the ranks' normal scores, which spread a few results evenly and so say which way is
    faster. Later: the log times, the slowest tenth and the failures at the 90th percentile; ranks
    would make the small gaps among many near-equal good configurations look as large as any, and
    the models would chase that noise (pnpoly's 31 block sizes within 3 % of each other)."""
    if early:
        return ndtri((average_ranks(raw) - 0.5) / len(raw))
    finite = raw[np.isfinite(raw)]
    cap = float(np.quantile(finite, SLOW_CAP)) if len(finite) else 0.0
    return np.minimum(np.where(np.isfinite(raw), raw, cap), cap)


def move_pairs(names: Sequence[str], values: Sequence[Sequence[Any]], products=()) -> list[tuple[int, int]]:
    """The pairs of parameters a local move may change together: every pair, unless their moves would
    number more than MAX_CANDIDATES, then the coupled ones (coupled_pairs)."""
    multi = [j for j, v in enumerate(values) if len(v) > 1]
    every = [(a, b) for a in multi for b in multi if a < b]
    if sum((len(values[a]) - 1) * (len(values[b]) - 1) for a, b in every) <= MAX_CANDIDATES:
        return every
    return coupled_pairs(names, products)


def spread(items: list, point) -> list:
    """items reordered farthest first: the first stays, then each the farthest from those before it."""
    if len(items) <= 2:
        return items
    xs = np.array([point(i) for i in items])
    order, dist = [0], np.linalg.norm(xs - xs[0], axis=1)
    for _ in range(len(items) - 1):
        dist[order] = -1.0  # taken
        order.append(int(np.argmax(dist)))
        dist = np.minimum(dist, np.linalg.norm(xs - xs[order[-1]], axis=1))
    return [items[i] for i in order]


def average_ranks(a: np.ndarray) -> np.ndarray:
    """1-based ranks, ties sharing their average rank (scipy's rankdata, without importing scipy.stats)."""
    order = np.argsort(a, kind="mergesort")
    sorted_a = a[order]
    new = np.concatenate([[True], sorted_a[1:] != sorted_a[:-1]])
    group = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], len(a))
    ranks = np.empty(len(a))
    ranks[order] = ((starts + ends + 1) / 2.0)[group]
    return ranks


def tune(searchspace, runner, tuning_options):
    """kernel_tuner's strategy entry point; returns the results in evaluation order."""
    opts = dict(tuning_options.strategy_options or {})
    unknown = set(opts) - set(OPTIONS)
    if unknown:
        raise ValueError(
            f"unknown strategy {plural(len(unknown), 'option')} {', '.join(sorted(unknown))} (known: {', '.join(OPTIONS)})"
        )
    names = list(searchspace.tune_params)
    values = [list(v) for v in searchspace.tune_params.values()]
    seed = opts.get("seed")
    rng = np.random.default_rng(seed if seed is not None else np.random.randint(2**31))
    seeds = [tuple(s[n] for n in names) if isinstance(s, dict) else tuple(s) for s in opts.get("seeds") or ()]
    ko = getattr(runner, "kernel_options", None) or {}
    divs = [ko.get(k) or () for k in ("grid_div_x", "grid_div_y", "grid_div_z")] if isinstance(ko, dict) else []
    blocks = ko.get("block_size_names") if isinstance(ko, dict) else None
    search = Search(
        searchspace.list,
        values,
        rng,
        seeds,
        opts.get("initial"),
        product_groups(names, values, divs, blocks),
        opts.get("seed_rules"),
        names,
        opts.get("seed_named"),
    )
    known = opts.get("known") or {}
    if known:  # configuration key ("v1,v2,...") -> time, None when it failed
        for config in searchspace.list:
            key = ",".join(map(str, config))
            if key in known:
                search.tell(tuple(config), known[key])
    cost = CostFunc(searchspace, tuning_options, runner)
    with one_blas_thread():
        try:
            while not search.done():
                config = search.ask()
                cost.eval_all([list(config)], check_restrictions=False)
                search.tell(config, result_time(cost.unique_results.get(",".join(map(str, config)))))
        except StopCriterionReached:
            pass
    return cost.results


def one_blas_thread():
    """The models' matrices are small: BLAS threads only contend (3x slower on a busy 2-core machine)."""
    try:
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]
    except ImportError:
        return nullcontext()
    return threadpool_limits(1, user_api="blas")


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
