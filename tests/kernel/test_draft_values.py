"""Values a draft gives scalars and arrays from what the kernel does with them (issue 21 item 1): the
two bounds of a clamp or range ordered, a stencil's coefficient small, an index array's values inside
its own type, sizes subtracted from a thread bound kept small, loops whose variable steps in a comma
or an assignment bounded, template kernels instantiated, and index values scaled by a division."""

import pytest

from kt_tui.gpu.compile import find_nvcc
from kt_tui.kernel.draft import draft, draft_spec
from kt_tui.kernel.draft_floats import FLOAT_SCALAR
from kt_tui.kernel.expr import evaluate
from kt_tui.kernel.source import find_kernels
from kt_tui.kernel.spec import check_spec, dump_spec, parse_spec
from kt_tui.kernel.spec_model import random_bounds


def _spec(src: str):
    return draft_spec(find_kernels(src)[0], src=src)


def _values(spec) -> dict:
    return {a.name: a.value for a in spec.args if not a.is_array}


CLAMPS = {
    "ternary": "out[i] = v < floor_v ? floor_v : (v > ceil_v ? ceil_v : v);",
    "min_max": "out[i] = max(floor_v, min(ceil_v, v));",
    "if": "if (v < floor_v) v = floor_v; if (v > ceil_v) { v = ceil_v; } out[i] = v;",
    "range": "out[i] = (v >= floor_v && v < ceil_v) ? 1 : 0;",
    "mirrored": "out[i] = floor_v > v ? floor_v : (ceil_v < v ? ceil_v : v);",
}


def test_the_two_bounds_of_a_clamp_or_range_are_ordered_and_inside_the_values():
    for how, line in CLAMPS.items():
        for ctype in ("int", "float"):
            src = f"""
__global__ void saturate({ctype} *out, const {ctype} *in, {ctype} floor_v, {ctype} ceil_v, int count) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) {{ {ctype} v = in[i] * 2; {line} }}
}}
"""
            values = _values(_spec(src))
            lo, hi = values["floor_v"], values["ceil_v"]
            assert lo < 0 < hi, (how, ctype, lo, hi)  # the drafted inputs lie on both sides of 0


def test_one_bound_alone_keeps_the_plain_guess():
    src = """
__global__ void relu_cap(float *out, const float *in, float cap, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) out[i] = fminf(in[i], cap);
}
"""
    assert _values(_spec(src))["cap"] == FLOAT_SCALAR


def test_a_coefficient_of_stencil_differences_is_a_stable_step_and_a_plain_weight_is_not():
    src = """
__global__ void diffuse(float *u_new, const float *u, int n, float nu) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1) {
        float d2 = u[i - 1] - 2.0f * u[i] + u[i + 1];
        u_new[i] = u[i] + nu * d2;
    }
}
"""
    d = draft(find_kernels(src)[0], src)
    assert 0 < _values(d.spec)["nu"] <= 0.5 / 1
    assert any("stencil" in what for _key, what in d.guesses)
    weights = """
__global__ void blur3(float *out, const float *in, int n, float w) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1) out[i] = w * (in[i - 1] + in[i] + in[i + 1]);
}
"""
    assert _values(_spec(weights))["w"] == FLOAT_SCALAR


def test_values_of_a_narrow_index_array_fit_its_type_and_the_table_it_indexes_is_its_reach():
    src = """
__global__ void decode(float *out, const unsigned char *codes, const float *table, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) out[i] = table[codes[i]];
}
"""
    kernel = find_kernels(src)[0]
    spec = _spec(src)
    text = dump_spec(spec)
    again = parse_spec(text, kernel)  # readable: every value fits its type
    args = {a.name: a for a in again.args}
    sizes = again.sizes
    assert evaluate(args["table"].size, sizes) == 256  # all a uint8 can reach, not a million entries
    low, high = evaluate(args["codes"].low, sizes), evaluate(args["codes"].high, sizes)
    assert 0 <= low and 2 < high <= 255 and args["codes"].init == "random"
    check_spec(again, kernel)  # raises on a spec that does not fit the kernel


def test_a_loop_whose_variable_steps_inside_its_update_is_bounded_and_so_is_the_trailing_variable():
    src = """
__global__ void polygon_area(float *area, const float *corners, int nshapes, int ncorners) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < nshapes) {
        float acc = 0.0f;
        for (int a = 0, b = ncorners - 1; a < ncorners; b = a++)
            acc += corners[2 * b] * corners[2 * a + 1] - corners[2 * a] * corners[2 * b + 1];
        area[s] = 0.5f * acc;
    }
}
"""
    spec = _spec(src)
    corners = next(a for a in spec.args if a.name == "corners")
    for sizes in [spec.sizes] + [e["sizes"] for e in spec.extra_sizes()]:
        assert evaluate(corners.size, sizes) == 2 * sizes["ncorners"]  # not the number of shapes


TEMPLATED = """
template <typename value_t, class index_t>
__global__ void take(value_t *out, const value_t *src, const index_t *where, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) out[i] = src[i] * (value_t)2;
}
"""


def test_a_template_kernel_is_drafted_as_an_instantiation_of_the_types_its_arrays_have():
    d = draft(find_kernels(TEMPLATED)[0], TEMPLATED)
    assert d.spec.kernel == "take<float, float>"
    assert {a.type for a in d.spec.args if a.is_array} == {"float32"}
    assert any("template" in what for _key, what in d.guesses)
    again = parse_spec(dump_spec(d.spec), find_kernels(TEMPLATED)[0])
    assert again.kernel == "take<float, float>"


BLOCK_TEMPLATE = """
template <typename T, int TILE>
__global__ void tile_sums(const T *in, T *out, int n) {
    __shared__ T part[TILE];
    int i = blockIdx.x * TILE + threadIdx.x;
    part[threadIdx.x] = i < n ? in[i] : T(0);
    __syncthreads();
    for (int h = TILE / 2; h > 0; h /= 2) {
        if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = part[0];
}
"""


def test_a_template_value_parameter_is_a_small_count_or_the_block_size_it_sizes_and_is_said():
    src = TEMPLATED.replace("class index_t", "int unroll")
    d = draft(find_kernels(src)[0], src)
    assert d.spec.kernel == "take<float, 4>" and any("unroll = 4" in what for _key, what in d.guesses)
    d = draft(find_kernels(BLOCK_TEMPLATE)[0], BLOCK_TEMPLATE)
    assert d.spec.kernel == "tile_sums<float, 128>" and d.spec.tune_params["block_size_x"] == [128]
    assert d.spec.problem_size == ["n"]  # one thread per element: TILE threads a block
    src = TEMPLATED.replace("class index_t", "bool flag")  # no number the draft can take: left, said
    d = draft(find_kernels(src)[0], src)
    assert d.spec.kernel == "take" and any("flag" in what for _key, what in d.guesses)


@pytest.mark.skipif(find_nvcc() is None, reason="needs nvcc")
def test_a_drafted_template_instantiation_compiles():
    from kt_tui.engine.precheck import compile_spec

    src = TEMPLATED.replace(", class index_t", "").replace("index_t", "int")  # kernel_tuner wraps one type only
    spec = draft_spec(find_kernels(src)[0], src=src)
    assert spec.kernel == "take<float>" and compile_spec(src, spec).ok
    spec = draft_spec(find_kernels(BLOCK_TEMPLATE)[0], src=BLOCK_TEMPLATE)
    assert compile_spec(BLOCK_TEMPLATE, spec).ok


def test_values_scaled_by_a_ratio_of_scalars_index_the_numerator_and_are_bounded_by_the_denominator():
    src = """
__global__ void bucket_count(unsigned int *counts, const int *scores, int nscores, int top_score, int nbuckets) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < nscores) {
        int b = scores[s] * nbuckets / top_score;
        atomicAdd(&counts[b], 1u);
    }
}
"""
    spec = _spec(src)
    args = {a.name: a for a in spec.args}
    for sizes in [spec.sizes] + [e["sizes"] for e in spec.extra_sizes()]:
        assert evaluate(args["counts"].size, sizes) == sizes["nbuckets"] > 1  # not the number of scores
        assert evaluate(args["scores"].low, sizes) == 0
        assert evaluate(args["scores"].high, sizes) == sizes["top_score"] > 1


def test_a_size_subtracted_from_a_thread_bound_is_small_so_every_size_leaves_threads_to_run():
    src = """
__global__ void drop_front(float *out, const float *in, int len, int skip) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= len - skip) return;
    out[i] = in[i + skip];
}
"""
    spec = _spec(src)
    again = parse_spec(dump_spec(spec), find_kernels(src)[0])  # a problem size of 0 is refused here
    for sizes in [again.sizes] + [e["sizes"] for e in again.extra_sizes()]:
        assert evaluate(again.problem_size[0], sizes) >= sizes["len"] // 2 > 0


def test_row_numbers_read_from_an_array_are_bounded_by_the_rows_of_the_array_they_pick_from():
    src = """
__global__ void row_diff(float *out, const float *grid, const int *partner, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        out[y * width + x] = grid[y * width + x] - grid[partner[y] * width + x];
}
"""
    spec = _spec(src)
    partner = next(a for a in spec.args if a.name == "partner")
    for sizes in [spec.sizes] + [e["sizes"] for e in spec.extra_sizes()]:
        assert evaluate(partner.high, sizes) == sizes["height"]  # any row, not only row 0


def test_float_inputs_that_reach_a_log_or_a_square_root_are_drawn_positive():
    src = """
__global__ void poisson_loglik(float *ll, const float *rate, const float *weight, const int *counts, int nobs) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nobs) {
        float r = rate[i];
        ll[i] = weight[i] * (counts[i] * logf(r) - r) + sqrtf(weight[i] * weight[i]);
    }
}
"""
    args = {a.name: a for a in _spec(src).args}
    assert args["rate"].init == "positive"  # through the local r
    assert random_bounds(args["weight"], {})[0] > 0  # it weights a log term (a square's root says nothing)
    assert args["counts"].init == "random" and args["ll"].output


def test_an_array_of_bytes_is_drawn_at_random_so_a_byte_image_kernel_has_something_to_check():
    src = """
__global__ void binarize(unsigned char *mask, const unsigned char *pixels, unsigned char cut, int npix) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < npix) mask[i] = pixels[i] > cut ? 255 : 0;
}
"""
    args = {a.name: a for a in _spec(src).args}
    assert args["pixels"].init == "random"  # all zeros: every mask value the same, a check of nothing
    assert args["mask"].output


@pytest.mark.parametrize(
    "body",
    [
        "acc[threadIdx.x] = x[i]; __syncthreads(); if (threadIdx.x == 0) out[blockIdx.x] = acc[0] + acc[1];",
        "unsigned int t = threadIdx.x; acc[t] = x[i]; __syncthreads(); if (t < 64) acc[t] += acc[t + 64];"
        " if (t == 0) out[blockIdx.x] = acc[0];",
    ],
    ids=["direct", "through_a_local"],
)
def test_a_shared_array_indexed_by_the_thread_caps_the_block_sizes_drafted(body):
    # found on an H100: memcheck flagged a draft of block size 1024 for a 128-element shared array
    src = (
        "#define LANES 128\n__global__ void part(float *out, const float *x, int n) {\n"
        "  __shared__ float acc[LANES];\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        f"  if (i >= n) return;\n  {body}\n}}\n"
    )
    spec = _spec(src)
    assert max(spec.tune_params["block_size_x"]) <= 128 and spec.baseline_params()["block_size_x"] <= 128
