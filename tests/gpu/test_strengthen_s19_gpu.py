"""Issue 35 on a real GPU, session 19's cases (kernel/strengthen_code.py): each kills on its corpus
kernel the survivors session 18's H100 table left (benchmarks/results/mutants-h100-2026-12-07-s18.txt),
through the whole check (memcheck of the case, the runs, the score). tests/kernel/test_strengthen_s19.py
plans the same cases and runs numpy stand-ins of the kernels on the CPU."""

import pytest

from .test_strengthen_gpu import _check, _room  # noqa: F401 - _room: the budgets and memcheck, autouse

pytestmark = pytest.mark.gpu

SESSION_19 = {  # kernel: (the survivors that must die, the case that kills them)
    "log_mel_fbank_float2": (
        [
            "`int` -> `short` in `const int lo = bin_edges[m];`",
            "`(bin_edges[m] & 0xffff)`",
            "`int` -> `short` in `const int mid = bin_edges[m + 1];`",
            "`(bin_edges[m + 1] & 0xffff)`",
            "`int` -> `short` in `const int hi = min(bin_edges[m + 2], n_fft / 2 + 1);`",
            "`(bin_edges[m + 2] & 0xffff)`",
        ],
        "`bin_edges` above 16 bits (the kernel clamps it",
    ),
    "ray_tri_closest_warp": (
        ["line 41:54: `<` -> `<=`", "line 30:31: `>` -> `>=`"],
        "(the user's Python's values) rounded to whole numbers",
    ),
    "ctc_greedy_block_template": (
        ["`int` -> `short` in `const int id = ids[t];`"],
        "a loop's counter to `nclasses` kept as a value",
    ),
    "valid_bitmask_ballot": (
        ["line 13:24: `<` -> `<=`", "line 13:17: `0` -> `1`"],
        "one thread in range in its last warp",
    ),
}


@pytest.mark.parametrize("name", list(SESSION_19))
def test_session_19_cases_kill_their_survivors_and_the_kernel_reaches_90_percent(tmp_path, name):
    """log_mel's band corners in a short or masked to 16 bits at n_fft = 262145 (the user's Python
    makes corners past 2**16; ld raised with it); ray_tri's merge `<=` and edge `>=` on the user's rays
    and triangles rounded to whole numbers (hits on an edge, two hits at one distance); ctc's class id
    in a short at nclasses = 131073; the ballot's writer moved to lane 1 at n = 65 (one thread in the
    last warp) and its `i <= n` with the scalar 64 (whole warps)."""
    gone, case = SESSION_19[name]
    state, score, survivors = _check(tmp_path, name)
    assert not [g for g in gone if g in survivors], survivors
    assert any(case in c["label"] for c in state["cases"]), state["cases"]
    assert score["killed"] >= 0.9 * score["counted"], score["survivors"]  # the 90 % target
