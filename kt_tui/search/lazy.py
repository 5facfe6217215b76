"""Spaces too large to list: counted, walked in order and sampled without enumerating the product.

The parameters fall into groups that restrictions tie together (the thread limit included); a
parameter no restriction names is a group of its own. Each tied group is solved on its own with
python-constraint, the solver kernel_tuner builds its spaces with (our checked expressions as its
FunctionConstraints, each restriction split into its parts: search/restrictions.py; the thread limit
as its MaxProdConstraint), so the size after restrictions is the product of the groups' counts. A
group of more than GROUP_LIMIT combinations is solved only when its parts prune it within as many
checks; otherwise its count is estimated from random draws, or bounded when no draw met them.
Walking in kernel_tuner's brute-force order and sampling never build the whole list either.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from itertools import islice
from typing import Any

import numpy as np
from constraint import (  # type: ignore[import-untyped]
    FunctionConstraint,
    MaxProdConstraint,
    OptimizedBacktrackingSolver,
    Problem,
    Unassigned,
)

from ..kernel.expr import Expr
from ..kernel.spec import Spec
from ..words import counted
from .restrictions import MAX_THREADS, SpaceError, block_names, compile_restriction, parts, restrictions, thread_limit

HUGE = 200_000  # configurations before restrictions above which a space is not listed up front
GROUP_LIMIT = 2_000_000  # a tied group with more combinations is solved only if SOLVE_LIMIT checks do it
SOLVE_LIMIT = 100_000  # checks a solve of such a group may take (0.5-2 s on a busy 2-core machine)
SAMPLE = 20_000  # configurations our model chooses from in a huge space
DRAWS = 4000  # random draws that estimate a group's count
WALK_LIMIT = 300_000  # values a walk tries without finding a configuration before it says so (1-10 s)
EXACT, ABOUT, FEWER = "exact", "about", "fewer than about"  # how a count is known (LazySpace.count)


class _OverBudget(Exception):
    """A solve that would take more checks than it was given."""


class LazySpace:
    def __init__(self, spec: Spec, max_threads: int | None = None):
        max_threads = MAX_THREADS if max_threads is None else max_threads
        self.names = list(spec.tune_params)
        self.values = [list(v) for v in spec.tune_params.values()]
        self.exprs: list[Expr] = [p for e in restrictions(spec, max_threads) for p in parts(e)]
        limit = thread_limit(spec, max_threads)
        self.thread_limit = (block_names(spec), max_threads) if limit else None
        self.before = math.prod(len(v) for v in self.values)
        self.groups = self._groups()
        self.solved = [self._solve(g) for g in self.groups]
        at: list[list[Expr]] = [[] for _ in self.names]  # checked once their last parameter is set
        for e in self.exprs:
            at[max((self.names.index(n) for n in e.names), default=0)].append(e)
        self.at = at
        self.gave_up = ""  # why a walk ended before the end of the space (iter_sorted)

    # -- groups ----------------------------------------------------------------------------
    def _groups(self) -> list[list[int]]:
        parent = list(range(len(self.names)))

        def root(i):
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for e in self.exprs:
            idx = [self.names.index(n) for n in e.names]
            for j in idx[1:]:
                parent[root(j)] = root(idx[0])
        out: dict[int, list[int]] = {}
        for i in range(len(self.names)):
            out.setdefault(root(i), []).append(i)
        return list(out.values())

    def _group_exprs(self, group: list[int]) -> list[Expr]:
        names = {self.names[i] for i in group}
        return [e for e in self.exprs if e.names and e.names <= names]

    def _solve(self, group: list[int]) -> list[tuple] | None:
        """The group's valid combinations (in its parameters' order), or None when a group of more than
        GROUP_LIMIT combinations takes more than GROUP_LIMIT checks to solve."""
        exprs = self._group_exprs(group)
        if not exprs:
            return [(v,) for v in self.values[group[0]]] if len(group) == 1 else None
        budget = [SOLVE_LIMIT] if math.prod(len(self.values[i]) for i in group) > GROUP_LIMIT else None
        problem = Problem(OptimizedBacktrackingSolver(forwardcheck=False))
        gnames = [self.names[i] for i in group]
        for i in group:
            problem.addVariable(self.names[i], self.values[i])
        limit_text = None
        if self.thread_limit and set(self.thread_limit[0]) <= set(gnames):
            problem.addConstraint(MaxProdConstraint(self.thread_limit[1]), list(self.thread_limit[0]))
            limit_text = " * ".join(self.thread_limit[0]) + f" <= {self.thread_limit[1]}"
        for e in exprs:
            if e.text == limit_text:
                continue
            ns = sorted(e.names)
            problem.addConstraint(FunctionConstraint(_holds(e, ns, budget)), ns)
        try:
            found = problem.getSolutionsAsListDict(order=gnames)[0]
        except _OverBudget:
            return None
        order = [{v: k for k, v in enumerate(self.values[i])} for i in group]
        return sorted((tuple(c) for c in found), key=lambda c: [o[v] for o, v in zip(order, c)])

    # -- sizes ----------------------------------------------------------------------------
    def size(self) -> int | None:
        """The exact number of configurations after restrictions; None when a group was too large."""
        if not self.names or any(not e.names and not e.holds({}) for e in self.exprs):
            return 0  # as listing it gives (no parameters: nothing to tune)
        counts = [len(s) for s in self.solved if s is not None]
        return math.prod(counts) if len(counts) == len(self.solved) else None

    def count(self, n: int = DRAWS, seed: int = 0) -> tuple[int, str]:
        """The size after restrictions and how it is known: EXACT; ABOUT, estimated from n random draws
        of each group too large to solve; FEWER, an upper bound, when no draw of such a group met its
        restrictions (3 in n of its combinations: what no hit in n draws leaves, at 95 %)."""
        exact = self.size()
        if exact is not None:
            return exact, EXACT
        rng, est, how = np.random.default_rng(seed), 1.0, ABOUT
        for group, solved in zip(self.groups, self.solved):
            if solved is not None:
                est *= len(solved)
                continue
            exprs = self._group_exprs(group)
            hits = sum(all(e.holds(c) for e in exprs) for c in (self._draw_group(rng, group) for _ in range(n)))
            how = how if hits else FEWER
            est *= math.prod(len(self.values[i]) for i in group) * (hits or 3) / n
        return max(1, int(round(est))) if how == FEWER else int(round(est)), how

    # -- walking and sampling -------------------------------------------------------------
    def iter_sorted(self) -> Iterator[tuple[Any, ...]]:
        """Every configuration, in kernel_tuner's brute-force order (sorted by value positions). A walk
        that tried WALK_LIMIT values since the last configuration it found ends there, and `gave_up`
        says so and what to change."""
        if not self.names:
            return
        limit = WALK_LIMIT
        config: dict[str, Any] = {}
        stack = [iter(self.values[0])]
        tried = found = 0
        while stack:
            depth = len(stack) - 1
            name = self.names[depth]
            for v in stack[-1]:
                config[name] = v
                tried += 1
                if all(e.holds(config) for e in self.at[depth]):
                    break
                if tried > limit:
                    self.gave_up = self._walked(limit, found)
                    return
            else:
                stack.pop()
                config.pop(name, None)
                continue
            if depth + 1 == len(self.names):
                yield tuple(config[n] for n in self.names)
                tried, found = 0, found + 1
            else:
                stack.append(iter(self.values[depth + 1]))

    def _walked(self, limit: int, found: int) -> str:
        then = f"after {found} that do" if found else "without finding one that meets the restrictions"
        return (
            f"searched the space ({counted(self.before, 'configuration')} before restrictions) in order and tried "
            f"{limit} values {then}: the restrictions leave few configurations, and no random draw met "
            "them; narrow tune_params, or write a restriction as parts over fewer parameters "
            "(`a == 1 and b == 2`, which are checked as soon as their parameters are set)"
        )

    def contains(self, config: tuple) -> bool:
        env = dict(zip(self.names, config))
        return all(e.holds(env) for e in self.exprs)

    def _draw_group(self, rng, group: list[int]) -> dict:
        return {self.names[i]: self.values[i][int(rng.integers(len(self.values[i])))] for i in group}

    def sample(self, rng: np.random.Generator, k: int) -> list[tuple]:
        """Up to k distinct configurations drawn uniformly from the space."""
        every = [sv for sv in self.solved if sv is not None]
        if len(every) == len(self.solved):
            pos = {i: (g, j) for g, group in enumerate(self.groups) for j, i in enumerate(group)}
            picks = [rng.integers(len(sv), size=2 * k) for sv in every]
            cols = [[every[pos[i][0]][r][pos[i][1]] for r in picks[pos[i][0]]] for i in range(len(self.names))]
            return list(islice(dict.fromkeys(zip(*cols)), k))
        out: dict[tuple, None] = {}
        tries = 0
        while len(out) < k and tries < 20 * k:
            tries += 1
            env: dict = {}
            for group, solved in zip(self.groups, self.solved):
                if solved is not None:
                    env.update(zip((self.names[i] for i in group), solved[int(rng.integers(len(solved)))]))
                    continue
                exprs = self._group_exprs(group)
                for _ in range(100):
                    draw = self._draw_group(rng, group)
                    if all(e.holds(draw) for e in exprs):
                        env.update(draw)
                        break
                else:  # this group almost never holds: what the walk finds in order (none: it says so where it runs)
                    return list(out) or self.first(k, quiet=True)
            out[tuple(env[n] for n in self.names)] = None
        return list(out)

    def first(self, k: int, quiet: bool = False) -> list[tuple]:
        """The first k configurations in order, or those the walk found before it gave up; SpaceError
        saying so when it found none (unless `quiet`: then none)."""
        found = list(islice(self.iter_sorted(), k))
        if not found and self.gave_up and not quiet:
            raise SpaceError(self.gave_up)
        return found


def _holds(e: Expr, names: list[str], budget: list[int] | None = None):
    """The restriction as python-constraint calls it; each call spends one of `budget`'s checks."""

    def check(*values):
        if budget is not None:
            budget[0] -= 1
            if budget[0] < 0:
                raise _OverBudget
        return e.holds(dict(zip(names, values)))

    return check


def is_huge(spec: Spec) -> bool:
    return math.prod(len(v) for v in spec.tune_params.values()) > HUGE


class ExprConstraint(FunctionConstraint):
    """One checked restriction as a kernel_tuner restriction: the solver sees it hold or fail as soon as
    the parameters it names are set (not only once every parameter is), and kernel_tuner's own checks
    call it with every value in tune_params order."""

    def __init__(self, expr: Expr, names: list[str]):
        self.expr, self.own, self.names = expr, sorted(expr.names), list(names)
        super().__init__(self.check_all)

    def check_all(self, *values):
        return self.expr.holds(dict(zip(self.names, values)))

    def __call__(self, variables, domains, assignments, forwardcheck=False, _unassigned=Unassigned):
        env = {}
        for n in self.own:
            v = assignments.get(n, _unassigned)
            if v is _unassigned:
                return True
            env[n] = v
        return self.expr.holds(env)


def kernel_tuner_restrictions(spec: Spec) -> list[ExprConstraint] | None:
    """The spec's restrictions for kernel_tuner's Searchspace, one constraint per part (its thread
    limit kernel_tuner adds itself)."""
    names = list(spec.tune_params)
    return [ExprConstraint(p, names) for r in spec.restrictions for p in parts(compile_restriction(r, names))] or None
