"""Drafter rules made after seeing held-out batch 17, each on a kernel written here: arrays of integer
vector types (uint2, int4, short2, uchar4) are analysed as integers, a bounds test held in a bool local
guards what an `if` on that local guards, and indices staged through a shared table are still the values
of the array they were loaded from."""

from __future__ import annotations

import pytest

from kt_tui.kernel.draft_types import int_lane, is_int, is_signed, is_unsigned
from kt_tui.kernel.expr import evaluate
from kt_tui.kernel.vectors import VECTOR_NAMES, vector_scalar

from .test_draft_shapes import _draft, _points

SPANS = """
__global__ void spans(const {T} *span, const float *x, int n, float *out) {{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const {T} s = span[i];
    out[i] = {TEST} ? x[i] : 0.0f;
}}
"""


@pytest.mark.parametrize("vector", sorted(VECTOR_NAMES))
def test_every_vector_array_reaches_the_analysis(vector):
    d = _draft(SPANS.format(T=vector, TEST="s.x > 0" if vector.endswith("1") else "s.y > s.x"))
    said = " ".join(d.lines())
    assert "analysis stopped" not in said and "body was not read" not in said
    assert d.spec.problem_size == ["n"]
    args = {a.name: a for a in d.spec.args}
    assert args["out"].output and not args["span"].output
    assert args["x"].size == "n"


def test_integer_predicates_read_a_vectors_lanes():
    assert [int_lane(t) for t in ("uint2", "int4", "int32", "uint8", "float2", "float32")] == [
        "uint32",
        "int32",
        "int32",
        "uint8",
        None,
        None,
    ]
    assert is_int("uint2") and is_unsigned("uint2") and not is_signed("uint2")
    assert is_signed("int4") and not is_unsigned("int4") and not is_int("float4")


NAMED_GUARD = """
#define TX 16
#define TY 16
__global__ void scale2d(const float *a, int W, int H, float *out) {
    const int px = blockIdx.x * TX + threadIdx.x;
    const int py = blockIdx.y * TY + threadIdx.y;
    const bool inside = px < W && py < H;
    if (inside)
        out[py * W + px] = 2.0f * a[py * W + px];
}
"""


def test_a_guard_held_in_a_bool_local_bounds_the_threads():
    d = _draft(NAMED_GUARD)
    assert d.spec.problem_size == ["W", "H"]  # before: a grid of blocks, W a stride, H an unused int
    args = {a.name: a for a in d.spec.args}
    assert args["a"].size == args["out"].size == "W*H"
    assert (args["W"].value, args["H"].value) == ("W", "H")


REASSIGNED_GUARD = """
__global__ void halves(const float *a, int n, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool ok = i < n;
    i = 2 * i;
    if (ok)
        out[i] = a[i];
}
"""


def test_a_bool_local_whose_names_change_is_no_guard():
    d = _draft(REASSIGNED_GUARD)
    assert "i < n" not in " ".join(d.lines())
    args = {a.name: a for a in d.spec.args}
    assert args["out"].size != "n"  # i is doubled after the test: n elements are not enough


STAGED = """
#define B 128
__global__ void gather_staged(const int *ids, int n, const float *table, const float *rows, float *out) {
    __shared__ int picked[B];
    const int i = blockIdx.x * B + threadIdx.x;
    if (i < n)
        picked[threadIdx.x] = ids[i];
    __syncthreads();
    if (i < n)
        out[i] = table[picked[threadIdx.x]] + rows[picked[threadIdx.x] * 4 + 3];
}
"""


def test_indices_staged_through_shared_memory_index_what_their_source_indexes():
    d = _draft(STAGED)
    args = {a.name: a for a in d.spec.args}
    assert args["ids"].low == 0 and args["ids"].high is not None
    high = str(args["ids"].high)
    assert args["table"].size in high and "rows" in high  # the ids stay inside both tables
    assert args["table"].size != "n" and "n" not in args["rows"].size.split("*")


MIXED_STAGE = """
#define B 128
__global__ void mixed(const int *ids, int n, const float *table, float *out) {
    __shared__ int picked[B];
    const int i = blockIdx.x * B + threadIdx.x;
    if (i >= n) return;
    picked[threadIdx.x] = ids[i];
    picked[(threadIdx.x + 1) % B] = i;
    __syncthreads();
    out[i] = table[picked[threadIdx.x]];
}
"""


def test_a_shared_table_that_also_holds_other_values_is_not_a_staged_load():
    d = _draft(MIXED_STAGE)
    args = {a.name: a for a in d.spec.args}
    assert args["ids"].high is None or "table" not in str(args["ids"].high)


EDGES = """
__global__ void edge_lengths(const float *pos, const int2 *edges, int nedges, float *len, float *degree) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= nedges) return;
    const int2 ed = edges[e];
    len[e] = fabsf(pos[ed.y] - pos[ed.x]);
    const int ends[2] = {ed.x, ed.y};
    for (int k = 0; k < 2; ++k)
        atomicAdd(&degree[2 * ends[k] + 1], 1.0f);
}
"""


def test_an_integer_vectors_lanes_index_what_they_pick():
    d = _draft(EDGES)
    args = {a.name: a for a in d.spec.args}
    high = str(args["edges"].high)
    assert args["edges"].low == 0  # before: values of both signs, indices out of bounds
    assert args["pos"].size in high and args["pos"].size not in ("nedges", "2*nedges")  # a vertex count
    assert "degree" in high or args["degree"].size in high  # ends[k], a local table of the lanes, too
    assert "nedges" not in args["degree"].size


def test_a_local_table_with_other_values_is_no_index():
    d = _draft(EDGES.replace("{ed.x, ed.y}", "{ed.x, e}"))
    args = {a.name: a for a in d.spec.args}
    assert args["pos"].size in str(args["edges"].high)
    assert "degree" not in str(args["edges"].high) and args["degree"].size not in str(args["edges"].high)


SWAP = """
__device__ int mirror(int i, int n) {
    i = i < 0 ? -i : i;
    return i >= n ? 2 * n - 2 - i : i;
}
__global__ void swap_rg(const uchar4 *src, size_t src_pitch, int rows, int w, int h, uchar4 *dst,
                        size_t dst_pitch) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const uchar4 *row = (const uchar4 *)((const unsigned char *)src + mirror(y - 1, rows) * src_pitch);
    uchar4 *out = (uchar4 *)((unsigned char *)dst + y * dst_pitch);
    const uchar4 p = row[x];
    out[x] = make_uchar4(p.y, p.x, p.z, p.w);
}
"""


def test_a_pitch_added_to_a_byte_pointer_counts_bytes():
    d = _draft(SWAP)
    args = {a.name: a for a in d.spec.args}
    for pt in _points(d.spec):
        w, h, rows = pt["w"], pt["h"], pt["rows"]
        pitch, src_pitch = evaluate(args["dst_pitch"].value, pt), evaluate(args["src_pitch"].value, pt)
        assert pitch >= 4 * w and src_pitch >= 4 * w  # before: w + 32 bytes, rows of 4 * w bytes overlapping
        assert evaluate(args["dst"].size, pt) >= (h - 1) * pitch + 4 * w  # uint8 elements: bytes
        assert evaluate(args["src"].size, pt) >= (rows - 1) * src_pitch + 4 * w  # the rows mirror() reaches


def test_an_array_of_byte_vectors_holds_numbers_over_the_bytes_range():
    args = {a.name: a for a in _draft(SWAP).spec.args}
    assert (args["src"].type, args["src"].init, args["src"].low, args["src"].high) == ("uint8", "random", 0, 256)


HALVE = """
__device__ int edge(int i, int n) { return i >= n ? n - 1 : i; }
__global__ void halve(const float *src, int src_n, float *dst, int n) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= n) return;
    dst[x] = 0.5f * (src[edge(2 * x, src_n)] + src[edge(2 * x + 1, src_n)]);
}
"""


def test_a_bound_on_a_sample_every_k_elements_is_k_times_the_threads():
    d = _draft(HALVE)
    args = {a.name: a for a in d.spec.args}
    assert args["src_n"].value == "2*n"  # before: 256, every sample past the first 128 threads clamped
    for pt in _points(d.spec):
        assert evaluate(args["src"].size, pt) >= pt["src_n"] == 2 * pt["n"]


def test_a_bound_on_an_unscaled_coordinate_is_left_alone():
    d = _draft(HALVE.replace("2 * x", "x"))
    assert {a.name: a for a in d.spec.args}["src_n"].value != "2*n"


ATTENUATE = """
__global__ void attenuate(const float *density, const float *step, const float *x, int n, float *alpha, float *s) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float d = density[i];
    alpha[i] = 1.0f - expf(-d * step[i]);
    s[i] = 1.0f / (1.0f + expf(-x[i]));
}
"""


def test_loads_whose_negated_product_an_exponential_takes_are_not_negative():
    args = {a.name: a for a in _draft(ATTENUATE).spec.args}
    for name in ("density", "step"):  # before: [-100, 100), exp(10000) = inf and alpha -inf
        assert (args[name].init, args[name].low, args[name].high) == ("uniform", 0, 1)
    assert args["x"].low is None or args["x"].low < 0  # a sigmoid's one load keeps both signs


def test_a_product_not_negated_is_no_decay():
    args = {a.name: a for a in _draft(ATTENUATE.replace("-d * step[i]", "d * step[i]")).spec.args}
    assert args["density"].init != "uniform" or args["density"].low != 0


HELPER_GUARD = """
__device__ float fetch(const float *p, int i, int n) { bool ok = i < n; return ok ? p[i] : 0.0f; }
__global__ void copy_m(const float *a, int n, int m, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool ok = i < m;
    float v = fetch(a, i, n);
    if (ok) out[i] = v;
}
"""


def test_a_helpers_bool_local_of_the_same_name_is_not_the_kernels_guard():
    args = {a.name: a for a in _draft(HELPER_GUARD).spec.args}
    assert args["out"].size == "m" and args["m"].value == "m"  # before: out sized n, m a made-up 3


ESCAPED_GUARD = """
#define SET(flag) flag = true
__device__ void widen(bool &f, int i, int m) { f = i < m; }
__device__ void mark(bool *f) { *f = true; }
__global__ void escaped(const float *a, int n, int m, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool ok = i < n;
    CHANGE;
    if (ok) out[i] = a[i];
}
"""


@pytest.mark.parametrize("change", ["widen(ok, i, m)", "mark(&ok)", "bool *p = &ok; *p = true", "SET(ok)"])
def test_a_bool_local_a_helper_or_pointer_may_change_is_no_guard(change):
    args = {a.name: a for a in _draft(ESCAPED_GUARD.replace("CHANGE", change)).spec.args}
    assert args["out"].size != "n"  # ok may be true past n


CHANGED_STAGE = """
#define B 128
__global__ void changed(const int *ids, int n, const float *table, float *out) {
    __shared__ int picked[B];
    const int i = blockIdx.x * B + threadIdx.x;
    if (i >= n) return;
    picked[threadIdx.x] = ids[i];
    CHANGE;
    __syncthreads();
    out[i] = table[picked[threadIdx.x]];
}
"""


@pytest.mark.parametrize(
    "change",
    [
        "picked[threadIdx.x]++",
        "--picked[threadIdx.x]",
        "*(picked + threadIdx.x) = i * 7",
        "atomicExch(&picked[threadIdx.x], i * 7)",
        "atomicAdd(&picked[threadIdx.x], 1)",
    ],
)
def test_a_shared_table_changed_after_its_staging_is_not_a_staged_load(change):
    args = {a.name: a for a in _draft(CHANGED_STAGE.replace("CHANGE", change)).spec.args}
    assert args["ids"].high is None  # its values are not table's indices any more


BUMPED_CORNERS = """
__global__ void bumped(const int4 *faces, int nf, float *acc) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= nf) return;
    int4 t = faces[f];
    int c[3] = {t.x, t.y, t.z};
    c[1]++;
    for (int k = 0; k < 3; ++k) atomicAdd(&acc[c[k]], 1.0f);
}
"""


def test_a_local_table_changed_in_place_is_no_index():
    args = {a.name: a for a in _draft(BUMPED_CORNERS).spec.args}
    assert args["faces"].high is None


GAUSSIAN_SIGN = """
__global__ void signed_bell(const float *x, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = expf(-x[i] * x[i]) * (x[i] < 0.0f ? -1.0f : 1.0f);
}
"""


def test_a_load_squared_is_no_decay():
    x = next(a for a in _draft(GAUSSIAN_SIGN).spec.args if a.name == "x")
    assert x.low is None or x.low < 0  # exp(-x * x) never overflows; the kernel's x < 0 branch needs both signs


METROPOLIS = """
__global__ void metropolis(const float *dE, const float *beta, const float *u, int *accept, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float d = dE[i];
    accept[i] = (d <= 0.0f) || (u[i] < expf(-d * beta[i]));
}
"""


def test_a_decay_input_the_kernel_tests_against_0_keeps_both_signs():
    args = {a.name: a for a in _draft(METROPOLIS).spec.args}
    assert args["dE"].low is None or args["dE"].low < 0  # in [0, 1) the d <= 0 branch never runs


LANE_INDEX = """
__global__ void lane_gather(const {T} *idx, const float *x, float *out, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {{
        {T} t = idx[i];
        out[i] = x[t.x];
    }}
}}
"""


@pytest.mark.parametrize(
    "vector", sorted(v for v in VECTOR_NAMES if (found := vector_scalar(v)) and found[0].startswith(("int", "uint")))
)
def test_every_integer_vectors_lane_indexes_what_it_picks(vector):
    idx = next(a for a in _draft(LANE_INDEX.format(T=vector)).spec.args if a.name == "idx")
    assert idx.low == 0 and idx.high is not None  # before, short2 and uchar4 lanes: any value, x read anywhere


DOUBLED_GUARD = (
    "__global__ void doubled(const float *a, int n, float *out) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    bool c0 = i < n;\n"
    + "".join(f"    bool c{k} = c{k - 1} && c{k - 1};\n" for k in range(1, 40))
    + "    if (c39) out[i] = a[i];\n}\n"
)
CYCLIC_GUARD = """
__global__ void cyclic(const float *a, int n, int m, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool a1 = i < n;
    bool b1 = a1 && i < m;
    {
        bool a1 = b1 && i < n;
        if (a1) out[i] = a[i];
    }
}
"""


@pytest.mark.parametrize("src", [DOUBLED_GUARD, CYCLIC_GUARD], ids=["doubled", "cyclic"])
def test_bool_locals_that_name_each_other_are_followed_once_each(src):
    d = _draft(src)  # before: 2**39 expansions (the step budget ran out) or a recursion without end
    assert "body was not read" not in " ".join(d.lines())
    assert next(a for a in d.spec.args if a.name == "out").size == "n"


RESTAGED_IN_LOOP = """
#define B 128
__global__ void twice(const int *ids, const int *other, int n, const float *table, float *out) {
    __shared__ int picked[B];
    const int i = blockIdx.x * B + threadIdx.x;
    if (i >= n) return;
    picked[threadIdx.x] = ids[i];
    float s = 0.0f;
    for (int r = 0; r < 2; ++r) {
        __syncthreads();
        s += table[picked[threadIdx.x]];
        __syncthreads();
        picked[threadIdx.x] = STORED;
    }
    out[i] = s;
}
"""


@pytest.mark.parametrize("stored", ["other[i]", "i * 7"])
def test_a_table_a_loop_stores_other_values_into_after_reading_it_is_not_a_staged_load(stored):
    args = {a.name: a for a in _draft(RESTAGED_IN_LOOP.replace("STORED", stored)).spec.args}
    assert args["ids"].high is None  # the second trip reads table at other's values or at 7 i


def test_a_table_a_loop_stores_its_own_source_into_stays_a_staged_load():
    args = {a.name: a for a in _draft(RESTAGED_IN_LOOP.replace("STORED", "ids[(i + r) % n]")).spec.args}
    assert args["ids"].low == 0 and args["ids"].high is not None


@pytest.mark.parametrize("held", ["other[i]", "i * 7", "ids[i] + 1"])
def test_a_table_a_loop_stores_a_local_holding_other_values_into_is_not_a_staged_load(held):
    src = RESTAGED_IN_LOOP.replace(
        "picked[threadIdx.x] = STORED;", f"int v = {held};\n        picked[threadIdx.x] = v;"
    )
    args = {a.name: a for a in _draft(src).spec.args}
    assert args["ids"].high is None  # before: the local's value was not looked at, and ids indexed table


PREFETCHED = """
#define B 128
__global__ void prefetched(const int *ids, int n, int rounds, const float *table, float *out) {
    __shared__ int picked[B];
    const int i = blockIdx.x * B + threadIdx.x;
    if (i >= n) return;
    int next = ids[i];
    float s = 0.0f;
    for (int r = 0; r < rounds; ++r) {
        picked[threadIdx.x] = next;
        __syncthreads();
        next = ids[(i + r + 1) % n];
        s += table[picked[(threadIdx.x + r) % B]];
        __syncthreads();
    }
    out[i] = s;
}
"""


def test_a_local_a_loop_reloads_from_the_same_array_stages_that_arrays_values():
    args = {a.name: a for a in _draft(PREFETCHED).spec.args}
    assert args["ids"].low == 0 and args["ids"].high == args["table"].size  # before: no range, table sized n
    assert args["table"].size != "n"


# a byte both tested against 0 and scaled by a float literal is a quantity, not a 0/1 flag (session 17,
# after held-out batch 18's first draft: a skinning weight `if (w == 0) continue; ... w / 255.0f`)
SCALED_BYTES = """
__global__ void blend(const uchar4 *weights, const float *a, int n, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const uchar4 w = weights[i];
    const unsigned char ws[4] = {w.x, w.y, w.z, w.w};
    float acc = 0.0f;
    for (int k = 0; k < 4; ++k) {
        if (ws[k] == 0) continue;
        acc += ws[k] / 255.0f * a[4 * i + k];
    }
    out[i] = acc;
}
"""


def test_values_tested_against_0_and_scaled_by_a_float_literal_span_their_type():
    args = {a.name: a for a in _draft(SCALED_BYTES).spec.args}
    assert (args["weights"].low, args["weights"].high) == (0, 256)
    flags = {a.name: a for a in _draft(SCALED_BYTES.replace("ws[k] / 255.0f * ", "")).spec.args}
    assert (flags["weights"].low, flags["weights"].high) == (0, 2)  # only tested and counted: flags, as before
