"""kernel/inputs.py on large arrays: random values drawn in the array's own float type (no float64
array made and converted), in parts that threads draw at once, the same values however they are drawn."""

import tracemalloc

import numpy as np
import pytest

from kt_tui.kernel import inputs
from kt_tui.kernel.inputs import make_arg, make_args
from kt_tui.kernel.spec import Arg, Spec

KINDS = [
    Arg("normal", "float32", size="n", seed=3),
    Arg("uniform", "float32", size="n", init="uniform", low=-2, high=3, seed=4),
    Arg("double", "float64", size="n", init="positive", seed=5),
    Arg("half", "float16", size="n", seed=6),
    Arg("ints", "int32", size="n", low=0, high=256, seed=7),
    Arg("bytes", "uint8", size="n", seed=8),
]


def _spec(args, n):
    return Spec(kernel="k", args=args, problem_size=["n"], sizes={"n": n})


@pytest.mark.parametrize("arg", KINDS, ids=lambda a: a.name)
def test_parts_drawn_on_threads_give_the_values_drawn_in_order(arg, monkeypatch):
    monkeypatch.setattr(inputs, "CHUNK", 1000)
    spec = _spec([arg, Arg("other", "float32", size="n", seed=9)], 5500)
    together = make_args(spec)[0]
    alone = make_arg(arg, dict(spec.sizes), spec)
    assert together.dtype == alone.dtype == np.dtype(arg.dtype) and together.shape == (5500,)
    np.testing.assert_array_equal(together, alone)
    parts = together[:5000].reshape(5, 1000)
    assert len({p.tobytes() for p in parts}) == 5  # each part from its own generator
    low, high = (-2, 3) if arg.name == "uniform" else (1e-3, 1) if arg.name == "double" else (0, 256)
    if arg.name in ("uniform", "double", "ints"):
        assert low <= together.min() and together.max() < high


def test_float32_values_are_drawn_as_float32():
    spec = _spec([KINDS[0]], 3000)
    first = np.random.default_rng(np.random.SeedSequence(3).spawn(1)[0]).standard_normal(3000, dtype=np.float32)
    np.testing.assert_array_equal(make_args(spec)[0], first)


@pytest.mark.parametrize("init", ["random", "uniform"])
def test_a_large_float32_input_needs_no_more_memory_than_itself(init):
    n = 1 << 22
    arg = Arg("x", "float32", size="n", init=init, seed=1)
    tracemalloc.start()
    try:
        value = make_arg(arg, {"n": n})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert value.nbytes == 4 * n and peak < 1.1 * value.nbytes  # drawn as float64 and converted: 3x
