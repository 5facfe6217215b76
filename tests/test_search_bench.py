"""benchmarks/search.py: the strategies' own cost per evaluation beside kernel_tuner's pso, and our
search as committed at a git ref (kt@REF) for before/after tables in one run."""

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("search_bench", ROOT / "benchmarks" / "search.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def test_model_cost_prints_mean_median_p95_max_beside_pso(capsys):
    assert bench.model_cost(["kt", "pso"], evaluations=60, sizes=(False,)) == 0  # pso: a population of 50
    out = capsys.readouterr().out
    assert "mean median    p95    max" in out
    rows = {
        m[0]: [float(v) for v in m[1:]]
        for m in re.findall(
            r"^\s+21600 (kt|pso)\s+(\d+) \|\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+) \|\s+([\d.]+) \|", out, re.M
        )
    }
    assert set(rows) == {"kt", "pso"}
    for _setup, mean, med, p95, top, run in rows.values():
        assert 0 <= med <= p95 <= top and mean <= top and run > 0


def test_a_baseline_ref_is_our_search_as_committed_there():
    base, module = bench.strategy("kt_noseeds@HEAD")
    assert base == "kt_noseeds" and module is not bench.ours
    assert module.__name__.startswith("kt_baseline_") and hasattr(module, "tune")
    assert bench.strategy("kt@HEAD")[1] is module  # imported once per ref
    with pytest.raises(SystemExit, match="no kt_tui/search at git ref 'no-such-ref'"):
        bench.strategy("kt@no-such-ref")


def test_unknown_strategies_exit_2(capsys):
    for name in ("pso@HEAD", "nope"):
        with pytest.raises(SystemExit) as e:
            bench.main(["--strategies", name, "--model-cost"])
        assert e.value.code == 2 and f"unknown strategy {name!r}" in capsys.readouterr().err
