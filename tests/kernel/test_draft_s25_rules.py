"""Drafter rules made after seeing held-out batch 25, each on a kernel written here: 32-bit ints passed to
a packed-byte intrinsic (`__dp4a`) are words of four bytes, drawn over the whole type; a state read, run
through a __device__ function that only takes it apart as bits and returns it (a xorshift step), and
written back is a word too; and a float scaling a shifted word by a constant product (`(s >> 8) * (1.0f
/ 16777216.0f)`) is a uniform draw, the constant folded."""

from __future__ import annotations

from .test_draft_shapes import _draft

DOT_BYTES = """
__global__ void dot_bytes(const int *a, const int *b, int n4, int *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4) return;
    out[i] = __dp4a(a[i], b[i], 0);
}
"""

INDEXED = """
__global__ void pick4(const int *a, const float *t, int n, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = t[a[i]] + (float)__dp4a(a[i], a[i], 0);
}
"""

LCG_STATE = """
__device__ unsigned int mix(unsigned int x) {
    x ^= x << 7;
    x ^= x >> 9;
    return x;
}

__global__ void uniforms(unsigned int *seed, int n, float *u) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int s = mix(seed[i]);
    u[i] = (s >> 8) * (1.0f / 16777216.0f);
    seed[i] = s;
}
"""

BUCKETS = """
__device__ int bucket(unsigned int x, int nb) {
    return x % nb + x;
}

__global__ void place(unsigned int *key, int n, int nb, int *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = bucket(key[i], nb);
    key[i] = 0;
}
"""


def _range(d, name):
    a = next(a for a in d.spec.args if a.name == name)
    return a.low, a.high


def test_ints_passed_to_a_packed_byte_intrinsic_are_words_over_the_whole_type():
    d = _draft(DOT_BYTES)
    assert _range(d, "a") == _range(d, "b") == (-(2**31), 2**31)  # before: [-100, 100), no byte's high bits
    assert "type's range" in dict(d.guesses)["args.a"]
    assert _range(_draft(INDEXED), "a") != (-(2**31), 2**31)  # an index too: not a word


def test_a_state_stepped_through_a_device_functions_bits_and_written_back_is_a_word():
    d = _draft(LCG_STATE)
    assert _range(d, "seed") == (0, 2**32)  # before: [0, 100)
    d = _draft(BUCKETS)  # the device function adds it as a number: not a word
    assert _range(d, "key") != (0, 2**32)
