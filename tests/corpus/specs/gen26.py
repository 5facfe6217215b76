"""Inputs of held-out batch 26's hand specs that random values cannot give (called with the spec's sizes)."""

import numpy as np

LEAF = 64  # the leaf-forces kernel's #define: the most bodies a leaf may hold


def kalman_cov(sizes):
    """The Kalman spec's covariances: a symmetric positive-definite 4 x 4 matrix a track (A A^T + I), so that
    the innovation 2 x 2 block is invertible, flattened row by row."""
    rng = np.random.default_rng(261)
    a = rng.normal(0.0, 0.5, (sizes["ntracks"], 4, 4))
    p = a @ a.transpose(0, 2, 1) + np.eye(4)
    return p.astype(np.float32).reshape(-1)


def leaf_starts(sizes):
    """The leaf-forces spec's leaf_start: nleaves + 1 offsets into the bodies, leaves of 16 to LEAF bodies (never
    more: the kernel stages a leaf in a shared array of LEAF), the last offset at most nbodies."""
    rng = np.random.default_rng(262)
    counts = rng.integers(LEAF // 4, LEAF + 1, sizes["nleaves"])
    starts = np.concatenate([[0], np.cumsum(counts)])
    assert starts[-1] <= sizes["nbodies"]
    return starts.astype(np.int32)
