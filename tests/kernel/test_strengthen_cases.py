"""Issue 35 item 2, the cases that kill the corpus's survivors (kernel/strengthen.py, kernel/inputs.py):
a 16-bit index past the bound a clamping kernel checks, 32-bit values above 16 bits, rows with one
large value (a softmax's max), floats that tie, and the block size the survivors run at."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from kt_tui.gpu.checkrun import survivor_geometry
from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.spec import SpecError, load_spec, parse_spec
from kt_tui.kernel.strengthen import candidates, case_spec, cheap_first

CORPUS = Path(__file__).parents[1] / "corpus"

SPECS = Path(__file__).parents[1] / "corpus" / "specs"


def _case(spec, words):
    return next(c for c in candidates(spec) if words in c["label"])


def _args(spec, case):
    s = case_spec(spec, case)
    return dict(zip([a.name for a in s.args], make_args(s, s.sizes)))


def test_a_16_bit_index_a_kernel_clamps_gets_its_whole_range_past_the_bound():
    spec = load_spec(SPECS / "lut_u16.cu.toml")  # raw in [0, levels); `if (v >= levels) v = levels - 1`
    case = _case(spec, "`raw` over the whole range of uint16")
    raw = _args(spec, case)["raw"]
    levels = spec.sizes["levels"]
    assert (raw == levels).any()  # the clamp's edge: `>=` -> `>` reads lut[levels]
    assert (raw >= 1 << 15).mean() > 0.4  # `unsigned short` -> `short`, `& 0x7fff`, `int` -> `short`
    assert make_args(spec, spec.sizes)[1].max() < levels  # the spec itself is left as it was


def test_32_bit_values_drawn_within_16_bits_get_values_above_16_bits():
    spec = load_spec(SPECS / "clamp_add_int.cu.toml")  # a, b in [-100, 100): `int s` -> `short s` passes
    args = _args(spec, _case(spec, "`a` above 16 bits"))
    assert args["a"].dtype == np.int32 and np.abs(args["a"]).max() > 1 << 16 and args["a"].min() < 0
    s = args["a"].astype(np.int64) + args["b"]
    assert (s.astype(np.int16) != s).mean() > 0.5  # a short holding the sum differs for most elements
    assert len(np.unique(np.clip(s, -50, 60))) >= 2  # the clamped outputs are not constant
    wide = load_spec(SPECS / "histogram_bins.cu.toml")  # values bounded by a size: the wide index case's
    assert not any("above 16 bits (within" in c["label"] for c in candidates(wide))


@pytest.mark.parametrize(("dtype", "low", "high"), [("int8", -128, 128), ("int16", -32768, 32768)])
def test_a_narrow_type_drawn_over_its_whole_range_gets_no_case_above_16_bits(dtype, low, high):
    spec = load_spec(SPECS / "clamp_add_int.cu.toml")  # the drafter draws such a type over its whole range
    spec.args[1] = replace(spec.args[1], type=dtype, low=low, high=high)  # a
    labels = [c["label"] for c in candidates(spec) if "`a`" in c["label"]]
    assert labels == [], labels  # before: `a` above 16 bits, +-131072, clipped to the same draws


def _softmax(x, m):
    e = np.exp((x - m[:, None]).astype(np.float32))
    return e / e.sum(axis=1, keepdims=True)


def test_rows_with_one_large_value_tell_a_max_that_misses_an_element():
    spec = load_spec(SPECS / "softmax_rows.cu.toml")
    case = _case(spec, "with one large value in each row of `cols`")
    assert case["args"] == {"in": {"init": "spikes", "value": "cols"}}
    rows, cols = spec.sizes["rows"], spec.sizes["cols"]
    x = _args(spec, case)["in"].reshape(rows, cols)
    places = x.argmax(axis=1)
    assert set(places[:5].tolist()) == {0, cols - 1, 1, cols // 2, cols - 2}
    top = np.sort(x, axis=1)
    assert (top[:, -1] - top[:, -2] > 88).all()  # exp overflows float32 without the row's max
    with np.errstate(over="ignore", invalid="ignore"):
        right = _softmax(x, x.max(axis=1))
        misses = {
            "row[1] first": x[:, 1:].max(axis=1),  # `float m = row[0]` -> `row[1]`
            "not the last": x[:, :-1].max(axis=1),  # `[c]` -> `[c - 1]`
            "half the row": x[:, : cols // 2].max(axis=1),  # loop bound halved
            "the next row's first too": np.maximum(x.max(axis=1), np.append(x[1:, 0], -np.inf)),  # `<=`
        }
        for what, m in misses.items():
            assert not np.allclose(_softmax(x, m), right, atol=1e-5, rtol=1e-4, equal_nan=True), what
    assert np.isfinite(right).all()
    normal = make_args(spec, spec.sizes)[0].reshape(rows, cols)
    with np.errstate(over="ignore"):  # with the spec's normal values every one of them passes
        assert np.allclose(_softmax(normal, normal[:, 1:].max(axis=1)), _softmax(normal, normal.max(axis=1)))


def test_floats_as_whole_numbers_make_the_ties_that_random_floats_never_draw():
    spec = load_spec(SPECS / "kmeans_assign.cu.toml")  # `dist < best_dist` -> `<=` picks the later cluster
    case = _case(spec, "as whole numbers -2 .. 2 (ties)")
    assert set(case["args"]) == {"points", "centroids"}
    args = _args(spec, case)
    f = spec.sizes["nfeatures"]
    points, centroids = args["points"].reshape(-1, f), args["centroids"].reshape(-1, f)
    assert set(np.unique(points).tolist()) == {-2.0, -1.0, 0.0, 1.0, 2.0}
    dist = ((points[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
    first = dist.argmin(axis=1)
    last = dist.shape[1] - 1 - dist[:, ::-1].argmin(axis=1)
    assert (first != last).mean() > 0.01  # `<` and `<=` choose different clusters
    drawn = make_args(spec, spec.sizes)[0].reshape(-1, f)[:1000]
    d = ((drawn[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
    assert (np.sort(d, axis=1)[:, 0] != np.sort(d, axis=1)[:, 1]).all()  # the spec's normal values never tie


def test_the_survivors_block_size_changes_every_axis_that_has_another_value():
    relu = load_spec(SPECS / "relu_bias.cu.toml")  # `+ threadIdx.y` dropped is zero at block_size_y = 1
    assert relu.baseline_params() == {"block_size_x": 32, "block_size_y": 1}
    assert survivor_geometry(relu) == {"block_size_x": 64, "block_size_y": 2}
    warp = load_spec(SPECS / "gemv_warp_shfl.cu.toml")  # one warp per block at the baseline
    assert survivor_geometry(warp) == {"block_size_x": 64}
    fixed = parse_spec((SPECS / "gemv_warp_shfl.cu.toml").read_text().replace("[32, 64, 128, 256, 512]", "[32]"))
    assert survivor_geometry(fixed) is None


def test_spiked_rows_need_a_float_type_and_a_row_length():
    text = (SPECS / "softmax_rows.cu.toml").read_text()
    spec = parse_spec(text.replace('init = "normal"', 'init = "spikes"\nvalue = "cols"'))
    assert make_args(spec, spec.sizes)[0].max() == 500.0
    with pytest.raises(SpecError, match=r"args\[0\] \(in\)\.value"):
        parse_spec(text.replace('init = "normal"', 'init = "spikes"'))
    ties = parse_spec(text.replace('init = "normal"', 'init = "whole"\nlow = -2\nhigh = 3'))
    assert set(np.unique(make_args(ties, ties.sizes)[0]).tolist()) == {-2.0, -1.0, 0.0, 1.0, 2.0}


def test_arrays_read_and_written_and_float_scalars_tie_too():
    spec = load_spec(SPECS / "particles_float3.cu.toml")  # `if (p.x > box)` -> `>=` flips v at the tie
    case = _case(spec, "(ties)")
    assert case["label"] == "`pos`, `vel` as whole numbers -2 .. 2, `dt`, `box` = 1 (ties)"
    args = _args(spec, case)
    p = args["pos"] + args["vel"] * args["dt"]
    at_box = (np.abs(p) == args["box"]) & (args["vel"] != 0)
    assert at_box.mean() > 0.05  # where `>` and `>=` differ: v is flipped only by the mutant
    eps = _case(load_spec(SPECS / "layernorm_rows.cu.toml"), "(ties)")  # a dropped `+ eps` shows at eps = 1
    assert eps["args"]["eps"] == {"value": 1.0}


def test_a_size_raised_for_wide_indices_keeps_the_sizes_tied_to_it_and_fits_the_budget():
    """cross_entropy_warp reads V logits of rows Vp apart (V = 8000 <= Vp = 8064): V raised alone
    to 131073 made the original read past `logits` (memcheck refused the case, after a memcheck of
    each case on its own). Vp is raised by as much, the rows halved until the arrays fit."""
    spec = load_spec(SPECS / "cross_entropy_warp.cu.toml")
    case = _case(spec, "`targets` above 16 bits")
    sizes = case_spec(spec, case).sizes
    assert sizes["V"] == 131073 and sizes["Vp"] >= sizes["V"]
    assert sizes["BT"] * sizes["Vp"] * 4 <= 256 << 20  # logits within the case's budget
    targets = _args(spec, case)["targets"]
    assert targets.max() >= 1 << 16 and targets.max() < sizes["V"]  # what a `& 0xffff` mask gets wrong


def test_an_output_the_launch_does_not_span_gets_its_length_above_16_bits():
    """histogram_bins' survivors: `short bin` and `(int)` for `(long long)values[tid] * nbins` never
    leave their range at nbins = 100. With nbins above 2**16 the bins wrap in 16 bits and the product
    passes 2**31, while the original's bins stay within `hist`."""
    spec = load_spec(SPECS / "histogram_bins.cu.toml")
    case = _case(spec, "`hist` longer than 16 bits index")
    sizes = case_spec(spec, case).sizes
    values = _args(spec, case)["values"].astype(np.int64)
    bins = values * sizes["nbins"] // sizes["max_value"]
    assert bins.max() < sizes["nbins"]  # the original writes within hist
    assert (bins >= 1 << 15).any()  # a short bin wraps
    assert (values * sizes["nbins"] >= 1 << 31).any()  # a 32-bit product overflows
    scatter = [c["sizes"] for c in candidates(load_spec(SPECS / "scatter_add.cu.toml")) if c["sizes"]]
    assert len(scatter) == len({tuple(sorted(s.items())) for s in scatter})  # the same sizes run once
    assert not any(
        "longer than 16 bits" in c["label"] for c in candidates(load_spec(SPECS / "histogram_shared.cu.toml"))
    )


def test_every_case_runs_first_at_the_small_check_sizes_then_at_the_specs():
    spec = load_spec(CORPUS / "specs" / "crop_and_resize.cu.toml")
    cases = candidates(spec, (CORPUS / "crop_and_resize.cu").read_text())
    both = cheap_first(spec, cases)
    assert both[2 * len(cases) :] == cases  # the spec's size after, as before
    small = [
        {"batch": 2, "height": 20, "width": 45, "depth": 3, "num_boxes": 5, "crop_h": 15, "crop_w": 4},
        {"batch": 3, "height": 37, "width": 29, "depth": 5, "num_boxes": 11, "crop_h": 7, "crop_w": 9},
    ]  # both check sizes, each far below the spec's 330 MB, the cheapest first
    for k, base in enumerate(small):
        at = both[k * len(cases) : (k + 1) * len(cases)]
        assert [c["args"] for c in at] == [c["args"] for c in cases]
        assert all(c["sizes"] == {**base, **case["sizes"]} for c, case in zip(at, cases, strict=True))
    edge = next(c for c in both if c["label"].startswith("`crop_h` = 1"))
    assert edge["sizes"]["crop_h"] == 1 and "crop_h=15" not in edge["label"] and "num_boxes=5" in edge["label"]
    assert len({c["label"] for c in both}) == len(both)
    # no check size cheaper than the spec's: the cases as they were; only a third of it: the cheapest alone
    assert cheap_first(replace(spec, verify_sizes=[{"batch": 9}]), cases) == cases
    third = cheap_first(replace(spec, verify_sizes=[{"num_boxes": 300}, {"num_boxes": 400}]), cases)
    assert [c["sizes"].get("num_boxes") for c in third[: len(cases)]] == [300] * len(cases)
    assert third[len(cases) :] == cases
