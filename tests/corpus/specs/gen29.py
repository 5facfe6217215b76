"""Inputs of held-out batch 29's hand specs that random values cannot give (called with the spec's sizes)."""

import numpy as np

DEGREE = 16  # the column array's room per vertex (the spec's cols size is nverts * DEGREE)
REACH = 40  # a vertex's neighbours lie within this many vertices of it


def _csr(nverts):
    """A graph whose vertices link to near ones: each row's columns sorted and unique, from 0 to 30 of them
    drawn within REACH of the row, so that close vertices share many neighbours."""
    rng = np.random.default_rng(291)
    degrees = rng.integers(0, 31, nverts)
    rows = np.repeat(np.arange(nverts), degrees)
    cols = np.clip(rows + rng.integers(-REACH, REACH + 1, rows.size), 0, nverts - 1)
    keys = np.unique(rows.astype(np.int64) * nverts + cols)
    rows, cols = keys // nverts, keys % nverts
    row_ptr = np.searchsorted(rows, np.arange(nverts + 1)).astype(np.int32)
    assert cols.size <= nverts * DEGREE
    return row_ptr, cols.astype(np.int32)


def csr_row_ptr(sizes):
    """The Jaccard spec's row offsets (nverts + 1 of them, nondecreasing, the last the column count)."""
    return _csr(sizes["nverts"])[0]


def csr_cols(sizes):
    """The Jaccard spec's columns, padded with zeros past the last row's end to nverts * DEGREE."""
    cols = _csr(sizes["nverts"])[1]
    return np.concatenate([cols, np.zeros(sizes["nverts"] * DEGREE - cols.size, np.int32)])


def _edges(sizes):
    rng = np.random.default_rng(292)
    n, m = sizes["nverts"], sizes["nedges"]
    src = rng.integers(0, n, m)
    dst = np.clip(src + rng.integers(-2 * REACH, 2 * REACH + 1, m), 0, n - 1)
    return src.astype(np.int32), dst.astype(np.int32)


def edge_src(sizes):
    """The Jaccard spec's edge sources: any vertex."""
    return _edges(sizes)[0]


def edge_dst(sizes):
    """The Jaccard spec's edge targets: within 2 * REACH of the source (some share no neighbour, most do)."""
    return _edges(sizes)[1]
