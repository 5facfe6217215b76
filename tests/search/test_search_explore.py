"""Our search after the model stalls, and the seed that leads (issue 24 item 4): exploring where
nothing adjacent has been measured finds a small fast region the model cannot predict; a seed whose
rules picked the fastest configuration so far is followed before the next random pick."""

import itertools

import numpy as np

from kt_tui.search import kt_search, space_shape

VALS = [[16, 32, 64, 128, 256, 512], [1, 2, 4, 8, 16], [1, 2, 4, 8], [0, 1, 2]]
SPACE = [c for c in itertools.product(*VALS) if c[0] * c[1] <= 4096]


def bowl(c: tuple) -> float:
    return 1.0 + abs(np.log2(c[0] / 64)) + abs(np.log2(c[1] / 4)) + 0.5 * abs(np.log2(c[2] / 2)) + 0.1 * c[3]


def adjacent_by_hand(c: tuple, space: set) -> set:
    out = set()
    for j, vals in enumerate(VALS):
        at = vals.index(c[j])
        for k in (at - 1, at + 1):
            if 0 <= k < len(vals) and (n := c[:j] + (vals[k],) + c[j + 1 :]) in space:
                out.add(n)
    return out


def test_adjacent_configurations_are_one_step_in_one_parameter_and_in_the_space():
    grid = space_shape.Adjacency(SPACE, VALS)
    assert grid.ok
    found = grid.adjacent(np.arange(len(SPACE)))
    held = set(SPACE)
    for i, c in enumerate(SPACE):
        assert {SPACE[k] for k in found[i] if k >= 0} == adjacent_by_hand(c, held)
    assert not space_shape.Adjacency([(3, 1)], [[16, 32], [1]]).ok  # 3 is not among its values: nothing adjacent


def test_once_stalled_the_search_finds_a_fast_region_the_model_cannot_predict():
    """A smooth space with a needle far from its optimum: the needle twice as fast as the optimum, its
    adjacent configurations 1.33 times; the model, fitted to the bowl, never predicts it."""
    held = set(SPACE)
    optimum = min(bowl(c) for c in SPACE)
    far = [c for c in SPACE if bowl(c) > 4.5 and len(adjacent_by_hand(c, held)) >= 5]
    found = []
    for seed in range(8):
        needle = far[int(np.random.default_rng(100 + seed).integers(len(far)))]
        region = adjacent_by_hand(needle, held)

        def timing(c, needle=needle, region=region):
            return optimum / 2 if c == needle else optimum / 1.33 if c in region else bowl(c)

        search = kt_search.Search(SPACE, VALS, np.random.default_rng(seed))
        asked = []
        with kt_search.one_blas_thread():
            while needle not in asked:
                asked.append(search.ask())
                search.tell(asked[-1], timing(asked[-1]))
        found.append(len(asked))
    # random picks need about (348 + 1) / (6 + 1) = 50 evaluations just to land in a region of 6 or more;
    # the search before issue 24 item 4 (the farthest configuration from all seen) took 57 on these seeds,
    # after it 48 (two picks in three explored once stalled). Issue 40 explores half as often and backs
    # off further when exploring finds nothing (pnpoly, where exploring poor regions cost hundreds of
    # picks): 65 to 69 here. The trade is real: never backing off brings the recorded spaces' needles
    # back (medians 71 / 65.5 / 76.5 against 106 / 90 / 75) and costs pnpoly@RTX_3090 (mean 68.9 -> 88.8
    # over 100 seeds; benchmarks/results/search-hub-vm2core-2026-12-06b.txt says more)
    assert np.mean(found) < 75, found


def test_a_seed_whose_rules_picked_the_fastest_so_far_goes_before_a_random_pick():
    slow = [(512, 1, 1, 2)]
    fast = [(64, 4, 1, 0), (64, 4, 2, 0), (32, 4, 2, 1)]
    search = kt_search.Search(
        SPACE, VALS, np.random.default_rng(5), seeds=slow + fast, seed_rules=["big"] + ["mid"] * 3
    )
    asked = []
    with kt_search.one_blas_thread():
        for _ in range(4):
            asked.append(search.ask())
            search.tell(asked[-1], bowl(asked[-1]))
    assert asked[0] == slow[0] and asked[1] in fast  # a seed, then one of the other rule's, before any random pick
    assert bowl(asked[1]) < bowl(asked[0])  # ... which is the fastest so far
    assert asked[2] in fast and search.randoms == 0  # so its rule is followed now, not after a random pick
