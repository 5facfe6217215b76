"""Inputs of held-out batch 31's hand specs that random values cannot give (called with the spec's sizes)."""

import numpy as np

N_RATE = 0.03  # 'N' calls among the bases: about 4.5 a 150-base read, around fastp's limit of 5


def read_bases(sizes):
    """The read filter spec's bases: A, C, G and T with about N_RATE of them N, nreads rows of pitch bytes
    (the padding bytes are bases too)."""
    rng = np.random.default_rng(311)
    n = sizes["nreads"] * sizes["pitch"]
    bases = np.frombuffer(b"ACGT", np.uint8)[rng.integers(0, 4, n)]
    return np.where(rng.random(n) < N_RATE, np.uint8(ord("N")), bases).astype(np.int8)


def sk_power(sizes):
    """The spectral kurtosis spec's power spectra, m rows of ld channels: exponential noise (SK near 1) of a
    per-channel level, a steady tone added in every 16th channel (SK below 1) and short strong bursts in
    every 16th channel from the 8th (SK above 1)."""
    rng = np.random.default_rng(312)
    m, ld = sizes["m"], sizes["ld"]
    level = rng.uniform(0.5, 2.0, ld)
    power = rng.exponential(1.0, (m, ld)) * level
    chans = np.arange(ld)
    power[:, chans % 16 == 0] += 20.0 * level[chans % 16 == 0]
    burst = chans % 16 == 8
    hits = rng.random((m, ld)) < 0.05
    power[hits & burst] += 50.0
    return power.astype(np.float32).reshape(-1)
