"""Issue 35 items 1 and 2 on the CPU: the mutants a check is measured by (kernel/mutant.py: every
kind, described, deterministic, kind-balanced) and the stronger inputs proposed for a check that
mutants survive (kernel/strengthen.py)."""

from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.mutant import CAP, KINDS, mutants
from kt_tui.kernel.spec import parse_spec
from kt_tui.kernel.spec_keys import ROW_LENGTHS
from kt_tui.kernel.strengthen import candidates, case_spec, kept_as_given

# a small kernel with a site of every kind: a bound, subscripts, two index axes and two sizes
# (fw / fh), + and -, a reduction ladder, a constant, a byte type and a byte load
CONV = """__global__ void conv_hist(float *out, const float *in, const float *filt, const unsigned char *bytes,
                          unsigned int *hist, int w, int h, int fw, int fh)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w - fw + 1 && y < h - fh + 1) {
        float sum = 0.0f;
        for (int j = 0; j < fh; j++)
            for (int i = 0; i < fw; i++)
                sum += in[(y + j) * w + (x + i)] * filt[j * fw + i];
        for (int s = 16; s > 0; s /= 2)
            sum += __shfl_down_sync(0xffffffff, sum, s);
        out[y * w + x] = sum * 0.5f;
    }
    if (y == 0 && x < w)
        atomicAdd(&hist[bytes[x]], 1u);
}
"""


def test_every_kind_of_mutant_is_made_and_described():
    ms = mutants(CONV, "conv_hist", cap=200)
    kinds = Counter(m.kind for m in ms)
    assert set(kinds) == set(KINDS), set(KINDS) - set(kinds)
    assert ms[0].kind == "nothing" and "emptied" in ms[0].source
    assert len({m.source for m in ms}) == len(ms) and all(m.source != CONV for m in ms)
    said = {m.what for m in ms}
    assert "line 6:11: `<` -> `<=` in `if (x < w - fw + 1 && y < h - fh + 1) {`" in said
    assert any(m.kind == "swap" and "`fw` -> `fh`" in m.what for m in ms)  # two sizes swapped at a use
    assert any(m.kind == "swap" and "`[(y + j) * w + (x + i)]` -> `[(x + j) * w + (y + i)]`" in m.what for m in ms)
    assert any(m.kind == "swap" and "threadIdx.y" in m.what and m.line == 4 for m in ms)  # x from the y axis
    assert any(m.kind == "half" and "loop start `16` halved" in m.what for m in ms)  # the ladder cut short
    assert any(m.kind == "half" and "loop bound `fh` halved" in m.what for m in ms)
    assert any(m.kind == "type" and "`unsigned char` -> `signed char`" in m.what for m in ms)
    assert not any(m.kind == "type" and ("Idx" in m.what or "for (" in m.what) for m in ms)  # no index narrowed
    assert any(m.kind == "mask" and "`bytes[x]` -> `(bytes[x] & 0x7f)`" in m.what for m in ms)
    assert any(m.kind == "drop" and "dropped `+ 1`" in m.what for m in ms)
    assert any(m.kind == "const" and "`0.5f` -> `1.0f`" in m.what for m in ms)
    assert any(m.kind == "index" and ("`[x]` -> `[x + 1]`" in m.what or "`[x]` -> `[x - 1]`" in m.what) for m in ms)
    one = next(m for m in ms if "`[(y + j) * w + (x + i)]` -> `[(x + j) * w + (y + i)]`" in m.what)
    assert "in[(x + j) * w + (y + i)]" in one.source and one.source.replace("in[(x + j) * w + (y + i)]", "") == (
        CONV.replace("in[(y + j) * w + (x + i)]", "")
    )


def test_the_sample_is_capped_kind_balanced_and_the_same_every_time():
    ms = mutants(CONV, "conv_hist")
    assert len(ms) == CAP and [m.what for m in ms] == [m.what for m in mutants(CONV, "conv_hist")]
    kinds, sites = Counter(m.kind for m in ms), Counter(m.kind for m in mutants(CONV, "conv_hist", cap=200))
    assert set(kinds) == set(KINDS)
    assert all(kinds[k] >= max(kinds.values()) - 1 or kinds[k] == sites[k] for k in KINDS)  # all its sites, or its turn
    assert [m.id for m in ms] == [f"m{i:02d}" for i in range(CAP)]


def test_comments_strings_and_other_kernels_are_not_mutated():
    src = """// if (a < b) in a comment
__global__ void other(int *o) { o[0] = 1 + 2; }
__global__ void k(int *o, int n) { const char *s = "i < n"; int i = threadIdx.x; if (i < n) o[i] = i; }
"""
    ms = mutants(src, "k", cap=100)
    assert all(m.source.splitlines()[:2] == src.splitlines()[:2] for m in ms)
    assert all('"i < n"' in m.source for m in ms[1:])  # ms[0] empties the body


# -- stronger inputs --------------------------------------------------------------------------------
HIST = """__global__ void histogram256(const unsigned char *data, unsigned int *hist, int size)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd(&hist[data[i]], 1u);
        i += stride;
    }
}
"""
# as a draft has it (issue 35): bytes drawn in 0-99
HISTOGRAM = """kernel = "histogram256"
problem_size = ["size"]
[sizes]
size = 100000
[tune_params]
block_size_x = [64, 128, 256]
[[args]]
name = "data"
type = "uint8"
size = "size"
low = 0
high = 100
[[args]]
name = "hist"
type = "uint32"
size = 256
init = "zeros"
output = true
[[args]]
name = "size"
type = "int32"
value = "size"
"""

# as a draft has it (issue 35): fw = fh = 2 and bytes in 0-99
CONV_SPEC = """kernel = "conv_hist"
problem_size = ["w", "h"]
[sizes]
w = 301
h = 203
fw = 2
fh = 2
[tune_params]
block_size_x = [32, 64]
block_size_y = [4, 8]
[[args]]
name = "out"
type = "float32"
size = "w * h"
init = "zeros"
output = true
[[args]]
name = "in"
type = "float32"
size = "w * h"
[[args]]
name = "filt"
type = "float32"
size = "fw * fh"
low = 0.5
high = 1.5
[[args]]
name = "bytes"
type = "uint8"
size = "w"
low = 0
high = 100
[[args]]
name = "hist"
type = "uint32"
size = 256
init = "zeros"
output = true
[[args]]
name = "w"
type = "int32"
value = "w"
[[args]]
name = "h"
type = "int32"
value = "h"
[[args]]
name = "fw"
type = "int32"
value = "fw"
[[args]]
name = "fh"
type = "int32"
value = "fh"
"""


def test_a_byte_histogram_drafted_with_0_to_99_is_given_all_256_byte_values():
    spec = parse_spec(HISTOGRAM)
    cases = candidates(spec)
    assert [c["label"] for c in cases] == [
        "`data` over all 256 values of uint8",
        "`size` = size - 1 (one less than its arrays and launch)",
        "a second seed",
    ]
    data = make_args(case_spec(spec, cases[0]), spec.sizes)[0]
    assert data.dtype == np.uint8 and data.min() == 0 and data.max() == 255 and len(np.unique(data)) == 256
    assert make_args(spec, spec.sizes)[0].max() == 99  # the spec itself is left as it was
    again = make_args(case_spec(spec, cases[-1]), spec.sizes)[0]
    assert again.max() <= 99 and not np.array_equal(again, make_args(spec, spec.sizes)[0])


def test_a_convolution_with_fw_equal_to_fh_gets_distinct_larger_filters_and_a_non_square_image():
    spec = parse_spec(CONV_SPEC)
    labels = [c["label"] for c in candidates(spec)]
    assert labels == [
        "`filt` with negative values",
        "`bytes` over all 256 values of uint8",
        "fw=5, fh=3",
        "`in`, `filt` as whole numbers -2 .. 2 (ties)",
        "`w` = w - 1, `h` = h - 1, `fw` = fw - 1, `fh` = fh - 1 (one less than its arrays and launch)",
        "`in` within +-2**-16 (sums a constant would swamp)",
        "a second seed",
    ]
    filters = case_spec(spec, candidates(spec)[2])
    args = dict(zip([a.name for a in spec.args], make_args(filters, filters.sizes)))
    assert (args["fw"], args["fh"], args["filt"].size) == (5, 3, 15)
    square = replace(spec, sizes={**spec.sizes, "w": 512, "h": 512})
    assert [c["label"] for c in candidates(square)][3] == "w=169, h=155"  # non-square and odd


def test_no_cases_for_file_inputs_and_index_arrays_keep_their_bounds():
    spec = parse_spec(HISTOGRAM.replace('type = "uint8"', 'type = "int32"').replace("high = 100", 'high = "size"'))
    assert [c["label"] for c in candidates(spec)] == [
        "`size` = size - 1 (one less than its arrays and launch)",
        "a second seed",
    ]


# one warp per CSR row: lanes stride the row, a shuffle ladder sums them
SPMV = (Path(__file__).parents[1] / "corpus" / "spmv_csr_warp.cu").read_text()
# the row offsets as `init = "range"` gives them: one nonzero per row, which a halved ladder passes
SPMV_SPEC = """kernel = "spmv_csr_vector"
problem_size = ["32 * rows"]
[sizes]
rows = 4096
cols = 3000
[tune_params]
block_size_x = [128]
[[args]]
name = "num_rows"
type = "int32"
value = "rows"
[[args]]
name = "ptr"
type = "int32"
size = "rows + 1"
init = "range"
[[args]]
name = "indices"
type = "int32"
size = "rows"
low = 0
high = "cols"
[[args]]
name = "data"
type = "float32"
size = "rows"
[[args]]
name = "x"
type = "float32"
size = "cols"
seed = 2
[[args]]
name = "y"
type = "float32"
size = "rows"
seed = 3
output = true
atol = 1e-4
"""
VARIED = "`ptr` as row offsets, rows of 0, 1, 2, 7, 31, 33, 64 and 100 elements"
WIDE = "rows=132169, cols=131073: `indices` above 16 bits"  # the indices of x, bounded by cols; rows, as large as cols, raised with it (kernel/strengthen.py widened)
TIES = "`data`, `x`, `y` as whole numbers -2 .. 2 (ties)"


def test_row_offsets_of_one_element_per_row_become_rows_of_every_length_within_their_bounds():
    spec = parse_spec(SPMV_SPEC)
    cases = candidates(spec)
    assert [c["label"] for c in cases] == [VARIED, WIDE, TIES, "a second seed"]
    assert cases[0]["args"] == {"ptr": {"init": "offsets", "low": 0, "high": "rows + 1"}}
    ptr = make_args(case_spec(spec, cases[0]), spec.sizes)[1]
    steps = np.diff(ptr)
    assert ptr[0] == 0 and ptr.max() <= spec.sizes["rows"] and (steps >= 0).all()  # as far as the range reached
    assert set(ROW_LENGTHS) <= set(steps.tolist())


def test_random_row_offsets_bounded_by_an_array_length_keep_their_bounds_as_offsets():
    drafted = SPMV_SPEC.replace('init = "range"', 'low = 0\nhigh = "min(rows + 1, 256)"')
    spec = parse_spec(drafted)
    case = candidates(spec)[0]
    assert case["label"] == VARIED
    assert case["args"] == {"ptr": {"init": "offsets", "low": 0, "high": "min(rows + 1, 256)"}}
    ptr = make_args(case_spec(spec, case), spec.sizes)[1]
    assert ptr.max() == 255 and sorted(np.diff(ptr)[:8]) == sorted(ROW_LENGTHS)


def test_only_an_array_one_longer_than_the_rows_it_delimits_is_taken_for_offsets():
    gather = SPMV_SPEC.replace('size = "rows + 1"\ninit = "range"', 'size = "rows + 2"\nlow = 0\nhigh = "rows"')
    assert not any("row offsets" in c["label"] for c in candidates(parse_spec(gather)))
    # the user's Python makes them: kept as they are, and the survivors' line will say so
    made = parse_spec(SPMV_SPEC.replace('init = "range"', 'init = "function"\nfunction = "gen:csr_row_ptr"'))
    assert [c["label"] for c in candidates(made)] == [WIDE, TIES, "a second seed"]
    assert kept_as_given(made) == (
        "inputs the user's Python makes (`ptr` (gen:csr_row_ptr)) are kept as they are: none stronger was drawn for them"
    )
    assert kept_as_given(parse_spec(SPMV_SPEC)) == ""
    spec = parse_spec(SPMV_SPEC)
    filed = replace(spec, args=[replace(a, init="file", file="k.npz") if a.name == "x" else a for a in spec.args])
    assert candidates(filed) == [] and kept_as_given(filed) == "inputs from files (`x`): no stronger inputs were drawn"
