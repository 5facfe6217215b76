"""The shape of a search space as kt's model reads it (search/kt_search.py): which configurations
are one step apart, each value's position in its parameter's list, weights that balance the values,
the parameters a move changes together, and the groups whose products matter (threads or work per
block)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

DEFAULT_BLOCK_NAMES = ("block_size_x", "block_size_y", "block_size_z")


class Adjacency:
    """The configurations adjacent to each (the next or previous value of one parameter), looked up
    by their positions in the parameters' value lists, numbered in mixed radix. ok is False when
    that numbering would overflow or a value is not in its list (then nothing is adjacent)."""

    def __init__(self, space: list[tuple[Any, ...]], values: list[list[Any]]):
        self.sizes = np.array([len(v) for v in values], dtype=np.int64)
        self.ok = bool(space) and math.prod(len(v) for v in values) < 2**62
        self.pos = np.zeros((len(space), len(values)), dtype=np.int64)
        for j, vals in enumerate(values):
            at = {v: k for k, v in enumerate(vals)}
            try:
                self.pos[:, j] = [at[c[j]] for c in space]
            except (KeyError, TypeError):
                self.ok = False
        self.stride = np.concatenate([[1], np.cumprod(self.sizes[:-1])]).astype(np.int64) if len(values) else self.sizes
        codes = self.pos @ self.stride if self.ok else np.zeros(len(space), dtype=np.int64)
        self.order = np.argsort(codes, kind="stable")
        self.codes = codes[self.order]
        self.ok = self.ok and bool(len(np.unique(self.codes)) == len(space))

    def adjacent(self, idx: np.ndarray) -> np.ndarray:
        """(len(idx), 2 * parameters): the adjacent configurations' indices, -1 where there is none."""
        out = np.full((len(idx), 2 * len(self.sizes)), -1, dtype=np.int64)
        if not self.ok or not len(idx):
            return out
        pos = self.pos[idx]
        code = pos @ self.stride
        for j in range(len(self.sizes)):
            for k, step in enumerate((-1, 1)):
                want = code + step * self.stride[j]
                at = np.minimum(np.searchsorted(self.codes, want), len(self.codes) - 1)
                hit = (self.codes[at] == want) & (pos[:, j] + step >= 0) & (pos[:, j] + step < self.sizes[j])
                out[hit, 2 * j + k] = self.order[at[hit]]
        return out


def choice_positions(space: list[tuple[Any, ...]], values: list[list[Any]], columns: list[int]) -> np.ndarray:
    """(configurations, len(columns)): each configuration's value of those parameters as its position
    in the parameter's list, -1 for a value not in it."""
    out = np.full((len(space), len(columns)), -1, dtype=np.int64)
    for m, j in enumerate(columns):
        at = {v: k for k, v in enumerate(values[j])}
        out[:, m] = [at.get(c[j], -1) for c in space]
    return out


def value_balance(space: list[tuple[Any, ...]]) -> np.ndarray:
    """Per configuration, the product over its parameters of 1 / how many configurations share that
    value: random picks drawn by these weights take each parameter's values about equally often.
    Restrictions skew a space (at most 1,024 threads: on dedispersion 82 % of the configurations have
    block_size_x <= 4, the slow ones), and uniform picks would mostly sample the crowded values."""
    weight = np.ones(len(space))
    for column in zip(*space):
        counts = Counter(column)
        weight /= np.array([counts[v] for v in column], dtype=float)
    return weight


def coupled_pairs(names: Sequence[str], products: Sequence[Sequence[int]] = ()) -> list[tuple[int, int]]:
    """Pairs of parameters a move changes together: two in a product group (threads per block, work
    per block or per thread), or two whose names differ only in a last _x, _y or _z (tile_size_x and
    tile_size_y): the good configurations often lie two such steps from a good one, each step alone slower."""
    pairs = {(a, b) for g in products for a in g for b in g if a < b}
    axis = re.compile(r"_[xyz]$")
    for a, na in enumerate(names):
        for b in range(a + 1, len(names)):
            if axis.search(na) and axis.sub("", na) == axis.sub("", names[b]) and axis.search(names[b]):
                pairs.add((a, b))
    return sorted(pairs)


def product_features(space: list[tuple[Any, ...]], groups: Sequence[Sequence[int]]) -> np.ndarray:
    """log2 of the products of parameter groups, scaled to [0, 1]."""
    cols = []
    columns = list(zip(*space))
    for g in groups if space else ():
        col = np.log2(np.maximum(np.prod([np.array(columns[i], dtype=float) for i in g], axis=0), 1e-9))
        lo, hi = col.min(initial=0.0), col.max(initial=0.0)
        if hi > lo:
            cols.append((col - lo) / (hi - lo))
    return np.stack(cols, axis=1) if cols else np.zeros((len(space), 0))


def product_groups(
    names: list[str], values: list[list], grid_divs=(), block_names=DEFAULT_BLOCK_NAMES
) -> list[list[int]]:
    """Parameter groups whose products matter: each grid divisor's tunable names (work per block),
    the same without the block sizes (work per thread), and the block sizes (threads per block)."""
    numeric = {
        n
        for n, vals in zip(names, values)
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in vals)
    }
    block_names = list(block_names or DEFAULT_BLOCK_NAMES)
    out = []
    for div in [*grid_divs, block_names]:
        texts = [getattr(d, "text", d) for d in (div if isinstance(div, (list, tuple)) else ())]
        g = [n for n in dict.fromkeys(texts) if n in numeric]
        for grp in (g, [n for n in g if n not in block_names]):
            idx = sorted(names.index(n) for n in grp)
            if len(idx) >= 2 and idx not in out:
                out.append(idx)
    return out
