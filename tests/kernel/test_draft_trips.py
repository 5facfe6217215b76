"""A scalar that counts a loop inside each thread, sizing no array nor the launch, is drafted small
(kernel/draft_trips.py): every run of the check pays each trip (issue 35: a Bloom filter's hash
count drafted 100 made each run about 100 times as long and left most wrong variants unrun). The
kernels here are written for the test."""

from kt_tui.kernel.draft import draft
from kt_tui.kernel.draft_flags import LOOP_COUNT
from kt_tui.kernel.draft_trips import TRIPS
from kt_tui.kernel.source import find_kernels

from ..conftest import KERNELS

ROUNDS = (KERNELS / "rounds.cu").read_text()

TWO = """
__global__ void two(const float *x, int n, int outer, int inner, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    for (int a = 0; a < outer; a++)
        for (int b = 1; b <= inner; b += 1)
            v = v * 0.5f + (float)(a - b);
    y[i] = v;
}
"""

LANES = """
__global__ void lanes(const float *x, int nitems, int nchan, float *y)
{
    const int item = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (item >= nitems) return;
    float s = 0.0f;
    for (int c = lane; c < nchan; c += 32)
        s += x[item] * (float)c;
    if (lane == 0) y[item] = s;
}
"""

WHILE = """
__global__ void settle(const float *x, int n, int limit, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    int t = 0;
    while (t < limit) { v = v * 0.5f + 1.0f; t++; }
    y[i] = v;
}
"""


def _draft(src: str):
    return draft(find_kernels(src)[0], src=src)


def _value(d, name: str):
    return next(a.value for a in d.spec.args if a.name == name)


def test_a_loop_counted_inside_each_thread_is_drafted_small_and_said():
    d = _draft(ROUNDS)
    assert _value(d, "nrounds") in TRIPS and 3 <= _value(d, "nrounds") <= 8
    assert any(line.startswith("args.nrounds: ") and "within each thread" in line for line in d.lines())
    assert _value(d, "n") == "n" and d.spec.sizes["n"] >= 1 << 20  # the size the threads cover stays large


def test_two_counts_inside_a_thread_are_small_and_apart():
    d = _draft(TWO)
    outer, inner = _value(d, "outer"), _value(d, "inner")
    assert outer in TRIPS and inner in TRIPS and outer != inner


def test_a_count_shared_by_a_warps_lanes_or_bounding_a_while_loop_keeps_the_larger_count():
    assert _value(_draft(LANES), "nchan") == LOOP_COUNT  # each lane goes round nchan / 32 times
    assert _value(_draft(WHILE), "limit") == LOOP_COUNT
