"""Inputs of the corpus's hand specs that random values cannot give (called with the spec's sizes)."""

import numpy as np


def csr_row_ptr(sizes):
    """Row offsets into nnz values: non-decreasing, from 0 to nnz, rows of varied length."""
    rows, nnz = sizes["rows"], sizes["nnz"]
    cuts = np.sort(np.random.default_rng(7).integers(0, nnz + 1, rows - 1))
    return np.concatenate(([0], cuts, [nnz])).astype(np.int32)
