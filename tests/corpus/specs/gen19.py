"""Inputs of held-out batch 19's hand specs that random values cannot give (called with the spec's sizes)."""

import numpy as np

CELL = 0.0625  # the SPH spec's h: a power of two, so a position's cell is the same on the host and the GPU


def _particles(sizes):
    """`npart` particles over the gx x gy x gz box of cells of side CELL, sorted by cell ((z * gy + y) * gx + x),
    masses in [0.5, 1.5); and per cell the (start, end) of its particles."""
    rng = np.random.default_rng(191)
    n, gx, gy, gz = sizes["npart"], sizes["gx"], sizes["gy"], sizes["gz"]
    xyz = rng.uniform(0.0, 1.0, (n, 3)) * np.array([gx, gy, gz]) * CELL
    xyz = xyz.astype(np.float32)
    cell = np.floor(xyz / np.float32(CELL)).astype(np.int64)
    cell = np.minimum(cell, np.array([gx - 1, gy - 1, gz - 1]))
    ids = (cell[:, 2] * gy + cell[:, 1]) * gx + cell[:, 0]
    order = np.argsort(ids, kind="stable")
    pos = np.column_stack([xyz[order], rng.uniform(0.5, 1.5, n).astype(np.float32)])
    cells = np.arange(gx * gy * gz)
    ranges = np.column_stack([np.searchsorted(ids[order], cells), np.searchsorted(ids[order], cells, side="right")])
    return pos.astype(np.float32), ranges.astype(np.int32)


def sph_positions(sizes):
    return _particles(sizes)[0].reshape(-1)


def sph_cell_ranges(sizes):
    return _particles(sizes)[1].reshape(-1)


def _lower_csr(sizes):
    """A lower-triangular n x n CSR matrix whose rows have levels r % nlev: row r's off-diagonal columns are
    earlier rows of lower levels (0, 1, 3, 20, 40 or 70 of them, fewer where fewer exist or the nnz budget runs
    out), ascending, then the diagonal, in [1, 2); off-diagonal values normal / 10. The arrays of `nnz` entries
    are zero past the matrix's own. The level list: level 0's rows ascending, then level 1's, ..."""
    rng = np.random.default_rng(192)
    n, nlev, nnz = sizes["n"], sizes["nlev"], sizes["nnz"]
    r = np.arange(n)
    q, lev = r // nlev, r % nlev
    candidates = (q + 1) * lev  # j < r with j % nlev < r % nlev
    want = np.minimum(rng.choice([0, 1, 3, 20, 40, 70], n), candidates)
    want[np.cumsum(want) > nnz - n] = 0
    rows = np.repeat(r, want)
    pick = (rng.uniform(0.0, 1.0, rows.size) * np.repeat(candidates, want)).astype(np.int64)
    cols = (pick // np.maximum(lev[rows], 1)) * nlev + pick % np.maximum(lev[rows], 1)
    key = np.unique(np.concatenate([rows * n + cols, r * n + r]))
    rows, cols = key // n, key % n
    row_ptr = np.zeros(n + 1, np.int64)
    row_ptr[1:] = np.cumsum(np.bincount(rows, minlength=n))
    col_idx = np.zeros(nnz, np.int32)
    val = np.zeros(nnz, np.float32)
    col_idx[: cols.size] = cols
    val[: cols.size] = np.where(rows == cols, rng.uniform(1.0, 2.0, cols.size), rng.normal(0.0, 0.1, cols.size))
    level_rows = np.argsort(lev, kind="stable")
    return row_ptr.astype(np.int32), col_idx, val, level_rows.astype(np.int32)


def trsv_row_ptr(sizes):
    return _lower_csr(sizes)[0]


def trsv_col_idx(sizes):
    return _lower_csr(sizes)[1]


def trsv_val(sizes):
    return _lower_csr(sizes)[2]


def trsv_level_rows(sizes):
    return _lower_csr(sizes)[3]


def _sorted_keys(n, seed, sizes):
    """n floats in ascending order, whole numbers below (na + nb) / 4, so a and b share many keys (the ties)."""
    rng = np.random.default_rng(seed)
    top = max((sizes["na"] + sizes["nb"]) // 4, 2)
    return np.sort(rng.integers(0, top, n)).astype(np.float32)


def merge_a(sizes):
    return _sorted_keys(sizes["na"], 193, sizes)


def merge_b(sizes):
    return _sorted_keys(sizes["nb"], 194, sizes)
