"""The drafts of tests/kernel/test_draft_s17_rules.py's kernels pass `kt-tui spec --check` on a real
GPU: no access outside an array (compute-sanitizer, where found) and a check that runs. Skipped without
a GPU."""

import pytest

from kt_tui.cli import main

from ..helpers import report
from ..kernel.test_draft_s17_rules import ATTENUATE, EDGES, HALVE, NAMED_GUARD, SPANS, STAGED, SWAP

pytestmark = pytest.mark.gpu

KERNELS = {
    "spans_uint2": SPANS.format(T="uint2", TEST="s.y > s.x"),
    "named_guard": NAMED_GUARD,
    "staged": STAGED,
    "edges": EDGES,
    "swap_pitched": SWAP,
    "halve": HALVE,
    "attenuate": ATTENUATE,
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_a_draft_by_the_s17_rules_passes_its_check(tmp_path, capsys, hermetic, name):
    kernel = tmp_path / f"{name}.cu"
    kernel.write_text(KERNELS[name])
    assert main(["spec", str(kernel)]) == 0
    capsys.readouterr()
    code = main(["spec", str(kernel), "--check", "--backend", "pycuda"])
    out = capsys.readouterr()
    report(f"spec --check {name}: exit {code}; {(out.out + out.err).strip().splitlines()[-1][:300]}")
    if name == "swap_pitched":  # `rows` bounds a reflected row but sizes nothing the analysis relates to h:
        # its guess (256, below h / 2) reflects rows past 0; the check refuses that spec by name (H100, 2026-12-07)
        assert code == 2 and "out of bounds" in out.err and "`src`" in out.err, out.out + out.err
        return
    assert "out of bounds" not in out.err.lower() and "illegal" not in out.err.lower(), out.err
    assert code == 0, out.out + out.err
