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


def synthetic_cache(path: Path, gpu: str = "NVIDIA A100-PCIE-40GB (synthetic)") -> Path:
    """A small kernel_tuner cache file: 6 x 5 x 3 configurations, a smooth bowl with one failed configuration,
    recorded (it says) on a GPU the search is tuned on unless `gpu` says otherwise."""
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
                "device_name": gpu,
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


SPEC = """
kernel = "synthetic"
problem_size = ["n"]
grid_div_x = ["block_size_x", "work"]

[sizes]
n = 1024

[tune_params]
block_size_x = [32, 64, 128, 256, 512, 1024]
work = [1, 2, 4, 8, 16]
vec = [1, 2, 4]

[defaults]
block_size_x = 32
work = 1
vec = 1

[[args]]
name = "out"
type = "float32"
size = "n"
output = true
"""


def test_a_cache_beside_its_kernel_source_and_spec_gets_the_seeds_of_a_session(tmp_path, capsys):
    cache = synthetic_cache(tmp_path / "synthetic.json")
    assert bench.main(["--seeds", "1", "--spaces", str(cache), "--strategies", "kt"]) == 0
    assert "; 0 heuristic seeds;" in capsys.readouterr().out  # no source beside it: nothing to read rules from
    (tmp_path / "synthetic.cu").write_text("__global__ void synthetic(float *out) { out[threadIdx.x] = 0; }")
    (tmp_path / "synthetic.cu.toml").write_text(SPEC)
    space = bench.Space(str(cache), tmp_path)
    assert space.spec is not None and space.seeds
    groups = {group for _, group in space.seeds}
    assert any(g.startswith("block-1d[0]") for g in groups) and any("vector-width[0]" in g for g in groups)
    assert all(c["block_size_x"] >= 128 and c["vec"] == 4 for c, _ in space.seeds)  # the rules' picks
    assert bench.main(["--seeds", "1", "--spaces", str(cache), "--strategies", "kt"]) == 0
    assert f"; {len(space.seeds)} heuristic seeds;" in capsys.readouterr().out


def test_without_a_spec_the_sources_defines_are_the_defaults_its_seeds_keep(tmp_path):
    cache = synthetic_cache(tmp_path / "synthetic.json")
    (tmp_path / "synthetic.cu").write_text(
        "#ifndef work\n#define work 4\n#endif\n__global__ void synthetic(float *out) { out[0] = work; }"
    )
    space = bench.Space(str(cache), tmp_path)
    assert space.spec.defaults == {"work": 4}
    assert space.seeds and all(c["work"] == 4 for c, _ in space.seeds)  # block-1d names only the block size


def test_a_held_out_recording_runs_only_when_asked_and_is_reported_apart(tmp_path, capsys):
    tuning = synthetic_cache(tmp_path / "tuning.json")
    held = synthetic_cache(tmp_path / "held.json", gpu="NVIDIA TITAN RTX")
    argv = ["--seeds", "4", "--spaces", f"{held},{tuning}", "--strategies", "kt,random_sample"]
    assert bench.main(argv) == 2
    out, err = capsys.readouterr()
    assert "held.json:as-recorded was recorded on NVIDIA TITAN RTX" in err and "held out" in err
    assert "configurations" not in out  # refused before anything ran
    assert bench.main([*argv, "--held-out"]) == 0
    out = capsys.readouterr().out
    # the tuning space first, then the held-out one under its own heading, each in its own summary
    assert out.index("\ntuning.json:as-recorded: ") < out.index("## held out") < out.index("\nheld.json:as-recorded: ")
    tuned, _, held_part = out.partition("## held out")
    assert "held.json" not in tuned and "tuning.json:as-recorded:" not in held_part
    assert "\nsummary (" in tuned and "\nheld out: summary (" in held_part
    assert "kt on 1 spaces: significantly behind no kernel_tuner strategy on" in tuned
    assert "held out: kt on 1 spaces:" in held_part
    assert re.search(r"held.json:as-recorded\s+[\d.]+ vs tuning.json:as-recorded [\d.]+ \(medians; p", held_part)


def test_kernel_tuners_runs_are_kept_on_disk_and_only_ours_runs_again(tmp_path, capsys, monkeypatch):
    cache = synthetic_cache(tmp_path / "synthetic.json")
    argv = ["--seeds", "3", "--spaces", str(cache), "--strategies", "kt,random_sample,pso", "--max-evals", "40"]
    argv += ["--cache-dir", str(tmp_path / "kept")]
    assert bench.main(argv) == 0
    first = capsys.readouterr().out
    ran = []
    real = bench.run_one
    monkeypatch.setattr(
        bench, "run_one", lambda space, name, seed, limit: ran.append(name) or real(space, name, seed, limit)
    )
    assert bench.main(argv) == 0
    again = capsys.readouterr().out
    assert ran == []  # all came from the disk: ours too, kept by the files of kt_tui/search
    monkeypatch.setattr(bench, "cache_name", lambda name, space: name if name != "kt" else "kt@tree:changed")
    assert bench.main(argv) == 0
    assert ran == ["kt"] * 3  # ours changed: only ours runs again
    rows = lambda out: re.findall(r"^(random_sample|pso)\s+3 \|\s+(\S+)\s+([\d.]+)", out, re.M)  # noqa: E731
    assert rows(first) == rows(again) and len(rows(first)) == 2
    assert "budget 40 evaluations" in again
    assert "kt@tree:" in bench.cache_name("kt", None) and bench.cache_name("pso", None) == "pso"


def test_the_hub_specs_give_exactly_the_spaces_their_manifest_names():
    import tomllib

    from kt_tui.kernel.spec import load_spec
    from kt_tui.search.space import configurations

    hub = ROOT / "benchmarks" / "spaces" / "hub"
    manifest = tomllib.loads((hub / "hub.toml").read_text())
    assert sorted(manifest) == ["convolution", "convolution_milo", "dedispersion", "gemm", "pnpoly"]
    assert sum(len(e["caches"]) for e in manifest.values()) == 15
    sizes = {k: len(configurations(load_spec(hub / e["spec"]))) for k, e in manifest.items() if "spec" in e}
    # the recorded caches hold these many configurations (benchmark_hub at 8eeb99e)
    assert sizes == {"convolution": 6768, "pnpoly": 4092, "convolution_milo": 4362, "dedispersion": 11130}
    for e in manifest.values():
        held = [
            bench.held_out(gpu) for gpu in (e["caches"][0].rpartition("/")[2].replace("_", " "), "NVIDIA TITAN RTX")
        ]
        assert held == [False, True]  # the first of each kernel is recorded on a tuning GPU
