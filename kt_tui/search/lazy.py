"""Spaces too large to list: counted, walked in order and sampled without enumerating the product.

The parameters fall into groups that restrictions tie together (the thread limit included); a
parameter no restriction names is a group of its own. Each tied group is solved on its own with
python-constraint, the solver kernel_tuner builds its spaces with (our checked expressions as its
FunctionConstraints, the thread limit as its MaxProdConstraint), so the size after restrictions is
the product of the groups' counts. Walking in kernel_tuner's brute-force order and sampling never
build the whole list either.
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
from .restrictions import MAX_THREADS, block_names, compile_restriction, restrictions, thread_limit

HUGE = 200_000  # configurations before restrictions above which a space is not listed up front
GROUP_LIMIT = 2_000_000  # a tied group with more combinations is not solved (its count is estimated)
SAMPLE = 20_000  # configurations our model chooses from in a huge space


class LazySpace:
    def __init__(self, spec: Spec, max_threads: int | None = None):
        max_threads = MAX_THREADS if max_threads is None else max_threads
        self.names = list(spec.tune_params)
        self.values = [list(v) for v in spec.tune_params.values()]
        self.exprs: list[Expr] = restrictions(spec, max_threads)
        limit = thread_limit(spec, max_threads)
        self.thread_limit = (block_names(spec), max_threads) if limit else None
        self.before = math.prod(len(v) for v in self.values)
        self.groups = self._groups()
        self.solved = [self._solve(g) for g in self.groups]
        at: list[list[Expr]] = [[] for _ in self.names]  # checked once their last parameter is set
        for e in self.exprs:
            at[max((self.names.index(n) for n in e.names), default=0)].append(e)
        self.at = at

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
        """The group's valid combinations (in its parameters' order), or None when too many to solve."""
        exprs = self._group_exprs(group)
        if not exprs:
            return [(v,) for v in self.values[group[0]]] if len(group) == 1 else None
        if math.prod(len(self.values[i]) for i in group) > GROUP_LIMIT:
            return None
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
            problem.addConstraint(FunctionConstraint(_holds(e, ns)), ns)
        found = problem.getSolutionsAsListDict(order=gnames)[0]
        order = [{v: k for k, v in enumerate(self.values[i])} for i in group]
        return sorted((tuple(c) for c in found), key=lambda c: [o[v] for o, v in zip(order, c)])

    # -- sizes ----------------------------------------------------------------------------
    def size(self) -> int | None:
        """The exact number of configurations after restrictions; None when a group was too large."""
        if not self.names or any(not e.names and not e.holds({}) for e in self.exprs):
            return 0  # as listing it gives (no parameters: nothing to tune)
        counts = [len(s) for s in self.solved if s is not None]
        return math.prod(counts) if len(counts) == len(self.solved) else None

    def estimate(self, n: int = 4000, seed: int = 0) -> int:
        """The size, or an estimate from random draws when a tied group is too large to solve."""
        exact = self.size()
        if exact is not None:
            return exact
        rng, est = np.random.default_rng(seed), 1.0
        for group, solved in zip(self.groups, self.solved):
            if solved is not None:
                est *= len(solved)
                continue
            exprs = self._group_exprs(group)
            hits = sum(all(e.holds(c) for e in exprs) for c in (self._draw_group(rng, group) for _ in range(n)))
            est *= math.prod(len(self.values[i]) for i in group) * hits / n
        return int(round(est))

    # -- walking and sampling -------------------------------------------------------------
    def iter_sorted(self) -> Iterator[tuple[Any, ...]]:
        """Every configuration, in kernel_tuner's brute-force order (sorted by value positions)."""
        if not self.names:
            return
        config: dict[str, Any] = {}
        stack = [iter(self.values[0])]
        while stack:
            depth = len(stack) - 1
            name = self.names[depth]
            for v in stack[-1]:
                config[name] = v
                if all(e.holds(config) for e in self.at[depth]):
                    break
            else:
                stack.pop()
                config.pop(name, None)
                continue
            if depth + 1 == len(self.names):
                yield tuple(config[n] for n in self.names)
            else:
                stack.append(iter(self.values[depth + 1]))

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
                else:
                    return list(out)  # this group almost never holds: rather fewer than a stall
            out[tuple(env[n] for n in self.names)] = None
        return list(out)

    def first(self, k: int) -> list[tuple]:
        return list(islice(self.iter_sorted(), k))


def _holds(e: Expr, names: list[str]):
    def check(*values):
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
    """The spec's restrictions for kernel_tuner's Searchspace, one constraint each (its thread limit
    kernel_tuner adds itself)."""
    names = list(spec.tune_params)
    return [ExprConstraint(compile_restriction(r, names), names) for r in spec.restrictions] or None
