"""Inputs of held-out batch 17's hand specs that random values cannot give (called with the spec's sizes)."""

import numpy as np


def tile_ranges(sizes):
    """(start, end) into the point list for each 16 x 16 tile of a W x H image, tiles in row order and
    ranges back to back: 0, 1, 7, 40, 100, 257 and 600 splats a tile (above 256 the block fetches its
    splats in several batches), the ends clipped to the list's length `plist`."""
    tiles = -(-sizes["W"] // 16) * -(-sizes["H"] // 16)
    lengths = np.random.default_rng(171).choice([0, 1, 7, 40, 100, 257, 600], tiles)
    ends = np.minimum(np.cumsum(lengths), sizes["plist"])
    starts = np.concatenate(([0], ends[:-1]))
    return np.stack([starts, ends], axis=1).astype(np.uint32).reshape(-1)


def conic_opacity(sizes):
    """Per splat the inverse 2-D covariance (a, b, c) of a wide Gaussian (standard deviations of about
    200 to 700 pixels, correlation below 0.8: positive definite) and an opacity in [0.01, 0.2], as
    (a, b, c, opacity): the splats of a tile reach its pixels wherever on the image they lie."""
    rng = np.random.default_rng(172)
    n = sizes["nsplats"]
    a = rng.uniform(2e-6, 2e-5, n)
    c = rng.uniform(2e-6, 2e-5, n)
    b = rng.uniform(-0.8, 0.8, n) * np.sqrt(a * c)
    opacity = rng.uniform(0.01, 0.2, n)
    return np.stack([a, b, c, opacity], axis=1).astype(np.float32).reshape(-1)
