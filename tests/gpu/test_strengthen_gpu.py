"""Issue 35 on a real GPU: each new way of killing a survivor kills it on a small corpus kernel: floats
that tie (k-means' `dist < best_dist` -> `<=`), a 16-bit index over its whole range past the bound a
kernel clamps (a LUT's `unsigned short` -> `short`, `& 0x7fff`, `v >= levels` -> `>`), rows with one
large value (a softmax's max that misses an element), and another block size (a term of threadIdx.y
dropped, zero at block_size_y = 1); and equivalents by construction are never run nor counted.
Skipped without a GPU; tests/kernel/test_strengthen_cases.py checks the inputs on the CPU and
tests/gpu/test_mutants_geometry.py the runs with a stand-in."""

import re
from pathlib import Path

import pytest

from kt_tui.gpu import checkrun
from kt_tui.gpu import mutants as mutation
from kt_tui.gpu.sanitize import find_sanitizer
from kt_tui.kernel.spec import load_spec

from ..helpers import report
from .test_gpu_checks import _write

pytestmark = pytest.mark.gpu
BACKEND = "pycuda"
CORPUS = Path(__file__).parents[1] / "corpus"


@pytest.fixture(autouse=True)
def _room(monkeypatch):
    if find_sanitizer() is None:
        pytest.skip("compute-sanitizer not found: a case is legal only once memcheck passes it")
    monkeypatch.setattr(mutation, "BUDGET_S", 120.0)  # kills here; the time is benchmarks/mutants.py's
    monkeypatch.setattr(mutation, "STRENGTHEN_S", 120.0)


def _check(tmp_path, name, *changes):
    spec = (CORPUS / "specs" / f"{name}.cu.toml").read_text()
    for old, new in changes:
        assert old in spec
        spec = spec.replace(old, new)
    source = (CORPUS / f"{name}.cu").read_text()
    kernel = _write(tmp_path, name, source, spec)
    for gen in re.findall(r'^function = "(\w+):', spec, re.M):  # a user's generator beside its spec
        (tmp_path / f"{gen}.py").write_text((CORPUS / "specs" / f"{gen}.py").read_text())
    state = checkrun.check_strength(source, load_spec(kernel.with_suffix(".cu.toml")), BACKEND)
    score = state["mutants"]
    report(f"{name}: {score['line']}; tried {score['strengthening']}; {state['seconds']} s")
    return state, score, " ".join(m["what"] for m in score["survivors"])


KILLS = {  # kernel: (a smaller size, the survivors that must die, the case that kills them)
    "kmeans_assign": (("npoints = 100000", "npoints = 20000"), ["`<` -> `<=` in `if (dist < best_dist)"], "(ties)"),
    "particles_float3": (
        ("count = 300000", "count = 50000"),
        ["`>` -> `>=` in `if (p.x > box)", "`<` -> `<=` in `if (p.z < -box)"],
        "`dt`, `box` = 1 (ties)",
    ),
    "lut_u16": (
        ("npixels = 1000000", "npixels = 300000"),
        ["`unsigned short` -> `short`", "& 0x7fff", "`>=` -> `>` in `if (v >= levels)`"],
        "over the whole range of uint16",
    ),
    "softmax_rows": (
        ("rows = 4096", "rows = 600"),
        ["`float m = row[0];`", "`[c]` -> `[c - 1]`", "loop bound `cols` halved"],
        "one large value in each row",
    ),
}


@pytest.mark.parametrize("name", list(KILLS))
def test_a_tie_a_16_bit_high_bit_and_a_large_value_row_kill_their_survivors(tmp_path, name):
    """k-means' `dist < best_dist` -> `<=` and a bounce's `p.x > box` -> `>=` die on floats that tie;
    a LUT's narrowed, masked and loosened index on its 16-bit index's whole range; a softmax max that
    misses an element on rows with one large value."""
    smaller, gone, case = KILLS[name]
    state, score, survivors = _check(tmp_path, name, smaller)
    assert not [g for g in gone if g in survivors]
    assert any(case in c["label"] for c in state["cases"])
    if name != "kmeans_assign":  # its sentinel and start survive (see the report)
        assert score["killed"] >= 0.9 * score["counted"]


def test_another_block_size_kills_a_dropped_thread_y_term_and_the_equivalent_select_is_not_counted(tmp_path):
    state, score, survivors = _check(tmp_path, "relu_bias", ("batch = 256", "batch = 64"))
    assert "dropped `+ threadIdx.y`" not in survivors
    moved = [t for t in score["strengthening"] if t["label"].startswith("the survivors at ")]
    assert moved and moved[0]["why"].startswith("kills ")
    assert any("both arms are equal" in e for e in score["equivalent"])
    assert "v > 0.0f ? v : 0.0f" not in survivors
