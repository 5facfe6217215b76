"""Inputs of held-out batch 27's hand specs that random values cannot give (called with the spec's sizes)."""

import numpy as np


def band_lower(sizes):
    """The band solver's matrices: in LAPACK lower band storage (row 0 the diagonal, row d the d-th
    subdiagonal, columns ldab apart, matrices strideAB apart), diagonals in [2, 3] and each subdiagonal
    entry in [-1, 1] / kd, so that forward substitution stays bounded; the unused corner and pad are 0."""
    n, kd, ldab, stride, batch = (sizes[k] for k in ("n", "kd", "ldab", "strideAB", "batch"))
    rng = np.random.default_rng(271)
    ab = np.zeros((batch, stride), np.float32)
    for d in range(kd + 1):
        cols = np.arange(n - d)
        idx = d + cols * ldab
        if d == 0:
            ab[:, idx] = rng.uniform(2.0, 3.0, (batch, cols.size))
        else:
            ab[:, idx] = rng.uniform(-1.0, 1.0, (batch, cols.size)) / kd
    return ab.reshape(-1)
