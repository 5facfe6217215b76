"""Issue 35 item 2, cases for the survivors of session 10's table (kernel/strengthen.py): a size
scalar told one less than its arrays and launch, a filled begin array beside its end drawn wide,
floats past their range's top, tiny floats under an integer output, and a wide index whose other
dimension is larger. Each case is made for a corpus kernel of its class, and numpy runs the original
and the surviving mutant on it (as the GPU would, guard zone included): the case tells them apart."""

from pathlib import Path

import numpy as np

from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.spec import load_spec
from kt_tui.kernel.strengthen import _BUDGET, _bytes, candidates, case_spec

SPECS = Path(__file__).parents[1] / "corpus" / "specs"


def _case(spec, words):
    return next(c for c in candidates(spec) if words in c["label"])


def _args(spec, case=None):
    s = case_spec(spec, case) if case else spec
    return s, dict(zip([a.name for a in s.args], make_args(s, s.sizes)))


def _bitonic(values, n, j, k, inclusive):
    """tests/corpus/bitonic_step.cu on `values` (its guard zone of NaN included), kernel size n, with
    `ixj < n` or (the mutant) `ixj <= n`."""
    v = values.copy()
    i = np.arange(v.size)
    ixj = i ^ j
    ok = (i < n) & (ixj > i) & ((ixj <= n) if inclusive else (ixj < n))
    lo, hi = i[ok], ixj[ok]
    a, b = v[lo], v[hi]
    up = (lo & k) == 0
    swap = (up & (a > b)) | (~up & (a < b))
    v[lo[swap]], v[hi[swap]] = b[swap], a[swap]
    return v


def test_a_size_one_less_than_its_array_shows_a_compare_past_the_bound():
    """bitonic_step's `ixj < n` -> `ixj <= n` compares with the element past the end, which the
    guard zone holds as NaN: no comparison passes, the mutant survives at every size. With n one less
    than `values`, the element past the bound is a drawn one."""
    spec = load_spec(SPECS / "bitonic_step.cu.toml")
    case = _case(spec, "one less than its arrays and launch")
    assert case["args"] == {"n": {"value": "n - 1"}} and not case["sizes"]
    j, k = 8, 16
    s, args = _args(spec)
    zone = np.full(1024, np.nan, np.float32)
    guarded = np.concatenate([args["values"], zone])
    n = int(args["n"])
    assert np.array_equal(_bitonic(guarded, n, j, k, False), _bitonic(guarded, n, j, k, True), equal_nan=True)
    s, args = _args(spec, case)
    n = int(args["n"])
    assert n == args["values"].size - 1
    guarded = np.concatenate([args["values"], zone])
    right, wrong = _bitonic(guarded, n, j, k, False), _bitonic(guarded, n, j, k, True)
    assert np.array_equal(right[n:], guarded[n:], equal_nan=True)  # the original leaves the rest alone
    assert not np.array_equal(right, wrong, equal_nan=True)


def _kmeans(points, centroids, npoints, nclusters, nfeatures, inclusive=False, start=0.0):
    """tests/corpus/kmeans_assign.cu in float32 (`dist` summed in feature order), with `c <= nclusters`
    or another start for `dist` as the mutants have; reads past `centroids` get its zone's NaN."""
    rows = nclusters + 1 if inclusive else nclusters
    flat = np.concatenate([centroids, np.full(1024, np.nan, np.float32)])[: rows * nfeatures]
    c = flat.reshape(rows, nfeatures)
    p = points[: npoints * nfeatures].reshape(npoints, nfeatures)
    dist = np.full((npoints, rows), start, np.float32)
    for f in range(nfeatures):
        d = p[:, None, f] - c[None, :, f]
        dist = dist + d * d
    with np.errstate(invalid="ignore"):
        masked = np.where(np.isnan(dist), np.inf, dist)
    best = masked.argmin(axis=1)  # the first of equal ones, as `dist < best_dist` keeps
    best[~(masked < np.float32(3.4e38)).any(axis=1)] = 0
    return best


def test_a_count_one_less_than_its_array_shows_a_loop_that_reads_one_row_more():
    spec = load_spec(SPECS / "kmeans_assign.cu.toml")
    case = _case(spec, "one less than its arrays and launch")
    assert case["args"]["nclusters"] == {"value": "nclusters - 1"}
    s, a = _args(spec)
    sizes = [int(a[n]) for n in ("npoints", "nclusters", "nfeatures")]
    spec_right = _kmeans(a["points"], a["centroids"], *sizes)
    assert np.array_equal(spec_right, _kmeans(a["points"], a["centroids"], *sizes, inclusive=True))  # NaN row
    s, a = _args(spec, case)
    sizes = [int(a[n]) for n in ("npoints", "nclusters", "nfeatures")]
    assert sizes[1] * sizes[2] < a["centroids"].size  # the row past the bound is a drawn one
    right = _kmeans(a["points"], a["centroids"], *sizes)
    wrong = _kmeans(a["points"], a["centroids"], *sizes, inclusive=True)
    assert (right != wrong).mean() > 0.01


def test_sizes_of_one_block_per_item_and_of_outputs_are_not_told_one_less():
    for name in ("segmented_sum", "embedding_bag_sum"):  # num_segments, num_bags: exactly that many blocks
        assert not any("one less" in c["label"] for c in candidates(load_spec(SPECS / f"{name}.cu.toml"))), name
    case = _case(load_spec(SPECS / "volume_axpy_strided.cu.toml"), "one less")
    assert set(case["args"]) == {"nx", "ny", "nz"}  # not the strides, which are no size's name
    case = _case(load_spec(SPECS / "kmeans_assign.cu.toml"), "one less")
    assert "membership" not in case["args"]


def test_floats_past_the_top_of_their_range_show_a_clamp_to_the_last_bin():
    """histogram_float_smem clamps `min((int)(v * nbins), nbins - 1)`: with v in [0, 1) the clamp never
    acts and `- 1` dropped (or made `+ 1`) passes; with v at and past 1 that mutant counts into
    counts[nbins], past the block's counters, and the last bin loses them."""
    spec = load_spec(SPECS / "histogram_float_smem.cu.toml")
    case = _case(spec, "past the top of the unit interval")
    assert case["args"] == {"v": {"init": "uniform", "low": 0, "high": 2}}
    s, a = _args(spec, case)
    nbins = int(a["nbins"])
    scaled = (a["v"] * np.float32(nbins)).astype(np.int64)
    right = np.minimum(scaled, nbins - 1)
    assert right.min() >= 0 and right.max() == nbins - 1  # the original stays within its counters
    for top in (nbins, nbins + 1):  # `- 1` dropped, `-` -> `+`
        wrong = np.minimum(scaled, top)
        hist_right = np.bincount(right, minlength=nbins)
        hist_wrong = np.bincount(wrong[wrong < nbins], minlength=nbins)
        assert hist_wrong[-1] < hist_right[-1]
    _, drawn = _args(spec)
    assert drawn["v"].max() < 1  # the spec's own values never reach the clamp
    cic = load_spec(SPECS / "deposit_cic.cu.toml")  # positions in [0, W): past it, out of the grid
    assert not any("past the top" in c["label"] for c in candidates(cic))


def test_tiny_floats_under_an_integer_output_show_a_sum_started_at_one():
    spec = load_spec(SPECS / "kmeans_assign.cu.toml")
    case = _case(spec, "within +-2**-16")
    assert set(case["args"]) == {"points", "centroids"}
    s, a = _args(spec, case)
    sizes = [int(a[n]) for n in ("npoints", "nclusters", "nfeatures")]
    right = _kmeans(a["points"], a["centroids"], *sizes)
    wrong = _kmeans(a["points"], a["centroids"], *sizes, start=1.0)
    assert len(np.unique(right)) == sizes[1]  # every cluster is someone's nearest
    assert (right != wrong).mean() > 0.5
    assert not any("2**-16" in c["label"] for c in candidates(load_spec(SPECS / "histogram_float_smem.cu.toml")))
    assert not any("2**-16" in c["label"] for c in candidates(load_spec(SPECS / "conv1d_tile.cu.toml")))


def _segment_sums(values, begin, end):
    return np.array([values[b:e].sum(dtype=np.float64) if b < e else 0.0 for b, e in zip(begin, end)])


def test_a_filled_begin_array_drawn_with_its_end_shows_a_narrowed_begin():
    """segmented_sum's seg_begin is all zeros in the spec: `short begin` and `begin & 0xffff` pass.
    Drawn over [0, 2**17) with seg_end, begins leave 16 bits while the sums stay within `values`."""
    spec = load_spec(SPECS / "segmented_sum.cu.toml")
    case = _case(spec, "`seg_begin` (all zeros in the spec) and `seg_end`")
    s, a = _args(spec, case)
    begin, end = a["seg_begin"].astype(np.int64), a["seg_end"].astype(np.int64)
    summed = begin < end
    assert begin.min() >= 0 and end.max() <= a["values"].size  # the original reads within `values`
    assert summed.mean() > 0.3
    right = _segment_sums(a["values"], begin, end)
    masked = _segment_sums(a["values"], begin & 0xFFFF, end)
    assert (right != masked).sum() > 100
    short = begin.astype(np.int16).astype(np.int64)
    assert ((short < 0) & summed).sum() > 100  # reads before `values`: the run fails or sums other memory


def test_a_wide_index_whose_other_dimension_is_larger_is_raised_alone():
    """srad_neighbours' jW and jE index columns (ncols = 458 < nrows = 502): raising every size at
    least as large as ncols raised nrows too, past the budget, so no case told `jW & 0xffff` apart.
    ncols is raised alone and the rows halved until the arrays fit."""
    spec = load_spec(SPECS / "srad_neighbours.cu.toml")
    case = _case(spec, "`jW` above 16 bits")
    s, a = _args(spec, case)
    assert s.sizes["ncols"] == 131073 and s.sizes["nrows"] < spec.sizes["nrows"]
    assert _bytes(spec, s.sizes) <= _BUDGET
    nrows, ncols = s.sizes["nrows"], s.sizes["ncols"]
    img = a["img"].reshape(nrows, ncols)
    for table in ("jW", "jE"):
        j = a[table].astype(np.int64)
        assert j.max() < ncols  # the original reads within img
        right, wrong = img[:, j], img[:, j & 0xFFFF]
        assert (right != wrong).mean() > 0.3, table
    assert _case(spec, "`iN` above 16 bits")["sizes"] == {"nrows": 131073, "ncols": 57}  # as before
