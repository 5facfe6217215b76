"""A session prepared without a GPU (`--backend none`) is never destroyed by a plain resume on a
machine without one: it stays prepared (exit 2 saying what to do; read-only in the app) unless a
replay is asked for by name (`--backend sim`); one an earlier replay damaged is repaired by a
resume where it can be measured (sim with the recorded caches stands in for the GPU machine here).
Its export writes what it has. The LLM replies are scripted (tests/scripted/); the caches were
recorded on an NVIDIA H200 (2026-11-22)."""

import shutil

from kt_tui.kernel.spec import spec_from_plain, version_ids
from kt_tui.store import Store

from ..helpers import run_cli
from .test_autonomous import CACHES
from .test_no_gpu import unmeasured_session


def _record(store: Store, sid: str) -> tuple:
    s = store.session(sid)
    return (
        s["state"],
        s["backend"],
        [(x["id"], x["state"], x["reason"]) for x in store.steps(sid)],
        sorted((r.id, r.state) for r in store.runs(sid)),
        store.count_results(sid),
    )


def test_a_plain_resume_without_a_gpu_leaves_a_prepared_session_as_it_is(capsys, hermetic):
    sid, _, db = unmeasured_session(capsys, hermetic)
    store = Store(db)
    before = _record(store, sid)
    for extra in ((), ("--sim-cache", CACHES)):  # recorded caches at hand are no request for a replay
        code, out = run_cli(capsys, "resume", sid, "--auto", "--json", *extra)
        assert code == 2 and out["state"] == "error" and out["session"] == sid, out
        assert (
            "prepared and waits for a GPU" in out["error"] and f"kt-tui resume {sid} --backend pycuda" in out["error"]
        )
        assert "--backend sim" in out["error"] and "\n" not in out["error"]
        assert _record(store, sid) == before  # no step failed, no run replayed, still unmeasured
    assert before[0] == "unmeasured"


def test_a_damaged_session_is_repaired_by_a_resume_that_can_measure(capsys, hermetic):
    sid, _, db = unmeasured_session(capsys, hermetic)
    store = Store(db)
    # the damage a plain resume did before: a replay (asked for by name now) where only the original is recorded
    only_original = hermetic / "only-original"
    only_original.mkdir()
    first = store.versions(sid)[0]
    ids = {first["id"], *version_ids(first["source"], spec_from_plain(first["spec_json"]))}
    for cache in CACHES.iterdir():
        if cache.stem.rsplit("-", 1)[-1] in ids:
            shutil.copy(cache, only_original)
    code, out = run_cli(
        capsys, "resume", sid, "--auto", "--json", "--backend", "sim", "--sim-cache", only_original, "--llm", "none"
    )
    assert out["state"] == "finished", out
    failed = [s for s in out["steps"] if s["state"] == "failed"]
    assert failed and all("no recorded cache for version" in s["reason"] for s in failed)
    # still prepared: a plain resume here says so and changes nothing
    code, out = run_cli(capsys, "resume", sid, "--auto", "--json")
    assert code == 2 and "prepared and waits for a GPU" in out["error"]
    # where it can be measured, the steps that failed for want of a recording run again
    code, out = run_cli(
        capsys, "resume", sid, "--auto", "--json", "--backend", "sim", "--sim-cache", CACHES, "--llm", "none"
    )
    assert code == 0 and out["state"] == "finished", out
    states = [(s["id"], s["state"]) for s in out["steps"]]

    assert states[:3] == [("1", "accepted"), ("2", "failed"), ("3", "accepted")], out["steps"]  # as made on a GPU
    assert "wrong result" in out["steps"][1]["reason"] and out["speedup"] > 2
    assert not [r for r in store.runs(sid) if "no recorded cache" in (r.error or "")]
    assert any(e["kind"] == "repaired" for e in store.events(sid))


def test_an_unmeasured_session_exports_what_it_has(capsys, hermetic):
    sid, _, _ = unmeasured_session(capsys, hermetic)
    out_dir = hermetic / "out"
    code, out = run_cli(capsys, "export", sid, "--out", out_dir, "--json")
    assert code == 0 and out["best"] is None and f"kt-tui resume {sid}" in out["note"]
    names = sorted(p.name for p in out_dir.iterdir())
    assert {"matmul.cu", "matmul.cu.toml", "report.md", "report.html"} <= set(names)
    generated = [n for n in names if n.startswith("matmul.step-") and n.endswith(".cu")]
    assert len(generated) == 3, names  # the three kernels the scripted plan wrote
    report = (out_dir / "report.md").read_text()
    assert "Not measured" in report and "## Plan" in report and "not measured" in report
    assert "Steps and decisions" in report and "__global__" in report
    assert "Not measured" in (out_dir / "report.html").read_text()
    assert "[strategy" not in (out_dir / "matmul.step-3.cu.toml").read_text()
    from kt_tui.kernel.spec import load_spec

    assert load_spec(out_dir / "matmul.step-3.cu.toml").kernel == "matmul"


async def test_the_app_opens_a_prepared_session_read_only_without_a_gpu(capsys, hermetic):

    from kt_tui.config import load_settings
    from kt_tui.front.commands import tui_app
    from kt_tui.ui.session_screen import SessionScreen

    from ..ui.test_first_frame import wait_for

    sid, _, db = unmeasured_session(capsys, hermetic)
    store = Store(db)
    before = _record(store, sid)
    app = tui_app(load_settings({"sim_cache": str(CACHES)}), store, resume=sid)
    async with app.run_test(size=(140, 40)):
        await wait_for(lambda: isinstance(app.screen, SessionScreen) and app.screen.choice is not None, 60)
        screen = app.screen
        await wait_for(lambda: screen.engine is not None and screen.state == "unmeasured", 60)
        banner = str(screen.query_one("#banner").render())
        assert "PREPARED: waits for a GPU" in banner and screen.gate is None
        app.exit()
    assert _record(store, sid) == before  # nothing replayed, nothing failed
