"""Drafts for the shapes behind the drafter's misses on held-out batch 9 (issue 35 item 3), stated by how
a kernel uses a value: a batch stride over elements spaced by an increment, a pitch of a loop's rows
beside a frame stride, a running average's weight and its bias correction, a thread index taken in
periods, a length subtracted from the extent it lies in, an atomic through a pointer into an output,
and a window looped in itself per thread; and the layout warnings that say so where a spec's values
contradict them (kernel/draft_overlaps.py)."""

from kt_tui.kernel.draft_flags import layout_warnings

from .test_draft_shapes import _draft, _points

# one block per vector pair; x's vector b at b * bstride, its n elements inc apart
DOT_BATCHED = """
__global__ void dot_batched(int n, const float *x, int inc, long long bstride, const float *y, float *out, int batch)
{
    __shared__ float part[256];
    int b = blockIdx.x;
    if (b >= batch)
        return;
    float s = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        s += x[b * bstride + (long long)i * inc] * y[b * n + i];
    part[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int j = 0; j < blockDim.x; j++)
            t += part[j];
        out[b] = t;
    }
}
"""

# one block per image of a stack: images fstride apart, rows pitch apart, a loop over the rows
STACK_COLUMNS = """
__global__ void stack_columns(const float *img, int w, int h, int pitch, long long fstride, int nimg, float *cols)
{
    int f = blockIdx.x;
    if (f >= nimg)
        return;
    for (int x = threadIdx.x; x < w; x += blockDim.x) {
        float s = 0.0f;
        for (int y = 0; y < h; y++)
            s += img[f * fstride + (size_t)y * pitch + x];
        cols[(size_t)f * w + x] = s;
    }
}
"""

# a momentum step in a device function: a running average mixed by `decay`, divided by `corr`
MOMENTUM = """
__device__ float step(float p, float g, float &m, float rate, float decay, float corr)
{
    m = decay * m + (1.0f - decay) * g;
    return p - rate * (m / corr);
}

__global__ void momentum(float *p, const float *g, float *m, int n, float rate, float decay, float corr)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = step(p[i], g[i], m[i], rate, decay, corr);
}
"""

# a gain on the channels from `first` on: a thread's channel is its index / plane % chans
CHANNEL_GAIN = """
__global__ void channel_gain(const float *in, float *out, long long total, int first, long long plane, long long chans)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total)
        return;
    long long c = (i / plane) % chans;
    out[i] = c >= first ? 2.0f * in[i] : in[i];
}
"""

# a taper of `taps` values centred in each row of `width`: `width - taps` is the margin on both sides
CENTRED_TAPER = """
__global__ void centred_taper(const float *in, const float *taper, int taps, int width, int rows, float *out)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || r >= rows)
        return;
    int t = x - (width - taps) / 2;
    float g = (t >= 0 && t < taps) ? taper[t] : 0.0f;
    out[(size_t)r * width + x] = in[(size_t)r * width + x] * g;
}
"""

# each point adds into the k x k cells around its position on an s x s grid, through a pointer to a cell
SPLAT = """
__global__ void splat(int npts, const float *px, const float *py, const float *val, int k, int s, float2 *grid)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npts)
        return;
    int x0 = __float2int_rd(px[i]);
    int y0 = __float2int_rd(py[i]);
    for (int dy = 0; dy < k; dy++) {
        int gy = y0 + dy;
        if (gy < 0 || gy >= s)
            continue;
        for (int dx = 0; dx < k; dx++) {
            int gx = x0 + dx;
            if (gx < 0 || gx >= s)
                continue;
            float2 *cell = &grid[(size_t)gy * s + gx];
            atomicAdd(&cell->x, val[i]);
            atomicAdd(&cell->y, 1.0f);
        }
    }
}
"""

# each point adds into the 4 cells from its position on, those off the m cells skipped
SCATTER_NEAR = """
__global__ void scatter_near(int n, const float *pos, const float *val, int m, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int j0 = __float2int_rd(pos[i]);
    for (int d = 0; d < 4; d++) {
        int j = j0 + d;
        if (j < 0 || j >= m)
            continue;
        atomicAdd(&out[j], val[i]);
    }
}
"""


def _set(d, name: str, value) -> None:
    arg = next(a for a in d.spec.args if a.name == name)
    arg.value = value


def test_a_batch_stride_over_elements_an_increment_apart_spans_them_all():
    d = _draft(DOT_BATCHED)
    for at in _points(d.spec):
        assert at["bstride"] >= at["n"] * at["inc"] + 1  # a packed batch (n * inc) passes a kernel that steps by it
        assert 2 <= at["inc"] < 100  # an increment spaces elements: small, not 1


def test_a_pitch_of_a_loops_rows_spans_the_columns_and_the_frame_stride_spans_the_rows():
    d = _draft(STACK_COLUMNS)
    for at in _points(d.spec):
        assert at["pitch"] >= at["w"] + 1
        assert at["fstride"] >= at["h"] * at["pitch"] + 1


def test_a_running_averages_weight_lies_in_the_unit_interval_and_its_correction_in_0_1():
    d = _draft(MOMENTUM)
    at = _points(d.spec)[0]
    assert 0 < at["decay"] < 1
    assert 0 < at["corr"] <= 1


def test_check_sizes_hold_two_whole_periods_of_a_threads_position():
    d = _draft(CHANNEL_GAIN)
    for at in _points(d.spec):
        assert at["total"] >= 2 * at["chans"] * at["plane"]
    assert len(d.spec.extra_sizes()) == 2  # still a ragged and a small check


def test_a_length_subtracted_from_an_extent_lies_within_it_at_every_size():
    d = _draft(CENTRED_TAPER)
    for at in _points(d.spec):
        assert 1 <= at["taps"] <= at["width"] - 2


def test_an_atomic_through_a_pointer_to_an_outputs_element_writes_that_output():
    d = _draft(SPLAT)
    assert [a.name for a in d.spec.args if a.is_array and a.output] == ["grid"]


def test_guards_that_continue_a_loop_bound_the_index_after_them():
    d = _draft(SCATTER_NEAR)
    out = next(a for a in d.spec.args if a.name == "out")
    assert out.size == "m"  # `j < m` past `if (...) continue;`, j from a read position
    grid = next(a for a in _draft(SPLAT).spec.args if a.name == "grid")
    assert grid.size == "s*s"


def test_a_loop_bound_nested_in_itself_per_thread_is_a_small_window():
    d = _draft(SPLAT)
    for at in _points(d.spec):
        assert 2 <= at["k"] <= 11 < at["s"]


def test_right_drafts_get_no_warning():
    for src, name in (
        (DOT_BATCHED, "dot_batched"),
        (STACK_COLUMNS, "stack_columns"),
        (MOMENTUM, "momentum"),
        (CHANNEL_GAIN, "channel_gain"),
        (CENTRED_TAPER, "centred_taper"),
    ):
        assert layout_warnings(src, name, _draft(src).spec) == [], name


def test_a_batch_stride_below_its_vectors_is_warned_about():
    d = _draft(DOT_BATCHED)
    _set(d, "bstride", "n")
    warnings = layout_warnings(DOT_BATCHED, "dot_batched", d.spec)
    assert warnings and warnings[0].startswith("args.bstride: bstride = ")
    assert "inc*n - inc + 1" in warnings[0] and "items overlap" in warnings[0]


def test_a_pitch_below_the_width_and_a_frame_stride_below_its_rows_are_warned_about():
    d = _draft(STACK_COLUMNS)
    _set(d, "pitch", 3)
    _set(d, "fstride", "w")
    warnings = layout_warnings(STACK_COLUMNS, "stack_columns", d.spec)
    assert [w.split(":")[0] for w in warnings] == ["args.pitch", "args.fstride"]
    assert warnings[0].startswith("args.pitch: pitch = 3 < w = ")


def test_a_length_past_its_extent_is_warned_about():
    d = _draft(CENTRED_TAPER)
    d.spec.sizes["taps"] = 10 * d.spec.sizes["width"]
    warnings = layout_warnings(CENTRED_TAPER, "centred_taper", d.spec)
    assert len(warnings) == 1 and warnings[0].startswith("args.taps: taps = ")
    assert "a length within width" in warnings[0]


def test_a_check_size_short_of_two_periods_and_weights_outside_their_range_are_warned_about():
    d = _draft(CHANNEL_GAIN)
    d.spec.verify_sizes = [{"total": 9}]
    warnings = layout_warnings(CHANNEL_GAIN, "channel_gain", d.spec)
    assert len(warnings) == 1 and warnings[0].startswith("sizes.total: total = 9 < 2 * chans * plane = ")
    d = _draft(MOMENTUM)
    _set(d, "decay", 2.5)
    _set(d, "corr", 3.5)
    lines = layout_warnings(MOMENTUM, "momentum", d.spec)
    assert [w.split(":")[0] for w in lines] == ["args.decay", "args.corr"]


def test_an_array_written_through_a_pointer_to_its_element_but_not_marked_an_output_is_warned_about():
    d = _draft(SPLAT)
    for a in d.spec.args:
        a.output = a.name == "px"
    warnings = layout_warnings(SPLAT, "splat", d.spec)
    assert warnings == [
        "args.grid: the kernel writes grid (by an atomic), but the spec does not mark it an output, so the check "
        "never compares it"
    ]


def test_float_atomics_into_a_float2_get_a_tolerance_for_their_order():
    grid = next(a for a in _draft(SPLAT).spec.args if a.name == "grid")
    assert grid.type == "float2" and grid.atol == 0.1
