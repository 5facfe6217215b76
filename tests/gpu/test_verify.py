"""kt_tui.compare: comparing kernel outputs with reference outputs."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kt_tui.compare import compare, compare_all, failure_text


def test_identical_arrays_pass():
    ref = np.linspace(-1, 1, 100, dtype=np.float32)
    v = compare("out", ref, ref.copy(), 1e-5, 1e-4)
    assert v["ok"] is True
    assert (v["output"], v["mismatches"], v["first_bad"], v["max_abs_err"]) == ("out", 0, None, 0.0)
    assert "reason" not in v


def test_within_tolerance_passes():
    ref = np.full(10, 100.0)
    out = ref + 0.05  # atol + rtol*|ref| = 0.01 + 0.001*100 = 0.11
    v = compare("out", ref, out, 0.01, 1e-3)
    assert v["ok"] is True and v["mismatches"] == 0
    assert abs(v["max_abs_err"] - 0.05) < 1e-9


def test_element_beyond_tolerance_fails():
    ref = np.zeros(20, dtype=np.float32)
    out = ref.copy()
    out[7] = 0.5
    out[12] = -2.0
    out[3] = 1e-6  # within atol
    v = compare("out", ref, out, 1e-5, 1e-4)
    assert v["ok"] is False
    assert v["first_bad"] == 7
    assert v["mismatches"] == 2
    assert v["max_abs_err"] == 2.0
    assert "out[7]" in v["reason"]


def test_rtol_scales_with_reference():
    ref = np.array([1.0, 1000.0])
    out = np.array([1.5, 1000.5])  # 0.5 off each: fine for 1000 (rtol 1e-3 -> 1.0), not for 1
    v = compare("o", ref, out, 0.0, 1e-3)
    assert (v["ok"], v["first_bad"], v["mismatches"]) == (False, 0, 1)
    assert abs(v["max_rel_err"] - 0.5) < 1e-12


def test_nan_in_output_fails():
    ref = np.ones(5, dtype=np.float32)
    out = ref.copy()
    out[2] = np.nan
    v = compare("out", ref, out, 1e-5, 1e-4)
    assert v["ok"] is False
    assert (v["first_bad"], v["mismatches"]) == (2, 1)
    assert v["max_abs_err"] == 0.0  # the NaN itself is not a finite error
    assert "nan" in v["reason"].lower()


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_nan_in_both_at_same_place_passes():
    ref = np.array([1.0, np.nan, 3.0, np.inf, -np.inf])
    v = compare("out", ref, ref.copy(), 1e-9, 1e-7)
    assert v["ok"] is True and v["mismatches"] == 0


def test_nan_in_both_at_different_places_fails():
    ref = np.array([1.0, np.nan, 3.0])
    out = np.array([np.nan, 2.0, 3.0])
    v = compare("out", ref, out, 1e-9, 1e-7)
    assert (v["ok"], v["first_bad"], v["mismatches"]) == (False, 0, 2)


def test_infinite_output_for_finite_reference_fails():
    v = compare("out", np.array([1.0, 2.0]), np.array([1.0, np.inf]), 1e-5, 1e-4)
    assert (v["ok"], v["first_bad"], v["mismatches"]) == (False, 1, 1)


@pytest.mark.parametrize("wrong", [0.0, -np.inf, 1e30])
def test_wrong_value_for_infinite_reference_fails(wrong):
    v = compare("out", np.array([np.inf, 1.0]), np.array([wrong, 1.0]), 1e-5, 1e-4)
    assert (v["ok"], v["first_bad"]) == (False, 0)


def test_integers_compare_exactly():
    ref = np.arange(10, dtype=np.int32)
    assert compare("i", ref, ref.copy(), 0.0, 0.0)["ok"] is True
    out = ref.copy()
    out[4] += 1
    out[9] -= 3
    v = compare("i", ref, out, 0.0, 0.0)
    assert (v["ok"], v["first_bad"], v["mismatches"], v["max_abs_err"]) == (False, 4, 2, 3.0)


def test_unsigned_integers_below_reference():
    ref = np.array([5, 5], dtype=np.uint32)
    out = np.array([5, 4], dtype=np.uint32)  # would wrap around if subtracted as uint32
    v = compare("u", ref, out, 0.0, 0.0)
    assert (v["ok"], v["first_bad"], v["max_abs_err"]) == (False, 1, 1.0)


def test_shape_mismatch_fails():
    ref = np.zeros((4, 4), dtype=np.float32)
    v = compare("out", ref, np.zeros(16, dtype=np.float32), 1e-5, 1e-4)
    assert v["ok"] is False
    assert v["mismatches"] == 16 and v["first_bad"] == 0
    assert "shape" in v["reason"]


def test_missing_output_fails():
    v = compare("out", np.zeros(3), None, 1e-5, 1e-4)
    assert v["ok"] is False and v["mismatches"] == 3


def test_compare_all():
    refs = {"a": np.ones(4, np.float32), "b": np.arange(3, dtype=np.int32), "c": np.zeros(2)}
    outs = {"a": np.ones(4, np.float32), "b": np.array([0, 1, 7], dtype=np.int32)}
    tol = {"a": (1e-5, 1e-4), "b": (0.0, 0.0), "c": (1e-9, 1e-7)}
    res = compare_all(refs, outs, tol)
    assert [r["output"] for r in res] == ["a", "b", "c"]
    assert [r["ok"] for r in res] == [True, False, False]
    assert res[1]["first_bad"] == 2
    assert "missing" in res[2]["reason"]
    assert compare_all({}, {}, {}) == []


def test_excerpt_and_failure_text():
    ref = np.arange(10, dtype=np.float32)
    out = ref.copy()
    out[6] = np.nan
    out[8] = 100.0
    v = compare("c", ref, out, 1e-5, 1e-4)
    assert v["reason"] == "c[6] = nan, expected 6"
    assert v["excerpt"] == [[4, "4", "4"], [5, "5", "5"], [6, "nan", "6"], [7, "7", "7"], [8, "100", "8"]]
    assert (v["atol"], v["rtol"]) == (1e-5, 1e-4)
    text = failure_text([v], "n=37")
    assert text.startswith("wrong result at n=37: c[6] = nan, expected 6 (max abs err 92")
    assert text.endswith("2 mismatches)")
    assert failure_text([compare("c", ref, ref.copy(), 0, 0)]) == ""


def test_big_outputs_are_compared_a_piece_at_a_time_with_the_same_verdicts(monkeypatch):
    """A piece-wise comparison (kt_tui/compare.py CHUNK) gives the verdict of the whole-array one:
    errors, the first bad index, NaN and Inf where the reference has them."""
    import numpy as np

    from kt_tui import compare as cmp

    rng = np.random.default_rng(3)
    ref = rng.random(10_000, dtype=np.float32) + 0.5
    cases = {"close": ref * (1 + 1e-7), "off": ref.copy(), "nan": ref.copy(), "inf_ref": ref.copy()}
    cases["off"][7_777] += 1
    cases["nan"][5] = np.nan
    refs = {name: ref.copy() for name in cases}
    refs["inf_ref"][9_000] = cases["inf_ref"][9_000] = np.inf  # the exact path: Inf where the reference has it
    whole = {n: cmp.compare(n, refs[n], o, 1e-6, 1e-5) for n, o in cases.items()}
    monkeypatch.setattr(cmp, "CHUNK", 1000)
    pieces = {n: cmp.compare(n, refs[n], o, 1e-6, 1e-5) for n, o in cases.items()}
    assert pieces == whole
    assert whole["close"]["ok"] and whole["inf_ref"]["ok"]
    assert (whole["off"]["first_bad"], whole["nan"]["first_bad"]) == (7_777, 5)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from([0.0, 1.0, -2.5, 1e-30, 3e38, float("nan"), float("inf"), 7.25]), min_size=1, max_size=40),
    st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), min_size=40, max_size=40),
    st.sampled_from([(1e-3, 1e-4), (0.0, 0.0), (1.0, 0.5)]),
)
def test_a_reference_kept_between_comparisons_gives_the_verdict_a_fresh_one_gives(ref_values, noise, tol):
    """compare._Bounds (the worker's every-configuration path) against the chunked path."""
    from kt_tui import compare as cmp

    ref = np.array(ref_values, np.float32)
    ref.flags.writeable = False  # as the worker holds it
    out = (ref + np.array(noise[: ref.size], np.float32) * np.float32(1e-4)).astype(np.float32)
    for got in (ref.copy(), out):
        kept = cmp.compare("C", ref, got, *tol)
        old, cmp.KEPT_MAX = cmp.KEPT_MAX, 0
        try:
            fresh = cmp.compare("C", ref, got, *tol)
        finally:
            cmp.KEPT_MAX = old
        assert json.dumps(kept, sort_keys=True) == json.dumps(fresh, sort_keys=True)


def test_a_writable_reference_is_compared_afresh_each_time():
    from kt_tui import compare as cmp

    ref = np.ones(1000, np.float32)
    assert cmp.compare("C", ref, np.ones(1000, np.float32), 1e-3, 0)["ok"]
    ref[7] = 2.0  # a caller's array that changed: no bounds kept from before
    assert cmp.compare("C", ref, np.ones(1000, np.float32), 1e-3, 0)["first_bad"] == 7


def test_a_kept_reference_is_never_mistaken_for_another_at_the_same_address():
    from kt_tui import compare as cmp

    for value in (1.0, 5.0, 9.0):  # each array may reuse the last one's memory and id
        ref = np.full(1000, value, np.float32)
        ref.flags.writeable = False
        assert cmp.compare("C", ref, np.full(1000, value, np.float32), 1e-3, 0)["ok"]
        assert not cmp.compare("C", ref, np.full(1000, value + 1, np.float32), 1e-3, 0)["ok"]
