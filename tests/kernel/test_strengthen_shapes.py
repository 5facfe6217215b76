"""Issue 35 items 1-2, session 12's survivors (tests/corpus group_norm_block and reshape_kv_cache):
stronger inputs made where the kernel's code has the shape that needs them (kernel/strengthen_shapes.py)
and not elsewhere, the block size the survivors run at for a reduction over the warps' partial sums,
and two equivalents by construction: a guard of blockIdx against a product of sizes a launch of one
block per item makes exactly, and the warp that does a block's last step picked by another number."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.mutant import mutants
from kt_tui.kernel.spec import SpecError, load_spec, parse_spec
from kt_tui.kernel.strengthen import candidates, case_spec
from kt_tui.kernel.strengthen_shapes import block_for_survivors, shape_cases

NORM = """
__global__ void norm(const float *x, float *y, int n, float eps)
{
    __shared__ float s_sum[32];
    const int lane = threadIdx.x & 31;
    const int wid = threadIdx.x >> 5;
    float sum = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        sum += x[i] * x[i];
    for (int off = 16; off > 0; off >>= 1)
        sum += __shfl_down_sync(0xffffffff, sum, off);
    if (lane == 0)
        s_sum[wid] = sum;
    __syncthreads();
    if (wid == 0) {
        const int nwarps = (blockDim.x + 31) / 32;
        sum = lane < nwarps ? s_sum[lane] : 0.0f;
        for (int off = 16; off > 0; off >>= 1)
            sum += __shfl_down_sync(0xffffffff, sum, off);
        if (lane == 0)
            s_sum[0] = sum;
    }
    __syncthreads();
    const float rs = rsqrtf(s_sum[0] / n + eps);
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        y[i] = x[i] * rs;
}
"""

NORM_SPEC = """
kernel = "norm"
problem_size = [1]
grid_div_x = []
[sizes]
n = 5000
[tune_params]
block_size_x = [64, 128, 256, 512, 1024]
[defaults]
block_size_x = 256
[[args]]
name = "x"
type = "float32"
size = "n"
[[args]]
name = "y"
type = "float32"
size = "n"
output = true
[[args]]
name = "n"
type = "int32"
value = "n"
[[args]]
name = "eps"
type = "float32"
value = 1e-5
"""

CACHE = """
__global__ void scatter(const float *src, float *dst, const long long *slots, int tokens)
{
    const long long token = blockIdx.x;
    if (token >= tokens)
        return;
    const long long slot = slots[token];
    if (slot < 0)
        return;
    dst[slot] = src[token];
}
"""

CACHE_SPEC = """
kernel = "scatter"
problem_size = ["tokens"]
grid_div_x = []
[sizes]
tokens = 200
[tune_params]
block_size_x = [32]
[[args]]
name = "src"
type = "float32"
size = "tokens"
[[args]]
name = "dst"
type = "float32"
size = "tokens"
init = "zeros"
output = true
[[args]]
name = "slots"
type = "int64"
size = "tokens"
low = 1
high = "tokens"
[[args]]
name = "tokens"
type = "int32"
value = "tokens"
"""


def _labels(cases):
    return " | ".join(c["label"] for c in cases)


def _norm(x, eps, root_term):
    """NORM in numpy: y = x * rsqrt(mean(x*x) + eps), or (a mutant) with `- eps` or without it."""
    ms = float(np.mean(x.astype(np.float64) ** 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return x / np.sqrt(ms + root_term * eps)


def test_a_scalar_under_a_square_root_is_set_to_one_only_where_one_is_added_there():
    spec = parse_spec(NORM_SPEC)
    case = next(c for c in candidates(spec, NORM) if "square root" in c["label"])
    assert case["args"] == {"eps": {"value": 1.0}}
    assert candidates(spec, NORM)[0] == case  # tried first: the strengthening budget is short
    s = case_spec(spec, case)
    x = make_args(s, s.sizes)[0]
    eps = float(make_args(s, s.sizes)[3])
    assert eps == 1.0
    want = _norm(x, eps, 1)
    for mutant in (0, -1):  # `+ eps` dropped, `+` -> `-`: a tiny eps hides both, eps = 1 shows them
        assert not np.allclose(_norm(x, eps, mutant), want, atol=1e-4, rtol=1e-3, equal_nan=True)
        assert np.allclose(_norm(x, 1e-5, mutant), _norm(x, 1e-5, 1), atol=1e-4, rtol=1e-3)
    scaled = NORM.replace("rsqrtf(s_sum[0] / n + eps)", "rsqrtf(s_sum[0] / n) * eps")
    assert "square root" not in _labels(candidates(spec, scaled))  # not under the root: no case
    assert "square root" not in _labels(candidates(spec))  # no source: no shape known


def test_an_index_compared_with_zero_gets_a_negative_entry_a_zero_and_distinct_entries():
    spec = parse_spec(CACHE_SPEC)
    case = next(c for c in candidates(spec, CACHE) if "compared with 0" in c["label"])
    s = case_spec(spec, case)
    slots = make_args(s, s.sizes)[2]
    assert slots.dtype == np.int64 and slots[0] == -1 and (slots == 0).sum() == 1
    assert len(np.unique(slots)) == slots.size  # distinct: no two tokens write one place
    before = make_args(spec, spec.sizes)[2]
    assert before.min() >= 1  # the spec's own slots never hold the 0 that `slot <= 0` skips

    def scatter(slots, skip_zero):
        dst = np.zeros(slots.size, np.float32)
        keep = slots > 0 if skip_zero else slots >= 0
        dst[slots[keep]] = np.arange(slots.size, dtype=np.float32)[keep] + 1
        return dst

    assert not np.array_equal(scatter(slots, True), scatter(slots, False))  # `slot < 0` -> `slot <= 0` dies
    assert np.array_equal(scatter(before, True), scatter(before, False))  # and passed on the spec's own
    for other in (CACHE.replace("if (slot < 0)", "if (slot == 7)"), CACHE.replace("slots[token]", "token")):
        assert "compared with 0" not in _labels(shape_cases(spec, other))
    small = parse_spec(CACHE_SPEC.replace('type = "int64"', 'type = "int16"', 1))
    assert [a.dtype for a in small.args if a.name == "slots"] == ["int16"]
    assert "compared with 0" not in _labels(shape_cases(small, CACHE))  # -1, 0, 1, ... would wrap past 32767


def test_a_reduction_over_the_warps_partial_sums_runs_its_survivors_at_the_largest_block():
    spec = parse_spec(NORM_SPEC)
    assert block_for_survivors(spec, NORM) == {"block_size_x": 1024}
    single = NORM.replace("sum = lane < nwarps ? s_sum[lane] : 0.0f;", "sum = s_sum[0];")
    assert block_for_survivors(spec, single) is None  # no loop over the warps' sums
    assert block_for_survivors(replace(spec, defaults={"block_size_x": 1024}), NORM) is None  # already there
    smaller = replace(spec, restrictions=["block_size_x <= 512"])
    assert block_for_survivors(smaller, NORM) == {"block_size_x": 512}

    def warp_sums(nwarps, start):  # the second step: lanes holding the warps' sums, a loop from `start`
        lanes = np.where(np.arange(32) < nwarps, np.arange(1, 33, dtype=np.float64), 0.0)
        off = start
        while off > 0:
            lanes = lanes + np.concatenate([lanes[off:], np.zeros(off)])
            off //= 2
        return lanes[0]

    for nwarps in (2, 8, 16):  # 64 .. 512 threads: the loop from 8 gets every warp's sum
        assert warp_sums(nwarps, 8) == warp_sums(nwarps, 16)
    assert warp_sums(32, 8) != warp_sums(32, 16)  # 1024 threads: it does not


def _what(source, spec, words):
    return next(m.equivalent for m in mutants(source, spec.kernel if spec else "norm", 500, spec) if words in m.what)


def test_a_block_guard_against_a_product_of_sizes_an_exact_launch_makes_is_equivalent():
    source = CACHE.replace("int tokens)", "int heads, int per)").replace("token >= tokens", "token >= heads * per")
    text = (
        CACHE_SPEC.replace('["tokens"]', '["heads * per"]')
        .replace('name = "tokens"\ntype = "int32"\nvalue = "tokens"', 'name = "heads"\ntype = "int32"\nvalue = "heads"')
        .replace("tokens = 200", "tokens = 200\nheads = 8\nper = 25")
    )
    text += '[[args]]\nname = "per"\ntype = "int32"\nvalue = "per"\n'
    spec = parse_spec(text)
    why = _what(source, spec, "`>=` -> `>` in `if (token >= heads * per)`")
    assert "exactly `heads*per` blocks on x" in why
    divided = replace(spec, grid_div_x=None)  # blocks of threads: a guard is needed at the tie
    assert _what(source, divided, "`>=` -> `>` in `if (token >= heads * per)`") == ""
    told = source.replace("    if (token >= heads", "    per -= 1;\n    if (token >= heads")
    assert _what(told, spec, "`>=` -> `>` in `if (token >= heads * per)`") == ""
    quarter = parse_spec(text.replace('["heads * per"]', '["heads / 4 * per"]'))  # C truncates at each `/`
    src4 = source.replace("token >= heads * per", "token >= heads / 4 * per")
    assert _what(src4, quarter, "`>=` -> `>` in `if (token >= heads / 4 * per)`") == ""


def _warps(block, pick, x, sums_read_first=True):
    """NORM's two steps in numpy for one block: warp `pick` reduces the warps' sums (`wid == pick`);
    with `sums_read_first` False its threads add the new sums to their own first-step sums."""
    n = x.size
    nwarps = block // 32
    thread_sums = np.array([np.sum(x[t::block] ** 2) for t in range(block)])
    s_sum = np.zeros(32)
    for w in range(nwarps):
        s_sum[w] = thread_sums[32 * w : 32 * w + 32].sum()
    mine = thread_sums[32 * pick : 32 * pick + 32]
    lanes = np.where(np.arange(32) < nwarps, s_sum, 0.0) + (0.0 if sums_read_first else mine)
    s_sum[0] = lanes.sum()
    return x / np.sqrt(s_sum[0] / n + 1e-5)


def test_the_warp_that_does_the_last_step_is_equivalent_only_within_a_space_of_two_warps_or_more():
    # in numpy warp 1 gives warp 0's result at every block size of the space; session 12's review found
    # rules that read past `tid = threadIdx.x`, a local array, a loop-carried local, `else v = ...` and
    # macros: each of those is refused below, and a space with a block of one warp calls nothing equivalent
    spec = parse_spec(NORM_SPEC)
    x = np.random.default_rng(0).standard_normal(999)
    for block in (64, 256, 1024):
        assert np.allclose(_warps(block, 0, x), _warps(block, 1, x))
    said = _what(NORM, spec, "`0` -> `1` in `if (wid == 0) {`")
    assert said.startswith("within this space (every block size a multiple of 32 and at least 64") and "`sum`" in said
    whole_block = NORM.replace(
        "    float sum = 0.0f;", "    const int row = blockIdx.x;\n    if (row >= n) return;\n    float sum = 0.0f;"
    )
    assert _what(whole_block, spec, "`0` -> `1` in `if (wid == 0) {`").startswith("within this space")  # all leave
    one_warp = parse_spec(NORM_SPEC.replace("[64, 128,", "[32, 64, 128,"))
    assert _what(NORM, one_warp, "`0` -> `1` in `if (wid == 0) {`") == ""
    assert _what(NORM, None, "`0` -> `1` in `if (wid == 0) {`") == ""  # no spec: no space to be within
    last = "            s_sum[0] = sum;\n    }"
    wrong = {
        "a thread's own index": NORM.replace(last, last.replace("sum;", "sum;\n        y[threadIdx.x] = sum;", 1)),
        "a local of it": NORM.replace("float sum = 0.0f;", "float sum = 0.0f;\n    const int tid = threadIdx.x;").replace(
            "s_sum[0] = sum;", "s_sum[0] = sum + tid;"
        ),
        "the local read where it is set": NORM.replace("s_sum[lane] : 0.0f;", "s_sum[lane] : sum;"),
        "the local read after": NORM.replace("s_sum[0] / n + eps", "s_sum[0] / n + eps + sum"),
        "set under a condition": NORM.replace("        sum = lane < nwarps", "        if (lane < 2) sum = lane < nwarps"),
        "an else": NORM.replace("            s_sum[0] = sum;\n    }\n", "            s_sum[0] = sum;\n    } else sum = 0;\n"),
        "in a loop": NORM.replace("    __syncthreads();\n    if (wid == 0) {", "    for (int r = 0; r < 2; r++) {\n"
                                  "    __syncthreads();\n    if (wid == 0) {").replace(
            "    __syncthreads();\n    const float rs", "    }\n    __syncthreads();\n    const float rs"
        ),
        "a parameter set per thread": NORM.replace("float sum = 0.0f;", "float sum = 0.0f;\n    n = n + lane;").replace(
            "s_sum[0] = sum;", "s_sum[0] = sum + n;"
        ),
        "a call": NORM.replace("s_sum[0] = sum;", "s_sum[0] = helper(sum);"),
        "no barrier after it": NORM.replace("    }\n    __syncthreads();\n    const float rs", "    }\n    const float rs"),
        # session 14's review: a warp wholly past the end returned before the step
        "a return before it": NORM.replace("    float sum = 0.0f;", "    if (threadIdx.x >= n) return;\n    float sum = 0.0f;"),
        # a helper's `wid`, and the kernel's own a parameter
        "the warp's number a parameter": "__device__ float part(const float *p) { const int wid = threadIdx.x >> 5; return p[wid]; }\n"
        + NORM.replace("int n, float eps)", "int n, float eps, int wid)").replace("    const int wid = threadIdx.x >> 5;\n", ""),
    }  # fmt: skip
    for why, source in wrong.items():
        assert source != NORM, why
        assert _what(source, spec, "`0` -> `1` in `if (wid == 0) {`") == "", why


def test_an_input_a_case_draws_again_is_not_said_to_be_kept_as_given():
    from kt_tui.kernel.spec import parse_spec
    from kt_tui.kernel.strengthen import kept_as_given

    spec = parse_spec(
        'kernel = "k"\nproblem_size = ["n"]\n[sizes]\nn = 64\n[tune_params]\nblock_size_x = [32]\n'
        '[[args]]\nname = "out"\ntype = "float32"\nsize = "n"\noutput = true\n'
        '[[args]]\nname = "slots"\ntype = "int64"\nsize = "n"\ninit = "function"\nfunction = "make:slots"\n'
        '[[args]]\nname = "n"\ntype = "int32"\nvalue = "n"\n'
    )
    assert "`slots`" in kept_as_given(spec)
    assert kept_as_given(spec, [{"label": "x", "args": {"slots": {"init": "range", "low": -1}}}]) == ""


SHIFT = """
__global__ void shift(const float *in, float *out, int n, int inverse)
{
    const int s = inverse ? n - n / 2 : n / 2;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[(i + s) % n] = in[i];
}
"""
SHIFT_SPEC = """
kernel = "shift"
problem_size = ["n"]
[sizes]
n = 4097
[tune_params]
block_size_x = [128, 256]
[[args]]
name = "in"
type = "float32"
size = "n"
[[args]]
name = "out"
type = "float32"
size = "n"
init = "zeros"
output = true
[[args]]
name = "n"
type = "int32"
value = "n"
[[args]]
name = "inverse"
type = "int32"
value = 1
"""


def test_a_flag_the_kernel_branches_on_gets_its_other_truth_value_and_a_compared_scalar_does_not():
    spec = parse_spec(SHIFT_SPEC)
    case = next(c for c in candidates(spec, SHIFT) if "never takes" in c["label"])
    assert case["args"] == {"inverse": {"value": 0}} and case["label"].startswith("`inverse` = 0")
    assert int(make_args(case_spec(spec, case), spec.sizes)[3]) == 0
    fwd = [m for m in mutants(SHIFT, "shift") if m.what.startswith("line 4:45")]  # in `: n / 2`, never run at 1
    assert fwd  # a mistake there only the other truth value shows
    for compared in ("inverse > 0 ? n - n / 2 : n / 2", "n < inverse ? n - n / 2 : n / 2", "f(inverse) ? 1 : 2"):
        source = SHIFT.replace("inverse ? n - n / 2 : n / 2", compared)
        assert "never takes" not in _labels(candidates(spec, source)), compared
    for flag in ("if (inverse) n = n;", "if (!inverse) n = n;", "const bool b = inverse && n;"):
        source = SHIFT.replace("const int s", flag + "\n    const int s").replace(
            "inverse ? n - n / 2 : n / 2", "n / 2"
        )
        assert "never takes" in _labels(candidates(spec, source)), flag


EDGE = """
__global__ void resample(const float *in, float *out, int n, int m)
{
    // m > 1: spaced points; one point: the middle
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m)
        out[i] = m > 1 ? in[i * (n - 1) / (m - 1)] : in[(n - 1) / 2];
}
"""
EDGE_SPEC = """
kernel = "resample"
problem_size = ["m"]
[sizes]
n = 1000
m = 100
[tune_params]
block_size_x = [128, 256]
[[args]]
name = "in"
type = "float32"
size = "n"
[[args]]
name = "out"
type = "float32"
size = "m"
init = "zeros"
output = true
[[args]]
name = "n"
type = "int32"
value = "n"
[[args]]
name = "m"
type = "int32"
value = "m"
[[args]]
name = "lo"
type = "float32"
value = 0.0
[[args]]
name = "hi"
type = "float32"
value = 0.0
"""


def test_a_size_compared_with_a_small_constant_meets_it_and_equal_float_scalars_are_told_apart():
    spec = parse_spec(EDGE_SPEC)
    source = EDGE.replace("int n, int m)", "int n, int m, float lo, float hi)")
    cases = candidates(spec, source)
    edge = next(c for c in cases if "edge of" in c["label"])
    assert edge["sizes"] == {"m": 1} and edge["label"].startswith("`m` = 1")
    assert len(make_args(case_spec(spec, edge), {**spec.sizes, **edge["sizes"]})[1]) == 1  # the output follows
    assert [c["sizes"] for c in cases if "edge of" in c["label"]] == [{"m": 1}]  # `i < m`: not with a constant
    apart = next(c for c in cases if "told apart" in c["label"])
    assert apart["args"] == {"lo": {"value": 0.25}, "hi": {"value": 0.5}}
    for summed in ("m - 1 > 1 ?", "k + m > 1 ?", "in[m] > 1 ?"):  # not `m` on its own
        assert "edge of" not in _labels(candidates(spec, source.replace("m > 1 ?", summed))), summed
    assert "edge of" not in _labels(candidates(spec, source.replace("m > 1 ?", "m > 16 ?")))  # not a small one
    short = parse_spec(EDGE_SPEC.replace('size = "m"', 'size = "m - 2"'))  # m = 1 leaves `out` no element
    assert "edge of" not in _labels(candidates(short, source))


def _overlap_add(frames, window, nframes, n_fft, hop, keep):
    """tests/corpus/istft_overlap_add.cu in numpy, with `keep(wsum)` for `wsum > 1e-11`."""
    out = np.zeros((nframes - 1) * hop + n_fft)
    for t in range(out.size):
        acc = wsum = 0.0
        f = min(t // hop, nframes - 1)
        while f >= 0 and t - f * hop < n_fft:
            w = window[t - f * hop]
            acc += frames[f * n_fft + t - f * hop] * w
            wsum += w * w
            f -= 1
        out[t] = acc / wsum if keep(wsum) else 0.0
    return out


def test_a_value_compared_with_a_float_constant_meets_it_and_twice_it():
    corpus = Path(__file__).parents[1] / "corpus"
    spec = load_spec(corpus / "specs" / "istft_overlap_add.cu.toml")
    found = [c for c in candidates(spec, (corpus / "istft_overlap_add.cu").read_text()) if "`1e-11`" in c["label"]]
    assert len(found) == 1 and found[0]["args"] == {n: {"init": "ties", "value": 1e-11} for n in ("frames", "window")}
    s = case_spec(replace(spec, sizes={**spec.sizes, **spec.verify_sizes[1]}), found[0])
    args = dict(zip([a.name for a in s.args], make_args(s, s.sizes)))
    root = np.float64(np.sqrt(1e-11))
    assert set(args["window"]) == {0.0, 1e-11, -1e-11, root, -root} and root * root == 1e-11
    sizes = (s.sizes["nframes"], s.sizes["n_fft"], s.sizes["hop"])
    original = _overlap_add(args["frames"], args["window"], *sizes, lambda w: w > 1e-11)
    assert np.count_nonzero(original) > original.size // 4  # the original's outputs are not all the fallback
    # `>` -> `>=` and 1e-11 -> 2e-11 (the two survivors of session 13) give other outputs on these inputs
    assert (_overlap_add(args["frames"], args["window"], *sizes, lambda w: w >= 1e-11) != original).any()
    assert (_overlap_add(args["frames"], args["window"], *sizes, lambda w: w > 2e-11) != original).any()
    # drawn from the spec's window in [0.1, 1): neither shows
    plain = case_spec(replace(spec, sizes={**spec.sizes, **spec.verify_sizes[1]}), {})
    args = dict(zip([a.name for a in plain.args], make_args(plain, plain.sizes)))
    original = _overlap_add(args["frames"], args["window"], *sizes, lambda w: w > 1e-11)
    assert (_overlap_add(args["frames"], args["window"], *sizes, lambda w: w > 2e-11) == original).all()


_COMPARED = """__global__ void k(const float *x, const float *y, float *out, int n, float lo) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float d = x[i] - y[i];
    if (fabsf(d) < 1e-6f || x[i] >= 2.0f || y[i] > 0.0f || (i >> 2) > 1 || x[i] < lo)
        out[i] = 0.5f * d;
    else
        out[i] = d;
}
"""


def test_only_a_float_constant_a_value_is_compared_with_gets_ties_and_not_one_of_the_whole_numbers():
    spec = parse_spec(
        'kernel = "k"\nproblem_size = ["n"]\n[sizes]\nn = 4096\n[tune_params]\nblock_size_x = [128]\n'
        '[[args]]\nname = "x"\ntype = "float32"\nsize = "n"\n[[args]]\nname = "y"\ntype = "float32"\n'
        'size = "n"\ninit = "uniform"\nlow = 0\nhigh = 1\n[[args]]\nname = "out"\ntype = "float32"\n'
        'size = "n"\ninit = "poison"\noutput = true\n[[args]]\nname = "n"\ntype = "int32"\nvalue = "n"\n'
        '[[args]]\nname = "lo"\ntype = "float32"\nvalue = 0.25\n'
    )
    ties = [c for c in shape_cases(spec, _COMPARED) if c["args"].get("x", {}).get("init") == "ties"]
    assert [c["args"]["x"]["value"] for c in ties] == [1e-6]  # 0.5f multiplies; 2.0f, 0.0f, 1: whole numbers
    assert ties[0]["args"]["y"] == {"init": "ties", "value": 1e-6}
    x = make_args(case_spec(spec, ties[0]), spec.sizes)[0]
    c, r = np.float32(1e-6), np.float32(np.sqrt(np.float32(1e-6)))
    assert set(x) <= {0, c, -c, r, -r} and (x == c).any()  # no float32 squares to 1e-6f: sqrt's nearest
    head = 'kernel = "k"\nproblem_size = ["n"]\n[sizes]\nn = 64\n[tune_params]\nblock_size_x = [64]\n[[args]]\n'
    for arg in ('type = "int32"\nvalue = 1', 'type = "float32"'):  # an integer type, no constant
        with pytest.raises(SpecError, match=r'args\[0\] \(x\)\.value: init = "ties"'):
            parse_spec(head + f'name = "x"\nsize = "n"\ninit = "ties"\n{arg}\n')


def test_an_index_checked_against_its_bound_gets_every_other_entry_raised_past_it_by_2_16():
    corpus = Path(__file__).parents[1] / "corpus"
    spec = load_spec(corpus / "specs" / "crop_and_resize.cu.toml")
    source = (corpus / "crop_and_resize.cu").read_text()
    found = [c for c in candidates(spec, source) if "raised by 2**16" in c["label"]]
    assert [c["args"] for c in found] == [{"box_ind": {"init": "lifted", "value": 65536}}]
    s = case_spec(spec, found[0])
    box_ind = make_args(s, s.sizes)[6]
    batch = spec.sizes["batch"]
    assert ((box_ind[0::2] >= 0) & (box_ind[0::2] < batch)).all()  # the original crops these boxes
    assert (box_ind[1::2] >= 65536).all()  # and skips these (`img >= batch`)
    # a copy in 16 bits or the low 16 bits make a skipped box a valid one again: outputs the original leaves
    assert (box_ind[1::2].astype(np.int16) < batch).all() and ((box_ind[1::2] & 0xFFFF) < batch).all()
    unchecked = source.replace("if (img < 0 || img >= batch)", "if (img < 0)")
    assert not [c for c in candidates(spec, unchecked) if "raised by 2**16" in c["label"]]  # it would read past
    head = 'kernel = "k"\nproblem_size = ["n"]\n[sizes]\nn = 64\n[tune_params]\nblock_size_x = [64]\n[[args]]\n'
    for arg in ('type = "float32"\nvalue = 65536', 'type = "int32"'):  # a float type, no amount
        with pytest.raises(SpecError, match=r'args\[0\] \(x\)\.value: init = "lifted"'):
            parse_spec(head + f'name = "x"\nsize = "n"\ninit = "lifted"\nlow = 0\nhigh = 4\n{arg}\n')
