"""Issue 35 on a real GPU, session 11's cases (kernel/strengthen.py): each kills the survivors it was
made for on a corpus kernel, through the whole check (memcheck of the case, the runs, the score).
tests/kernel/test_strengthen_rules.py runs the same kernels in numpy on the CPU."""

import pytest

from .test_strengthen_gpu import _check, _room  # noqa: F401 - _room: the budgets and memcheck, autouse

pytestmark = pytest.mark.gpu

KILLS = {  # kernel: (a smaller size or None, the survivors that must die, the case that kills them)
    "bitonic_step": (None, ["line 6:33: `<` -> `<=`"], "one less than its arrays and launch"),
    "kmeans_assign": (
        ("npoints = 100000", "npoints = 20000"),
        ["`<` -> `<=` in `for (int c = 0; c < nclusters", "`0.0f` -> `1.0f` in `float dist = 0.0f;`"],
        "",
    ),
    "histogram_float_smem": (
        ("n = 2000000", "n = 300000"),
        ["dropped `- 1` in `int b = min(", "`-` -> `+` in `int b = min("],
        "past the top of the unit interval",
    ),
    "segmented_sum": (
        None,
        ["`(seg_begin[blockIdx.x] & 0xffff)`", "`int` -> `short` in `int begin"],
        "`seg_begin` (all zeros in the spec)",
    ),
    "srad_neighbours": (None, ["`(jW[col] & 0xffff)`", "`(jE[col] & 0xffff)`"], "`jW` above 16 bits"),
}


@pytest.mark.parametrize("name", list(KILLS))
def test_session_11_cases_kill_their_survivors(tmp_path, name):
    """bitonic's `ixj <= n` on a size one less than `values`; k-means' `c <= nclusters` on a count one
    less than `centroids` and its distance started at 1 on tiny floats; a histogram's clamp with `- 1`
    dropped on samples past 1; a segment's begin in 16 bits on begins drawn wide; srad's masked column
    tables on ncols raised alone above 2**16."""
    smaller, gone, case = KILLS[name]
    state, score, survivors = _check(tmp_path, name, *([smaller] if smaller else []))
    assert not [g for g in gone if g in survivors]
    if case:
        assert any(case in c["label"] for c in state["cases"])
    else:  # two cases, one for each
        labels = " ".join(c["label"] for c in state["cases"])
        assert "one less than its arrays" in labels and "2**-16" in labels
