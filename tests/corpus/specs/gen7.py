"""Inputs of held-out batch 7's hand specs that random values cannot give (called with the spec's sizes)."""

import numpy as np


def unit_vectors(sizes, count, seed):
    """`count` points drawn uniformly on the unit sphere, x y z interleaved."""
    v = np.random.default_rng(seed).standard_normal((count, 3))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32).reshape(-1)


def data_points(sizes):
    return unit_vectors(sizes, sizes["n_data"], 71)


def random_points(sizes):
    return unit_vectors(sizes, sizes["n_random"], 72)


def angle_bins(sizes):
    """nbins + 1 ascending cosine bounds: angles from 180 degrees down to 0.01 degree, log-spaced below
    90 degrees as tpacf's are (its bins are equal in log angle), so the bins differ in width."""
    nbins = sizes["nbins"]
    low = np.deg2rad(np.logspace(np.log10(90.0), -2.0, nbins))
    angles = np.concatenate(([np.pi], low))
    return np.cos(angles)
