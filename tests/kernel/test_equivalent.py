"""Issue 35: mutants equivalent by construction are explained and not counted (kernel/equivalent.py),
and nothing an input could kill is called equivalent."""

from pathlib import Path

import numpy as np

from kt_tui.kernel.mutant import mutants

CORPUS = Path(__file__).parents[1] / "corpus"


def _labelled(name, kernel):
    return {m.what: m.equivalent for m in mutants((CORPUS / f"{name}.cu").read_text(), kernel)}


def _find(labels, words):
    return next(why for what, why in labels.items() if words in what)


def test_a_select_between_the_two_sides_it_compares_is_equivalent_at_the_tie():
    relu = _labelled("relu_bias", "bias_relu")
    assert "at the tie both arms are equal" in _find(relu, "`>` -> `>=` in `y[b * features + f] = v > 0.0f")
    assert _find(relu, "`<` -> `<=` in `if (b < batch") == ""  # a bound: a thread at b == batch would write
    clamp = _labelled("clamp_add_int", "clamp_add")
    assert "both arms are equal" in _find(clamp, "`>` -> `>=` in `out[idx] = s < lo ? lo : (s > hi")
    assert _find(clamp, "`<` -> `<=` in `out[idx] = s < lo ? lo") == ""  # its other arm is not `s`


def test_a_guard_around_adding_the_value_it_compares_with_zero_adds_zero_at_the_tie():
    hist = _labelled("histogram_shared", "histogram_smem")
    assert "at the tie it adds 0" in _find(hist, "`>` -> `>=` in `if (local[b] > 0)`")


def _butterfly(values, start):
    """Each lane's value after `for (o = start; o > 0; o >>= 1) v += __shfl_xor_sync(~0, v, o)`."""
    v = np.array(values, dtype=np.float64)
    o = start
    while o > 0:
        v = v + v[np.arange(32) ^ o if o < 32 else np.arange(32)]
        o >>= 1
    return v


def test_a_xor_butterfly_started_at_17_and_the_write_from_lane_1_are_equivalent():
    lanes = np.random.default_rng(0).integers(-1000, 1000, 32)
    assert _butterfly(lanes, 17)[0] == lanes.sum() == _butterfly(lanes, 16)[1]  # what the labels say
    assert len(set(_butterfly(lanes, 16).tolist())) == 1
    for name, kernel in (("gemv_warp_shfl", "gemv_warp"), ("gemv_warp_rows", "gemv_warp_rows")):
        labels = _labelled(name, kernel)
        assert "a xor butterfly started at 17" in _find(labels, "`16` -> `17`"), name
        assert "lane 1 writes what lane 0 does" in _find(labels, "`0` -> `1` in `if ("), name


def test_a_shuffle_down_ladder_is_not_a_butterfly_and_its_mutants_count():
    # lane 1 of a __shfl_down_sync ladder holds a partial sum; 17 leaves lane 16 out: inputs kill both
    labels = _labelled("rows_dot_warp", "rows_dot")
    assert not any(labels.values()), {w: e for w, e in labels.items() if e}
    assert not any(_labelled("softmax_rows", "softmax_rows").values())


def test_a_butterfly_with_the_warps_width_is_one_too():
    labels = _labelled("rms_norm_warp", "rms_norm_rows")  # __shfl_xor_sync(~0, sumsq, mask, 32)
    assert "a xor butterfly started at 17" in _find(labels, "`16` -> `17` in `for (int mask = 16;")
