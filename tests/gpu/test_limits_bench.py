"""benchmarks/limits.py without a GPU: the sessions it would start are stood in for (their --json as a
real run's, numbers in the range the H100 run of 2026-12-06 gave) and its clock is theirs, to show the
order it runs them in, what it prints and where its deadline stops it."""

import importlib.util
import sys
import types

from ..conftest import ROOT

spec = importlib.util.spec_from_file_location("limits_bench", ROOT / "benchmarks" / "limits.py")
bench = importlib.util.module_from_spec(spec)
sys.modules["limits_bench"] = bench
spec.loader.exec_module(bench)
short = sys.modules["short"]

SPLIT = {"ncu_start": 0.9, "imports": 0.6, "inputs": 0.4, "run": 1.5, "ncu_end": 0.8}


def test_big_kernels_run_first_and_the_deadline_leaves_the_rest(monkeypatch, capsys):
    clock = [0.0]
    ran = []

    def run(kernel, data, max_configs, ncu):
        ran.append((kernel, max_configs, ncu))
        clock[0] += 30.0 if ncu else 20.0
        profile = {"state": "done", "dram_pct": 81.6, "dram_bytes_per_s": 2.734e12, "sm_pct": 41.3}
        profile |= {"stalls": [["long scoreboard", 57.9]], "seconds": 4.2, "split": SPLIT, "passes": 18}
        out = {
            "baseline_ms": 0.3,
            "best": {"time_ms": 0.29},
            "baseline_limits": {"pct_bw": 86.5, "launch_pct": 7.0},
            "best_limits": {"pct_bw": 89.0, "launch_pct": 7.2},
            "device": {"name": "NVIDIA H100 80GB HBM3", "copy_gbps": 2955.8, "launch_us": 21.0},
            "profiles": [profile, dict(profile, seconds=3.8, passes=17)] if ncu else [{"state": "absent"}],
        }
        return out, 30.0 if ncu else 20.0, ""

    monkeypatch.setattr(bench, "run", run)
    monkeypatch.setattr(short, "time", types.SimpleNamespace(monotonic=lambda: clock[0]))
    monkeypatch.setattr(sys, "argv", ["limits.py"])
    assert bench.main() == 0
    out = capsys.readouterr().out
    names = [k for k, _, ncu in ran if ncu]
    assert names == ["benchmarks/big/saxpy.cu", "benchmarks/big/conv3x3.cu", "benchmarks/big/histogram.cu",
                     "benchmarks/big/particles.cu"]  # fmt: skip
    assert [k for k, _, ncu in ran if not ncu] == ["benchmarks/big/saxpy.cu"] and {m for _, m, _ in ran} == {4}
    assert clock[0] <= 150 and "8 runs skipped at the deadline" in out  # 4 big kernels and the 4 examples
    assert out.index("saxpy ") < out.index("conv3x3 ")
    row = next(line for line in out.splitlines() if line.startswith("saxpy "))
    # kt-tui 86.5 % of the copy peak; ncu 2734 GB/s = 92.5 % of the same peak, 81.6 % of the theoretical
    assert row.split()[3:8] == ["86.5", "89.0", "7.0", "92.5", "81.6"] and row.split()[-1] == "20.0"
    split_row = out.split("where a profile's seconds go")[1].splitlines()[3]
    assert split_row.split()[1:] == ["0.90", "0.60", "0.40", "1.50", "0.80", "18/17"]
