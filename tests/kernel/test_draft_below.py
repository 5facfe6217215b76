"""General value rules read off the kernel's tests and loads (kernel/draft_below.py and
kernel/draft_values.py, issue 35): an int scalar that a test compares with a varying value lies inside
that value's range at every size the draft checks; an int input reduced by `%` or `&` before any use
gets the whole range of its type; one multiplied by a float is a quantity, not a 0/1 flag."""

from kt_tui.kernel import cuda_ast, draft_below
from kt_tui.kernel.draft_flags import layout_warnings
from kt_tui.kernel.inputs import make_args

from .test_draft_shapes import _draft, _points

# the first `limit` positions of each row's positive values, -1 after the last found
FIRST_HITS = """
__global__ void first_hits(const float *vals, int rows, int limit, int width, int *hits)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    for (int j = 0; j < limit; ++j)
        hits[(size_t)r * limit + j] = -1;
    int found = 0;
    for (int k = 0; k < width && found < limit; ++k)
        if (vals[(size_t)r * width + k] > 0.0f)
            hits[(size_t)r * limit + found++] = k;
}
"""

# a 3-D mean over a (2 rad + 1)^3 box, clipped at the edges
BOX_MEAN = """
__global__ void box_mean(const float *vol, float *res, int nx, int ny, int nz, int rad)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz)
        return;
    float s = 0.0f;
    int c = 0;
    for (int dz = -rad; dz <= rad; ++dz)
        for (int dy = -rad; dy <= rad; ++dy)
            for (int dx = -rad; dx <= rad; ++dx) {
                const int xx = x + dx;
                const int yy = y + dy;
                const int zz = z + dz;
                if (xx >= 0 && xx < nx && yy >= 0 && yy < ny && zz >= 0 && zz < nz) {
                    s += vol[((size_t)zz * ny + yy) * nx + xx];
                    ++c;
                }
            }
    res[((size_t)z * ny + y) * nx + x] = s / c;
}
"""

# segments of `seg` samples that start every `hop` samples, summed where they overlap
OVERLAP_SUM = """
__global__ void overlap_sum(const float *segs, int count, int seg, int hop, float *sum)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (count - 1) * hop + seg)
        return;
    int f = min(t / hop, count - 1);
    float acc = 0.0f;
    for (; f >= 0 && t - f * hop < seg; --f)
        acc += segs[(size_t)f * seg + t - f * hop];
    sum[t] = acc;
}
"""

# a sample `lag` back, from a history ring of `cap` samples before the start
LAGGED = """
__global__ void lagged(const float *x, int n, const float *ring, int cap, int head, int lag, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = i >= lag ? x[i - lag] : ring[(head + i - lag + cap) % cap];
}
"""

# counts of the low byte of each code (a bucket by mask)
BYTE_BUCKETS = """
__global__ void byte_buckets(const unsigned int *codes, int n, unsigned int *counts)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&counts[codes[i] & 255u], 1u);
}
"""

# the same with a signed code and a modulo: a negative code gives a negative bucket
SIGNED_BUCKETS = """
__global__ void signed_buckets(const int *codes, int n, int nb, unsigned int *counts)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&counts[codes[i] % nb], 1u);
}
"""

# a 16-bit sensor reading in units of `unit`, 0 where the sensor saw nothing
READINGS = """
__global__ void readings(const unsigned short *raw, int n, float unit, float *value, float *seen)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const unsigned short r = raw[i];
    value[i] = r * unit;
    seen[i] = r > 0 ? 1.0f : 0.0f;
}
"""

# a byte mask tested against 0 only: a 0/1 flag
MASKED = """
__global__ void masked(const unsigned char *mask, const float *x, int n, float *y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = mask[i] == 0 ? 0.0f : x[i];
}
"""


def _arg(spec, name):
    return next(a for a in spec.args if a.name == name)


def _relations(src: str) -> set[tuple[str, str, int]]:
    fn = next(iter(cuda_ast.parse(src).kernels.values()))
    ints = {p.name for p in fn.params if not p.pointer and p.type not in ("float", "double")}
    return {(b.small, b.large, b.times) for b in draft_below.find(fn, ints)}


def test_a_count_tested_in_a_loop_is_drafted_below_the_loop_bound():
    assert ("limit", "width", 1) in _relations(FIRST_HITS)
    d = _draft(FIRST_HITS)
    for at in _points(d.spec):
        assert 1 <= at["limit"] < at["width"], at


def test_a_window_from_minus_r_to_r_fits_each_extent_it_is_tested_against():
    assert {("rad", "nx", 2), ("rad", "ny", 2), ("rad", "nz", 2)} <= _relations(BOX_MEAN)
    d = _draft(BOX_MEAN)
    points = _points(d.spec)
    assert len(points) >= 2
    for at in points:
        assert 1 <= at["rad"] and 2 * at["rad"] < min(at["nx"], at["ny"], at["nz"]), at


def test_a_step_tested_against_a_length_is_drafted_below_it():
    assert ("hop", "seg", 1) in _relations(OVERLAP_SUM)
    d = _draft(OVERLAP_SUM)
    for at in _points(d.spec):
        assert 1 <= at["hop"] < at["seg"], at


def test_a_lag_stays_below_the_samples_and_a_ring_position_below_the_ring():
    assert {("lag", "n", 1), ("head", "cap", 1), ("lag", "cap", 1)} <= _relations(LAGGED)
    assert not any(small == "n" for small, _, _ in _relations(LAGGED))  # the coordinate is no offset
    d = _draft(LAGGED)
    for at in _points(d.spec):
        assert at["lag"] < at["n"] and at["head"] < at["cap"] and at["lag"] <= at["cap"], at
    assert _arg(d.spec, "lag").value != _arg(d.spec, "head").value


def test_a_name_reused_by_two_loops_gives_no_relation():
    src = """
__global__ void two_loops(const int *a, int n, int m, int *out)
{
    for (int i = threadIdx.x; i < m; i += blockDim.x)
        out[i] = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[a[i] % m] = 1;
}
"""
    assert not any(small == "n" for small, _, _ in _relations(src))


def test_codes_reduced_by_a_mask_get_the_whole_unsigned_range():
    d = _draft(BYTE_BUCKETS)
    codes = _arg(d.spec, "codes")
    assert (codes.low, codes.high) == (0, 2**32)  # high is one past the greatest: 0xffffffff is drawn too
    assert any(k == "args.codes" and "reduced" in why for k, why in d.guesses)


def test_signed_codes_reduced_by_a_modulo_stay_not_negative():
    d = _draft(SIGNED_BUCKETS)
    codes = _arg(d.spec, "codes")
    assert codes.low is not None and codes.low >= 0
    assert codes.high != 2**31  # not the whole range


def test_a_reading_times_a_float_is_a_quantity_over_its_type_not_a_flag():
    d = _draft(READINGS)
    raw = _arg(d.spec, "raw")
    assert (raw.low, raw.high) == (0, 65536)  # every value of the type: high is exclusive


def test_a_mask_only_tested_against_zero_stays_a_flag():
    d = _draft(MASKED)
    mask = _arg(d.spec, "mask")
    assert (mask.low, mask.high) == (0, 2)


def test_a_spec_against_a_relation_is_warned_about_and_the_draft_is_not():
    d = _draft(OVERLAP_SUM)
    assert layout_warnings(OVERLAP_SUM, "overlap_sum", d.spec) == []
    d.spec.sizes["hop"] = d.spec.sizes["seg"]
    warnings = layout_warnings(OVERLAP_SUM, "overlap_sum", d.spec)
    assert any(w.startswith("args.hop: hop = ") and "hop is below seg" in w for w in warnings), warnings


def test_a_ring_position_past_the_ring_is_warned_about():
    d = _draft(LAGGED)
    assert layout_warnings(LAGGED, "lagged", d.spec) == []
    next(a for a in d.spec.args if a.name == "head").value = "cap"
    warnings = layout_warnings(LAGGED, "lagged", d.spec)
    assert any(w.startswith("args.head: head = ") and "wraps" in w for w in warnings), warnings


# a signal scaled by one made-up factor
SCALED = """
__global__ void scaled(const float *x, int n, float factor, float *y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i] * factor;
}
"""

# a detection where a sample exceeds `ratio` times its reference
OVER_REFERENCE = """
__global__ void over_reference(const float *x, const float *ref, int n, float ratio, unsigned char *hit)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        hit[i] = x[i] > ratio * ref[i];
}
"""


def test_a_made_up_float_factor_is_below_1():
    d = _draft(SCALED)
    factor = _arg(d.spec, "factor")
    assert 0 < factor.value < 1
    assert any(k == "args.factor" and "not trivial" in why for k, why in d.guesses)


def test_a_threshold_factor_against_a_loaded_reference_is_above_1():
    d = _draft(OVER_REFERENCE)
    assert _arg(d.spec, "ratio").value > 1
    assert any(k == "args.ratio" and "threshold" in why for k, why in d.guesses)


# a digit of each key read through a local, and the same key also copied out whole
DIGITS = """
__global__ void digits(const unsigned int *keys, int n, int shift, unsigned int *counts)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const unsigned int key = keys[i];
    atomicAdd(&counts[(key >> shift) & 255u], 1u);
}
"""


def test_a_key_reduced_through_a_local_gets_the_whole_range_and_one_also_used_whole_does_not():
    codes = _arg(_draft(DIGITS).spec, "keys")
    assert (codes.low, codes.high) == (0, 2**32)  # high is one past the greatest: 0xffffffff is drawn too
    copied = DIGITS.replace("unsigned int *counts)", "unsigned int *counts, float *copy)").replace(
        "    atomicAdd(", "    copy[i] = key;\n    atomicAdd("
    )  # stored whole as a float: a quantity, no word (a word copied to an unsigned output stays one)
    assert _arg(_draft(copied).spec, "keys").high != 2**32


def test_a_mask_that_keeps_high_bits_is_no_reduction():
    for mask, whole in (("255u", True), ("0xffffu", True), ("bits", True), ("~3u", False), ("0xf0u", False)):
        src = DIGITS.replace("(key >> shift) & 255u", f"(key >> shift) & {mask}").replace(
            "int shift,", "int shift, unsigned int bits,"
        )
        keys = _arg(_draft(src).spec, "keys")
        assert (keys.high == 2**32) is whole, mask


STEPS = """
__global__ void smooth(const float *x, float *y, int n, short steps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    int t = 0;
    while (t < steps) { v = 0.5f * v + 0.25f; t++; }  // a while loop: a count of its own (draft_trips.py)
    if (i + steps < n) y[i] = v; else y[i] = x[i];
}
"""


def test_a_made_up_scalar_below_a_size_keeps_its_value_where_the_size_allows_and_fits_its_type():
    d = _draft(STEPS)
    steps = _arg(d.spec, "steps")
    assert steps.value == "min(100, (n - 1) // 2)"  # not (n - 1) // 2: a size-wide loop count at the spec's size
    args = make_args(d.spec, d.spec.sizes)
    assert int(args[3]) == 100


# counts of each read's bases at the reference positions of a window that starts at `start`
WINDOW_COUNTS = """
__global__ void window_counts(const int *pos, const unsigned char *bases, int nreads, int len, int start, int wlen,
                              unsigned int *counts)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nreads)
        return;
    const int first = pos[r] - start;
    for (int i = 0; i < len; ++i) {
        const int p = first + i;
        if (p >= 0 && p < wlen)
            atomicAdd(&counts[p * 4 + (bases[(size_t)r * len + i] & 3)], 1u);
    }
}
"""


def test_a_scalar_taken_away_from_a_tested_value_is_not_held_below_the_bound():
    """b29's pileup: a window's start far past its length is right (`pos[r] - start` tested against wlen)."""
    assert not [r for r in _relations(WINDOW_COUNTS) if r[0] == "start"]
    assert ("hop", "seg", 1) in _relations(OVERLAP_SUM)  # a scalar stepping a varying value taken away still is
