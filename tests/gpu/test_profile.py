"""Nsight Compute profiles (gpu/profile.py, engine/profiles.py) without a GPU: ncu's pages as
recorded on an NVIDIA H100 80GB HBM3 on 2026-12-06 (tests/fixtures/h100-2026-12-06) read into a
summary, and a stand-in ncu (tests/gpu/fake_ncu.py) for what the runner and the engine do with its
answers: a profile, several targets in one ncu process, one of them failing, a child that dies,
counters not permitted, a hang, no ncu at all."""

import json
from pathlib import Path

import pytest

from kt_tui.engine.backend import BackendChoice
from kt_tui.engine.core import Engine
from kt_tui.engine.profiles import clean_profile, performance_block, profile_line, session_profiles
from kt_tui.engine.strategies.sweep import sweep
from kt_tui.gpu import profile as prof
from kt_tui.gpu.simcache import read_header
from kt_tui.kernel.spec import read_spec
from kt_tui.store import Store

from ..conftest import ROOT
from ..engine.test_outcomes import FakeGpu, approve, real_session

H100 = ROOT / "tests" / "fixtures" / "h100-2026-12-06"
FAKE = ROOT / "tests" / "gpu" / "fake_ncu.py"


def _summary(page: str) -> dict:
    """The summary of the first profiled kernel on ncu's details page (CSV); {} if it holds none."""
    kernels = prof._kernels(page)
    return prof.summarize_rows(kernels[0]) if kernels else {}


def _spec():
    import tomllib

    return read_spec(tomllib.loads((H100 / "vadd.cu.toml").read_text()))


def test_the_h100_page_reads_into_sm_and_dram_throughput_occupancy_stalls_and_rules():
    s = _summary((H100 / "ncu-vadd-page.csv").read_text())
    assert round(s["sm_pct"], 1) == 41.4 and round(s["dram_pct"], 1) == 81.5 and round(s["l2_pct"], 1) == 79.4
    assert round(s["occupancy_achieved"], 1) == 75.9 and s["occupancy_theoretical"] == 100
    assert s["stalls"][0] == ["long scoreboard", 57.89] and [n for n, _ in s["stalls"]] == [
        "long scoreboard",
        "wait",
        "short scoreboard",
    ]  # "selected" is issuing, not a stall
    assert [(r["rule"], r["type"]) for r in s["rules"][:2]] == [("CPIStall", "OPT"), ("AchievedOccupancy", "OPT")]
    assert s["rules"][0]["speedup_pct"] == 84.51
    assert not any("could not be found" in r["text"] for r in s["rules"])  # ncu on its own metrics
    assert s["dram_bytes_per_s"] == pytest.approx(2.734427e12) and s["registers_per_thread"] == 16
    assert s["kernel"] == "vadd" and s["cycles_per_issue"] == 68.54
    assert profile_line(s).startswith("SM 41 %, DRAM 82 % of peak; occupancy 76 % of 100 % theoretical")
    # without the metrics asked for by name, the memory section's throughput (Tbyte/s where ncu scales it)
    page = (H100 / "ncu-vadd-page.csv").read_text().replace("Command line profiler metrics", "elsewhere")
    page = page.replace('"Memory Throughput","byte/s","2,733,607,213,547.39"', '"Memory Throughput","Tbyte/s","2.73"')
    alone = _summary(page)
    assert alone["dram_bytes_per_s"] == pytest.approx(2.73e12) and "stalls" not in alone


def test_pages_that_are_not_ncus_give_no_summary_and_a_hostile_summary_is_cut_down():
    assert _summary("") == {} and _summary("garbage\n1,2,3") == {}
    assert _summary('"ID","x"\n' + '"1","2"\n' * 5000) == {}
    hostile = {
        "sm_pct": float("nan"),
        "dram_pct": "81",
        "stalls": [["x" * 10**6, 1e300], "no"],
        "rules": [{"text": "t" * 10**6}] * 50,
        "split": {"run": float("inf"), "imports": 0.5, "x" * 100: 1.0},
    }
    clean = clean_profile(hostile)
    assert "sm_pct" not in clean and "dram_pct" not in clean
    assert len(clean["stalls"][0][0]) == 40 and len(clean["rules"]) == 4 and len(clean["rules"][0]["text"]) == 500
    assert clean["split"] == {"imports": 0.5}
    assert clean_profile("not a dict") == {}


def test_one_ncu_run_prints_the_whole_profile_and_says_where_its_seconds_went(monkeypatch, tmp_path):
    monkeypatch.setenv("KT_TUI_NCU", str(FAKE))
    monkeypatch.setenv("FAKE_NCU_LOG", str(tmp_path / "calls"))
    report = prof.profile("__global__ void vadd() {}", _spec(), {"block_size_x": 256}, "cupy")
    assert report.state == "done", report.reason
    assert round(report.summary["dram_pct"], 1) == 81.5 and report.summary["stalls"][0][0] == "long scoreboard"
    calls = (tmp_path / "calls").read_text().splitlines()
    assert len(calls) == 1  # no report file read back by other ncu processes
    for section in prof.SECTIONS:
        assert f"--section {section}" in calls[0]
    assert "--metrics regex:^smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active\\.ratio$," in calls[0]
    for option in (
        "--launch-count 1",
        "--kernel-name regex:vadd",
        "--csv --page details --print-units base",
        "--target-processes application-only",
        "--clock-control none",
        "-m kt_tui.gpu.profile",
    ):
        assert option in calls[0]
    assert "--import" not in calls[0] and "--export" not in calls[0]
    split, seconds = report.summary["split"], report.summary["seconds"]
    assert list(split) == ["ncu_start", "imports", "inputs", "run", "ncu_end"] and report.summary["passes"] == 18
    assert all(split[k] >= 0.09 for k in ("ncu_start", "imports", "inputs", "run")) and split["ncu_end"] >= 0
    assert sum(split.values()) == pytest.approx(seconds, abs=0.05) and report.summary["targets"] == 1


def _targets(*sizes):
    spec = _spec()
    return [prof.Target("__global__ void vadd() {}", spec, {"block_size_x": b}) for b in sizes]


def test_two_targets_are_profiled_in_one_ncu_process_and_each_gets_its_own_kernels_page(monkeypatch, tmp_path):
    monkeypatch.setenv("KT_TUI_NCU", str(FAKE))
    monkeypatch.setenv("FAKE_NCU_LOG", str(tmp_path / "calls"))
    base, best = prof.profile_all(_targets(256, 512), "cupy")
    calls = (tmp_path / "calls").read_text().splitlines()
    assert len(calls) == 1 and "--launch-count 2" in calls[0] and "--kernel-name regex:vadd " in calls[0]
    assert base.state == best.state == "done", (base.reason, best.reason)
    # the page's first kernel is the first target's, the second the second's (fake_ncu: block_size_x / 16)
    assert base.summary["registers_per_thread"] == 16 and best.summary["registers_per_thread"] == 32
    assert round(best.summary["dram_pct"], 1) == 81.5 and best.summary["passes"] == base.summary["passes"] == 18
    assert base.summary["targets"] == best.summary["targets"] == 2
    a, b = base.summary["split"], best.summary["split"]
    for shared in ("ncu_start", "imports", "ncu_end"):
        assert a[shared] == b[shared]  # the process's start and end, half each
    assert a["ncu_start"] >= 0.04 and a["inputs"] >= 0.09 and b["inputs"] >= 0.09 and b["run"] >= 0.09
    assert sum(a.values()) == pytest.approx(base.seconds, abs=0.05)
    assert 0 < base.seconds and 0 < best.seconds


def test_two_targets_of_one_process_split_its_seconds_without_counting_any_twice():
    """The process's start, imports and end are halved between the two targets; each target's own
    steps are its own: the two splits sum to the process's seconds (stamps at set times, no clock)."""
    stamps = [(1.0, "up"), (1.5, "imported"), (2.0, "inputs 0"), (3.0, "ran 0"), (3.25, "inputs 1"), (5.0, "ran 1")]
    out = "\n".join(f"{prof.STAMP} {t:.3f} {step}" for t, step in stamps)
    split = prof.split(out, started=0.0, ended=6.0, n=2)
    a, b = split[0]["split"], split[1]["split"]
    assert a == {"ncu_start": 0.5, "imports": 0.25, "inputs": 0.5, "run": 1.0, "ncu_end": 0.5}
    assert b == {"ncu_start": 0.5, "imports": 0.25, "inputs": 0.25, "run": 1.75, "ncu_end": 0.5}
    assert sum(a.values()) + sum(b.values()) == pytest.approx(6.0)


def test_one_configuration_twice_is_one_profile(monkeypatch, tmp_path):
    monkeypatch.setenv("KT_TUI_NCU", str(FAKE))
    monkeypatch.setenv("FAKE_NCU_LOG", str(tmp_path / "calls"))
    one, same = prof.profile_all(_targets(512, 512), "cupy")
    calls = (tmp_path / "calls").read_text().splitlines()
    assert len(calls) == 1 and "--launch-count 1" in calls[0]
    assert one.state == "done" and same == one and one.summary["targets"] == 1
    assert one.summary["registers_per_thread"] == 32


def test_a_target_that_fails_costs_only_its_own_profile(monkeypatch, tmp_path):
    monkeypatch.setenv("KT_TUI_NCU", str(FAKE))
    monkeypatch.setenv("FAKE_NCU_LOG", str(tmp_path / "calls"))
    monkeypatch.setenv("FAKE_NCU_FAIL", "block_size_x=256")
    base, best = prof.profile_all(_targets(256, 512), "cupy")
    assert base.state == "failed" and "too many resources requested" in base.reason and not base.summary
    assert best.state == "done" and best.summary["registers_per_thread"] == 32  # ncu's only kernel is the second's
    assert best.summary["targets"] == 2 and set(best.summary["split"]) == set(prof.SPLIT)
    assert len((tmp_path / "calls").read_text().splitlines()) == 1
    # a child that dies after its first target: the second in a process of its own
    monkeypatch.delenv("FAKE_NCU_FAIL")
    monkeypatch.setenv("FAKE_NCU_MODE", "die")
    base, best = prof.profile_all(_targets(256, 512), "cupy")
    assert base.state == best.state == "done", (base.reason, best.reason)
    assert (base.summary["registers_per_thread"], best.summary["registers_per_thread"]) == (16, 32)
    assert best.summary["targets"] == 1
    assert [c.split("--launch-count ")[1][0] for c in (tmp_path / "calls").read_text().splitlines()[1:]] == ["2", "1"]


def test_a_page_whose_kernels_do_not_match_the_targets_that_ran_is_no_ones_profile(monkeypatch, tmp_path):
    page = (H100 / "ncu-vadd-page.csv").read_text()
    out = "\n".join(
        [
            "kt-tui: at 1.000 up",
            "kt-tui: at 2.000 imported",
            "kt-tui: at 3.000 inputs 0",
            "kt-tui: at 4.000 ran 0",
            f"{prof.RAN} (target 0) with {{}}",
            "kt-tui: at 5.000 inputs 1",
            "kt-tui: at 6.000 ran 1",
            f"{prof.RAN} (target 1) with {{}}",
            page[page.index('"ID"') :],  # one kernel on the page for two runs
        ]
    )
    monkeypatch.setattr(prof, "find_ncu", lambda: "ncu")
    monkeypatch.setattr(prof, "run_supervised", lambda *a, **k: (0, out))
    reports = prof.profile_all(_targets(256, 512), "cupy")
    assert [r.state for r in reports] == ["failed", "failed"] and "not told apart" in reports[0].reason


def test_the_child_runs_each_target_stamps_its_steps_and_makes_the_inputs_once_with_the_users_code(
    monkeypatch, tmp_path, capsys
):
    import tomllib

    from kt_tui.gpu.device import outputs
    from kt_tui.kernel import inputs

    (tmp_path / "gen.py").write_text("import numpy as np\ndef ramp(sizes):\n    return np.arange(sizes['n']) * 2\n")
    plain = tomllib.loads((H100 / "vadd.cu.toml").read_text())
    plain["sizes"]["n"] = 64
    plain["args"][1] |= {"init": "function", "function": "gen:ramp"}
    plain["args"][1].pop("seed", None)
    spec = read_spec(plain)
    spec.base_dir = str(tmp_path)
    ran = []

    def run_arrays(*a):
        ran.append(a)
        if a[2]["block_size_x"] == 64:
            raise RuntimeError(failure)
        return {}

    monkeypatch.setattr(outputs, "run_arrays", run_arrays)
    monkeypatch.setattr(inputs, "_USER_CODE", [False])  # as in the app's process, until the child allows it
    job = tmp_path / "job.json"
    targets = [{"source": "", "spec": spec.to_dict(), "params": {"block_size_x": b}} for b in (64, 256)]
    job.write_text(json.dumps({"backend": "cupy", "targets": targets}))
    failure = "too many resources requested for launch"
    assert prof.main([str(job)]) == 0
    out = capsys.readouterr().out
    stamps = [line.split()[2:] for line in out.splitlines() if line.startswith(prof.STAMP)]
    assert [s[1:] for s in stamps] == [
        ["up"],
        ["imported"],
        ["inputs", "0"],
        ["failed", "0"],
        ["inputs", "1"],
        ["ran", "1"],
    ]
    assert sorted(stamps, key=lambda s: float(s[0])) == stamps
    assert f"{prof.FAILED} (target 0): RuntimeError: {failure}" in out.splitlines()
    assert out.splitlines()[-1] == f"{prof.RAN} (target 1) with {{'block_size_x': 256}}"
    ((_, _, params, sizes, backend, args), (*_, again)) = ran
    assert params == {"block_size_x": 64} and sizes is None and backend == "cupy"
    assert list(args[1]) == list(range(0, 128, 2)) and again is args  # the user's function made them, once
    # an error that leaves the CUDA context unusable ends the child: the parent runs the rest afresh
    failure = "an illegal memory access was encountered"
    ran.clear()
    assert prof.main([str(job)]) == 1
    assert len(ran) == 1 and "(target 1)" not in capsys.readouterr().out


def test_counters_not_permitted_a_hang_and_no_ncu_are_each_a_state_and_a_line(monkeypatch):
    spec = _spec()
    monkeypatch.setenv("KT_TUI_NCU", str(FAKE))
    monkeypatch.setenv("FAKE_NCU_MODE", "denied")
    denied = prof.profile("", spec, {"block_size_x": 256}, "cupy")
    assert denied.state == "denied" and "ERR_NVGPUCTRPERM" in denied.reason and not denied.summary
    monkeypatch.setenv("FAKE_NCU_MODE", "hang")
    hung = prof.profile("", spec, {"block_size_x": 256}, "cupy", timeout_s=1)  # the fake hangs for good
    assert hung.state == "timeout"
    both = prof.profile_all(_targets(256, 512), "cupy", timeout_s=1)  # the time limit per target
    assert [r.state for r in both] == ["timeout"] * 2 and "within 2 s (2 targets)" in both[0].reason
    monkeypatch.setenv("KT_TUI_NCU", str(ROOT / "no-such-ncu"))
    assert prof.profile("", spec, {}, "cupy").state == "absent"
    monkeypatch.setenv("KT_TUI_NCU", "0")
    assert prof.profile("", spec, {}, "cupy").reason == prof.OFF
    assert prof.profile("", spec, {}, "sim").state == "no_gpu"


def test_the_engine_profiles_the_baseline_and_the_new_best_in_one_ncu_run_and_stamps_the_cache(monkeypatch, hermetic):
    monkeypatch.setenv("KT_TUI_NCU", str(FAKE))
    monkeypatch.setenv("FAKE_NCU_LOG", str(hermetic / "calls"))
    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    events = []
    engine = Engine(store, sid, FakeGpu(), choice, approve, events.append, cache_dir=hermetic / "caches")
    cache = engine.cachefile(engine.original, engine.version(engine.original)[1])
    Path(cache).write_text('{"device_name": "Fake GPU", "cache": {')  # open, as kernel_tuner leaves it
    assert engine.run(sweep) == "finished"
    rows = session_profiles(engine.data)
    assert [(p["key"], p["state"]) for p in rows] == [("256", "done"), ("512", "done")]  # baseline, best
    assert [p["summary"]["registers_per_thread"] for p in rows] == [16, 32]  # each its own kernel's
    assert [e.kind for e in events].count("profile") == 2
    assert len((hermetic / "calls").read_text().splitlines()) == 1 and rows[0]["summary"]["targets"] == 2
    assert all(p["summary"]["seconds"] == pytest.approx(sum(p["summary"]["split"].values()), abs=0.05) for p in rows)
    stamped = read_header(cache)["kt_tui"]["profiles"]
    assert stamped["512"]["registers_per_thread"] == 32 and stamped["256"]["registers_per_thread"] == 16
    block = performance_block(
        "Fake GPU", False, None, (store.result(sid, engine.original, "256"), None), (None, None), rows
    )
    assert "Nsight Compute, baseline: SM 41 %, DRAM 82 %" in block


def test_a_best_that_is_the_baseline_is_profiled_once(monkeypatch, hermetic):
    monkeypatch.setenv("KT_TUI_NCU", str(FAKE))
    monkeypatch.setenv("FAKE_NCU_LOG", str(hermetic / "calls"))
    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    events = []
    engine = Engine(store, sid, FakeGpu(verdicts=False), choice, approve, events.append)  # nothing beats 256
    assert engine.run(sweep) == "finished"
    assert [(p["key"], p["state"]) for p in session_profiles(engine.data)] == [("256", "done")]
    assert [e.kind for e in events].count("profile") == 1
    (call,) = (hermetic / "calls").read_text().splitlines()
    assert "--launch-count 1 " in call


def test_a_baseline_that_fails_under_ncu_leaves_the_best_its_profile_and_one_note(monkeypatch, hermetic):
    monkeypatch.setenv("KT_TUI_NCU", str(FAKE))
    monkeypatch.setenv("FAKE_NCU_FAIL", "block_size_x=256")
    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    events = []
    engine = Engine(store, sid, FakeGpu(), choice, approve, events.append)
    assert engine.run(sweep) == "finished"
    assert [(p["key"], p["state"]) for p in session_profiles(engine.data)] == [("256", "failed"), ("512", "done")]
    notes = [e.text for e in events if e.kind == "note" and "profile" in e.text]
    assert len(notes) == 1 and "no profile of" in notes[0] and "too many resources requested" in notes[0]


def test_no_ncu_is_one_note_and_the_session_is_otherwise_the_same(monkeypatch, hermetic):
    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    events = []
    assert Engine(store, sid, FakeGpu(), choice, approve, events.append).run(sweep) == "finished"
    notes = [e.text for e in events if e.kind == "note" and "profile" in e.text]
    assert notes == [f"no Nsight Compute profiles in this session: {prof.OFF}"]
    assert store.session(sid)["best_key"] == "512" and len(store.results(sid)) == 6
    # a second tune run of the session tries no profile and says nothing again
    engine = Engine(store, sid, FakeGpu(), choice, approve, events.append)
    engine.tune(engine.original, "tune:again", configs=[{"block_size_x": 512}])
    assert [e.text for e in events if e.kind == "note" and "profile" in e.text] == notes
    assert [p["state"] for p in session_profiles(engine.data)] == ["absent"]


def test_a_recorded_profile_and_the_facts_are_read_back_checked(hermetic):
    head = json.loads((H100 / "recorded" / "vadd-6e49c09320ca5bd7.json").read_text())["kt_tui"]
    assert head["device"]["copy_gbps"] == 3024.0 and head["profiles"]["256"]["stalls"][0][0] == "long scoreboard"
    assert BackendChoice("sim", "x").facts is None


def test_the_child_loads_the_binaries_the_sessions_compile_pool_gave(monkeypatch, tmp_path):
    """The binaries of the session's compile pool (gpu/compiling.py binaries: a tuned configuration's
    is in its cache) go to the child through the job's folder; run_kernel loads them there
    (outputs.loading). A target with none compiles in the child."""
    from kt_tui.gpu.device import outputs
    from kt_tui.gpu.ktsource import kernel_string
    from kt_tui.kernel.text import compile_options

    targets = _targets(256, 512)
    options = compile_options(targets[0].spec.compiler_options)
    text = kernel_string(targets[0].spec, targets[0].source, targets[0].params)[1]
    seen = {}

    def child(command, limit, env, cwd):  # the child itself, in this process
        def run_arrays(spec, source, params, sizes, backend, args):
            seen[params["block_size_x"]] = outputs._LOADING[-1].binary(options, kernel_string(spec, source, params)[1])
            return {}

        monkeypatch.setattr(outputs, "run_arrays", run_arrays)
        assert prof.main([command[-1]]) == 0
        return 0, ""

    monkeypatch.setenv("KT_TUI_NCU", str(FAKE))
    monkeypatch.setattr(prof, "run_supervised", child)
    prof.profile_all(targets, "cupy", binaries=lambda: [(options, text, b"cubin of 256", "vadd_1")])
    assert seen == {256: (b"cubin of 256", "vadd_1"), 512: None}
