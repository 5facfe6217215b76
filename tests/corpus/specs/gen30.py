"""Inputs of held-out batch 30's hand specs that random values cannot give (called with the spec's sizes)."""

import numpy as np

ROOM = 16  # the Jacobi spec's column array holds n * ROOM entries
SEGMENT_LENGTHS = (0, 1, 5, 31, 32, 33, 70, 200)


def _jacobi(n):
    """A sparse matrix of near-diagonal rows: 0 to 12 off-diagonal columns within 50 of the row, sorted and
    unique, the diagonal entry present in about 7 rows of 8 (the rest keep dinv = 1)."""
    rng = np.random.default_rng(301)
    degrees = rng.integers(0, 13, n)
    rows = np.repeat(np.arange(n), degrees)
    cols = np.clip(rows + rng.integers(-50, 51, rows.size), 0, n - 1)
    diag = np.flatnonzero(rng.random(n) < 0.875)
    rows = np.concatenate([rows, diag])
    cols = np.concatenate([cols, diag])
    keys = np.unique(rows.astype(np.int64) * n + cols)
    rows, cols = keys // n, keys % n
    row_ptr = np.searchsorted(rows, np.arange(n + 1)).astype(np.int32)
    assert cols.size <= n * ROOM
    return row_ptr, cols.astype(np.int32)


def jacobi_row_ptr(sizes):
    """The Jacobi spec's row offsets (n + 1 of them, nondecreasing, the last the entry count)."""
    return _jacobi(sizes["n"])[0]


def jacobi_cols(sizes):
    """The Jacobi spec's columns, padded with -1 past the last row's end to n * ROOM."""
    cols = _jacobi(sizes["n"])[1]
    return np.concatenate([cols, np.full(sizes["n"] * ROOM - cols.size, -1, np.int32)])


def _segments(sizes):
    """Segments of the lengths above in a drawn order, 0 to 3 items skipped between them, those past the
    items' end empty at the end."""
    rng = np.random.default_rng(302)
    nsegs, nitems = sizes["nsegs"], sizes["nitems"]
    lengths = rng.choice(np.array(SEGMENT_LENGTHS), nsegs)
    gaps = rng.integers(0, 4, nsegs)
    begin = np.minimum(np.cumsum(gaps) + np.concatenate(([0], np.cumsum(lengths)[:-1])), nitems)
    end = np.minimum(begin + lengths, nitems)
    return begin.astype(np.int32), end.astype(np.int32)


def seg_begin(sizes):
    """The segmented min / max spec's begin offsets."""
    return _segments(sizes)[0]


def seg_end(sizes):
    """The segmented min / max spec's end offsets (each at least its begin)."""
    return _segments(sizes)[1]
