"""benchmarks/search.py: the strategies' own cost per evaluation beside kernel_tuner's pso, and our
search as committed at a git ref (kt@REF) for before/after tables in one run."""

import importlib.util
import math
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("search_bench", ROOT / "benchmarks" / "search.py")
bench = importlib.util.module_from_spec(spec)
sys.modules["search_bench"] = bench  # forked workers find its functions by name
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


def synthetic_cache(path: Path) -> Path:
    """A small kernel_tuner cache file: 6 x 5 x 3 configurations, a smooth bowl with one failed configuration."""
    import itertools
    import json

    params = {"block_size_x": [32, 64, 128, 256, 512, 1024], "work": [1, 2, 4, 8, 16], "vec": [1, 2, 4]}
    cache = {}
    for b, w, v in itertools.product(*params.values()):
        t = 1.0 + abs(b.bit_length() - 8) * 0.3 + abs(w.bit_length() - 3) * 0.2 + (v != 2) * 0.1
        entry = {"block_size_x": b, "work": w, "vec": v, "time": t, "times": [t]}
        entry.update(compile_time=1.0, verification_time=0.0, benchmark_time=t)
        if (b, w, v) == (1024, 16, 4):
            entry["time"] = "RuntimeFailedConfig"
        cache[f"{b},{w},{v}"] = entry
    path.write_text(
        json.dumps(
            {
                "device_name": "synthetic",
                "kernel_name": "synthetic",
                "problem_size": 1024,
                "tune_params_keys": list(params),
                "tune_params": params,
                "objective": "time",
                "cache": cache,
            }
        )
    )
    return path


def test_every_space_runs_as_recorded_easy_and_needle_with_p_values_vs_kt(tmp_path, capsys):
    cache = synthetic_cache(tmp_path / "synthetic.json")
    spaces = f"{cache},{cache}:easy,{cache}:needle"
    assert bench.main(["--seeds", "6", "--spaces", spaces, "--strategies", "kt,random_sample,pso", "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    blocks = {
        m[0]: m[1:]
        for m in re.findall(r"^(synthetic.json:[a-z-]+): (\d+) configurations.*\((\d+) within 2 %", out, re.M)
    }
    assert set(blocks) == {"synthetic.json:as-recorded", "synthetic.json:easy", "synthetic.json:needle"}
    assert blocks["synthetic.json:as-recorded"] == ("90", "1") and blocks["synthetic.json:needle"] == ("90", "1")
    assert int(blocks["synthetic.json:easy"][1]) >= 89 // 10  # a tenth of the 89 measured
    assert out.count("evals to 2 %    mean") == 3 and out.count("p vs kt ahead") == 3
    rows = re.findall(r"^(kt|random_sample|pso)\s+6 \|\s+(\S+)\s+([\d.]+) .*\|\s+(\S+)\s+(kt|them|=)? *\|", out, re.M)
    assert len(rows) == 9
    for name, med, mean, p, ahead in rows:
        assert float(mean) >= 1 and (med == ">budget" or float(med) >= 1)
        assert (p, ahead) == ("-", "") if name == "kt" else 0 <= float(p) <= 1 and ahead in ("kt", "them", "=")
    assert "summary (evaluations to 2 %, median / mean" in out
    assert re.search(
        r"^synthetic.json:as-recorded: .*; blind uniform picks need 45 / 45.5 \(median / mean\) to 2 %$", out, re.M
    )


def test_the_needle_is_one_configuration_twice_as_fast_as_the_optimum_with_a_faster_ring_around_it(tmp_path):
    import json

    data = json.loads(synthetic_cache(tmp_path / "synthetic.json").read_text())
    params = data["tune_params"]
    for seed in range(5):
        cache = bench.needle(data, params, 1.0, seed)["cache"]
        times = {k: e["time"] for k, e in cache.items() if isinstance(e["time"], float)}
        center = min(times, key=times.get)
        assert times[center] == 0.5 and sum(t <= 0.5 * 1.02 for t in times.values()) == 1
        ring = {k for k, t in times.items() if 0.5 < t < 1.0}
        b, w, v = (int(x) for x in center.split(","))
        steps = 0
        for j, name in enumerate(params):
            at = params[name].index((b, w, v)[j])
            steps += (at > 0) + (at < len(params[name]) - 1)
        assert 1 <= len(ring) <= steps and all(times[k] == 0.75 for k in ring)
        assert data["cache"][center]["time"] != 0.5  # the recorded data stays as it was


def test_blind_picks_expect_size_plus_one_over_hits_plus_one():
    """The yardstick printed beside each space: what picks without any knowledge need to reach 2 %."""
    assert bench.blind(732, 108) == (733 / 109, 5)  # convolution:easy: 0.527 still missed after 4 picks
    assert bench.blind(10, 10) == (1.0, 1) and bench.blind(100, 1) == (50.5, 50)
    assert bench.blind(100, 0) == (math.inf, 101)


def test_ours_beside_ourselves_claims_nothing_about_kernel_tuner(tmp_path, capsys):
    cache = synthetic_cache(tmp_path / "synthetic.json")
    assert bench.main(["--seeds", "2", "--spaces", str(cache), "--strategies", "kt,kt_noseeds"]) == 0
    out = capsys.readouterr().out
    assert "kt_noseeds" in out and "every kernel_tuner strategy" not in out and "summary" not in out
