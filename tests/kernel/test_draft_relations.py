"""Relations the code states between a scalar and a size (kernel/draft_relations.py, issue 35): a record
stride past the largest field read, pads below the size an index is reflected at, taps whose reach
back stays below the extent; drafted within them, warned about where a spec contradicts them; band
storage (`ab[kd + i - j + j * ldab]`) is no plain row and gets no overlap warning."""

from kt_tui.kernel.draft_flags import layout_warnings

from .test_draft_shapes import _draft, _points

# particles of `stride` floats each, position x y z and mass read
PARTICLES = """
__global__ void kinetic(const float *parts, int count, int stride, float *energy)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    const float *q = parts + (size_t)i * stride;
    energy[i] = 0.5f * q[4] * (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
}
"""

# rows of a signal mirrored at both ends: `left` samples before, `right` after
MIRROR = """
__global__ void mirror_rows(const float *src, float *dst, int rows, int len, int left, int right)
{
    const int o = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    const int wide = len + left + right;
    if (o >= wide || r >= rows)
        return;
    int x = abs(o - left);
    if (x >= len)
        x = 2 * (len - 1) - x;
    dst[(size_t)r * wide + o] = src[(size_t)r * len + x];
}
"""

# a comb filter: taps `gap` samples apart reaching back from each sample
COMB = """
__global__ void comb(const float *sig, const float *coef, float *res, int samples, int taps, int gap)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= samples)
        return;
    float acc = 0.0f;
    for (int k = 0; k < taps; k++) {
        const int at = t - k * gap;
        if (at >= 0)
            acc += coef[k] * sig[at];
    }
    res[t] = acc;
}
"""

# a rows x cols band matrix (lo sub-, hi super-diagonals) times a vector, its columns `ldab` apart
BAND = """
__global__ void band_mv(int rows, int cols, int lo, int hi, const float *ab, int ldab, const float *x, float *y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows)
        return;
    float s = 0.0f;
    for (int j = max(0, i - lo); j <= min(cols - 1, i + hi); j++)
        s += ab[hi + i - j + (size_t)j * ldab] * x[j];
    y[i] = s;
}
"""


def test_a_record_stride_is_drafted_past_the_fields_read():
    d = _draft(PARTICLES)
    for at in _points(d.spec):
        assert at["stride"] >= 6  # fields 0 to 4 read, and wider than packed
    assert any("record" in why for key, why in d.guesses if key.endswith("stride"))


def test_pads_are_drafted_below_the_size_they_reflect_at():
    d = _draft(MIRROR)
    points = _points(d.spec)
    assert len(points) >= 2
    for at in points:
        assert 1 <= at["left"] < at["len"] and 1 <= at["right"] < at["len"], at
    assert layout_warnings(MIRROR, "mirror_rows", d.spec) == []


def test_a_pad_at_the_size_is_warned_about():
    d = _draft(MIRROR)
    d.spec.sizes["right"] = d.spec.sizes["len"]
    warnings = layout_warnings(MIRROR, "mirror_rows", d.spec)
    assert any(w.startswith("sizes.right: right = ") and "reflects an index at len" in w for w in warnings)


def test_taps_are_drafted_to_reach_back_less_than_the_extent():
    d = _draft(COMB)
    for at in _points(d.spec):
        assert at["gap"] >= 2 and at["taps"] >= 2
        assert at["gap"] * (at["taps"] - 1) < at["samples"], at
    assert layout_warnings(COMB, "comb", d.spec) == []


def test_taps_reaching_past_the_extent_are_warned_about():
    d = _draft(COMB)
    next(a for a in d.spec.args if a.name == "gap").value = "samples"
    warnings = layout_warnings(COMB, "comb", d.spec)
    assert any(w.startswith("args.gap: gap * (taps - 1) = ") and "before the start" in w for w in warnings)


def test_band_storage_gets_no_row_overlap_warning():
    d = _draft(BAND)
    next(a for a in d.spec.args if a.name == "ldab").value = "lo + hi + 1"
    assert layout_warnings(BAND, "band_mv", d.spec) == []


# the `picks` largest scores of each of `items` rows of `width`, largest first
TOP_PICKS = """
__global__ void top_picks(const float *score, int items, int width, int picks, int *chosen)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= items)
        return;
    float last = INFINITY;
    for (int p = 0; p < picks; p++) {
        float top = -INFINITY;
        int at = width;
        for (int c = 0; c < width; c++) {
            const float v = score[(size_t)r * width + c];
            if (v < last && v > top) {
                top = v;
                at = c;
            }
        }
        last = top;
        chosen[(size_t)r * picks + p] = at;
    }
}
"""

# a brightness gain per channel, clipped at 255
TONE = """
__global__ void tone(const unsigned char *px, int n, float warm, float cool, unsigned char *res)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float a = px[2 * i] * warm;
    const float b = px[2 * i + 1] * cool;
    res[2 * i] = (unsigned char)fminf(a, 255.0f);
    res[2 * i + 1] = (unsigned char)fminf(b, 255.0f);
}
"""


def test_picks_are_drafted_below_what_they_pick_among():
    d = _draft(TOP_PICKS)
    for at in _points(d.spec):
        assert 2 <= at["picks"] < at["width"], at
    assert layout_warnings(TOP_PICKS, "top_picks", d.spec) == []
    d.spec.sizes["picks"] = d.spec.sizes["width"] + 1
    warnings = layout_warnings(TOP_PICKS, "top_picks", d.spec)
    assert any(w.startswith("args.picks: picks = ") and "find nothing" in w for w in warnings)


def test_gains_before_a_clip_are_drafted_above_1_and_apart():
    d = _draft(TONE)
    values = {a.name: a.value for a in d.spec.args if a.name in ("warm", "cool")}
    assert all(v > 1 for v in values.values()) and values["warm"] != values["cool"], values


# a padded max over windows of `win` samples, `hop` apart, of each of `rows` rows
POOL = """
__global__ void pool_rows(const float *in, float *out, int rows, int in_len, int out_len, int win, int hop, int pad)
{
    const int o = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (o >= out_len || r >= rows)
        return;
    float m = -INFINITY;
    for (int k = 0; k < win; k++) {
        const int x = o * hop - pad + k;
        if (x >= 0 && x < in_len)
            m = fmaxf(m, in[(size_t)r * in_len + x]);
    }
    out[(size_t)r * out_len + o] = m;
}
"""


def test_the_input_a_padded_window_cuts_is_drafted_to_match_the_output():
    d = _draft(POOL)
    points = _points(d.spec)
    assert len(points) >= 2
    for at in points:
        assert at["out_len"] == (at["in_len"] + 2 * at["pad"] - at["win"]) // at["hop"] + 1, at
    assert layout_warnings(POOL, "pool_rows", d.spec) == []


# taps `spread` samples apart reaching forward; a signal mirrored `edge` samples past both ends
AHEAD = """
__global__ void ahead(const float *sig, const float *coef, float *res, int samples, int taps, int spread)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= samples)
        return;
    float acc = 0.0f;
    for (int k = 0; k < taps; k++) {
        const int at = t + k * spread;
        if (at < samples)
            acc += coef[k] * sig[at];
    }
    res[t] = acc;
}
"""

EDGES = """
__global__ void edges(const float *sig, float *res, int n, int edge)
{
    const int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= n + 2 * edge)
        return;
    int x = abs(o - edge);
    if (x >= n)
        x = 2 * n - 2 - x;
    res[o] = sig[x];
}
"""


def test_taps_reaching_forward_and_a_pad_on_both_ends_are_drafted_within_the_extent():
    d = _draft(AHEAD)
    for at in _points(d.spec):
        assert at["spread"] * (at["taps"] - 1) < at["samples"], at
    d = _draft(EDGES)
    for at in _points(d.spec):
        assert 1 <= at["edge"] < at["n"], at
    assert layout_warnings(EDGES, "edges", d.spec) == []


# levels mapped onto [0, 1] between a floor and a ceiling given ceiling first
LEVELS = """
__global__ void levels(const float *x, int n, float ceiling, float floor_, int top, int bottom, float *y, int *q)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    y[i] = (x[i] - floor_) / (ceiling - floor_);
    q[i] = (int)(x[i] * 100.0f - bottom) / (top - bottom);
}
"""


def test_a_difference_that_divides_is_drafted_positive_and_warned_about_when_not():
    d = _draft(LEVELS)
    values = {a.name: a.value for a in d.spec.args if not a.is_array}
    assert values["floor_"] < values["ceiling"] and values["bottom"] < values["top"], values
    assert layout_warnings(LEVELS, "levels", d.spec) == []
    next(a for a in d.spec.args if a.name == "bottom").value = values["top"]
    warnings = layout_warnings(LEVELS, "levels", d.spec)
    assert any(w.startswith("args.top: top - bottom = 0") for w in warnings), warnings


# samples of `width` shorts each, channels 0 to 2 read from each sample's start
SAMPLES = """
__global__ void mix3(const short *pcm, int frames, int width, float *mono)
{
    const int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= frames)
        return;
    const int at = f * width;
    mono[f] = (pcm[at] + pcm[at + 1] + pcm[at + 2]) / 3.0f;
}
"""


def test_a_record_start_in_a_local_is_a_record_too():
    d = _draft(SAMPLES)
    for at in _points(d.spec):
        assert at["width"] >= 4, at


# an echo: taps `lag` samples apart, the difference tested where it is used
ECHO = """
__global__ void echo(const float *in, float *out, int len, int echoes, int lag, float decay)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= len)
        return;
    float acc = 0.0f, w = 1.0f;
    for (int e = 0; e < echoes; e++) {
        if (t - e * lag >= 0)
            acc += w * in[t - e * lag];
        w *= decay;
    }
    out[t] = acc;
}
"""


def test_taps_tested_in_place_are_drafted_within_the_extent():
    d = _draft(ECHO)
    for at in _points(d.spec):
        assert at["lag"] * (at["echoes"] - 1) < at["len"], at


# a window of `count` elements from `first` on, cut at the end of the source
SLICE = """
__global__ void slice(const float *src, int total, int first, int count, float *dst)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    dst[i] = (i + first < total) ? src[i + first] : 0.0f;
}
"""


def test_an_offset_tested_against_a_size_is_below_it_and_warned_about_when_not():
    d = _draft(SLICE)
    for at in _points(d.spec):
        assert at["first"] < at["total"], at
    assert layout_warnings(SLICE, "slice", d.spec) == []
    next(a for a in d.spec.args if a.name == "first").value = "total"
    warnings = layout_warnings(SLICE, "slice", d.spec)
    assert any(
        w.startswith("args.first: first = ") and "one outcome of that test never happens" in w for w in warnings
    ), warnings


# a row mirrored `border` samples past each end, the reflection a conditional expression
BORDERS = """
__global__ void borders(const float *sig, float *res, int n, int border)
{
    const int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= n + 2 * border)
        return;
    int x = o - border;
    x = x < 0 ? -x : x;
    x = x >= n ? 2 * n - 2 - x : x;
    res[o] = sig[x];
}
"""


def test_a_reflection_in_a_conditional_expression_keeps_its_pads_below_the_size():
    d = _draft(BORDERS)
    for at in _points(d.spec):
        assert 1 <= at["border"] < at["n"], at
