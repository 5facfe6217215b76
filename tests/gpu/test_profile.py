"""Nsight Compute profiles (gpu/profile.py, engine/profiles.py) without a GPU: ncu's pages as
recorded on an NVIDIA H100 80GB HBM3 on 2026-12-06 (tests/fixtures/h100-2026-12-06) read into a
summary, and a stand-in ncu (tests/gpu/fake_ncu.py) for what the runner and the engine do with its
answers: a profile, counters not permitted, a hang, no ncu at all."""

import json
import time

import pytest

from kt_tui.engine.backend import BackendChoice
from kt_tui.engine.core import Engine
from kt_tui.engine.profiles import clean_profile, performance_block, profile_line, session_profiles
from kt_tui.engine.strategies.sweep import sweep
from kt_tui.gpu import profile as prof
from kt_tui.kernel.spec import read_spec
from kt_tui.store import Store

from ..conftest import ROOT
from ..engine.test_outcomes import FakeGpu, approve, real_session

H100 = ROOT / "tests" / "fixtures" / "h100-2026-12-06"
FAKE = ROOT / "tests" / "gpu" / "fake_ncu.py"


def _spec():
    import tomllib

    return read_spec(tomllib.loads((H100 / "vadd.cu.toml").read_text()))


def test_the_h100_page_reads_into_sm_and_dram_throughput_occupancy_stalls_and_rules():
    s = prof.summarize((H100 / "ncu-vadd-page.csv").read_text())
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
    alone = prof.summarize(page)
    assert alone["dram_bytes_per_s"] == pytest.approx(2.73e12) and "stalls" not in alone


def test_pages_that_are_not_ncus_give_no_summary_and_a_hostile_summary_is_cut_down():
    assert prof.summarize("") == {} and prof.summarize("garbage\n1,2,3") == {}
    assert prof.summarize('"ID","x"\n' + '"1","2"\n' * 5000) == {}
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
    assert sum(split.values()) == pytest.approx(seconds, abs=0.05)


def test_the_child_stamps_its_steps_and_makes_the_inputs_with_the_users_code(monkeypatch, tmp_path, capsys):
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
    monkeypatch.setattr(outputs, "run_arrays", lambda *a: ran.append(a) or {})
    monkeypatch.setattr(inputs, "_USER_CODE", [False])  # as in the app's process, until the child allows it
    job = tmp_path / "job.json"
    job.write_text(
        json.dumps({"source": "", "spec": spec.to_dict(), "params": {"block_size_x": 256}, "backend": "cupy"})
    )
    assert prof.main([str(job)]) == 0
    out = capsys.readouterr().out
    stamps = [line.split()[2:] for line in out.splitlines() if line.startswith(prof.STAMP)]
    assert [s[1] for s in stamps] == list(prof.STEPS) and sorted(stamps, key=lambda s: float(s[0])) == stamps
    assert prof.RAN in out.splitlines()[-1]
    ((_, _, params, sizes, backend, args),) = ran
    assert params == {"block_size_x": 256} and sizes is None and backend == "cupy"
    assert list(args[1]) == list(range(0, 128, 2))  # the user's function made it


def test_counters_not_permitted_a_hang_and_no_ncu_are_each_a_state_and_a_line(monkeypatch):
    spec = _spec()
    monkeypatch.setenv("KT_TUI_NCU", str(FAKE))
    monkeypatch.setenv("FAKE_NCU_MODE", "denied")
    denied = prof.profile("", spec, {"block_size_x": 256}, "cupy")
    assert denied.state == "denied" and "ERR_NVGPUCTRPERM" in denied.reason and not denied.summary
    monkeypatch.setenv("FAKE_NCU_MODE", "hang")
    started = time.monotonic()
    hung = prof.profile("", spec, {"block_size_x": 256}, "cupy", timeout_s=1)
    assert hung.state == "timeout" and time.monotonic() - started < 10
    monkeypatch.setenv("KT_TUI_NCU", str(ROOT / "no-such-ncu"))
    assert prof.profile("", spec, {}, "cupy").state == "absent"
    monkeypatch.setenv("KT_TUI_NCU", "0")
    assert prof.profile("", spec, {}, "cupy").reason == prof.OFF
    assert prof.profile("", spec, {}, "sim").state == "no_gpu"


def test_the_engine_profiles_the_baseline_and_the_new_best_once_each_and_stamps_the_cache(monkeypatch, hermetic):
    monkeypatch.setenv("KT_TUI_NCU", str(FAKE))
    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    events = []
    engine = Engine(store, sid, FakeGpu(), choice, approve, events.append, cache_dir=hermetic / "caches")
    assert engine.run(sweep) == "finished"
    rows = session_profiles(engine.data)
    assert [(p["key"], p["state"]) for p in rows] == [("256", "done"), ("512", "done")]  # baseline, best
    assert [e.kind for e in events].count("profile") == 2
    block = performance_block(
        "Fake GPU", False, None, (store.result(sid, engine.original, "256"), None), (None, None), rows
    )
    assert "Nsight Compute, baseline: SM 41 %, DRAM 82 %" in block


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
