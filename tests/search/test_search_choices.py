"""Our search and method selectors (issue 40 item 2): until stalled, it also refines each method the best
configuration does not take, the model filling the other parameters, so an optimum under another method
whose fast region the first picks missed is found (pnpoly: use_method 0 fastest with the largest tile,
use_method 2 with a middling one)."""

import itertools
import math

import numpy as np

from kt_tui.search import kt_search

VALS = [[0, 1, 2, 3], [2**k for k in range(12)], [1, 2, 3, 4, 5, 6, 7, 8], list(range(32, 544, 32))]
SPACE = list(itertools.product(*VALS))


def timing(c: tuple) -> float:
    """method 0 is fastest at the largest size and slower than method 2 below a quarter of it; method 2
    is fastest at a middling size; the last parameter barely matters (block sizes within 1 %)."""
    method, size, b, block = c
    rest = 0.03 * abs(b - 5) + 0.004 * ((block // 32 * 7) % 5)
    if method == 0:
        return 1.0 + 0.1 * (11 - math.log2(size)) + rest
    if method == 2:
        return 1.2 + 0.05 * abs(math.log2(size) - 4) + rest
    return 1.4 + 0.05 * abs(math.log2(size) - 6) + rest


def evaluations_to_optimum(seed: int, cap: int = 400) -> int:
    target = 1.02 * min(map(timing, SPACE))
    search = kt_search.Search(SPACE, VALS, np.random.default_rng(seed))
    with kt_search.one_blas_thread():
        for n in range(1, cap + 1):
            config = search.ask()
            search.tell(config, timing(config))
            if timing(config) <= target:
                return n
    return cap + 1


def test_a_stalled_search_refines_the_methods_the_best_does_not_take():
    found = [evaluations_to_optimum(seed) for seed in range(10)]
    # the search before (dceb818): 90.5 on these seeds, 9 of 10 above 65, trapped near method 2's optimum
    # (the model, fitted on method 0 at small sizes, predicts it slow everywhere); now 34.6
    assert np.mean(found) < 50, found


def test_the_choices_are_a_selectors_values_taken_in_turn_flags_and_sizes_not():
    values = [[0, 1, 2], [16, 32, 64, 128], [0, 1], [7]]
    space = list(itertools.product(*values))
    search = kt_search.Search(space, values, np.random.default_rng(0))
    assert search.choosers == [0]  # the selector 0..2; not the sizes, the flag (local moves flip it), a single value
    best = space.index((1, 64, 0, 7))
    for config in space[:5]:
        search.tell(config, 1.0 + 0.01 * space.index(config))
    search._fit()
    free = np.flatnonzero(search.free)
    taken = [space[search._other_choice(free, best, 0.0)] for _ in range(3)]
    # the methods the best (method 1) does not take, each in turn
    assert [t[0] for t in taken] == [2, 0, 2], taken
