"""Drafts for the general shapes behind the drafter's misses on held-out batch 5 (issue 35 item 3):
a draft its own loader reads, a stride at least the row it holds, narrow and unsigned arrays over
their type's range, index arrays drawn over the rows they pick, and a tolerance for float atomics."""

from kt_tui.kernel.expr import evaluate

from .test_draft_shapes import _draft  # checked and read back as the user's kt-tui reads it


def _arg(d, name: str):
    return next(a for a in d.spec.args if a.name == name)


def _scalar(d, name: str) -> int:
    return evaluate(_arg(d, name).value, d.spec.sizes)


# one block per group, its threads over the group's values, which lie in `reps` runs `groups * len`
# apart: read as a stride from one group to the next, its lengths multiply to more than a GPU holds
GROUP_SUMS = """
__global__ void group_sums(const float *in, float *out, int reps, int groups, int len)
{
    extern __shared__ float part[];
    int g = blockIdx.x;
    float s = 0.0f;
    for (int i = threadIdx.x; i < reps * len; i += blockDim.x) {
        int r = i / len;
        int k = i % len;
        s += in[((size_t)r * groups + g) * len + k];
    }
    part[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int j = 0; j < blockDim.x; j++)
            t += part[j];
        out[g] = t;
    }
}
"""


def test_a_draft_is_loadable_and_a_stride_counts_items_of_its_unit():
    d = _draft(GROUP_SUMS)  # parse_spec refuses arrays past what a GPU holds
    sizes = d.spec.sizes
    items = evaluate(d.spec.problem_size[0], sizes)
    # `(r * groups + g) * len`, g the block: groups counts the blocks' items of len values (not len times more)
    assert _scalar(d, "groups") == items
    total = sum(evaluate(a.size, {**sizes, "groups": _scalar(d, "groups")}) for a in d.spec.args if a.is_array)
    assert total <= 1 << 28


# a row per warp, rows `ld` floats apart holding n values; a loaded index picks one value of the row
ROW_PICK = """
__global__ void row_pick(float *out, const float *x, const int *pick, int rows, int n, int ld)
{
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows)
        return;
    const float *r = x + (size_t)row * ld;
    float s = 0.0f;
    for (int v = lane; v < n; v += 32)
        s += r[v];
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffff, s, o);
    if (lane == 0)
        out[row] = s - r[pick[row]];
}
"""


def test_a_row_stride_holds_the_row_even_where_a_loaded_index_reads_it():
    d = _draft(ROW_PICK)
    n = d.spec.sizes["n"]
    assert _scalar(d, "ld") > n  # padded past the row: a kernel that steps rows by n fails
    assert "ld" not in d.spec.sizes
    assert any(key == "args.ld" for key, _ in d.guesses)  # marked a guess
    assert evaluate(_arg(d, "pick").high, d.spec.sizes) == n


NARROW = """
__global__ void level_max(unsigned short *out, const unsigned short *img, const unsigned int *tags, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = img[i] > (unsigned short)(tags[i] & 0xffff) ? img[i] : 0;
}
"""


def test_sixteen_bit_arrays_get_their_range_and_unsigned_ones_no_negatives():
    d = _draft(NARROW)
    img, tags = _arg(d, "img"), _arg(d, "tags")
    assert (img.low, img.high) == (0, 65536)  # high exclusive: 65535 drawn too
    assert tags.low == 0


def test_narrow_arrays_are_drawn_up_to_their_types_greatest_value():
    """255 of a byte (a saturated pixel, a histogram's last bin) and 127 of a signed byte are drawn:
    the spec's high is exclusive and may be one past the type's greatest value (held-out batch 14)."""
    for ctype, dtype, top in (("unsigned char", "uint8", 256), ("signed char", "int8", 128), ("short", "int16", 32768)):
        d = _draft(NARROW.replace("unsigned short *img", f"{ctype} *img").replace("(unsigned short)", "(int)"))
        img = _arg(d, "img")
        assert img.type == dtype and img.high == top


# visibilities of a row and channel; a station's `nc` 2-element entries picked by two index arrays
STATIONS = """
__global__ void station_gain(float *out, const float *vis, const float *gain, const int *a, const int *b,
                             int nrows, int nc)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= nrows * nc)
        return;
    int row = v / nc;
    int c = v % nc;
    const float *ga = gain + ((size_t)a[row] * nc + c) * 2;
    const float *gb = gain + ((size_t)b[row] * nc + c) * 2;
    out[v] = vis[v] * (ga[0] * gb[0] + ga[1] * gb[1]);
}
"""


def test_index_arrays_that_pick_rows_of_a_size_are_drawn_over_the_rows():
    d = _draft(STATIONS)
    sizes = d.spec.sizes
    gain = evaluate(_arg(d, "gain").size, sizes)
    for name in ("a", "b"):
        high = evaluate(_arg(d, name).high, sizes)
        assert high > 1  # not 0/1 flags: many stations
        assert (high - 1) * sizes["nc"] * 2 + sizes["nc"] * 2 <= gain  # the last station's entries inside


SCATTER = """
__global__ void scatter(float *grid, int *hits, const float *w, const int *cell, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    atomicAdd(&grid[cell[i] & 255], w[i]);
    atomicMax(&hits[cell[i] & 255], i);
}
"""


def test_an_output_summed_by_float_atomics_gets_a_tolerance_for_summation_order():
    d = _draft(SCATTER)
    grid, hits = _arg(d, "grid"), _arg(d, "hits")
    assert grid.atol is not None and grid.atol >= 1e-2
    assert hits.atol is None  # an integer max is exact in any order
    assert "order" in " ".join(what for key, what in d.guesses if key == "args.grid")
