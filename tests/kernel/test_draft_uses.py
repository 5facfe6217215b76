"""Ranges of input arrays' elements read off how each loaded value is used (kernel/draft_uses.py), one
kernel written here per kind of use, each followed through a local the load is the whole value of, a
__device__ function's parameter, `__ldg` or a dereference: a divisor (float or int, `/`, `%`,
`__fdividef`) and a power's base are drawn above 0, a value compared with or subtracted from a bit field
over that field's values (a word drawn over its type too), a shift count below 32, an exponential summed
as a log-probability at most 0, `1 - v` beside v in [0, 1] (0 or 1 for an int), a value compared with a
uniform draw in [0, 1], a 16-bit float's bits below its infinity, a key hashed by a multiplier or a
generator's state over its whole type, a xorshift state from 1. Some guard what the folded rules did (a
value scaled by a count keeps its sign into a root); a local written again, a difference, a square, an
exponential of a difference (a softmax's), an even scale, a hashed key matched with another array's are
no such use."""

from __future__ import annotations

from kt_tui.kernel.spec_model import random_bounds

from .test_draft_shapes import _draft

HEAD = """
__global__ void k({params}, int n, {out} *y) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
{body}
}}"""


def _drawn(params: str, body: str, name: str, out: str = "float"):
    d = _draft(HEAD.format(params=params, body=body, out=out))
    arg = next(a for a in d.spec.args if a.name == name)
    said = [why for key, why in d.guesses if key == f"args.{name}"]
    return random_bounds(arg, d.spec.sizes), said


def test_a_float_divisor_held_in_a_local_is_drawn_above_0():
    low, high = _drawn(
        "const float *x, const float *scale, int c", "    const float s = scale[i % c];\n    y[i] = x[i] / s;", "scale"
    )[0]
    assert 0 < low < high  # before: [-100, 100), 0 among the divisors' neighbours


def test_a_reciprocal_through_a_local_and_an_epsilon_is_drawn_above_0():
    (low, _), said = _drawn(
        "const float *x, const float *var, float eps",
        "    float v = var[i];\n    float inv = 1.0f / (v + eps);\n    y[i] = x[i] * inv;",
        "var",
    )
    assert low > 0
    assert any("divided" in w for w in said)


def test_an_int_count_that_divides_is_drawn_from_1():
    low, high = _drawn(
        "const float *sum, const int *count", "    int c = count[i];\n    y[i] = sum[i] / (float)c;", "count"
    )[0]
    assert low >= 1 and high > low + 1


def test_an_int_modulus_is_drawn_from_1():
    low, _ = _drawn("const int *a, const int *d", "    int m = d[i];\n    y[i] = a[i] % m;", "d", out="int")[0]
    assert low >= 1


def test_a_powers_base_is_drawn_above_0():
    low, _ = _drawn("const float *b, float e", "    float v = b[i];\n    y[i] = powf(v, e);", "b")[0]
    assert low > 0


NIBBLES = """    unsigned int p = w[i];
    int z = zp[i];
    float acc = 0.f;
    for (int j = 0; j < 8; ++j) {
        const float q = (float)((p >> (4 * j)) & 0xFu);
        acc += (q - (float)z) * x[j];
    }
    y[i] = acc;"""


def test_a_zero_point_subtracted_from_a_nibble_is_drawn_over_the_nibbles_values():
    (low, high), said = _drawn("const unsigned int *w, const unsigned char *zp, const float *x", NIBBLES, "zp")
    assert (low, high) == (0, 16)  # before: every byte, [0, 256)
    assert any("4-bit field" in w for w in said)


def test_a_key_compared_with_a_byte_field_is_drawn_over_the_bytes_values():
    body = """    int h = 0;
    unsigned int p = w[i];
    int key_i = key[i];
    for (int j = 0; j < 4; ++j)
        h += ((p >> (8 * j)) & 0xFF) == key_i;
    y[i] = h;"""
    low, high = _drawn("const unsigned int *w, const int *key", body, "key", out="int")[0]
    assert (low, high) == (0, 256)  # before: [-100, 100), half of them never a byte


def test_a_divisor_compared_with_a_nibble_gets_what_both_allow():
    body = """    unsigned int p = w[i];
    int d = dv[i];
    y[i] = (float)((p & 15u) == d) / (float)d;"""
    low, high = _drawn("const unsigned int *w, const int *dv", body, "dv")[0]
    assert (low, high) == (1, 16)


def test_an_exponential_summed_is_of_log_probabilities():
    body = "    float s = 0.f;\n    for (int j = 0; j < 8; ++j)\n        s += expf(logp[i * 8 + j]);\n    y[i] = s;"
    low, high = _drawn("const float *logp", body, "logp")[0]
    assert low < high <= 0  # before: [-100, 100), exp overflowing to inf past 88


def test_an_exponential_of_a_difference_is_no_log_probability():
    body = "    float s = 0.f;\n    for (int j = 0; j < 8; ++j)\n        s += expf(x[i * 8 + j] - 1.0f);\n    y[i] = s;"
    low, high = _drawn("const float *x", body, "x")[0]
    assert high > 0


def test_a_local_written_again_is_not_followed():
    body = "    float s = scale[i];\n    s = s * s - 4.0f;\n    y[i] = 1.0f / s;"
    low, _ = _drawn("const float *scale", body, "scale")[0]
    assert low < 0


def test_a_divisor_passed_to_a_device_function_is_drawn_above_0():
    src = """
__device__ float per(float v, float s) { return v / s; }
__global__ void k(const float *x, const float *scale, int n, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = per(x[i], scale[i]);
}"""
    d = _draft(src)
    low, _ = random_bounds(next(a for a in d.spec.args if a.name == "scale"), d.spec.sizes)
    assert low > 0


def test_a_fast_division_intrinsics_divisor_is_drawn_above_0():
    low, _ = _drawn("const float *x, const float *d", "    y[i] = __fdividef(x[i], d[i]);", "d")[0]
    assert low > 0


def test_a_shift_count_is_drawn_below_the_words_width():
    low, high = _drawn(
        "const unsigned int *x, const int *sh", "    int s = sh[i];\n    y[i] = x[i] >> s;", "sh", out="unsigned int"
    )[0]
    assert 0 <= low and high <= 32  # before: [-100, 100), shifts by a negative count or past the width


def test_an_int_blend_weight_is_0_or_1():
    body = "    const int keep = m[i];\n    y[i] = (1 - keep) * a[i] + keep * b[i];"
    low, high = _drawn("const int *m, const float *a, const float *b", body, "m")[0]
    assert (low, high) == (0, 2)  # before: [-100, 100), a blend far outside its two ends


def test_a_blend_weight_passed_to_a_device_function_is_in_0_1():
    src = """
__device__ float mix(float x, float z, float t) { return (1.0f - t) * x + t * z; }
__global__ void k(const float *alpha, const float *a, const float *b, int n, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = mix(a[i], b[i], alpha[i]);
}"""
    d = _draft(src)
    low, high = random_bounds(next(a for a in d.spec.args if a.name == "alpha"), d.spec.sizes)
    assert 0 <= low < high <= 1


def test_a_value_divided_as_one_less_it_is_kept_below_1_and_said_so():
    (low, high), said = _drawn("const float *x, const float *keep", "    y[i] = x[i] / (1.0f - keep[i]);", "keep")
    assert 0 <= low < high <= 1  # 1 - v not 0
    # before: "they reach a square root, a log or a power's base; the kernel takes 1 - v beside v itself (a
    # blend weight, ...)": keep reaches no root, and is not used beside 1 - keep
    assert said == [
        "values in [0.001, 1): a value is divided by `1.0f - keep[i]` (1 - v), which must not be 0: v kept below 1"
    ]


def test_one_less_a_value_under_a_root_is_said_as_that_and_a_blend_weight_still_as_a_weight():
    (_, high), said = _drawn("const float *x, const float *p", "    y[i] = x[i] * sqrtf(1.0f - p[i]);", "p")
    assert high <= 1
    assert len(said) == 1 and "`1.0f - p[i]` (1 - v) reaches a square root" in said[0] and "v kept below 1" in said[0]
    assert "they reach a square root" not in said[0] and "beside v itself" not in said[0]
    body = "    const float w = t[i];\n    y[i] = x[i] / (1.0f - w) + w * x[i];"
    said = _drawn("const float *x, const float *t", body, "t")[1]
    assert len(said) == 1 and "divided by `1.0f - w` (1 - v), which must not be 0" in said[0]
    assert "the kernel takes 1 - v beside v itself" in said[0]  # w also a factor: a weight too


def _scalar(body: str, name: str = "p") -> tuple[object, list[str]]:
    d = _draft(HEAD.format(params="const float *x, float p", body=body, out="float"))
    return next(a.value for a in d.spec.args if a.name == name), [w for k, w in d.guesses if k == f"args.{name}"]


def test_a_float_scalar_whose_one_less_divides_is_said_kept_below_1():
    for body, said in (
        ("    y[i] = x[i] / (1.0f - p);", "`1.0f - p` divides, so 1 - p must not be 0: p kept below 1"),
        (
            "    const float keep = 1.0f - p;\n    y[i] = x[i] / keep;",
            "`keep = 1.0f - p` divides, so 1 - p must not be 0",
        ),
        ("    y[i] = x[i] * sqrtf(1.0f - p);", "`1.0f - p` reaches a square root, a log or a power's base"),
    ):
        value, why = _scalar(body)
        assert 0 < value < 1  # 1 - p above 0
        assert len(why) == 1 and said in why[0] and "p kept below 1" in why[0]
        assert "a factor of unknown role" not in why[0]  # before: said as a made-up factor


def test_a_value_scaled_into_a_root_through_a_local_is_drawn_above_0():
    body = "    const float dt = T[i] / (float)steps;\n    y[i] = vol * sqrtf(dt);"
    low, _ = _drawn("const float *T, int steps, float vol", body, "T")[0]
    assert low > 0  # a quotient by a count keeps T's sign


def test_a_difference_under_a_root_says_nothing_of_either_side():
    body = "    const float d = a[i] - b[i];\n    y[i] = sqrtf(d * d + 1.0f);"
    for name in ("a", "b"):
        low, _ = _drawn("const float *a, const float *b", body, name)[0]
        assert low < 0  # main drew both positive: any array anywhere under the root


def test_16_bit_floats_bits_passed_to_a_device_function_are_finite():
    src = """
#include <cuda_fp16.h>
__device__ float h(unsigned short x) { return __half2float(__ushort_as_half(x)); }
__global__ void k(const unsigned short *v, int n, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = h(v[i]);
}"""
    d = _draft(src)
    low, high = random_bounds(next(a for a in d.spec.args if a.name == "v"), d.spec.sizes)
    assert 0 <= low and high <= 0x7C00  # before: [0, 65536), infs and NaNs among them


def test_loads_through_ldg_and_a_dereference_are_followed():
    low, _ = _drawn("const float *x, const float *s", "    const float d = __ldg(&s[i]);\n    y[i] = x[i] / d;", "s")[0]
    assert low > 0
    low, _ = _drawn("const float *x, const float *v", "    y[i] = x[i] * rsqrtf(*(v + i) + 1e-5f);", "v")[0]
    assert low > 0


def test_a_value_compared_with_a_uniform_draw_is_a_probability():
    src = """
#include <curand_kernel.h>
__global__ void k(curandState *st, const float *p, int n, int *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    curandState s = st[i];
    const float u = curand_uniform(&s);
    y[i] = u < p[i];
    st[i] = s;
}"""
    d = _draft(src)
    low, high = random_bounds(next(a for a in d.spec.args if a.name == "p"), d.spec.sizes)
    assert 0 <= low < high <= 1  # before: [-100, 100), every test one way


def test_squares_under_a_root_say_nothing_of_the_values():
    body = "    const float a = x[i], b = z[i];\n    y[i] = sqrtf(a * a + b * b);"
    for name in ("x", "z"):
        low, _ = _drawn("const float *x, const float *z", body, name)[0]
        assert low < 0  # a vector's components, of both signs


def test_keys_mixed_by_a_hash_are_drawn_over_the_whole_type():
    body = """    unsigned long long h = keys[i];
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    y[i] = (int)(h % (unsigned long long)nb);"""
    low, high = _drawn("const unsigned long long *keys, int nb", body, "keys", out="int")[0]
    assert (low, high) == (0, 1 << 64)  # before: [0, 100), the high bits the hash mixes down never set


def test_a_generators_state_stepped_by_a_multiplier_is_drawn_over_the_whole_type():
    body = "    unsigned int s = seed[i];\n    s = s * 1664525u + 1013904223u;\n    y[i] = (s >> 8) * (1.0f / 16777216.0f);"
    low, high = _drawn("const unsigned int *seed", body, "seed")[0]
    assert (low, high) == (0, 1 << 32)


def test_a_hashed_key_matched_with_another_arrays_keys_keeps_their_range():
    body = """    const long long k = probe[i];
    const unsigned long long h = (unsigned long long)k * 0x9E3779B97F4A7C15ull;
    const int slot = (int)(h >> 40) & (m - 1);
    y[i] = table[slot] == k;"""
    low, high = _drawn("const long long *probe, const long long *table, int m", body, "probe", out="int")[0]
    assert high < 1 << 32  # a key over the whole type matches no key of the table


def test_one_minus_a_value_under_a_log_is_below_1():
    low, high = _drawn("const float *p", "    y[i] = -logf(1.0f - p[i]);", "p")[0]
    assert 0 <= low < high <= 1


def test_an_even_scale_is_no_hash():
    low, high = _drawn("const int *q", "    y[i] = q[i] * 65536;", "q", out="int")[0]
    assert high - low < 1 << 16  # a fixed-point scale, not a multiplier that mixes bits


def test_a_word_compared_with_a_byte_field_is_drawn_over_the_bytes_values():
    body = """    const unsigned int p = w[i];
    const unsigned int want = key[i];
    y[i] = ((p >> 8) & 0xFFu) == want;"""
    low, high = _drawn("const unsigned int *w, const unsigned int *key", body, "key", out="int")[0]
    assert (low, high) == (0, 256)  # before: every word, of which 1 in 2^24 ever matches a byte


def test_a_xorshift_state_stepped_in_a_device_function_is_never_0():
    src = """
__device__ unsigned int step(unsigned int s) { s ^= s << 13; s ^= s >> 17; s ^= s << 5; return s; }
__global__ void k(unsigned int *state, int n, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int s = state[i];
    s = step(s);
    y[i] = (s >> 8) * (1.0f / 16777216.0f);
    state[i] = s;
}"""
    d = _draft(src)
    assert random_bounds(next(a for a in d.spec.args if a.name == "state"), d.spec.sizes) == (1, 1 << 32)
