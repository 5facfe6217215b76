import tomllib

import pytest

from kt_tui.kernel.params import apply_renames, check_params, rename_tune_params

from ..conftest import EXAMPLES

DRIFTED = """#define IDX(row_i, col_j) ((row_i) * n + (col_j))
template <int PAD_AMOUNT, typename T>
__device__ T load(const T *__restrict__ p, int k) { return p[k + PAD_AMOUNT]; }
enum Mode { MODE_FAST, MODE_SAFE = 2 };

__global__ void matmul(float *C, const float *A, const float *B, int n) {
    __shared__ float tile_a[TILE][TILE + 1], tile_b[TILE][TILE];  // TILE_SIZE in a comment
    int tx = threadIdx.x, local_row = threadIdx.y;
    unsigned lane_id = threadIdx.x % warpSize;
    int col = blockIdx.x * BLOCK_SIZE + tx;
    const char *label = "ITEMS_PER_THREAD";
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
#pragma unroll
        for (int k = 0; k < TILE; k++) {
            acc += tile_a[local_row][k] * tile_b[k][tx] + MODE_FAST * lane_id;
        }
        __syncthreads();
    }
    float4 v = make_float4(acc, 0, 0, 0);
    C[IDX(local_row, col)] = min(v.x, FLT_MAX) + grid_size_x * kernel_tuner;
}
"""
TUNE = {"block_size_x": [16, 32], "block_size_y": [1, 2], "tile_size": [16, 32], "items_per_thread": [1, 2]}


@pytest.mark.parametrize("name", ["vector_add", "matmul", "transpose", "reduction"])
def test_the_examples_match_their_specs(name):
    spec = tomllib.loads((EXAMPLES / f"{name}.cu.toml").read_text())
    report = check_params((EXAMPLES / f"{name}.cu").read_text(), spec["tune_params"])
    assert report.ok
    assert (report.used_undeclared, report.declared_unused, report.renames) == ([], [], {})


def test_drifted_names_get_renames_and_nothing_declared_is_reported():
    report = check_params(DRIFTED, TUNE)
    assert report.used_undeclared == ["TILE", "BLOCK_SIZE"]
    assert report.declared_unused == ["tile_size", "items_per_thread"]  # block_size_y is a block dimension
    assert report.renames == {"TILE": "tile_size", "BLOCK_SIZE": "block_size_x"}
    assert not report.ok  # items_per_thread is still unused


def test_renaming_fixes_the_code():
    report = check_params(DRIFTED, TUNE)
    fixed = apply_renames(DRIFTED, report.renames)
    assert "tile_a[tile_size][tile_size + 1]" in fixed
    assert "blockIdx.x * block_size_x + tx" in fixed
    assert "// TILE_SIZE in a comment" in fixed and '"ITEMS_PER_THREAD"' in fixed
    after = check_params(fixed, {k: v for k, v in TUNE.items() if k != "items_per_thread"})
    assert after.ok and after.used_undeclared == [] and after.declared_unused == []


def test_apply_renames_touches_whole_identifiers_only():
    src = (
        '#include "TILE.h"\n'
        "int a = TILE + TILE_ROWS + s.TILE + p->TILE + ns::TILE; /* TILE */\n"
        "const char *m = \"TILE\"; char c = 'T'; // TILE\n"
        "#define TWICE (2 * TILE)\n"
    )
    out = apply_renames(src, {"TILE": "tile_size"})
    assert out == (
        '#include "TILE.h"\n'
        "int a = tile_size + TILE_ROWS + s.TILE + p->TILE + ns::TILE; /* TILE */\n"
        "const char *m = \"TILE\"; char c = 'T'; // TILE\n"
        "#define TWICE (2 * tile_size)\n"
    )
    assert apply_renames(src, {}) == src


def test_case_and_underscore_drift_and_camel_case():
    src = "__global__ void k(float *x) { x[threadIdx.x] = ItemsPerThread * blockSizeX + TILE_size; }"
    report = check_params(src, {"block_size_x": [32], "items_per_thread": [1], "tile_size": [8]})
    assert report.renames == {
        "ItemsPerThread": "items_per_thread",
        "blockSizeX": "block_size_x",
        "TILE_size": "tile_size",
    }
    assert report.ok


def test_aliases_need_their_target_in_tune_params():
    src = "__global__ void k(float *x) { x[threadIdx.x] = ELEMENTS_PER_THREAD * BLOCK_SIZE; }"
    report = check_params(src, {"block_size_x": [32]})
    assert report.renames == {"BLOCK_SIZE": "block_size_x"}
    assert report.used_undeclared == ["ELEMENTS_PER_THREAD", "BLOCK_SIZE"]
    assert not report.ok
    report = check_params(src, {"block_size_x": [32], "items_per_thread": [1, 2]})
    assert report.renames == {"ELEMENTS_PER_THREAD": "items_per_thread", "BLOCK_SIZE": "block_size_x"}
    assert report.ok


def test_custom_block_size_names():
    src = "__global__ void k(float *x) { x[blockIdx.x * block_size + threadIdx.x] = BY; }"
    report = check_params(src, {"BX": [64, 128]}, block_size_names=["BX", "BY", "BZ"])
    assert report.renames == {"block_size": "BX"}
    assert report.used_undeclared == ["block_size"] and report.ok


def test_preprocessor_uses():
    src = """#ifdef OPTIONAL_FEATURE
#define SCALE 2
#endif
#if USE_SHUFFLE && defined(HAS_WARP)
#define STEP (SCALE * UNROLL)
#endif
__global__ void k(float *x) {
#pragma unroll UNROLL_FACTOR
    for (int i = 0; i < 8; i++) x[i] *= STEP;
}
"""
    report = check_params(src, {"use_shuffle": [0, 1], "loop_unroll_factor": [0, 4]})
    assert report.used_undeclared == ["USE_SHUFFLE", "UNROLL", "UNROLL_FACTOR"]
    assert report.renames == {
        "USE_SHUFFLE": "use_shuffle",
        "UNROLL": "loop_unroll_factor",
        "UNROLL_FACTOR": "loop_unroll_factor",
    }
    assert report.declared_unused == ["use_shuffle", "loop_unroll_factor"]


def test_unused_parameter_is_reported():
    src = (EXAMPLES / "vector_add.cu").read_text()
    report = check_params(src, {"block_size_x": [128], "use_ldg": [0, 1]})
    assert report.declared_unused == ["use_ldg"] and report.used_undeclared == []
    assert not report.ok


def test_rename_tune_params_keeps_order_and_values():
    tune = {"block_size_x": [32, 64], "tile_size": [8, 16], "items_per_thread": [1, 2]}
    out = rename_tune_params(tune, {"TILE": "tile_size", "ITEMS": "items_per_thread"})
    assert list(out.items()) == [("block_size_x", [32, 64]), ("TILE", [8, 16]), ("ITEMS", [1, 2])]
    with pytest.raises(ValueError, match="both"):
        rename_tune_params(tune, {"TILE": "tile_size", "TILE_SIZE": "tile_size"})
    with pytest.raises(ValueError, match="already"):
        rename_tune_params(tune, {"block_size_x": "tile_size"})


def test_declarations_in_many_forms_are_not_reported():
    src = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
struct Acc { float total_sum; };
__global__ void k(float4 *out_vec, const __half *in_half, uint32_t *bit_mask, Acc *acc_ptr, int n) {
    cg::thread_block *grp_ptr = nullptr;
    cg::thread_block blk_grp = cg::this_thread_block();
    auto add_one = [&](int some_val) { return some_val + 1; };
    int a_b = 0, c_d, e_f[4];
    for (int ii = 0, jj_k = 1; ii < n; ii++) c_d = jj_k;
    size_t big_n = n * a_b;
    out_vec[0].x = add_one(c_d) + e_f[0] + big_n + acc_ptr->total_sum + (bit_mask != 0) + (grp_ptr != 0)
                   + x_y_z * Q_MAX + __shfl_down_sync(0xffffffff, a_b, 1) + INT_MAX;
    blk_grp.sync();
}
"""
    report = check_params(src, {"block_size_x": [32]})
    assert report.used_undeclared == ["x_y_z", "Q_MAX"]
    assert report.renames == {} and not report.ok
