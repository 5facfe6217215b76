"""Drafts from the kernel's index math (kernel/cuda_ast.py, kernel/extents.py, kernel/draft_sizes.py):
each array as long as the largest index the kernel reaches, at the spec's size and at every check size."""

import random
from fractions import Fraction

import numpy as np
import pytest

from kt_tui.cli import main
from kt_tui.kernel import cuda_ast
from kt_tui.kernel.draft import draft
from kt_tui.kernel.expr import evaluate
from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.poly import Poly
from kt_tui.kernel.source import Kernel, Param, find_kernels
from kt_tui.kernel.spec import check_spec

from .extent_kernels import (
    AOS,
    BATCHED,
    ESCAPE,
    FIXED_BLOCK,
    FLAT,
    GATHER,
    GRID_STRIDE,
    HALO,
    HELPER,
    HIST,
    KMEANS,
    LIFE,
    NBODY,
    REDUCE,
    SQUARE,
    STENCIL_3D,
    STRIDED,
    TILED,
    _all_sizes,
    _covers,
    _draft,
)


def test_aos_particles_are_three_floats_each():
    spec = _draft(AOS)
    assert spec.problem_size == ["npart"] and list(spec.sizes) == ["npart"]
    _covers(spec, {"pos": lambda s: 3 * s["npart"], "vel": lambda s: 3 * s["npart"]})
    pos = spec.args[0]
    assert pos.output and pos.init == "random"  # read and updated: starts with values


def test_square_matmul_has_one_size_and_check_sizes_stay_in_bounds():
    spec = _draft(SQUARE)
    assert spec.problem_size == ["dim", "dim"] and list(spec.sizes) == ["dim"]
    assert len(spec.extra_sizes()) == 2  # ragged and small: both a square dim
    _covers(spec, {n: (lambda s: s["dim"] ** 2) for n in ("A", "B", "C")})
    assert [a.name for a in spec.outputs()] == ["C"]


def test_halo_grid_is_padded_by_one_on_each_side():
    spec = _draft(HALO)
    assert spec.problem_size == ["w", "h"]
    assert {a.name: a.size for a in spec.args if a.is_array} == {"next": "(w + 2)*(h + 2)", "cur": "(w + 2)*(h + 2)"}
    _covers(spec, {"cur": lambda s: (s["w"] + 2) * (s["h"] + 2)})


def test_loop_bounds_are_not_thread_axes():
    spec = _draft(KMEANS)
    assert spec.problem_size == ["npoints"] and "block_size_y" not in spec.tune_params
    _covers(
        spec,
        {
            "points": lambda s: s["npoints"] * s["ndims"],
            "centres": lambda s: s["ncentres"] * s["ndims"],
            "label": lambda s: s["npoints"],
        },
    )
    work = spec.sizes["npoints"] * spec.sizes["ncentres"] * spec.sizes["ndims"]
    assert work <= 2**31 and min(spec.sizes.values()) > 1  # real work, not a million cubed
    assert [a.name for a in spec.outputs()] == ["label"]


def test_a_grid_of_flags_is_data_not_an_index_array():
    spec = _draft(LIFE)
    cells = spec.args[0]
    assert (cells.low, cells.high) == (0, 2) and not cells.output
    values = make_args(spec, {"width": 64, "height": 64})[0]
    assert set(np.unique(values)) == {0, 1}  # a live grid, so the reference is not all zeros


def _escape_counts(spec, w=96, h=64):
    sizes = {**spec.sizes, "width": w, "height": h}
    v = {a.name: evaluate(a.value, sizes) if isinstance(a.value, str) else a.value for a in spec.args if not a.is_array}
    cr = v["x0"] + np.arange(w)[None, :] * v["dx"] + 0 * np.arange(h)[:, None]
    ci = v["y0"] + np.arange(h)[:, None] * v["dy"] + 0 * np.arange(w)[None, :]
    zr, zi, it = np.zeros_like(cr), np.zeros_like(cr), np.zeros(cr.shape, int)
    for _ in range(int(v["max_iter"])):
        alive = zr * zr + zi * zi < 4
        zr, zi = np.where(alive, zr * zr - zi * zi + cr, zr), np.where(alive, 2 * zr * zi + ci, zi)
        it += alive
    return it


def test_escape_time_coordinates_make_real_work():
    spec = _draft(ESCAPE)
    counts = _escape_counts(spec)
    assert len(np.unique(counts)) > 10  # not every pixel stopping at the same iteration
    assert counts.max() == spec.args[-1].value >= 100 and counts.min() <= 2


def test_julia_set_constants_and_zoom_make_real_work():
    spec = _draft("""
__global__ void julia(int *out, int w, int h, float cx, float cy, float zoom, int maxit) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float zr = (x - w / 2) / zoom, zi = (y - h / 2) / zoom;
    int k = 0;
    for (; k < maxit && zr * zr + zi * zi < 4.0f; k++) {
        float t = zr * zr - zi * zi + cx;
        zi = 2.0f * zr * zi + cy;
        zr = t;
    }
    out[y * w + x] = k;
}
""")
    w, h = 96, 64
    v = {
        a.name: evaluate(a.value, {**spec.sizes, "w": w, "h": h}) if isinstance(a.value, str) else a.value
        for a in spec.args
        if not a.is_array
    }
    zr = ((np.arange(w)[None, :] - w // 2) / v["zoom"]) + 0 * np.arange(h)[:, None]
    zi = ((np.arange(h)[:, None] - h // 2) / v["zoom"]) + 0 * np.arange(w)[None, :]
    k = np.zeros(zr.shape, int)
    for _ in range(int(v["maxit"])):
        alive = zr * zr + zi * zi < 4
        zr, zi = np.where(alive, zr * zr - zi * zi + v["cx"], zr), np.where(alive, 2 * zr * zi + v["cy"], zi)
        k += alive
    assert len(np.unique(k)) > 10


def test_a_bin_count_bounded_in_a_check_gets_a_modest_value():
    spec = _draft("""
__global__ void bins(const unsigned char *img, unsigned int *hist, int n, int nbins) {
    extern __shared__ unsigned int local[];
    if (threadIdx.x < nbins) local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[img[i] % nbins], 1);
    __syncthreads();
    if (threadIdx.x < nbins) atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}
""")
    img, hist = spec.args[:2]
    assert spec.problem_size == ["n"] and hist.size == "nbins" and 16 <= spec.sizes["nbins"] <= 4096
    assert hist.output and hist.init == "zeros" and img.low == 0


def test_index_array_is_bounded_by_the_array_it_indexes():
    spec = _draft(GATHER)
    out, table, which, n = spec.args
    assert not table.output and [a.name for a in spec.outputs()] == ["out"]
    length = int(evaluate(table.size, spec.sizes))
    high = int(evaluate(which.high, spec.sizes))
    assert which.low == 0 and 2 * (high - 1) + 1 < length  # table[which[i] * 2 + 1] stays inside
    assert 2 * high + 1 >= length  # and reaches the whole table


def test_outputs_written_in_device_functions_and_read_through_them():
    spec = _draft(HELPER)
    assert [a.name for a in spec.outputs()] == ["best"]
    _covers(spec, {"pts": lambda s: 2 * s["npts"], "best": lambda s: s["npts"]})


def test_strides_offsets_and_local_pointers():
    spec = _draft(STRIDED)
    assert [a.name for a in spec.outputs()] == ["sums"]
    _covers(spec, {"A": lambda s: (s["rows"] - 1) * s["lda"] + s["first"] + s["cols"], "sums": lambda s: s["rows"]})
    for s in _all_sizes(spec):  # a row stride at least as long as what a row spans, at every size
        assert s["lda"] >= s["first"] + s["cols"]


def test_grid_stride_loop_is_the_problem_axis():
    spec = _draft(GRID_STRIDE)
    assert spec.problem_size == ["n"] and spec.sizes == {"n": 1 << 20}
    _covers(spec, {"y": lambda s: s["n"], "x": lambda s: s["n"]})


def test_block_index_batches_are_an_axis_of_their_own():
    spec = _draft(BATCHED)
    assert spec.problem_size == ["n", "1", "batch"] and spec.grid_div_z == []
    assert "block_size_z" not in spec.tune_params
    _covers(spec, {"out": lambda s: s["n"] * s["batch"], "in": lambda s: s["n"] * s["batch"]})


def test_flattened_index_split_by_div_and_mod():
    spec = _draft(FLAT)
    _covers(spec, {"out": lambda s: s["w"] * s["h"], "in": lambda s: s["w"] * s["h"]})


def test_histogram_values_go_through_modulo_so_they_are_not_negative():
    spec = _draft(HIST)
    data, bins, n, nbins = spec.args
    assert data.low == 0 and bins.output and bins.init == "zeros" and bins.size == "nbins"


def test_reduction_reads_two_elements_per_thread_within_n():
    spec = _draft(REDUCE)
    # blockIdx.x * (blockDim.x * 2) + threadIdx.x: each thread reads two elements, so n / 2 threads
    assert spec.problem_size == ["ceil(n / 2)"] and spec.args[0].size == "n"
    partial = spec.args[1]
    assert partial.output and int(evaluate(partial.size, spec.sizes)) >= spec.sizes["n"] // 256


def test_tiled_matmul_bounds_come_from_its_guards_and_its_tile_is_the_block():
    spec = _draft(TILED)
    assert spec.problem_size == ["N", "M"] and spec.sizes["K"] > 1
    _covers(spec, {"A": lambda s: s["M"] * s["K"], "B": lambda s: s["K"] * s["N"], "C": lambda s: s["M"] * s["N"]})
    assert spec.tune_params["block_size_x"] == [16] and spec.tune_params["block_size_y"] == [16]


def test_3d_stencil_with_a_defined_radius():
    spec = _draft(STENCIL_3D)
    assert spec.problem_size == ["nx - 2*RADIUS", "ny - 2*RADIUS", "nz - 2*RADIUS"]
    _covers(spec, {"u": lambda s: s["nx"] * s["ny"] * s["nz"], "v": lambda s: s["nx"] * s["ny"] * s["nz"]})
    assert spec.extra_sizes() and all(t["sizes"]["RADIUS"] == 2 for t in spec.extra_sizes())  # a #define stays


def test_a_defined_tile_fixes_the_block_size():
    spec = _draft(FIXED_BLOCK)
    assert spec.tune_params == {"block_size_x": [32], "block_size_y": [32]}
    _covers(spec, {"dst": lambda s: s["width"] * s["height"], "src": lambda s: s["width"] * s["height"]})


def test_float3_arrays_are_three_floats_an_element():
    spec = _draft(NBODY)
    body, acc, n, soft = spec.args
    assert (body.type, body.size) == ("float4", "n") and (acc.type, acc.size) == ("float32", "3*n")
    assert acc.output and spec.sizes["n"] ** 2 <= 2**31  # n-body is n squared: a size that finishes


def test_index_macros_are_expanded():
    spec = _draft("""
#define AT(x, y) ((y) * width + (x))
__global__ void shift(float *out, const float *in, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width - 1 && y < height) out[AT(x, y)] = in[AT(x + 1, y)];
}
""")
    _covers(spec, {"in": lambda s: s["width"] * s["height"]})
    assert not any(a.size.startswith("max(") for a in spec.args if a.is_array)
    assert spec.problem_size == ["width", "height"]  # `x < width - 1`: the grid still covers the width


def test_an_array_of_structs_is_its_fields_per_element():
    spec = _draft("""
struct Particle { float x, y, z; float v[3]; };
typedef struct { double m; int id; } Tagged;
__global__ void advance(Particle *p, const Tagged *t, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { p[i].x += dt * p[i].v[0] * t[i].m; p[i].y += dt * p[i].v[1]; p[i].z += dt * p[i].v[2]; }
}
""")
    p, t = spec.args[:2]
    assert (p.type, p.size, p.output) == ("float32", "6*n", True)
    assert (t.type, t.size, t.init) == ("uint8", "16*n", "zeros")  # a double and an int, padded to 16 bytes


def test_every_guess_is_marked_and_spec_prints_them(tmp_path, capsys):
    cu = tmp_path / "escape.cu"
    cu.write_text(ESCAPE)
    (k,) = find_kernels(ESCAPE)
    d = draft(k, ESCAPE)
    assert {key for key, _ in d.guesses} >= {"args.x0", "args.dx", "args.max_iter"}
    assert main(["spec", str(cu)]) == 0
    out = capsys.readouterr().out
    text = (tmp_path / "escape.cu.toml").read_text()
    assert sum(line.startswith("# guess: ") for line in text.splitlines()) == len(d.guesses)
    for line in d.lines():
        assert f"  {line}\n" in out
    assert f"{len(d.guesses)} guesses to check" in out


def test_an_index_it_cannot_bound_is_a_guess_never_smaller_than_the_problem():
    src = """
__global__ void chase(float *out, const float *in, const float *where, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[(int)where[i]];
}
"""
    (k,) = find_kernels(src)
    d = draft(k, src)
    assert any(key == "args.in" for key, _ in d.guesses)
    assert int(evaluate(d.spec.args[1].size, d.spec.sizes)) >= d.spec.sizes["n"]


def test_unguarded_kernel_has_no_ragged_check_sizes():
    src = (
        "__global__ void add(float *c, const float *a, const float *b) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  c[i] = a[i] + b[i];\n}\n"
    )
    spec = _draft(src)
    assert spec.verify_sizes == [] and spec.extra_sizes() == []  # a ragged size would run past the arrays


def test_polynomial_text_is_factored_in_axis_order():
    w, h = Poly.var("w"), Poly.var("h")
    assert ((w + Poly.const(2)) * (h + Poly.const(2))).text({"w": 0, "h": 1}) == "(w + 2)*(h + 2)"
    assert (Poly.var("dim") * Poly.var("dim")).text() == "dim*dim"
    assert (Poly.const(3) * Poly.var("npart")).text() == "3*npart"
    assert evaluate("(w + 2)*(h + 2)", {"w": 3, "h": 4}) == 30
    half = Poly.var("n") * Poly.const(Fraction(1, 2))
    assert half.text() == "ceil(n / 2)" and evaluate(half.text(), {"n": 37}) == 19  # whole, never under n / 2


def test_a_half_size_problem_is_whole_at_odd_sizes():
    spec = _draft("""
__global__ void pairs(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2) out[i] = in[2 * i] + in[2 * i + 1];
}
""")
    _covers(spec, {"in": lambda s: s["n"]})
    for sizes in _all_sizes(spec):
        assert int(evaluate(spec.args[0].size, sizes)) >= sizes["n"] // 2


KERNEL = Kernel("k", (Param("a", "float *"), Param("n", "int")), 1)


GARBAGE = [
    " " * (1 << 20),
    "__global__ void k(float *a, int n) { a[" + "(" * 30000 + "1" + ")" * 30000 + "] = 1; }",
    "__global__ void k(float *a, int n) { " + "{" * 20000 + "a[0] = 1;" + "}" * 20000 + " }",
    "__global__ void k(float *a, int n) { " + "if (n) " * 20000 + "a[0] = 1; }",
    "__global__ void k(float *a, int n) { " + "for (int i = 0; i < n; i++) " * 2000 + "a[i] = 1; }",
    "__global__ void k(float *a, int n) { a[" + "*".join(["n"] * 3000) + "] = 1; }",
    "__device__ void f(float *a, int n) { f(a, n); a[n] = 1; }\n__global__ void k(float *a, int n) { f(a, n); }",
    "__global__ void k(float *a, int n) {\n" + "a[n] = a[n] + 1;\n" * 80000 + "}",
    "random",
    "tokens",
]


@pytest.mark.parametrize(
    "src",
    GARBAGE,
    ids=["blanks", "parens", "braces", "ifs", "fors", "product", "recursion", "long", "random", "tokens"],
)
def test_garbage_never_raises_and_takes_bounded_time(src):
    rng = random.Random(len(src))
    if src == "random":
        src = bytes(rng.getrandbits(8) for _ in range(50_000)).decode("latin-1")
    elif src == "tokens":
        words = [
            "__global__",
            "void",
            "k",
            "(",
            ")",
            "{",
            "}",
            "[",
            "]",
            "a",
            "n",
            "i",
            "<",
            "=",
            ";",
            "for",
            "if",
            "+",
            "*",
            "float",
            "int",
            ",",
            "threadIdx",
            ".",
            "x",
            "1",
            "return",
            "while",
            "&",
            "->",
        ]
        src = "__global__ void k(float *a, int n) {" + " ".join(rng.choice(words) for _ in range(30_000)) + "}"
    cuda_ast.parse(src)
    d = draft(KERNEL, src)
    check_spec(d.spec, KERNEL)
    assert d.guesses


# one block per sequence; a frame's row is read only below the sequence's length, a loaded value
# clamped to the frame count; the rows are reached through two pointers
LENGTHS = """
__global__ void frame_max(const float *x, const int *lengths, int batch, int frames, int cols, float *out)
{
    const int b = blockIdx.x;
    if (b >= batch) return;
    const int len = min(lengths[b], frames);
    const float *seq = x + (size_t)b * frames * cols;
    for (int t = threadIdx.x; t < frames; t += blockDim.x) {
        float m = -1.0f;
        if (t < len) {
            const float *row = seq + (size_t)t * cols;
            m = row[0];
            for (int c = 1; c < cols; ++c) m = fmaxf(m, row[c]);
        }
        out[b * frames + t] = m;
    }
}
"""


def test_a_guard_on_a_loaded_length_inside_a_loop_over_a_size_keeps_the_sizes_bound():
    spec = _draft(LENGTHS)
    _covers(spec, {"x": lambda s: s["batch"] * s["frames"] * s["cols"], "out": lambda s: s["batch"] * s["frames"]})


STEPPED = """
__global__ void take_evens(const float *x, int n, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int k = 2 * i;
    y[i] = x[k++];
}
"""


def test_an_index_stepped_inside_its_subscript_is_read_once():
    # the analysis took a subscript's argument list as an expression and then each part again: `k++`
    # ran twice, the index was unknown and x sized as the problem (n, where the kernel reads x[2 * n - 2])
    d = draft(find_kernels(STEPPED)[0], STEPPED)
    assert next(a.size for a in d.spec.args if a.name == "x") == "2*n - 1"
    assert not [why for key, why in d.guesses if key == "args.x"]
