"""Values a draft gives from what the kernel's code does with a value (dr10): unsigned words only taken
apart as bits drawn over the whole type; a scalar tested for equality with a masked value drafted
inside the mask; a float threshold on integer-valued data drafted above 1; a frequency that a sample
index multiplies inside a sine or cosine drafted small."""

from kt_tui.kernel.draft import draft_spec
from kt_tui.kernel.source import find_kernels

WHOLE = (0, 2**32)  # a draw's [low, high): every uint32 value, 0xffffffff included


def _spec(src: str):
    return draft_spec(find_kernels(src)[0], src=src)


def _range(src: str, name: str) -> tuple:
    arg = next(a for a in _spec(src).args if a.name == name)
    return arg.low, arg.high


def test_words_only_taken_apart_as_bits_are_drawn_over_the_whole_type():
    xor_popcount = """
__global__ void hamming(const unsigned int *q, const unsigned int *db, int n, int nwords, int *dist) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned int *a = db + (size_t)i * nwords;
    int h = 0;
    for (int w = 0; w < nwords; ++w) h += __popc(q[w] ^ a[w]);
    dist[i] = h;
}
"""
    fields = """
__global__ void unpack(const unsigned int *packed, int n, int bits, unsigned int base, unsigned int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned long long bit = (unsigned long long)i * bits;
    const int word = (int)(bit / 32), shift = (int)(bit % 32);
    unsigned long long v = packed[word] >> shift;
    if (shift + bits > 32) v |= (unsigned long long)packed[word + 1] << (32 - shift);
    out[i] = base + (unsigned int)(v & ((1ull << bits) - 1));
}
"""
    uniform = """
__global__ void flip(signed char *s, const unsigned int *draws, int n, float p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float u = draws[i] * 2.3283064e-10f;
    if (u < p) s[i] = -s[i];
}
"""
    assert _range(xor_popcount, "q") == WHOLE and _range(xor_popcount, "db") == WHOLE
    assert _range(fields, "packed") == WHOLE
    assert _range(uniform, "draws") == WHOLE


def test_a_word_that_counts_divides_indexes_or_meets_a_scalar_keeps_a_narrow_range():
    uses = {
        "divisor": "out[i] = sum[i] / (float)(w[i] + 1u);",
        "loop count": "unsigned c = w[i]; float s = 0.0f; while (c--) s += sum[i]; out[i] = s;",
        "index past a mask of high bits": "out[i] = sum[w[i] & ~3u];",
        "float value": "out[i] = (float)(w[i] >> 4);",
        "compared with a scalar": "out[i] = (w[i] ^ 5u) < n ? 1.0f : 0.0f;",
        "a shift count": "out[i] = (float)(1u << w[i]);",
        "a scale that is no uniform draw": "out[i] = w[i] * 0.5f;",
    }
    for what, line in uses.items():
        src = f"""
__global__ void use(const unsigned int *w, const float *sum, int n, float *out) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {{ {line} }}
}}
"""
        assert _range(src, "w")[1] != WHOLE[1], what


def test_a_word_summed_in_64_bits_is_drawn_over_the_whole_type_even_as_a_weight():
    src = """
__global__ void vwap(const float *price, const unsigned int *volume, const int *start, int nbars, float *out,
                     unsigned long long *total) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nbars) return;
    float pv = 0.0f;
    unsigned long long v = 0;
    for (int i = start[b]; i < start[b + 1]; ++i) { pv += price[i] * (float)volume[i]; v += volume[i]; }
    out[b] = v > 0 ? pv / (float)v : 0.0f;
    total[b] = v;
}
"""
    assert _range(src, "volume") == WHOLE
    narrow = src.replace("unsigned long long v", "unsigned int v")  # a 32-bit sum: no sign of large words
    assert _range(narrow, "volume")[1] != WHOLE[1]


def test_a_scalar_tested_for_equality_with_a_masked_value_lies_inside_the_mask():
    src = """
__global__ void update(float *s, int nx, int ny, int color, int lane) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny || ((x + y) & 1) != color || x % 4 == lane) return;
    s[y * nx + x] *= -1.0f;
}
"""
    values = {a.name: a.value for a in _spec(src).args if not a.is_array}
    assert values["color"] in (0, 1) and 0 <= values["lane"] < 4


def test_a_frequency_times_a_sample_number_in_a_sinpi_is_in_cycles_per_sample():
    src = """
__global__ void derotate(const float2 *in, int n, const float *freq, float step, float2 *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s, c, s2, c2;
    sincospif(-2.0f * freq[0] * i, &s, &c);
    sincospif(2.0f * step * i, &s2, &c2);
    out[i] = make_float2(in[i].x * c - in[i].y * s2, in[i].x * s + in[i].y * c2);
}
"""
    spec = _spec(src)
    freq = next(a for a in spec.args if a.name == "freq")
    step = next(a for a in spec.args if a.name == "step")
    assert (freq.low, freq.high) == (-0.5, 0.5)
    assert -0.5 <= step.value < 0.5


def test_a_threshold_on_a_quantity_of_int_samples_is_on_the_quantity_s_scale():
    src = """
__global__ void squelch(const short *iq, int n, float floor_level, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float re = iq[2 * i], im = iq[2 * i + 1];
    const float power = re * re + im * im;
    out[i] = power < floor_level ? 0.0f : power;
}
"""
    value = next(a for a in _spec(src).args if a.name == "floor_level").value
    assert 1e8 < value < 2 * 32768**2  # some samples below it, most above: the test splits them


def test_int_data_multiplied_together_in_an_exponential_is_a_few_units():
    src = """
__global__ void metropolis(signed char *spins, const float *u, int n, float beta) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= 0 || i >= n - 1) return;
    const int s = spins[i];
    const int h = spins[i - 1] + spins[i + 1];
    if (u[i] < expf(-2.0f * beta * s * h)) spins[i] = (signed char)-s;
}
"""
    assert _range(src, "spins") == (-1, 2)
    alone = src.replace("beta * s * h", "beta * s")  # one value alone, no product of data: not narrowed
    assert _range(alone, "spins") != (-1, 2)


def test_buckets_that_items_fall_in_shrink_with_the_items_at_check_sizes():
    src = """
__global__ void label_sum(const float *v, const int *labels, int npoints, int nlabels, float *sums) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npoints) return;
    int l = labels[i];
    if (l < 0 || l >= nlabels) return;
    atomicAdd(&sums[l], v[i]);
}
"""
    spec = _spec(src)
    for t in spec.verify_sizes:
        items = t.get("npoints", spec.sizes["npoints"])
        assert 2 <= t.get("nlabels", spec.sizes["nlabels"]) <= items // 4, t
    stored = _spec(src.replace("atomicAdd(&sums[l], v[i]);", "sums[l] = v[i];"))  # a race: buckets kept many
    assert all("nlabels" not in t for t in stored.verify_sizes or [])


def test_a_binary_search_bounds_its_ends_by_their_start_so_the_searched_array_is_sized_by_its_count():
    src = """
__global__ void bucketize(const float *x, int n, const float *edges, int nedges, int *bucket, unsigned int *counts) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float v = x[i];
    int lo = 0, hi = nedges;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (edges[mid] < v) lo = mid + 1; else hi = mid;
    }
    bucket[i] = lo;
    atomicAdd(&counts[lo], 1u);
}
"""
    from kt_tui.kernel.expr import evaluate

    spec = _spec(src)
    assert "nedges" in spec.sizes  # a size of its own, not a loop count that sizes nothing
    sizes = {a.name: evaluate(a.size, spec.sizes) for a in spec.args if a.is_array}
    assert sizes["edges"] >= spec.sizes["nedges"] and sizes["counts"] >= spec.sizes["nedges"] + 1
    assert sizes["edges"] < spec.sizes["n"] or spec.sizes["nedges"] != spec.sizes["n"]


def test_a_made_up_int_differs_from_every_size_so_a_kernel_that_swaps_them_fails():
    src = """
__global__ void requantize(const int *acc, const int *bias, int n, int channels, int hw, signed char *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int c = (i / hw) % channels;
    out[i] = (signed char)(acc[i] + bias[c]);
}
"""
    spec = _spec(src)
    values = {a.name: a.value for a in spec.args if not a.is_array}
    made_up = [v for v in values.values() if isinstance(v, int)]
    assert made_up and not set(made_up) & set(spec.sizes.values()), (values, spec.sizes)


def test_a_draft_from_the_signature_alone_still_comes():
    src = "__global__ void k(float *out, const unsigned int *w, int n, float level);"
    spec = _spec(src)
    assert [a.name for a in spec.args] == ["out", "w", "n", "level"]


def test_counts_read_per_item_that_bound_rows_of_a_padded_block_are_at_most_its_rows():
    src = """
__global__ void pool(const float *h, const int *lengths, int batch, int max_len, int hidden, float *out) {
    const int b = blockIdx.x;
    if (b >= batch) return;
    const int len = lengths[b];
    const float *hb = h + (size_t)b * max_len * hidden;
    for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
        float s = 0.0f;
        for (int t = 0; t < len; ++t) s += hb[(size_t)t * hidden + j];
        out[(size_t)b * hidden + j] = s;
    }
}
"""
    from kt_tui.kernel.expr import evaluate

    spec = _spec(src)
    args = {a.name: a for a in spec.args}
    at = dict(spec.sizes)
    assert "max_len" in spec.sizes
    assert evaluate(args["h"].size, at) >= at["batch"] * at["max_len"] * at["hidden"]
    high = evaluate(args["lengths"].high, at)
    assert 2 <= high <= at["max_len"] + 1  # some rows read, never past the block


def test_a_word_array_whose_pointer_is_passed_on_is_not_followed():
    src = """
__device__ float first(const unsigned int *p) { return (float)p[0]; }

__global__ void k(const unsigned int *w, int n, int nwords, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned int *row = w + (size_t)i * nwords;
    out[i] = (float)__popc(row[0] ^ row[1]) + first(%s);
}
"""
    assert _range(src % "w + i", "w")[1] != WHOLE[1]
    assert _range(src % "row", "w")[1] != WHOLE[1]
    assert _range(src.replace(" + first(%s)", ""), "w") == WHOLE


def test_cstdint_and_long_spellings_are_drafted_as_their_integer_types():
    src = """#include <cstdint>
__global__ void k(const uint64_t *w, const int16_t *h, int n, unsigned long long int *out, unsigned long s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (w[i] >> 7) + h[i] + s;
}
"""
    types = {a.name: a.type for a in _spec(src).args}
    assert types == {"w": "uint64", "h": "int16", "n": "int32", "out": "uint64", "s": "uint64"}  # before: float32
