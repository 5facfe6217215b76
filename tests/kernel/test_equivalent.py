"""Issue 35: mutants equivalent by construction are explained and not counted (kernel/equivalent.py),
and nothing an input could kill is called equivalent."""

from pathlib import Path

import numpy as np

from kt_tui.kernel.mutant import mutants

CORPUS = Path(__file__).parents[1] / "corpus"


def _labelled(name, kernel):
    return {m.what: m.equivalent for m in mutants((CORPUS / f"{name}.cu").read_text(), kernel)}


def _find(labels, words):
    return next(why for what, why in labels.items() if words in what)


def test_a_select_between_the_two_sides_it_compares_is_equivalent_at_the_tie():
    relu = _labelled("relu_bias", "bias_relu")
    assert "at the tie both arms are equal" in _find(relu, "`>` -> `>=` in `y[b * features + f] = v > 0.0f")
    assert _find(relu, "`<` -> `<=` in `if (b < batch") == ""  # a bound: a thread at b == batch would write
    clamp = _labelled("clamp_add_int", "clamp_add")
    assert "both arms are equal" in _find(clamp, "`>` -> `>=` in `out[idx] = s < lo ? lo : (s > hi")
    assert _find(clamp, "`<` -> `<=` in `out[idx] = s < lo ? lo") == ""  # its other arm is not `s`


def test_a_guard_around_adding_the_value_it_compares_with_zero_adds_zero_at_the_tie():
    hist = _labelled("histogram_shared", "histogram_smem")
    assert "at the tie it adds 0" in _find(hist, "`>` -> `>=` in `if (local[b] > 0)`")


def _butterfly(values, start):
    """Each lane's value after `for (o = start; o > 0; o >>= 1) v += __shfl_xor_sync(~0, v, o)`."""
    v = np.array(values, dtype=np.float64)
    o = start
    while o > 0:
        v = v + v[np.arange(32) ^ o if o < 32 else np.arange(32)]
        o >>= 1
    return v


def test_a_xor_butterfly_started_at_17_and_the_write_from_lane_1_are_equivalent():
    lanes = np.random.default_rng(0).integers(-1000, 1000, 32)
    assert _butterfly(lanes, 17)[0] == lanes.sum() == _butterfly(lanes, 16)[1]  # what the labels say
    assert len(set(_butterfly(lanes, 16).tolist())) == 1
    for name, kernel in (("gemv_warp_shfl", "gemv_warp"), ("gemv_warp_rows", "gemv_warp_rows")):
        labels = _labelled(name, kernel)
        assert "a xor butterfly started at 17" in _find(labels, "`16` -> `17`"), name
        assert "lane 1 writes what lane 0 does" in _find(labels, "`0` -> `1` in `if ("), name


def test_a_shuffle_down_ladder_is_not_a_butterfly_and_its_mutants_count():
    # lane 1 of a __shfl_down_sync ladder holds a partial sum; 17 leaves lane 16 out: inputs kill both
    labels = _labelled("rows_dot_warp", "rows_dot")
    assert not any(labels.values()), {w: e for w, e in labels.items() if e}
    assert not any(_labelled("softmax_rows", "softmax_rows").values())


def test_a_butterfly_with_the_warps_width_is_one_too():
    labels = _labelled("rms_norm_warp", "rms_norm_rows")  # __shfl_xor_sync(~0, sumsq, mask, 32)
    assert "a xor butterfly started at 17" in _find(labels, "`16` -> `17` in `for (int mask = 16;")


def _labelled_text(source, kernel):
    return {m.what: m.equivalent for m in mutants(source, kernel)}


def _argmax_butterfly(values, start, lower=True):
    """Each lane's (value, index) after the argmax ladder of argmax_rows_warp started at `start`."""
    val, idx = list(values), list(range(32))
    o = start
    while o > 0:
        other = [(val[lane ^ o], idx[lane ^ o]) if lane ^ o < 32 else (val[lane], idx[lane]) for lane in range(32)]
        for lane, (ov, oi) in enumerate(other):
            if ov > val[lane] or (ov == val[lane] and (oi < idx[lane] if lower else oi <= idx[lane])):
                val[lane], idx[lane] = ov, oi
        o >>= 1
    return list(zip(val, idx, strict=True))


def test_an_argmax_butterfly_started_at_17_its_tie_flipped_and_its_write_from_lane_1_are_equivalent():
    rng = np.random.default_rng(1)
    for _ in range(200):
        lanes = rng.integers(-3, 3, 32).tolist()  # many ties
        best = (max(lanes), lanes.index(max(lanes)))
        at16 = _argmax_butterfly(lanes, 16)
        assert set(at16) == {best} == set(_argmax_butterfly(lanes, 17)) == set(_argmax_butterfly(lanes, 16, False))
    labels = _labelled("argmax_rows_warp", "argmax_f32")
    assert "a xor butterfly keeping the better" in _find(labels, "`16` -> `17`")
    assert "writes the values already there" in _find(labels, "`<` -> `<=` in `if (other > maxval")
    assert "lane 1 writes what lane 0 does" in _find(labels, "`0` -> `1` in `if (threadIdx.x == 0)")
    assert _find(labels, "`>` -> `>=` in `if (other > maxval") == ""  # ties then go to the higher index
    assert _find(labels, "`>` -> `>=` in `if (val > maxval)") == ""


_NOT_BEST = """__global__ void k(float *x, int *out) {
    float v = x[threadIdx.x];
    int i = threadIdx.x;
    for (int o = 16; o > 0; o >>= 1) {
        float ov = __shfl_xor_sync(0xffffffff, v, o);
        int oi = __shfl_xor_sync(0xffffffff, i, o);
        if (ov > v) {
            v = ov;
            i = oi;
        }
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = i;
}
"""


def test_a_butterfly_that_leaves_ties_to_each_lane_is_no_equivalent():
    # ties keep each lane's own index: lanes disagree, a start at 17 or lane 1 may give another index
    labels = _labelled_text(_NOT_BEST, "k")
    assert _find(labels, "`16` -> `17`") == ""
    assert _find(labels, "`0` -> `1` in `if (threadIdx.x == 0)") == ""


def _bitonic(values, j, k, n, mutant=lambda what, *x: None):
    v = list(values) + [99]  # what lies past the array
    for i in range(n + 1):  # one thread past n, as `i <= n` lets in
        ixj = i ^ j
        bound = mutant("bound", i, ixj)
        if bound if bound is not None else i < n and ixj > i and ixj < n:
            up = (i & k) == 0
            a, b = v[i], v[ixj]
            swap = mutant("swap", a, b, up)
            if swap if swap is not None else (up and a > b) or (not up and a < b):
                v[i], v[ixj] = b, a
    return v[:n], v[n]


def test_a_compare_exchange_at_the_tie_and_a_bound_the_others_imply_are_equivalent():
    rng = np.random.default_rng(2)
    for n in (16, 64, 24, 13):  # powers of two and not: the bound is implied either way
        for j, k in ((1, 2), (4, 8), (2, 16)):
            vals = rng.integers(-2, 3, n).tolist()
            want = _bitonic(vals, j, k, n)

            def wide(what, *x, n=n):
                return (x[0] <= n and x[1] > x[0] and x[1] < n) if what == "bound" else None

            def ge(what, *x):
                return ((x[2] and x[0] >= x[1]) or (not x[2] and x[0] <= x[1])) if what == "swap" else None

            assert _bitonic(vals, j, k, n, wide) == want == _bitonic(vals, j, k, n, ge)
    labels = _labelled("bitonic_step", "bitonic_step")
    assert "`i == n` cannot hold" in _find(labels, "`<` -> `<=` in `if (i < n && ixj")
    assert "writes the values already there" in _find(labels, "`>` -> `>=` in `if ((up && a > b)")
    assert "writes the values already there" in _find(labels, "`<` -> `<=` in `if ((up && a > b) || (!up && a < b))")
    assert next(e for w, e in labels.items() if w.startswith("line 6:33")) == ""  # ixj == n reads past n


_NEGATED = """__global__ void k(float *v, int n) {
    int i = threadIdx.x;
    float a = v[i], b = v[i + 1];
    if (!(a > b && i < n))
        v[i] = b;
    if (a > b && i + 1 < n) {
        v[i] = b;
        v[i + 1] = a + 1.0f;
    }
}
"""


def test_a_negated_condition_or_a_write_that_differs_at_the_tie_is_no_equivalent():
    labels = _labelled_text(_NEGATED, "k")
    assert not any(labels.values()), {w: e for w, e in labels.items() if e}


# Review of c50229b's labels: each kernel below had a mutant labelled equivalent that an input kills.

_HALF_BUTTERFLY = """__global__ void k(const float *x, float *out) {
    float v = x[blockIdx.x * 32 + threadIdx.x];
    for (int o = 16; o > 1; o >>= 1)
        v += __shfl_xor_sync(0xffffffff, v, o);
    if (threadIdx.x < 2)
        out[blockIdx.x * 2 + threadIdx.x] = v;
}
"""


def test_a_butterfly_that_stops_at_2_started_at_17_is_no_equivalent():
    def lanes_summed(start, stop):
        held = [{lane} for lane in range(32)]
        o = start
        while o > stop:
            held = [held[lane] | held[lane ^ o] for lane in range(32)]
            o >>= 1
        return held[0]

    assert lanes_summed(16, 1) == set(range(0, 32, 2))  # lane 0: the even lanes (real parts, say)
    assert lanes_summed(17, 1) != lanes_summed(16, 1)  # 17 mixes odd lanes in: an input kills it
    assert lanes_summed(17, 0) == lanes_summed(16, 0) == set(range(32))
    assert _find(_labelled_text(_HALF_BUTTERFLY, "k"), "`16` -> `17`") == ""


_ELSE = """__global__ void k(const int *x, int *out, int n) {
    int best = x[0];
    int ties = 0;
    for (int i = 1; i < n; i++) {
        if (x[i] > best)
            best = x[i];
        else
            ties += 1;
    }
    out[0] = best;
    out[1] = ties;
}
"""

_SWAP_ELSE = """__global__ void k(float *v, int *moved, int j) {
    int i = threadIdx.x;
    int ixj = i ^ j;
    float a = v[i], b = v[ixj];
    if (ixj > i && a > b) {
        v[i] = b;
        v[ixj] = a;
    } else {
        moved[i] = 0;
    }
}
"""


def test_an_if_with_an_else_runs_the_else_at_the_tie_and_is_no_equivalent():
    # x = [1, 1]: the original counts a tie (else), `>=` takes the if and counts none
    assert _find(_labelled_text(_ELSE, "k"), "`>` -> `>=` in `if (x[i] > best)`") == ""
    assert _find(_labelled_text(_SWAP_ELSE, "k"), "`>` -> `>=` in `if (ixj > i && a > b)") == ""


_MIXED = """__global__ void k(const float *x, int *out, int n, int start) {
    int m = start;
    for (int i = 0; i < n; i++) {
        float f = x[i];
        if (f > m)
            m = f;
    }
    out[0] = m;
}
"""


def test_a_tie_between_an_int_and_a_float_is_no_equality_of_values():
    m, f = 16777217, np.float32(16777216.0)
    assert np.float32(m) == f and int(f) != m  # at the tie `m = f` changes m: start = 16777217 kills `>=`
    assert _find(_labelled_text(_MIXED, "k"), "`>` -> `>=` in `if (f > m)`") == ""


_WARP_GUARD = """__global__ void k(const float *x, float *out) {
    int warp = threadIdx.x / 32;
    float v = x[blockIdx.x * blockDim.x + threadIdx.x];
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffff, v, o);
    if (warp == 0)
        out[blockIdx.x] = v;
}
"""

_LANE_THROUGH_LOCALS = """__global__ void k(const float *x, float *out) {
    int tid = threadIdx.x;
    int lane = tid % 32;
    int g = blockIdx.x * blockDim.x + tid;
    float v = x[g];
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffff, v, o);
    if (lane == 0)
        out[g] = v;
}
"""


def test_a_guard_on_the_warp_or_a_write_placed_by_the_lane_through_a_local_is_no_equivalent():
    # warp 1 holds another sum (or no warp 1 exists); lane 1 writes out[g + 1] instead of out[g]
    assert _find(_labelled_text(_WARP_GUARD, "k"), "`0` -> `1` in `if (warp == 0)`") == ""
    assert _find(_labelled_text(_LANE_THROUGH_LOCALS, "k"), "`0` -> `1` in `if (lane == 0)`") == ""
    # both butterflies are whole: their start at 17 stays equivalent
    assert "a xor butterfly started at 17" in _find(_labelled_text(_WARP_GUARD, "k"), "`16` -> `17`")


_CLAMPS = """__global__ void k(const float *x, float *out, int n, int hop) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int f = t / hop;
    if (f > n - 1)
        f = n - 1;
    float g = x[t];
    if (g > n - 1)
        g = n - 1;
    out[t] = x[f] + g;
}
"""


def test_an_integer_clamped_to_a_sum_of_integers_assigns_the_value_already_there_at_the_tie():
    labels = _labelled_text(_CLAMPS, "k")
    assert "assigns the value already there" in _find(labels, "`>` -> `>=` in `if (f > n - 1)`")
    assert _find(labels, "`>` -> `>=` in `if (g > n - 1)`") == ""  # a float against an int sum: left to the runs
    assert "assigns the value already there" in _find(_labelled("istft_overlap_add", "overlap_add"), "`if (f > nframes")


def test_a_helper_before_the_kernel_with_the_same_names_does_not_type_the_kernels_tie():
    # the helper's ints named f and m: read first, they made the kernel's float/int tie one of integers
    helper = "__device__ int pick(int f, int m) { return f > m ? f : m; }\n"
    assert _find(_labelled_text(helper + _MIXED, "k"), "`>` -> `>=` in `if (f > m)`") == ""


_CLAMP_BOUNDS = """__global__ void k(const float *x, float *out, int n, unsigned m, int hop) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int f = t / hop;
    if (f > n - 1)
        f = n - 1;
    unsigned u = t;
    if (u > m - 1)
        u = m - 1;
    int c = t - hop;
    if (c < 0)
        c = 0;
    int d = t;
    if (d > n + 1)
        d = n + 1;
    int e = t;
    if (e > n * 2)
        e = n * 2;
    out[t] = x[f] + u + c + d + e;
}
"""


def _every(source, kernel):
    return {m.what: m.equivalent for m in mutants(source, kernel, cap=500)}


def _clamp(x, bound, stored, op):
    """`if (x OP bound) x = stored;`"""
    return stored if {">": x > bound, "<": x < bound}[op] else x


def test_a_signed_clamp_compared_with_its_bound_moved_by_one_toward_the_tie_is_equivalent():
    labels = _every(_CLAMP_BOUNDS, "k")
    why = _find(labels, "`1` -> `2` in `if (f > n - 1)`")
    assert "`f >= n-1`" in why and "stores the value already there" in why
    assert "`c <= 0`" in _find(labels, "`0` -> `1` in `if (c < 0)`")
    assert _find(labels, "`1` -> `2` in `if (u > m - 1)`") == ""  # unsigned: m = 0 wraps
    assert _find(labels, "`1` -> `2` in `if (d > n + 1)`") == ""  # moved away from the tie: d = n + 2 stays
    assert _find(labels, "`2` -> `3` in `if (e > n * 2)`") == ""  # a factor, not a term of the bound
    assert _find(labels, "`1` -> `2` in `f = n - 1;`") == ""  # the value stored, not the comparison
    # what the labels say, over small values: the first two agree everywhere, the others do not
    xs, ns = range(-4, 12), range(-3, 6)
    assert all(_clamp(x, n - 1, n - 1, ">") == _clamp(x, n - 2, n - 1, ">") for x in xs for n in ns)
    assert all(_clamp(x, 0, 0, "<") == _clamp(x, 1, 0, "<") for x in xs)
    assert any(_clamp(x, n + 1, n + 1, ">") != _clamp(x, n + 2, n + 1, ">") for x in xs for n in ns)
    m = 1  # unsigned: m - 2 wraps to the type's top, and nothing is clamped
    assert _clamp(5, (m - 1) % 2**32, m - 1, ">") != _clamp(5, (m - 2) % 2**32, m - 1, ">")
    istft = _labelled("istft_overlap_add", "overlap_add")
    assert "stores the value already there" in _find(istft, "`1` -> `2` in `if (f > nframes - 1)`")
    assert _find(istft, "`-` -> `+` in `if (f > nframes - 1)`") == ""


_TAILS = """__global__ void k(int n, const double *L, double *b, double *c) {
    for (int j = 0; j < n - 1; j++) {
        __syncthreads();
        const double bj = b[j];
        for (int i = j + 1 + threadIdx.x; i < n; i += blockDim.x)
            b[i] -= L[i + j * n] * bj;
    }
    for (int j = 0; j < n - 1; j++) {
        const double cj = c[j];
        c[j + 1] += cj;
        for (int i = j + 1 + threadIdx.x; i < n; i += blockDim.x)
            c[i] -= L[i] * cj;
    }
    for (int j = 0; j < n - 2; j++) {
        const double bj = b[j];
        for (int i = j + 1; i < n; i++)
            b[i] -= bj;
    }
    int j;
    for (j = 0; j < n - 1; j++) {
        const double cj = c[j];
        for (int i = j + 1 + threadIdx.x; i < n; i += blockDim.x)
            c[i] -= L[i] * cj;
    }
    c[0] = j;
}
"""


def test_a_loop_run_on_into_iterations_whose_inner_loops_never_run_is_equivalent():
    labels = _every(_TAILS, "k")
    first = [why for what, why in labels.items() if "line 2:" in what and ("`<` -> `<=`" in what or "dropped" in what)]
    assert len(first) == 2 and all("run no inner loop" in why for why in first)
    assert all(why == "" for what, why in labels.items() if "line 2:" in what and "`-` -> `+`" in what)  # reads b[n]
    # a store outside the inner loop (c[j + 1] at j = n - 1 is c[n]); `- 2` with inner loops from j + 1: i = n - 1 runs
    assert all(why == "" for what, why in labels.items() if "line 8:" in what or "line 14:" in what)
    assert all(why == "" for what, why in labels.items() if "line 20:" in what)  # j is read after the loop
    trsv = _labelled("trsv_lower_batched", "trsv_lower_unit_batched")
    assert "run no inner loop" in _find(trsv, "`<` -> `<=` in `for (int j = 0; j < n - 1; j++)")
    assert "run no inner loop" in _find(trsv, "dropped `- 1` in `for (int j = 0; j < n - 1; j++)")
    assert _find(trsv, "`-` -> `+` in `for (int j = 0; j < n - 1; j++)") == ""
    assert _find(trsv, "`<` -> `<=` in `for (int i = j + 1 + threadIdx.x; i < n;") == ""


# session 14's review: kernels the new rules called equivalent where an input tells the mutant apart
_SHADOWED_FLOAT = """__global__ void k(const float *x, float *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    float v = x[t];
    if (v > n - 1) v = n - 1;
    out[t] = v;
    for (int v = 0; v < 2; v++) out[t] += 0.0f * v;
}
"""
_COUNTER_BEFORE = """__global__ void k(int n, const double *L, double *b, int *last) {
    int i = 0;
    for (int j = 0; j < n - 1; j++) {
        const double bj = b[j];
        for (i = j + 1 + threadIdx.x; i < n; i += blockDim.x) b[i] -= L[i] * bj;
    }
    last[threadIdx.x] = i;
}
"""
_SHADOWED_BOUND = """__global__ void k(const int *len, const float *x, float *out, int n) {
    for (int j = 0; j < n - 1; j++) {
        const int n = len[j];
        for (int i = j + 1; i < n; i++) out[i] += x[i] + len[i];
    }
}
"""
_SHIFTED_BOUND = """__global__ void k(const float *x, float *out, int n) {
    for (int j = 0; j < n << 1 - 1; j++) {
        const float xj = x[j];
        for (int i = j + 1; i < n << 1; i++) out[i] += x[i] * xj;
    }
}
"""
_UNSIGNED_LATER = """__device__ int pick(int u, int m) { return u < m ? u : m; }
__global__ void k(const float *x, float *out, unsigned long m, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned long u = t;
    if (u > m - 1) u = m - 1;
    out[t] = x[u];
}
"""


def test_what_the_review_found_in_the_clamp_and_loop_tail_rules_is_counted():
    # a float clamped to an int bound: v = 2.5, n = 4 gives 2.5, and 3 against `n - 2`; the later `int v` typed it
    assert _find(_every(_SHADOWED_FLOAT, "k"), "`1` -> `2` in `if (v > n - 1) v") == ""
    # the inner counter declared before the loop holds its last value after it (`last` differs)
    assert _find(_every(_COUNTER_BEFORE, "k"), "`<` -> `<=` in `for (int j = 0; j < n - 1; j++)") == ""
    # a local `n` in the body: the added iteration's inner loop runs to len[n - 1]
    assert _find(_every(_SHADOWED_BOUND, "k"), "dropped `- 1` in `for (int j = 0; j < n - 1; j++)") == ""
    # `n << 1 - 1` is `n << 0`: the bound is not `(n << 1) - 1`
    assert _find(_every(_SHIFTED_BOUND, "k"), "`<` -> `<=` in `for (int j = 0; j < n << 1 - 1; j++)") == ""
    # an unsigned declaration of the name after a helper's int one: m = 1 wraps `m - 2`
    assert _find(_every(_UNSIGNED_LATER, "k"), "`1` -> `2` in `if (u > m - 1) u") == ""


SORT9 = """
__global__ void med(const int *src, int *dst, int n)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    int v[9];
    for (int k = 0; k < 9; ++k)
        v[k] = src[(t + k) % n];
    for (int i = 1; i < 9; ++i) {
        const int key = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > key) {
            v[j + 1] = v[j];
            --j;
        }
        v[j + 1] = key;
    }
    dst[t] = v[4];
}
"""


def _shift_mutants(source):
    return {m.what: m.equivalent for m in mutants(source, "med") if "while" in m.what and "key" in m.what}


def test_an_insertion_sorts_shift_at_the_tie_is_equivalent_on_integers():
    found = _shift_mutants(SORT9)
    tie = next(why for what, why in found.items() if "`>` -> `>=`" in what)
    assert "insertion sort" in tie and "same values in the same order" in tie
    assert not next(why for what, why in found.items() if "`>=` -> `>`" in what)  # j >= 0: not the shift test


def test_the_shift_tie_counts_on_floats_a_second_array_or_another_body():
    floats = SORT9.replace("const int *src, int *dst", "const float *src, float *dst").replace("int v[9]", "float v[9]")
    floats = floats.replace("const int key", "const float key")
    pairs = SORT9.replace("v[j + 1] = v[j];\n", "v[j + 1] = v[j];\n            w[j + 1] = w[j];\n").replace(
        "int v[9];", "int v[9];\n    int w[9] = {0};"
    )
    either = SORT9.replace("j >= 0 && v[j] > key", "j >= 0 || v[j] > key")
    for source in (floats, pairs, either):
        found = _shift_mutants(source)
        assert found and not any(found.values()), found


COUNT = """
__global__ void count(const int *flags, int n, int *total)
{
    __shared__ int c;
    if (threadIdx.x == 0)
        c = 0;
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && flags[i] > 0)
        atomicAdd(&c, 1);
    __syncthreads();
    if (threadIdx.x == 0 && c > 0)
        atomicAdd(total, c);
}
"""


def test_a_guard_adding_the_value_it_compares_with_zero_is_equivalent_as_a_term_of_a_chain():
    found = {m.what: m.equivalent for m in mutants(COUNT, "count") if "c > 0" in m.what}
    tie = next(why for what, why in found.items() if "`>` -> `>=`" in what)
    assert "at the tie it adds 0" in tie
    other = COUNT.replace("atomicAdd(total, c);", "atomicAdd(total, c + 1);")  # adds 1 at the tie: counts
    assert not any(m.equivalent for m in mutants(other, "count") if "c > 0" in m.what and "`>` -> `>=`" in m.what)
    flags = {m.what: m.equivalent for m in mutants(COUNT, "count") if "flags[i] > 0" in m.what}
    assert flags and not any(flags.values())  # atomicAdd(&c, 1) does not add flags[i]


def test_the_shift_tie_counts_where_the_sort_reads_where_key_landed():
    # an inversion count beside the sort: at the tie `>=` shifts past an equal value, j ends one lower
    # and the count grows ([3, 3, 1, 2, 2, 0, 5, 5]: 11 inversions, 14 with the ties), though v is the same
    counted = SORT9.replace("v[j + 1] = key;\n", "v[j + 1] = key;\n        count += i - 1 - j;\n")
    counted = counted.replace("int v[9];", "int v[9];\n    int count = 0;").replace("dst[t] = v[4];", "dst[t] = count;")
    found = _shift_mutants(counted)
    assert found and not any(found.values()), found


def test_adding_zero_at_the_tie_counts_where_the_condition_or_the_address_has_a_side_effect():
    # at c == 0 `>=` takes a slot (counts [0, 5], cap 1: total 5 and 1 slot taken, 0 and 2 with >=), or
    # moves the next free bin ([0, 4, 7]: hist [4, 7, 0], next 2; with >= [0, 4, 7], next 3)
    ticket = COUNT.replace("if (threadIdx.x == 0 && c > 0)", "if (c > 0 && atomicAdd(total + 1, 1) < 1)")
    address = COUNT.replace(
        "if (threadIdx.x == 0 && c > 0)\n        atomicAdd(total, c);",
        "if (c > 0)\n        atomicAdd(&total[atomicAdd(total + 1, 1)], c);",
    )
    chained = address.replace("if (c > 0)", "if (threadIdx.x == 0 && c > 0)")
    for source in (ticket, address, chained):
        assert source != COUNT
        tie = [m.equivalent for m in mutants(source, "count") if "c > 0" in m.what and "`>` -> `>=`" in m.what]
        assert tie and not any(tie), (source, tie)
