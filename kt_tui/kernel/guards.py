"""Guard zones for the mutants' runs (issue 35): every array argument is handed to the kernel with a
zone of extra elements after its own, while the sizes still give the kernel the array's own length.
An off-by-one read or write (`i <= n`, `y <= height`, `j <= FILTER_H`) lands in the zone, where a
compare of the outputs alone cannot see it (memory past an array often holds zeros):

- an input's zone holds poison (NaN, the integer type's largest value): a read past its end spoils the
  outputs (or, as an index, sends the kernel out of bounds, which fails its run);
- an output's zone holds a canary (a NaN with its own payload, 0xA5 bytes): a write past its end
  changes its bits.

Every zone is checked unchanged after the run, bit for bit. Only the mutants' runs (and the stronger
cases) are guarded: the original's runs with the same zones give its reference, and a tuning run is
never guarded. numpy only."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..words import counted
from .inputs import poison_value
from .spec import Spec

LEAST = 1024  # elements of a zone at least: an overrun by a row of a small 2-D array
SHARE = 4  # and a quarter of the array: a row of a 2-D array with 4 rows or more, a plane of a 3-D one
MOST = 1 << 24  # and at most this many elements
PAYLOAD = 0xA5  # the canary's byte, and the low bits of its NaN (below the quiet bit of every float)


class PastTheEnd(Exception):
    """A run wrote into the guard zone after an array."""


def zone(n: int, lanes: int = 1) -> int:
    """The zone's elements after an array of n elements (a whole number of vector lanes)."""
    want = min(max(LEAST, n // SHARE), MOST)
    return -(-want // lanes) * lanes


def _fill(dtype: np.dtype[Any], k: int, output: bool) -> np.ndarray:
    if np.issubdtype(dtype, np.floating):
        quiet = np.full(k, np.nan, dtype)
        if not output:
            return quiet
        bits = np.dtype(f"u{dtype.itemsize}")
        marked: np.ndarray = (quiet.view(bits) | bits.type(PAYLOAD)).view(dtype)
        return marked
    if np.issubdtype(dtype, np.complexfloating):
        return np.full(k, complex(np.nan, np.nan), dtype)
    if np.issubdtype(dtype, np.integer) and not output:
        return np.full(k, poison_value(dtype), dtype)
    return np.frombuffer(bytes([PAYLOAD]) * (dtype.itemsize * k), dtype).copy()


class Guarded:
    """Arguments with a zone after each array: `args` is what the kernel is handed (made once, reused
    by every run: kernel_tuner copies them to the GPU, never back into them); `lengths` each array's own."""

    def __init__(self, spec: Spec, args: list[Any]):
        self.spec, self.args, self.lengths = spec, list(args), {}
        for i, (a, v) in enumerate(zip(spec.args, args, strict=True)):
            if a.is_array and isinstance(v, np.ndarray) and v.ndim == 1:
                self.lengths[a.name] = v.size
                self.args[i] = np.concatenate([v, _fill(v.dtype, zone(v.size, a.lanes), a.output)])

    def unguard(self, after: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Each array after a run on `args`, its zone cut off; raises PastTheEnd when a zone changed
        (the first changed element named)."""
        out = dict(after)
        for a, v in zip(self.spec.args, self.args, strict=True):
            n, got = self.lengths.get(a.name), after.get(a.name)
            if n is None or got is None:
                continue
            flat = got.reshape(-1)
            tail, kept = flat[n:].view(np.uint8), v[n:].view(np.uint8)
            if tail.size != kept.size or not np.array_equal(tail, kept):
                off = np.flatnonzero(tail != kept) if tail.size == kept.size else np.zeros(1, int)
                first = n + int(off[0]) // v.itemsize
                raise PastTheEnd(
                    f"writes past the end of `{a.name}` ({a.name}[{first}] changed; it has {counted(n, 'element')})"
                )
            out[a.name] = flat[:n]
        return out
