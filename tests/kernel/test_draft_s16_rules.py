"""Drafter rules made after seeing held-out batch 16 (issue 35), each on a kernel written here: bytes drawn
over their type's whole range include its top value, and a grid axis tiled by a #define that no thread
indexes gets blocks one thread wide there."""

from __future__ import annotations

import numpy as np

from kt_tui.kernel.expr import evaluate
from kt_tui.kernel.inputs import make_arg

from .test_draft_shapes import _draft

PARITY = """
__global__ void parity(const unsigned char *bytes, const unsigned int *words, int n, unsigned int *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = (bytes[i] ^ (bytes[i] >> 4)) ^ (words[i] >> 7);
}
"""


def test_values_over_a_types_whole_range_include_its_greatest():
    d = _draft(PARITY)
    args = {a.name: a for a in d.spec.args}
    assert (args["bytes"].low, args["bytes"].high) == (0, 256)  # before: 255, so 0xff was never drawn
    assert (args["words"].low, args["words"].high) == (0, 2**32)
    drawn = make_arg(args["bytes"], {**d.spec.sizes, "n": 5000})
    assert drawn.max() == 255 and drawn.dtype == np.uint8
    assert make_arg(args["words"], {**d.spec.sizes, "n": 5000}).max() > 2**31


PAIRS = """
#define TILE 32
__global__ void pairs(const float *p, int n, float *out) {
    const int r0 = blockIdx.y * TILE;
    const int c0 = blockIdx.x * TILE;
    if (r0 >= n || c0 >= n) return;
    const int i = r0 + threadIdx.x;
    const int j = c0 + threadIdx.x;
    if (i < n && j < n) out[(size_t)i * n + j] = p[i] - p[j];
}
"""


def test_a_tiled_grid_axis_no_thread_indexes_gets_one_thread_there_and_a_block_per_tile():
    spec = _draft(PAIRS).spec
    assert spec.tune_params["block_size_y"] == [1]  # before: [32], 32 x 32 threads each doing row 0's work
    assert spec.tune_params["block_size_x"] == [32]
    n = spec.sizes["n"]
    assert spec.grid_div_y is not None
    blocks_y = -(-evaluate(spec.problem_size[1], spec.sizes) // evaluate(spec.grid_div_y[0], {}))
    assert blocks_y == -(-n // 32)


ROWS_BY_MACRO = """
#define TILE 32
#define TY threadIdx.y
__global__ void rows(const float *a, int n, float *out) {
    const int r = blockIdx.y * TILE + TY;
    const int c = blockIdx.x * TILE + threadIdx.x;
    if (r < n && c < n) out[(size_t)r * n + c] = 2.0f * a[(size_t)r * n + c];
}
"""


def test_a_tiled_axis_whose_thread_index_a_macro_reads_keeps_its_threads():
    spec = _draft(ROWS_BY_MACRO).spec
    assert spec.tune_params["block_size_y"] != [1]  # one thread there: rows r0 + 1 .. r0 + 31 never written
