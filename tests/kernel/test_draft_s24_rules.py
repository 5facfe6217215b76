"""Drafter rules made after seeing held-out batch 24, each on a kernel written here. Two of its first
drafts could not be read back (`high` below `low`): an array read at `row * S + v`, v a value read from
memory, was taken as indexed by v alone, sized by an unread int, and v's bound was what that length
left after the rows: negative. Now v is a column below the row length S, the array is rows * S long;
and a drafted bound the sizes leave at or below its low is never written as such."""

from __future__ import annotations

from kt_tui.kernel import draft_rows
from kt_tui.kernel.expr import evaluate
from kt_tui.kernel.spec import check_spec

from .test_draft_shapes import _draft, _points

PICK_BIN = """
__global__ void pick_bin(const float *hist, int nbins, const unsigned short *sel, int npix, float *out) {
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npix) return;
    out[p] = hist[(size_t)p * nbins + sel[p]];
}
"""

TAKE_2D = """
__global__ void take_cols(const double *y, int ld, const int *cols, int m, int k, double *z) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= k || r >= m) return;
    z[r * k + j] = y[r * ld + cols[r * k + j]];
}
"""


def test_a_value_read_from_memory_picks_a_column_of_the_threads_row():
    for src, table, index, row, rows in ((PICK_BIN, "hist", "sel", "nbins", "npix"), (TAKE_2D, "y", "cols", "ld", "m")):
        d = _draft(src)
        args = {a.name: a for a in d.spec.args}
        for at in _points(d.spec):
            assert evaluate(args[table].size, at) == at[rows] * at[row]  # before: an unread int, or a size of its own
            assert evaluate(args[index].low, at) == 0 and evaluate(args[index].high, at) == at[row]
        assert "column within a thread's row" in dict(d.guesses)[f"args.{table}"]


def test_a_bound_the_sizes_leave_below_its_low_is_raised_and_said():
    d = _draft(PICK_BIN)
    sel = next(a for a in d.spec.args if a.name == "sel")
    sel.high = "nbins - npix * nbins"  # what the old sizing left: the table's length after all the rows
    guesses: list[tuple[str, str]] = []
    draft_rows.highs_above_lows(d.spec, guesses)
    assert sel.high == 1 and dict(guesses)["args.sel"].startswith("the values' bound the draft found (nbins - npix")
    check_spec(d.spec)  # loads: before, "args[2] (sel).high: must be above low (0)"
