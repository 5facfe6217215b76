"""The search's model and its own cost (behaviour only; the CPU time is in benchmarks/search.py
--model-cost): the forest, the GP's gradient, what is refitted when, what each step scores."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import approx_fprime

from kt_tui.search import kt_search
from kt_tui.search.model import GP, Trees

VALS = [[16, 32, 64, 128, 256], [1, 2, 4, 8, 16], [1, 2, 4, 8], [1, 2, 4, 8], [2, 4, 8, 16, 32], [0, 1], [1, 2, 4]]


def timing(c) -> float:
    return math.exp(sum(math.log2(v + 1) for v in c) / 7)


def test_the_forest_fits_its_points_and_averages_duplicates():
    rng = np.random.default_rng(0)
    x = rng.random((40, 5))
    x[30:] = x[:10]  # ten points twice, with other targets
    y = rng.standard_normal(40)
    trees = Trees(20, rng=np.random.default_rng(1)).fit(x, y)
    mean, sd = trees.predict(x[10:30])
    np.testing.assert_allclose(mean, y[10:30])
    np.testing.assert_allclose(sd, 0.0, atol=1e-12)
    np.testing.assert_allclose(trees.predict(x[:10])[0], (y[:10] + y[30:]) / 2)
    flat = Trees(5, rng=np.random.default_rng(1)).fit(x, np.full(40, 2.5))  # nothing to split on
    assert len(flat.forest[0]) == 5 and flat.predict(rng.random((7, 5)))[0].tolist() == [2.5] * 7


def test_refresh_keeps_the_splits_and_gives_each_leaf_its_points_mean():
    rng = np.random.default_rng(0)
    x, y = rng.random((30, 4)), rng.standard_normal(30)
    trees = Trees(10, rng=np.random.default_rng(2)).fit(x, y)
    splits = [a.copy() for a in trees.forest[:-1]]
    far = trees.predict(x[20:])[0]
    y2 = rng.standard_normal(30)
    trees.refresh(x[:20], y2[:20])  # the targets moved (ranks do); only 20 points fall in the leaves now
    assert all((a == b).all() for a, b in zip(splits, trees.forest[:-1]))
    np.testing.assert_allclose(trees.predict(x[:20])[0], y2[:20])  # each alone in its leaf
    np.testing.assert_allclose(trees.predict(x[20:])[0], far)  # leaves no point reaches keep their value
    both = np.concatenate([x[:1], x[:1]])
    trees.refresh(both, np.array([1.0, 3.0]))  # a new point in a leaf: the leaf's mean
    assert trees.predict(x[:1])[0][0] == pytest.approx(2.0)


def test_the_gp_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    gp = GP()
    for n in (5, 40):
        x = rng.random((n, 6))
        y = np.sin(3 * x[:, 0]) + x[:, 1] ** 2
        y = (y - y.mean()) / y.std()
        theta = rng.normal(-0.3, 0.5, 6)
        value, grad = gp._nll(theta, x, y)
        numeric = approx_fprime(theta, lambda t, x=x, y=y: gp._nll(t, x, y)[0], 1e-6)
        np.testing.assert_allclose(grad, numeric, rtol=1e-4, atol=1e-4)


def test_neighbours_are_the_free_configurations_one_parameter_away():
    space = [c for c in itertools.product(*VALS[:4]) if c[0] * c[1] <= 128]
    search = kt_search.Search(space, VALS[:4], np.random.default_rng(0))
    for c in space[::7]:
        search.tell(c, 1.0)
    ix = np.array(space)
    for i in (0, 5, len(space) // 2, len(space) - 1):
        scan = np.flatnonzero(((ix != ix[i]).sum(1) <= 1) & search.free)
        assert search._neighbours(i, pairs=False).tolist() == scan.tolist()
        two = np.flatnonzero(((ix != ix[i]).sum(1) <= 2) & search.free)  # a small space: every pair moves
        assert search._neighbours(i).tolist() == two.tolist()


def test_a_long_run_refits_on_a_growing_schedule_and_scores_a_sample(monkeypatch):
    space = list(itertools.product(*VALS))  # 12,000 configurations
    fits, refreshes, tuned, tune_rows, scored = [], [], [], [], []
    real = Trees.fit, Trees.refresh, GP.fit, GP._nll, GP.predict
    monkeypatch.setattr(Trees, "fit", lambda self, x, y: fits.append(len(y)) or real[0](self, x, y))
    monkeypatch.setattr(Trees, "refresh", lambda self, x, y: refreshes.append(len(y)) or real[1](self, x, y))
    monkeypatch.setattr(
        GP,
        "fit",
        lambda self, x, y, tune=True, tune_on=None: tuned.append((len(y), tune)) or real[2](self, x, y, tune, tune_on),
    )
    monkeypatch.setattr(GP, "_nll", lambda self, t, x, y: tune_rows.append(len(x)) or real[3](self, t, x, y))
    monkeypatch.setattr(GP, "predict", lambda self, xs: scored.append(len(xs)) or real[4](self, xs))
    monkeypatch.setattr(kt_search, "MAX_TRAIN", 120)  # the caps, small enough to be reached here
    monkeypatch.setattr(kt_search, "MAX_TUNE", 50)
    search = kt_search.Search(space, VALS, np.random.default_rng(0))
    with kt_search.one_blas_thread():
        for _ in range(200):
            c = search.ask()
            search.tell(c, timing(c))
    seen = len(search.seen)
    assert seen == 200 and search.steps == 200 - search.initial
    observed = range(search.initial, seen)  # observations before each model step
    tunes = [n for n, (_, t) in zip(observed, tuned) if t]
    assert [n for n in tunes if n <= kt_search.TUNE_ALWAYS] == list(range(search.initial, kt_search.TUNE_ALWAYS + 1))
    later = [n for n in tunes if n > kt_search.TUNE_ALWAYS]
    assert all(b >= kt_search.TUNE_GROWTH * a for a, b in zip([kt_search.TUNE_ALWAYS] + later, later))
    assert len(later) <= math.log(seen / kt_search.TUNE_ALWAYS) / math.log(kt_search.TUNE_GROWTH) + 1
    assert max(n for n, _ in tuned) == 120 and max(tune_rows) == 50  # fitted on capped subsets
    assert len(fits) + len(refreshes) == search.steps
    assert fits[: kt_search.TREES_ALWAYS - search.initial + 1] == [
        min(n, 120) for n in range(search.initial, kt_search.TREES_ALWAYS + 1)
    ]
    assert 3 <= len(fits) - (kt_search.TREES_ALWAYS - search.initial + 1) <= 15 and len(refreshes) > 80
    assert max(scored) <= kt_search.MAX_CANDIDATES + sum(len(v) for v in VALS)  # a sample plus the best's neighbours
    assert len(space) > 5 * kt_search.MAX_CANDIDATES


def test_the_search_still_finds_the_optimum_of_a_smooth_space():
    space = list(itertools.product(*VALS))
    search = kt_search.Search(space, VALS, np.random.default_rng(3))
    best = min(timing(c) for c in space)
    found = math.inf
    with kt_search.one_blas_thread():
        for _ in range(60):
            c = search.ask()
            search.tell(c, timing(c))
            found = min(found, timing(c))
    assert found == best


def test_seeds_come_every_other_pick_the_first_one_then_each_the_farthest_from_those_before():
    vals = [[8, 16, 32], [4, 8, 16], [1, 2, 4]]
    space = list(itertools.product(*vals))
    seeds = [(16, 16, 1), (16, 8, 1), (16, 16, 2), (32, 4, 4), (16, 16, 4), (999, 1, 1)]  # a rule's cross product
    search = kt_search.Search(space, vals, np.random.default_rng(0), seeds=seeds)
    asked = []
    for _ in range(10):
        asked.append(search.ask())
        search.tell(asked[-1], 1.0)  # all alike: no evidence for or against the rule
    assert asked[0] == (16, 16, 1) and asked[2] == (32, 4, 4)  # the one most unlike the first comes next
    assert set(asked[:6:2]) <= set(seeds) and set(seeds[:5]) <= set(asked)  # a seed every other pick, each once
    assert len(set(asked)) == 10
    assert kt_search.spread([], None) == [] and kt_search.spread(["a", "b"], None) == ["a", "b"]
