"""Inputs of held-out batch 18's hand specs that random values cannot give (called with the spec's sizes)."""

import numpy as np

BUCKET = 4
EMPTY = np.uint64(0xFFFFFFFFFFFFFFFF)
SEEDS = (0x2545F4914F6CDD1D, 0x9E3779B97F4A7C15)


def _mix64(keys, seed):
    k = keys ^ np.uint64(seed)
    k ^= k >> np.uint64(33)
    k *= np.uint64(0xFF51AFD7ED558CCD)
    k ^= k >> np.uint64(33)
    k *= np.uint64(0xC4CEB9FE1A85EC53)
    k ^= k >> np.uint64(33)
    return k


def _cuckoo(sizes):
    """`nkeys` distinct keys below 2**63 placed in `nbuckets` buckets of 4 slots: each in its first
    bucket while that has room, else in its second, else left out (a miss); slots filled front to back.
    The value of key number i is 7 i + 3."""
    rng = np.random.default_rng(181)
    nb, nkeys = sizes["nbuckets"], sizes["nkeys"]
    keys = rng.permutation(np.unique(rng.integers(1, 2**63 - 1, nkeys + nkeys // 50 + 16, dtype=np.int64)))
    keys = keys[:nkeys].astype(np.uint64)
    table = np.full(nb * BUCKET, EMPTY, np.uint64)
    vals = np.full(nb * BUCKET, 0xFFFFFFFF, np.uint32)
    fill = np.zeros(nb, np.int64)
    placed = np.zeros(nkeys, bool)
    for seed in SEEDS:
        idx = np.flatnonzero(~placed)
        bucket = (_mix64(keys[idx], seed) % np.uint64(nb)).astype(np.int64)
        order = np.argsort(bucket, kind="stable")
        sorted_b = bucket[order]
        rank = np.arange(sorted_b.size) - np.searchsorted(sorted_b, sorted_b) + fill[sorted_b]
        ok = rank < BUCKET
        chosen, slots = idx[order][ok], sorted_b[ok] * BUCKET + rank[ok]
        table[slots] = keys[chosen]
        vals[slots] = (7 * chosen + 3).astype(np.uint32)
        fill += np.bincount(sorted_b[ok], minlength=nb)
        placed[chosen] = True
    return keys, table, vals


def table_keys(sizes):
    return _cuckoo(sizes)[1]


def table_vals(sizes):
    return _cuckoo(sizes)[2]


def queries(sizes):
    """`nqueries` keys: half drawn from the inserted ones (most in the table, a few left out), half new
    keys (misses), shuffled."""
    keys = _cuckoo(sizes)[0]
    rng = np.random.default_rng(182)
    n = sizes["nqueries"]
    known = rng.choice(keys, n // 2)
    fresh = rng.integers(1, 2**63 - 1, n - n // 2, dtype=np.int64).astype(np.uint64)
    return rng.permutation(np.concatenate([known, fresh]))


def ray_origins(sizes):
    """(origin, tmin) a ray: origins over a 10 x 10 square on the plane z = -10, tmin 0."""
    rng = np.random.default_rng(183)
    n = sizes["nrays"]
    o = np.stack([rng.uniform(-5, 5, n), rng.uniform(-5, 5, n), np.full(n, -10.0), np.zeros(n)], axis=1)
    return o.astype(np.float32).reshape(-1)


def ray_directions(sizes):
    """(direction, tmax) a ray: towards +z, tilted by up to about 0.1 either way, tmax 30 (past the
    scene's far side at z = 5)."""
    rng = np.random.default_rng(184)
    n = sizes["nrays"]
    d = np.stack([rng.uniform(-0.1, 0.1, n), rng.uniform(-0.1, 0.1, n), np.ones(n), np.full(n, 30.0)], axis=1)
    return d.astype(np.float32).reshape(-1)


def triangles(sizes):
    """(v0, edge1, edge2) a triangle, w 0: corners over the box [-5, 5]^3, edges of about 0.4: a ray crosses
    about a dozen of 20000 triangles, and of a few thousand one, several or none."""
    rng = np.random.default_rng(185)
    n = sizes["ntris"]
    v0 = np.column_stack([rng.uniform(-5, 5, (n, 3)), np.zeros(n)])
    e1 = np.column_stack([rng.normal(0, 0.4, (n, 3)), np.zeros(n)])
    e2 = np.column_stack([rng.normal(0, 0.4, (n, 3)), np.zeros(n)])
    return np.stack([v0, e1, e2], axis=1).astype(np.float32).reshape(-1)


def mel_edges(sizes):
    """The n_mels + 2 corners of HTK mel filters from 0 Hz to Nyquist at sample rate `sr`, as FFT bins
    floor((n_fft + 1) * hz / sr): non-decreasing, narrow bands at the bottom (some empty), wide at the top."""
    n_fft, n_mels, sr = sizes["n_fft"], sizes["n_mels"], sizes["sr"]
    top = 2595.0 * np.log10(1.0 + (sr / 2) / 700.0)
    hz = 700.0 * (10.0 ** (np.linspace(0.0, top, n_mels + 2) / 2595.0) - 1.0)
    return np.minimum(np.floor((n_fft + 1) * hz / sr), n_fft // 2).astype(np.int32)
