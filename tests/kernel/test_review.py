from kt_tui.kernel.review import Flag, review, summarize

from ..conftest import EXAMPLES

MATMUL = (EXAMPLES / "matmul.cu").read_text()
VECTOR_ADD = (EXAMPLES / "vector_add.cu").read_text()
REDUCTION = (EXAMPLES / "reduction.cu").read_text()

TILED = """// Tiled matmul: each block stages block_size_x x block_size_x tiles of A and B in shared memory.
__device__ __forceinline__ float fetch(const float *m, int row, int col, int n) {
    return (row < n && col < n) ? m[row * n + col] : 0.0f;
}

__global__ void matmul(float *__restrict__ C, const float *__restrict__ A, const float *__restrict__ B, int n) {
    __shared__ float ta[block_size_y][block_size_x];
    __shared__ float tb[block_size_y][block_size_x];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * block_size_x + tx;
    int row = blockIdx.y * block_size_y + ty;
    float sum = 0.0f;
    for (int t = 0; t < n; t += block_size_x) {
        ta[ty][tx] = fetch(A, row, t + tx, n);
        tb[ty][tx] = fetch(B, t + ty, col, n);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < block_size_x; k++) {
            sum += ta[ty][k] * tb[k][tx];
        }
        __syncthreads();
    }
    if (row < n && col < n) {
        C[row * n + col] = sum;
    }
}
"""


def kinds(flags):
    return sorted(f.kind for f in flags)


def test_unchanged_and_clean_rewrite_have_no_flags():
    assert review(MATMUL, MATMUL, "matmul") == []
    assert review(MATMUL, TILED, "matmul") == []
    assert summarize([]) == "review: nothing to flag"


def test_comments_are_ignored():
    generated = VECTOR_ADD.replace(
        "{\n    int i",
        '{\n    // #include <cstdio> system("rm -rf /")\n    /* printf("%d", i); asm("trap;"); */\n    int i',
    )
    assert review(VECTOR_ADD, generated, "vector_add") == []


def test_new_include_is_flagged_with_its_line_but_an_existing_one_is_not():
    original = "#include <cuda_fp16.h>\n" + VECTOR_ADD
    generated = "#include <cuda_fp16.h>\n#include <cstdio>\n" + VECTOR_ADD
    flags = review(original, generated, "vector_add")
    assert flags == [Flag("include", 2, "new #include <cstdio>")]


def test_host_functions():
    generated = (
        VECTOR_ADD
        + """
__device__ float twice(float x) { return 2 * x; }
__host__ __device__ float thrice(float x) { return 3 * x; }
int main() { return 0; }
"""
    )
    flags = [f for f in review(VECTOR_ADD, generated, "vector_add") if f.kind == "host_function"]
    assert [(f.line, "thrice" in f.message, "main" in f.message) for f in flags] == [
        (10, True, False),
        (11, False, True),
    ]
    assert "__host__ __device__" in flags[0].message
    # the same host function in the original is not new
    assert review(generated, generated + "\n", "vector_add") == []


def test_global_state():
    generated = (
        """__device__ int counter = 0;
__device__ float weights[4];
__constant__ float coeffs[2] = {0.5f, 0.25f};
constexpr int PAD = 1;
__managed__ int calls;
static float scale = 2.0f;
int host_total;
__device__ float4 initial = make_float4(0, 0, 0, 0);
"""
        + VECTOR_ADD
    )
    flags = [f for f in review(VECTOR_ADD, generated, "vector_add") if f.kind == "global_state"]
    assert [f.line for f in flags] == [5, 6, 7, 8]
    assert "__managed__" in flags[0].message and "static" in flags[1].message
    assert "initialized by a call" in flags[3].message
    # state the original already had is not flagged
    original = "static float scale = 2.0f;\n" + VECTOR_ADD
    assert review(original, original, "vector_add") == []


def test_inline_asm_counts_against_the_original():
    asm = '    unsigned lane; asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));\n'
    one = VECTOR_ADD.replace("    if (i < n)", asm + "    if (i < n)")
    flags = review(VECTOR_ADD, one, "vector_add")
    assert kinds(flags) == ["inline_asm"] and flags[0].line == 4
    assert review(one, one, "vector_add") == []
    two = one.replace(asm, asm + asm)
    assert kinds(review(one, two, "vector_add")) == ["inline_asm"]


def test_printf_says_when_it_is_in_a_loop():
    generated = REDUCTION.replace("sum += in[i];", 'sum += in[i];\n            printf("%d\\n", i);').replace(
        "partial[tid] = sum;", 'partial[tid] = sum;\n    if (tid == 0) printf("block %d\\n", blockIdx.x);'
    )
    flags = review(REDUCTION, generated, "reduce_sum")
    assert kinds(flags) == ["printf", "printf"]
    assert "in a loop" in flags[0].message and flags[0].line == 13
    assert "in a loop" not in flags[1].message


def test_signature_changes():
    renamed = MATMUL.replace("int n)", "int size)").replace("< n", "< size").replace("* n", "* size")
    flags = review(MATMUL, renamed, "matmul")
    assert kinds(flags) == ["signature"] and "`int n` became `int size`" in flags[0].message
    retyped = MATMUL.replace("const float *B", "const double *B").replace("B[", "(float)B[")
    assert kinds(review(MATMUL, retyped, "matmul")) == ["signature"]
    extra = MATMUL.replace("int n)", "int n, int lda)")
    flags = review(MATMUL, extra, "matmul")
    assert kinds(flags) == ["signature"] and "5 parameters instead of 4" in flags[0].message
    # qualifiers do not change how kernel_tuner passes the arguments
    restrict = MATMUL.replace("float *C", "float *__restrict__ C").replace("const float *A", "const float* A")
    assert review(MATMUL, restrict, "matmul") == []


def test_extra_and_missing_kernels():
    extra = VECTOR_ADD + "\n__global__ void warmup(float *x) { x[0] = 0; }\n"
    flags = review(VECTOR_ADD, extra, "vector_add")
    assert flags == [Flag("extra_kernel", 9, "new __global__ function warmup()")]
    gone = VECTOR_ADD.replace("vector_add(", "vector_add_v2(")
    assert kinds(review(VECTOR_ADD, gone, "vector_add")) == ["extra_kernel", "missing_kernel"]


def test_removed_bounds_check_is_flagged():
    unchecked = VECTOR_ADD.replace("if (i < n) {", "{")
    flags = review(VECTOR_ADD, unchecked, "vector_add")
    assert kinds(flags) == ["bounds_check"] and flags[0].line == 2 and " n " in flags[0].message
    no_guard = MATMUL.replace("if (row < n && col < n) {", "{").replace("k < n", "k < 1024")
    assert kinds(review(MATMUL, no_guard, "matmul")) == ["bounds_check"]
    transpose = (EXAMPLES / "transpose.cu").read_text()
    flags = review(transpose, transpose.replace("x < width && ", ""), "transpose")
    assert kinds(flags) == ["bounds_check"] and "width" in flags[0].message


def test_other_forms_of_bounds_check_are_accepted():
    stride = VECTOR_ADD.replace(
        "if (i < n) {\n        c[i] = a[i] + b[i];\n    }",
        "for (; i < n; i += gridDim.x * block_size_x) c[i] = a[i] + b[i];",
    )
    assert review(VECTOR_ADD, stride, "vector_add") == []
    early = VECTOR_ADD.replace("if (i < n) {", "if (i >= n) return;\n    {")
    assert review(VECTOR_ADD, early, "vector_add") == []
    via_local = VECTOR_ADD.replace("if (i < n) {", "const int limit = n;\n    if (limit > i) {")
    assert review(VECTOR_ADD, via_local, "vector_add") == []


def test_host_api_calls():
    generated = VECTOR_ADD.replace(
        "c[i] = a[i] + b[i];",
        'float *t = (float *)malloc(4);\n        if (getenv("X")) exit(1);\n        c[i] = a[i] + b[i];',
    )
    generated += "\nvoid setup(float **p) { cudaMalloc((void **)p, 4); }\n"
    flags = [f for f in review(VECTOR_ADD, generated, "vector_add") if f.kind == "host_api"]
    assert [(f.line, f.message.split(":")[0]) for f in flags] == [
        (5, "new call to malloc"),
        (6, "new call to getenv"),
        (6, "new call to exit"),
        (11, "new call to cudaMalloc"),
    ]
    assert [f for f in review(generated, generated, "vector_add")] == []


def test_summarize_counts_kinds_and_lists_lines():
    flags = [
        Flag("include", 1, "new #include <cstdio>"),
        Flag("printf", 7, 'new printf in a loop: printf("x")'),
        Flag("printf", 9, 'new printf: printf("y")'),
        Flag("missing_kernel", 0, "the kernel k is gone"),
    ]
    text = summarize(flags)
    assert text.splitlines()[0] == "review: 4 flags (1 include, 2 printf, 1 missing_kernel)"
    assert "  line 7: new printf in a loop" in text and "  the kernel k is gone" in text
