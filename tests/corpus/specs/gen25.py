"""Inputs of held-out batch 25's hand specs that random values cannot give (called with the spec's sizes)."""

import numpy as np


def sorted_keys(sizes):
    """The reduce-by-key spec's keys: n draws below nkeys, sorted, so that equal keys form runs of random
    lengths (some keys absent, runs crossing warps at the large sizes)."""
    rng = np.random.default_rng(251)
    return np.sort(rng.integers(0, sizes["nkeys"], sizes["n"])).astype(np.int32)
