"""Our search's first picks on a space where the rules' seeds are no better than chance (issue 40,
dedispersion on the A100): random picks that take each parameter's values about equally often, and
seeds that stop taking turns once a random pick measured faster than every one of them."""

import itertools
from collections import Counter

import numpy as np

from kt_tui.search import kt_search

# block_size_x, block_size_y, tile: at most 1,024 threads, so small blocks_x are most of the space
VALS = [[1, 2, 4, 8, 16, 32], [32, 64, 96, 128, 160, 192, 224, 256], [1, 2, 3, 4]]
SPACE = [c for c in itertools.product(*VALS) if c[0] * c[1] <= 1024]


def test_random_picks_take_each_value_about_equally_often_not_each_configuration():
    share = Counter(c[0] for c in SPACE)
    assert share[1] + share[2] + share[4] == 96 and share[32] == 4  # of 124: what uniform picks would follow
    drawn = Counter()
    for seed in range(600):
        search = kt_search.Search(SPACE, VALS, np.random.default_rng(seed))
        drawn[search.ask()[0]] += 1  # no seeds: the first pick is a random one
    # uniform picks: 465 of 600 with block_size_x <= 4 and 19 with 32; drawn by value, 356 and 72
    assert drawn[1] + drawn[2] + drawn[4] < 420 and drawn[32] > 45, drawn


def timing(c: tuple) -> float:
    """Fast with many threads and a tile of 2; the seeds' 256-thread blocks are middling."""
    return 1.0 + abs(np.log2(c[0] * c[1] / 1024)) + 0.3 * abs(c[2] - 2)


SEEDS = [(8, 32, 3), (4, 64, 2), (8, 32, 2)]  # 256 threads: the first of rules A and B1, the others of A and B2
RULES = ["A + B1", "A + B2", "A + B2"]


def test_seeds_stop_taking_turns_once_a_random_pick_measures_faster_than_every_seed():
    cases = Counter()
    for seed in range(20):
        search = kt_search.Search(SPACE, VALS, np.random.default_rng(seed), seeds=SEEDS, seed_rules=RULES)
        asked = []
        with kt_search.one_blas_thread():
            for _ in range(3):
                asked.append(search.ask())
                search.tell(asked[-1], timing(asked[-1]))
        assert asked[0] == SEEDS[0] and search.randoms >= 1  # a seed, then a random pick
        if asked[1] in SEEDS:  # the random pick drew a seed
            continue
        if timing(asked[1]) < timing(asked[0]):  # chance beat the rules: no seed's turn now
            cases["random faster"] += 1
            assert asked[2] not in SEEDS, asked
        else:  # the seeds lead: they alternate with the other picks
            cases["seed faster"] += 1
            assert asked[2] in SEEDS, asked
    assert cases["random faster"] >= 3 and cases["seed faster"] >= 3, cases
