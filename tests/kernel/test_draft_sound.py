"""Drafted arrays long enough for every index the kernel takes at the drafted sizes and values, at the
draft's sizes and each check size (kernel/draft_sound.py, kernel/draft_index.py): a value read from an
array and added inside a pitched row sizes whole rows and ranges over the row's padding; a 1-based index
(`v - 1`) is drawn from 1; an array read only at `v` and `v + 1` (offsets) holds one more than v's
bound; an index the sizing missed grows the array; an image read only inside a border holds the whole
domain, and each growth says which of the two it was (a reach short of the axis's bound for another reason
is no border). Each kernel is written here; each test fails on the drafter before them."""

from __future__ import annotations

from kt_tui.kernel.expr import evaluate

from .test_draft_shapes import _draft, _points


def _arg(d, name: str):
    return next(a for a in d.spec.args if a.name == name)


def _at(d, expr: str) -> list[int]:
    """`expr` (over the sizes, the scalars and `lo_X` / `hi_X`: X's least and largest value) at each point."""
    out = []
    for p in _points(d.spec):
        env = dict(p)
        for a in d.spec.args:
            if a.is_array:
                env[f"len_{a.name}"] = evaluate(a.size, p)
                if a.low is not None and a.high is not None:
                    env[f"lo_{a.name}"] = evaluate(a.low, p)
                    env[f"hi_{a.name}"] = int(evaluate(a.high, p)) - 1
        out.append(evaluate(expr, env))
    return out


SHIFTED = """
__global__ void shifted_rows(const short *in, int pitch, int nch, const int *shift, int nout, float *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y;
    if (t >= nout || c >= nch) return;
    out[c * nout + t] = 0.5f * in[c * pitch + shift[c] + t];
}"""


def test_a_shift_read_inside_a_pitched_row_stays_inside_the_array():
    d = _draft(SHIFTED)
    # the last channel's row, from its shift: every index below the length (before: a length of its own,
    # 1024, for a reach of about nch * 3)
    assert all(v > 0 for v in _at(d, "len_in - ((nch - 1) * pitch + hi_shift + nout - 1)"))
    assert all(v >= 1 for v in _at(d, "hi_shift - lo_shift"))  # shifts that differ, inside the row's padding


PICK = """
__global__ void pick_columns(const float *a, int lda, int nrows, const int *cols1, int npick, float *out)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= npick || r >= nrows) return;
    out[r * npick + j] = a[r * lda + cols1[j] - 1];
}"""


def test_one_based_column_numbers_start_at_1_and_reach_inside_the_row():
    d = _draft(PICK)
    assert all(v >= 1 for v in _at(d, "lo_cols1"))  # before: 0, which reads a[-1]
    assert all(v > 0 for v in _at(d, "len_a - ((nrows - 1) * lda + hi_cols1 - 1)"))
    assert all(v <= 0 for v in _at(d, "hi_cols1 - lda"))  # a column inside its row


DEGREES = """
__global__ void degrees(const int *offs, int nrows, const int *who, int m, int *deg)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    int r = who[i];
    deg[i] = offs[r + 1] - offs[r];
}"""


def test_offsets_read_at_v_and_v_plus_1_hold_one_more_than_the_rows():
    d = _draft(DEGREES)
    assert _at(d, "len_offs - nrows") == [1] * len(_points(d.spec))
    assert _at(d, "hi_who + 1 - nrows") == [0] * len(_points(d.spec))  # before: below nrows - 1, the last row never
    assert all(v > 0 for v in _at(d, "len_offs - (hi_who + 1)"))


STRIDED = """
__global__ void strided_sums(const float *x, const int *first, int n, int width, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < width; ++k) acc += x[first[i] + 2 * k];
    y[i] = acc;
}"""


def test_an_array_whose_length_misses_an_index_grows_to_it():
    d = _draft(STRIDED)
    assert all(v > 0 for v in _at(d, "len_x - (hi_first + 2 * (width - 1))"))  # before: n_x, below 2 * width
    assert any("grown to what the kernel's indices reach" in why for key, why in d.guesses if key == "args.x")


BORDERED = """
__global__ void gain_inside(const short *gx, int gstep, const float *img, int istep, int width, int height,
                            float *out)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float v = 0.0f;
    if (x > 0 && y > 0 && x < width - 1 && y < height - 1) {
        const float c = img[y * istep + x];
        if (c > 0.5f)
            v = c * gx[y * gstep + x];
    }
    out[y * width + x] = v;
}"""


def test_images_read_only_inside_a_border_hold_the_whole_domain():
    d = _draft(BORDERED)
    # before: a row and a pixel short of the last row's end, which a caller's image has
    assert all(v >= 0 for v in _at(d, "len_gx - ((height - 1) * gstep + width)"))
    assert all(v >= 0 for v in _at(d, "len_img - ((height - 1) * istep + width)"))

    why = next(why for key, why in d.guesses if key == "args.gx" and why.startswith("grown"))
    assert "gx is read only inside a border the kernel skips" in why
    assert "at most height - 2 and width - 2" in why  # the border tests found: `x < width - 1`, `y < height - 1`


STRIDED_TAPS = """
__global__ void strided_taps(const float *x, const int *first, int n, int width, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < width; ++k) acc += x[first[i] + i + 2 * k + 1];
    y[i] = acc;
}"""


def test_an_index_past_the_end_is_said_as_that_and_not_as_a_border():
    # the top `i + 2 * k + 1` is 2 short of `n + 2 * width` (two counters' tops), no border test: before,
    # said as a border the kernel skips, and grown 1 past what it reaches
    d = _draft(STRIDED_TAPS)
    why = next(why for key, why in d.guesses if key == "args.x" and why.startswith("grown"))
    assert "border" not in why
    assert "an index of x reaches `n + 2*width - 2`" in why
    assert "past its drafted length n_x (= " in why and "at the drafted sizes" in why
    assert _at(d, "len_x - (hi_first + (n - 1) + 2 * (width - 1) + 2)") == [0] * len(_points(d.spec))
