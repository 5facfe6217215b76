"""Drafter rules made after seeing held-out batch 15 (issue 35), each on a kernel written here: an xor of
bounded terms in an index, CUDA's vector types the spec has no name for, a value template parameter
taken from the file's explicit instantiations, and signed data whose sign the kernel tests."""

from __future__ import annotations

from kt_tui.kernel.expr import evaluate

from .test_draft_shapes import _draft

CORNERS = """
__global__ void corners(const float *vol, int nx, int ny, int pitch, float *out) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx - 1 || y >= ny - 1) return;
    float s = 0.0f;
    for (int k = 0; k < 4; ++k) {
        const int cx = x + ((k & 1) ^ ((k >> 1) & 1));
        const int cy = y + ((k >> 1) & 1);
        s += vol[cy * pitch + cx];
    }
    out[y * (nx - 1) + x] = s;
}
"""


def _args(spec) -> dict:
    return {a.name: a for a in spec.args}


def test_an_xor_of_bounded_terms_in_an_index_is_bounded_and_the_pitch_gets_its_layout_rule():
    d = _draft(CORNERS)
    args = _args(d.spec)
    pitch = evaluate(args["pitch"].value, d.spec.sizes)
    assert pitch >= d.spec.sizes["nx"]  # rows apart by at least a row: before, 3 (a count)
    assert any(k == "args.pitch" and "steps from one item" in why for k, why in d.guesses)
    assert not any(k == "args.vol" and "could not bound" in why for k, why in d.guesses)


VECTORS = """
__global__ void widen(const short2 *mv, const uchar4 *rgba, int n, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const short2 v = mv[i];
    const uchar4 c = rgba[i];
    out[i] = v.x - v.y + c.x + c.w;
}
"""


def test_vector_types_without_a_spec_name_are_their_components_times_their_lanes():
    d = _draft(VECTORS)
    args = _args(d.spec)
    n = d.spec.sizes["n"]
    assert args["mv"].type == "int16" and evaluate(args["mv"].size, d.spec.sizes) == 2 * n
    assert args["rgba"].type == "uint8" and evaluate(args["rgba"].size, d.spec.sizes) == 4 * n
    assert not any("not a number type" in why for _, why in d.guesses)


GROUPED = """
template <int GRID>
__global__ void expand(const float *coarse, int cw, int width, int height, float *out) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    out[y * width + x] = coarse[(y / GRID) * cw + x / GRID];
}
"""


def test_a_value_template_parameter_is_one_the_file_instantiates_nearest_the_drafted_pick():
    assert _draft(GROUPED).spec.kernel == "expand<32>"  # no instantiation: what an index divided by it gets
    src = GROUPED + "".join(
        f"template __global__ void expand<{g}>(const float *, int, int, int, float *);\n" for g in (1, 2, 4)
    )
    d = _draft(src)
    assert d.spec.kernel == "expand<4>"  # of 1, 2 and 4 the nearest 32: an index divided by it
    assert any("as the file instantiates it" in why for _, why in d.guesses)
    one = GROUPED + "template __global__ void expand<1>(const float *, int, int, int, float *);\n"
    assert _draft(one).spec.kernel == "expand<1>"


SIGNS = """
__global__ void crossings(const short *pcm, const int *marks, const unsigned char *flags, int n, int *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 1 || i >= n) return;
    out[i] = ((pcm[i] >= 0) != (pcm[i - 1] >= 0)) + (marks[i] < 0) + (flags[i] == 1);
}
"""


def test_signed_data_whose_sign_is_tested_is_drawn_with_both_signs():
    args = _args(_draft(SIGNS).spec)
    assert (args["pcm"].low, args["pcm"].high) == (-32768, 32768)  # the whole int16 range, not 0 and 1
    assert args["marks"].low < 0 < args["marks"].high - 1
    assert (args["flags"].low, args["flags"].high) == (0, 2)  # compared with 1, unsigned: still flags


def test_an_instantiation_in_octal_or_with_a_suffix_is_read_as_c_reads_it():
    for given, value in (("010", 8), ("4u", 4), ("0x10", 16), ("2U", 2)):
        d = _draft(GROUPED + f"template __global__ void expand<{given}>(const float *, int, int, int, float *);\n")
        assert d.spec.kernel == f"expand<{value}>", given  # before: 010 stopped the analysis (a ValueError)
    neg = _draft(GROUPED + "template __global__ void expand<-1>(const float *, int, int, int, float *);\n")
    assert neg.spec.kernel == "expand<32>"  # not a count: the drafted pick stands


LOOKUP = """
__global__ void lookup(const int *codes, const float *table, int n, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = table[codes[i] % 16] + (codes[i] > 0 ? 1.0f : 0.0f);
}
"""


def test_signed_data_whose_sign_is_tested_but_that_reaches_an_index_through_a_modulo_is_not_negative():
    codes = _args(_draft(LOOKUP).spec)["codes"]  # a negative code is a negative index: the original reads past
    assert codes.low is None or codes.low >= 0
