"""Inputs of held-out batch 3's hand specs that random values cannot give (called with the spec's sizes)."""

import numpy as np

ROW_LENGTHS = (0, 1, 2, 7, 31, 33, 64, 100)


def csr_row_ptr_varied(sizes):
    """Row offsets into nnz values: rows of 0, 1, 2, 7, 31, 33, 64 and 100 nonzeros in a seeded
    order (shorter and longer than a warp), cut at nnz."""
    lengths = np.random.default_rng(11).choice(ROW_LENGTHS, sizes["rows"])
    ends = np.minimum(np.cumsum(lengths), sizes["nnz"])
    return np.concatenate(([0], ends)).astype(np.int32)
