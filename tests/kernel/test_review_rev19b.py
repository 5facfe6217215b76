"""Session 19's batch-21 drafter rules on kernels of other shapes than the ones they were written for
(review rev19b): each test's kernel is written for it."""

from __future__ import annotations

from .test_draft_shapes import _draft, _points

GUARDED = """
__global__ void prefix_cache(float* out, const float* x, int n, int rows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float head[16];
    float s = 0.f;
    for (int k = 0; k < n; k++) {
        float v = x[r * n + k];
        if (k < 16) head[k] = v;
        s += v;
    }
    float h = 0.f;
    for (int k = 0; k < 16; k++) h += head[k];
    out[r] = s - h;
}
"""


def test_a_local_array_written_only_under_a_guard_on_the_counter_caps_no_count():
    d = _draft(GUARDED)
    assert all(at["n"] > 16 for at in _points(d.spec))  # before: n = 16, the guard keeps head's writes in it
    assert "sizes.n" not in dict(d.guesses) or "an array of" not in dict(d.guesses)["sizes.n"]


SHADOWED = """
__global__ void two_modes(float* out, const float* x, const float* weights, int mode, int n, int m) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    float s = 0.f;
    if (mode == 0) {
        float w[4] = {0.1f, 0.2f, 0.3f, 0.4f};
        for (int k = 0; k < 4; k++) s += w[k] * x[i];
    } else {
        const float* w = weights + (size_t)i * n;
        for (int k = 0; k < n; k++) s += w[k] * x[i];
    }
    out[i] = s;
}
"""


def test_a_pointer_named_as_a_local_array_of_another_block_caps_no_count():
    d = _draft(SHADOWED)
    assert all(at["n"] > 4 for at in _points(d.spec))  # before: n = 4, the w of the other branch's array


DEAD_INSTANCE = """
template <typename T, bool CLAMP>
__global__ void scale(T *out, const float *in, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = in[i] * s; if (CLAMP) v = v < 0 ? 0 : v; out[i] = (T)v; }
}
#if 0
template __global__ void scale<float, false>(float *, const float *, float, int);
#endif
const char *note = "template __global__ void scale<float, false>(float *, const float *, float, int);";
template __global__ void scale<float, true>(float *, const float *, float, int);
"""


def test_a_template_value_is_taken_from_an_instantiation_the_compiler_reads():
    d = _draft(DEAD_INSTANCE)
    assert d.spec.kernel == "scale<float, true>"  # before: <float, false>, from the #if 0 group


DEFAULTED = """
enum class Mode { Fast, Exact };
template <typename T, bool CLAMP = false, Mode M = Mode::Exact>
__global__ void scale(T *out, const T *in, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = (float)in[i] * s;
        if (CLAMP) v = v < 0.f ? 0.f : v;
        if (M == Mode::Fast) v = __fmul_rn(v, 1.f);
        out[i] = (T)v;
    }
}
"""


def test_value_parameters_with_defaults_and_no_instantiation_are_left_at_their_defaults():
    d = _draft(DEFAULTED)  # before: kernel = "scale", which the spec check refuses
    assert d.spec.kernel == "scale<float>"
    assert any("CLAMP, M" in g and "default" in g for _, g in d.guesses)
