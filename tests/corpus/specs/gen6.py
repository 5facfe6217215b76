"""Inputs of held-out batch 6's hand specs that random values cannot give (called with the spec's sizes)."""

import numpy as np


def slot_mapping(sizes):
    """A distinct cache slot per token (two tokens writing one slot would race), about one token in
    ten a padding token (-1), as vLLM's slot_mapping holds."""
    rng = np.random.default_rng(61)
    slots = rng.permutation(sizes["num_blocks"] * sizes["block_size"])[: sizes["tokens"]].astype(np.int64)
    slots[rng.random(sizes["tokens"]) < 0.1] = -1
    return slots


def edge_mask(sizes):
    """An 8-bit edge mask with rows width + 16 bytes apart: about 8 % of the pixels nonzero, of any
    value 1 to 255 (a Canny mask holds 255; any nonzero pixel votes)."""
    rng = np.random.default_rng(62)
    n = sizes["height"] * (sizes["width"] + 16)
    mask = np.zeros(n, dtype=np.uint8)
    on = rng.random(n) < 0.08
    mask[on] = rng.integers(1, 256, int(on.sum()), dtype=np.uint8)
    return mask
