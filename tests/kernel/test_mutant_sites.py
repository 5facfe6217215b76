"""Issue 35, mutants that mean something (CPU): over every corpus kernel with its hand spec, no mutant
narrows an index or size variable (equivalent below 2**15, which no check size reaches), none changes a
warp's mask (0xffffffff + 1 is no value, it is undefined), and no single-writer guard after a barrier is
moved to another thread (`tid == 1` writes what `tid == 0` did). Element types are still read another
way where a value is loaded: the pointee of an input, a cast of a load, a local that holds one."""

import re
from pathlib import Path

import pytest

from kt_tui.kernel.mutant import mutants
from kt_tui.kernel.spec import load_spec

CORPUS = Path(__file__).parents[1] / "corpus"
KERNELS = sorted(p.name.removesuffix(".cu.toml") for p in (CORPUS / "specs").glob("*.cu.toml"))
ALL = 1000  # every site, not the sample


def _all(name: str):
    spec = load_spec(CORPUS / "specs" / f"{name}.cu.toml")
    return mutants((CORPUS / f"{name}.cu").read_text(), spec.kernel, cap=ALL)


def _context(what: str) -> str:
    return what.split(" in `", 1)[1]


@pytest.mark.parametrize("name", KERNELS)
def test_no_index_variable_is_narrowed_and_no_warp_mask_changed(name):
    for m in _all(name):
        if m.kind == "type":
            line = _context(m.what)
            computed = re.sub(r"\[[^]]*\]", "[]", line)  # what is computed, not where it is loaded from
            floating = m.what.split("`")[1] in ("double", "float")  # a value's precision, never an index's
            assert floating or not re.search(r"\b(threadIdx|blockIdx|blockDim|gridDim)\b", computed), m.what
            assert not line.startswith("for ("), m.what  # a loop's counter
            if "__global__" in line:  # a pointer parameter's pointee, never a scalar size
                assert "char" in m.what or "short" in m.what or "int8" in m.what or "int16" in m.what, m.what
        if m.kind == "const":  # a warp's mask is never changed; a shuffle's lane offset may be (a wrong neighbour)
            before = m.what.split("`")[1].lower()
            assert not before.startswith("0xffffffff"), m.what
            if "_sync(" in _context(m.what):
                assert re.search(r"_sync\([^,]*,[^,]*,\s*" + re.escape(before) + r"\b", _context(m.what)), m.what


def test_the_corpus_kernels_of_the_h100_table_keep_their_meaningful_type_mutants():
    """The first GPU run's survivors (2026-12-06) among those that are gone, and those kept."""
    said = {name: [m.what for m in _all(name) if m.kind == "type"] for name in ("conv2d", "spmv_csr", "rgb_to_gray")}
    assert said["conv2d"] == [] and said["spmv_csr"] == []  # index variables and `int *` index arrays
    # the input's bytes read as signed; the output only stored to keeps the same bits: not mutated
    assert said["rgb_to_gray"] == [
        "line 3:56: `unsigned char` -> `signed char` in `__global__ void rgb_to_gray(unsigned char *gray, const unsigned cha...`"
    ]
    lut = [m.what for m in _all("lut_u16") if m.kind == "type"]
    assert any("`int` -> `short` in `int v = raw[i];`" in w for w in lut)  # a local holding a load, narrowed
    bins = [m.what for m in _all("histogram_bins") if m.kind == "type"]
    assert any("`long long` -> `int`" in w for w in bins)  # a cast of a load, narrowed
    assert any("`double` -> `float` in `double temp = 0.0;`" in m.what for m in _all("dot_double"))


def test_a_single_writer_guard_after_a_barrier_is_not_moved_but_a_lane_guard_after_shuffles_is():
    reduce_consts = [m.what for m in _all("reduce_shared") if m.kind == "const"]
    assert not any("if (tid == 0)" in w for w in reduce_consts)
    assert any("partial[blockIdx.x] = sdata[0];" in w for w in reduce_consts)  # what it writes still is
    dot = [m.what for m in _all("dot_double") if m.kind == "const"]
    assert not any("if (threadIdx.x == 0)" in w for w in dot)
    # after a shuffle ladder only lane 0 holds the sum: lane 1 writing it is wrong, and it is made
    warp = [m.what for m in _all("warp_sum") if m.kind == "const"]
    assert "line 15:31: `0` -> `1` in `if ((threadIdx.x & 31) == 0)`" in warp
    # a guard that writes a thread's own value is no single writer of a shared result
    own = """__global__ void k(float *out, const float *in) {
    __shared__ float s[64];
    unsigned int tid = threadIdx.x;
    s[tid] = in[tid];
    __syncthreads();
    float mine = s[63 - tid] * 2.0f;
    if (tid == 0)
        out[blockIdx.x] = mine;
}
"""
    assert any("`0` -> `1` in `if (tid == 0)`" in m.what for m in mutants(own, "k", cap=ALL))


def test_the_sample_still_has_twenty_mutants_where_the_kernel_has_the_sites():
    short = {}
    for name in KERNELS:
        spec = load_spec(CORPUS / "specs" / f"{name}.cu.toml")
        source = (CORPUS / f"{name}.cu").read_text()
        sample, sites = mutants(source, spec.kernel), _all(name)
        if len(sites) >= 20 and len(sample) < 20:
            short[name] = len(sample)
    assert not short


def test_a_loop_first_in_a_kernels_body_is_mutated_not_taken_for_another_kernel():
    # a grid-stride loop as the body's first statement: its head `for (...) {` follows the kernel's own
    # `__global__ ... {` with no `;` between; its body was left out of the kernel, and with it most sites
    source = (CORPUS / "upfirdn_double.cu").read_text()
    made = mutants(source, "upfirdn1d")
    assert len(made) >= 15
    inside = [m for m in made if m.line > source[: source.index("for (")].count("\n") + 1]
    assert len(inside) >= 10


def test_a_kernel_with_launch_bounds_gets_its_bodys_mutants():
    # `__launch_bounds__(B)` was read as another kernel's name with the same body, and the body left out
    src = """template <int B>
__global__ void __launch_bounds__(B) k(const float *x, float *out, int n) {
    for (int i = threadIdx.x; i < n; i += B) { out[i] = x[i] * 2.0f + 1.0f; }
}
"""
    made = mutants(src, "k<256>")
    assert len(made) > 8 and any("2.0f" in m.what for m in made)
    plain = src.replace("template <int B>\n", "").replace("(B)", "(256)").replace("+= B", "+= 256")
    assert len(mutants(plain, "k")) > 8


def test_a_single_writer_of_a_shared_scalar_is_not_moved_and_one_reading_it_before_a_barrier_is():
    """`if (threadIdx.x == 0) count = 0;` (a `__shared__ int count`, no barrier before it) and
    `if (threadIdx.x == 0 && count > 0) atomicAdd(total, count);` after one: thread 1 writes the same
    (valid_bitmask_ballot's survivors on an H100, session 18); a read of the scalar before any barrier
    may see another thread's write in flight, and that guard still moves."""
    source = """__global__ void k(const int *flags, int n, int *total, int *first) {
    __shared__ int count;
    if (threadIdx.x == 0)
        count = 0;
    if (threadIdx.x == 0)
        first[blockIdx.x] = count;
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && flags[i] > 0)
        atomicAdd(&count, 1);
    __syncthreads();
    if (threadIdx.x == 0 && count > 0)
        atomicAdd(total, count);
}
"""
    moved = {m.what for m in mutants(source, "k", cap=ALL) if m.kind == "const" and "threadIdx.x == 0" in m.what}
    assert "line 3:24: `0` -> `1` in `if (threadIdx.x == 0)`" not in moved
    assert "line 5:24: `0` -> `1` in `if (threadIdx.x == 0)`" in moved
    assert not any(w.startswith("line 12:24:") for w in moved), moved


def test_a_single_writer_with_an_else_or_writing_a_parameters_own_copy_is_moved():
    """`tid == 1` is no equivalent where the guard has an else (thread 0 then runs it: out[1] never gets
    in[0]) or sets a by-value parameter, each thread's own copy (thread 1 then reads in[i] for in[i + skip])."""
    shifted = """__global__ void shift(const float *in, float *out, int n) {
    if (threadIdx.x == 0)
        out[0] = 0.0f;
    else
        out[threadIdx.x] = in[threadIdx.x - 1];
}
"""
    skipped = """__global__ void sk(const float *in, float *out, int n, int skip) {
    if (threadIdx.x == 0)
        skip = 0;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + skip < n)
        out[i] = in[i + skip];
}
"""
    for source, kernel in ((shifted, "shift"), (skipped, "sk")):
        moved = {m.what for m in mutants(source, kernel, cap=ALL) if m.kind == "const"}
        assert "line 2:24: `0` -> `1` in `if (threadIdx.x == 0)`" in moved, moved


BLOCK_2D = """__global__ void k(const int *flags, int n, int *total) {
    __shared__ int count;
    if (threadIdx.x == 0 && threadIdx.y == 0)
        count = 0;
    __syncthreads();
    const int i = (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    if (i < n && flags[i] > 0)
        atomicAdd(&count, 1);
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0)
        atomicAdd(total, count);
}
"""
SPEC_2D = """kernel = "k"
problem_size = ["n"]

[sizes]
n = 4096

[tune_params]
block_size_x = [32]
block_size_y = {ys}

[[args]]
name = "flags"
type = "int32"
size = "n"

[[args]]
name = "n"
type = "int32"
value = "n"

[[args]]
name = "total"
type = "int32"
size = "1"
init = "zeros"
output = true
"""


def test_a_single_writer_on_an_axis_the_launch_may_make_one_thread_wide_is_moved(tmp_path):
    """With block_size_y = 1 no thread has threadIdx.y == 1: `threadIdx.y == 1` adds nothing to total."""
    path = tmp_path / "k.cu.toml"
    for ys, moved_y in (("[1, 2, 4, 8]", True), ("[2, 4, 8]", False)):
        path.write_text(SPEC_2D.format(ys=ys))
        made = mutants(BLOCK_2D, "k", cap=ALL, spec=load_spec(path))
        moved = {m.what for m in made if m.kind == "const" and "threadIdx" in m.what}
        assert ("line 10:44: `0` -> `1` in `if (threadIdx.x == 0 && threadIdx.y == 0)`" in moved) == moved_y, moved
        assert not any(":24: `0` -> `1`" in w for w in moved)  # 32 threads along x: thread 1 is there


def test_a_single_writer_on_a_local_holding_threadIdx_y_is_moved_where_y_may_be_one_wide(tmp_path):
    path = tmp_path / "k.cu.toml"
    path.write_text(SPEC_2D.format(ys="[1, 2, 4, 8]"))
    local = BLOCK_2D.replace(
        "    __shared__ int count;\n", "    __shared__ int count;\n    const int ty = threadIdx.y;\n"
    )
    local = local.replace("threadIdx.x == 0 && threadIdx.y == 0", "threadIdx.x == 0 && ty == 0")
    moved = {m.what for m in mutants(local, "k", cap=ALL, spec=load_spec(path)) if m.kind == "const"}
    assert "line 11:35: `0` -> `1` in `if (threadIdx.x == 0 && ty == 0)`" in moved, moved
