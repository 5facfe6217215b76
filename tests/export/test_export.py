"""Export (`kt-tui export`, X in a session), the report, and the sessions browser, after a scripted
one-prompt session on the sim backend."""

import ast
import json
import shutil
import sqlite3
import subprocess

import numpy as np
import pytest

from kt_tui import cli
from kt_tui.config import load_settings
from kt_tui.front.commands import tui_app
from kt_tui.front.session import load_kernel_spec, read_kernel_file
from kt_tui.kernel.spec import SpecError, dump_spec, load_spec, parse_spec, spec_from_plain, version_hash
from kt_tui.store import Store
from kt_tui.ui.confirm import AskScreen as ConfirmScreen
from kt_tui.ui.export_screen import ExportScreen
from kt_tui.ui.session_screen import SessionScreen
from kt_tui.ui.sessions_screen import SessionsScreen

from ..conftest import EXAMPLES
from ..engine.test_autonomous import CACHES, replies
from ..helpers import run_cli
from ..llm_server import MODEL, ScriptedServer
from ..ui.test_ui import SIZE, wait_for


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """One accepted one-prompt session (matmul, scripted LLM, sim backend), run once for the module."""
    root = tmp_path_factory.mktemp("one-prompt")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KT_TUI_CONFIG_DIR", str(root / "config"))
        mp.setenv("KT_TUI_DATA_DIR", str(root / "data"))
        mp.setenv("KT_TUI_DB", str(root / "sessions.db"))
        with ScriptedServer(replies("matmul-one-prompt")) as server:
            code = cli.main(
                [
                    "run",
                    str(EXAMPLES / "matmul.cu"),
                    "--strategy",
                    "one-prompt",
                    "--auto",
                    "--backend",
                    "sim",
                    "--sim-cache",
                    str(CACHES),
                    "--base-url",
                    server.url,
                    "--model",
                    MODEL,
                ]
            )
    assert code == 0
    return root / "sessions.db"


@pytest.fixture
def db(recorded, hermetic):
    """This test's own copy of the recorded session database (KT_TUI_DB points at it)."""
    dest = hermetic / "sessions.db"
    with sqlite3.connect(recorded) as src, sqlite3.connect(dest) as out:
        src.backup(out)
    return Store(dest)


def test_export_writes_every_file(capsys, db, tmp_path):
    sid = db.latest_session()["id"]
    s = db.session(sid)
    out_dir = tmp_path / "out"
    code, out = run_cli(capsys, "export", "--out", out_dir, "--json")
    assert code == 0 and out["session"] == sid
    names = {p.split("/out/", 1)[1] for p in out["files"]}
    assert {
        "matmul.best.cu",
        "matmul.best.cu.toml",
        "matmul.best.json",
        "matmul.inputs.npz",
        "tune_matmul.py",
        "report.md",
        "report.html",
        f"cache/matmul-{s['best_version']}.t4.json",
    } <= names
    assert all((out_dir / n).is_file() for n in names)

    best = json.loads((out_dir / "matmul.best.json").read_text())
    assert best == out["best"]
    assert best["params"] == {"block_size_x": 64, "block_size_y": 16, "WORK_PER_THREAD": 8}
    assert best["time_ms"] == s["best_ms"] and best["speedup"] == pytest.approx(s["baseline_ms"] / s["best_ms"])
    assert best["kernel_version"] == s["best_version"] and best["backend"] == "sim" and best["simulated"]
    assert best["verified"] is True and best["gpu"].startswith("NVIDIA H200")
    assert best["grid"] == [1024 // 64, 1024 // (16 * 8), 1] and best["block"] == [64, 16, 1]

    # the spec beside the best kernel: its defaults are the best parameters, and it matches the kernel
    kf = read_kernel_file(out_dir / "matmul.best.cu")
    kernel, spec = load_kernel_spec(kf, None, None)
    assert spec.defaults == best["params"] == spec.baseline_params()
    assert load_spec(out_dir / "matmul.best.cu.toml", kernel).tune_params["WORK_PER_THREAD"] == [1, 2, 4, 8]
    source = (out_dir / "matmul.best.cu").read_text()
    assert f"session {sid}" in source and "grid (16, 8, 1), block (64, 16, 1)" in source
    assert "#define WORK_PER_THREAD 8" in source and db.version(sid, s["best_version"])["source"].strip() in source

    # every version tuned has a kernel_tuner cachefile; the best one a T4 results file
    caches = sorted(c for c in (out_dir / "cache").glob("matmul-*.json") if ".t4" not in c.name)
    assert [c.stem.split("-")[1] for c in caches] == sorted(v["id"] for v in db.versions(sid))
    assert all(isinstance(json.loads(c.read_text())["cache"], dict) for c in caches)
    t4 = json.loads((out_dir / "cache" / f"matmul-{s['best_version']}.t4.json").read_text())
    assert t4["results"] and t4["results"][0]["objectives"] == ["time"]

    with np.load(out_dir / "matmul.inputs.npz") as z:
        assert sorted(z.files) == ["arg0", "arg1", "arg2", "arg3"] and int(z["arg3"]) == 1024
        assert np.isnan(z["arg0"]).all() and z["arg1"].shape == (1024 * 1024,)

    html = (out_dir / "report.html").read_text()
    assert "<svg" in html and "report-times.svg" not in html and "2.39x" in html
    md = (out_dir / "report.md").read_text()
    for wanted in (
        "one-prompt",
        "## Steps and decisions",
        "**approve** by policy",
        "```diff",
        "## Tuning runs",
        "LLM: 1 call (0 failed) to scripted-model",
        "recommended: accept",
    ):
        assert wanted in md


def test_the_script_calls_tune_kernel_with_the_final_space(capsys, db, tmp_path):
    sid = db.latest_session()["id"]
    s = db.session(sid)
    run_cli(capsys, "export", sid, "--out", tmp_path, "--json")
    tree = ast.parse((tmp_path / "tune_matmul.py").read_text())
    consts = {
        n.targets[0].id: ast.literal_eval(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign)
        and isinstance(n.targets[0], ast.Name)
        and n.targets[0].id.isupper()
        and n.targets[0].id != "HERE"
    }
    spec = spec_from_plain(json.loads(db.version(sid, s["best_version"])["spec_json"]))
    assert consts["TUNE_PARAMS"] == spec.tune_params and consts["RESTRICTIONS"] == spec.restrictions
    assert consts["GRID_DIV_Y"] == ["block_size_y", "WORK_PER_THREAD"] and consts["PROBLEM_SIZE"] == (1024, 1024)
    assert consts["KERNEL_SOURCE"] == db.version(sid, s["best_version"])["source"]
    assert consts["ORIGINAL_PARAMS"] == {"block_size_x": 16, "block_size_y": 16}
    calls = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    assert "tune_kernel" in calls and "run_kernel" in calls


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_the_best_kernel_compiles_standalone(capsys, db, tmp_path):
    run_cli(capsys, "export", "--out", tmp_path, "--json")
    done = subprocess.run(
        ["nvcc", "-c", "matmul.best.cu", "-o", "best.o"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "best.o").stat().st_size > 0


def test_bad_export_inputs_exit_2(capsys, db, tmp_path):
    code, out = run_cli(capsys, "export", "nope", "--out", tmp_path, "--json")
    assert code == 2 and "no session 'nope'" in out["error"]
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, out = run_cli(capsys, "export", "--out", blocker / "sub", "--json")
    assert code == 2 and "--out" in out["error"] and f"{blocker} is a file, not a folder" in out["error"]
    db.create_session(kernel_path="k.cu", kernel_name="k", strategy="sweep")
    code, out = run_cli(capsys, "export", "--out", tmp_path / "x", "--json")
    assert code == 2 and "no accepted best kernel yet" in out["error"]
    with pytest.raises(SystemExit) as e:
        cli.main(["export"])
    assert e.value.code == 2 and "--out" in capsys.readouterr().err


def test_metrics_in_the_spec_and_the_report(capsys, db, tmp_path):
    example = (EXAMPLES / "matmul.cu.toml").read_text()
    spec = parse_spec(example)
    assert spec.metrics == {"bytes": "3 * 4 * n * n", "flops": "2 * n * n * n"}
    text = example.replace('[metrics]\nbytes = "3 * 4 * n * n"\nflops = "2 * n * n * n"\n', "")
    assert "metrics" not in text
    assert parse_spec(dump_spec(spec)).metrics == spec.metrics
    assert version_hash("x", spec) == version_hash("x", parse_spec(text))  # not part of a kernel version
    for bad, message in (('nbytes = "n"', "metrics.nbytes: unknown key"), ('bytes = "m * 4"', "metrics.bytes")):
        with pytest.raises(SpecError, match=message):
            parse_spec(text + f"\n[metrics]\n{bad}\n")
    # a session whose spec gives bytes per run reports the achieved bandwidth, and says the peak is unknown
    sid = db.latest_session()["id"]
    v = db.version(sid, db.session(sid)["best_version"])
    plain = json.loads(v["spec_json"])
    db.update_version(sid, v["id"], v["spec_toml"], {**plain, "metrics": {"bytes": "3 * 4 * n * n"}})
    code, out = run_cli(capsys, "export", "--out", tmp_path, "--json")
    gbs = 3 * 4 * 1024 * 1024 / (out["best"]["time_ms"] * 1e-3)
    assert out["best"]["metrics"][0]["per_s"] == pytest.approx(gbs)
    report = (tmp_path / "report.md").read_text()
    assert f"| {gbs / 1e9:.0f} | - | - |" in report  # GB/s; no FLOPs; no measured peak to divide by
    assert "device facts not recorded" in report and out["best"]["metrics"][0]["peak"] is None


def test_no_argument_in_a_terminal_opens_the_sessions_browser(monkeypatch, capsys):
    opened = []
    monkeypatch.setattr(cli, "_interactive", lambda: True)
    monkeypatch.setattr("kt_tui.front.commands.browse_sessions", lambda settings: opened.append(settings.db) or 0)
    assert cli.main([]) == 0 and cli.main(["sessions"]) == 0 and len(opened) == 2
    code, rows = run_cli(capsys, "sessions", "--json")
    assert code == 0 and rows == [] and len(opened) == 2
    monkeypatch.setattr(cli, "_interactive", lambda: False)
    with pytest.raises(SystemExit) as e:
        cli.main([])
    assert e.value.code == 2


def _table(app):
    from textual.widgets import DataTable

    return app.screen.query_one(DataTable)


async def test_sessions_browser_lists_filters_and_deletes(db):
    sid = db.latest_session()["id"]
    other = db.create_session(
        kernel_path="/k/vector_add.cu",
        kernel_name="vector_add",
        strategy="sweep",
        state="failed",
        gpu="NVIDIA H100",
        simulated=0,
    )
    settings = load_settings({})
    app = tui_app(settings, db, browse=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen))
        table = _table(app)
        assert table.row_count == 2
        row = [str(c) for c in table.get_row(sid)]
        assert row[1] == "matmul.cu" and row[5:9] == ["finished", "0.1873", "2.39x", "one-prompt"]
        assert row[4] == "SIMULATED"
        await pilot.press("slash", *"vector")
        await wait_for(pilot, lambda: table.row_count == 1)
        assert table.coordinate_to_cell_key((0, 0)).row_key.value == other
        await pilot.press("enter", "d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen))
        assert db.session(other) is not None
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: db.session(other) is None)
        await pilot.press("escape")
        await wait_for(pilot, lambda: table.row_count == 1)
        assert [s["id"] for s in db.sessions()] == [sid] and db.results(sid)
    assert not db.results(other) and not db.events(other)


async def test_export_from_the_browser_and_from_a_session(db, tmp_path):
    sid = db.latest_session()["id"]
    app = tui_app(load_settings({}), db, browse=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen))
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
        screen = app.screen
        box = screen.query_one("#export-dir")
        box.value = str(tmp_path / "from-browser")
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.written is not None, timeout=60)
        assert (tmp_path / "from-browser" / "report.html").is_file()
        assert "Wrote" in str(screen.query_one("#export-result").render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen))

        await pilot.press("enter")  # open the finished session, X exports it, q comes back here
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen))
        session = app.screen
        await wait_for(pilot, lambda: session.sid == sid and session.state in ("finished", "done"), timeout=60)
        await pilot.press("X")
        await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
        screen = app.screen
        screen.query_one("#export-dir").value = str(tmp_path / "from-session")
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.written is not None, timeout=60)
        assert (tmp_path / "from-session" / "matmul.best.cu").is_file()
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is session)
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen))


def test_the_script_runs_its_tuning_with_a_fake_kernel_tuner(capsys, db, tmp_path):
    """No GPU here: kernel_tuner's calls are replaced, the script's own logic (inputs, the answer from
    the original kernel, per-output verification, the tune_kernel call) runs for real."""
    import importlib.util

    run_cli(capsys, "export", "--out", tmp_path, "--json")
    spec = importlib.util.spec_from_file_location("tune_matmul", tmp_path / "tune_matmul.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    calls = {}

    def run_kernel(name, source, size, args, params, **kw):
        calls["run_kernel"] = (name, source, size, params, kw)
        n = int(args[3])
        return [(args[1].reshape(n, n) @ args[2].reshape(n, n)).ravel(), args[1], args[2], args[3]]

    def tune_kernel(name, source, size, args, tune_params, **kw):
        calls["tune_kernel"] = (name, source, size, tune_params, kw)
        good = [kw["answer"][0], None, None, None]
        assert kw["verify"](kw["answer"], good)
        assert not kw["verify"](kw["answer"], [good[0] + 1.0, None, None, None])
        return [{"block_size_x": 64, "block_size_y": 16, "WORK_PER_THREAD": 8, "time": 0.19}], {"device_name": "fake"}

    script.pick_lang = lambda: "pycuda"
    script.run_kernel, script.tune_kernel = run_kernel, tune_kernel
    script.store_output_file = lambda path, results, params: calls.setdefault("t4", path)
    script.main()
    name, source, size, params, kw = calls["run_kernel"]
    assert (name, size, params) == ("matmul", (1024, 1024), {"block_size_x": 16, "block_size_y": 16})
    assert "Naive C = A * B" in source and kw["grid_div_y"] == ["block_size_y"]
    name, source, size, tune_params, kw = calls["tune_kernel"]
    assert kw["restrictions"] == ["64 <= block_size_x * block_size_y <= 1024"] and kw["lang"] == "CUDA"
    assert kw["answer"][1:] == [None, None, None] and kw["answer"][0].dtype == np.float32
    assert kw["cache"].endswith("tune_matmul.cache.json") and calls["t4"].endswith("tune_matmul.t4.json")
    assert "best: 0.1900 ms" in capsys.readouterr().out


def test_text_from_the_store_stays_data_in_the_script_and_the_report(capsys, db, tmp_path):
    sid = db.latest_session()["id"]
    v = db.version(sid, db.session(sid)["best_version"])
    hostile = v["source"] + "\n// ''' \"\"\" \\ {KERNEL_NAME} ```\n"
    db.add_version(sid, v["id"], hostile, v["spec_toml"], json.loads(v["spec_json"]), v["parent"], v["label"])
    db.put_step(sid, "one-prompt", title="<script>alert(1)</script> | pipes")
    code, _ = run_cli(capsys, "export", "--out", tmp_path, "--json")
    assert code == 0
    tree = ast.parse((tmp_path / "tune_matmul.py").read_text())
    source = next(
        ast.literal_eval(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "KERNEL_SOURCE"
    )
    assert source == hostile
    html = (tmp_path / "report.html").read_text()
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_the_script_passes_a_16_byte_vector_scalar_to_cupy_as_its_bytes(capsys, db, tmp_path):
    """cupy refuses a structured numpy scalar: the script gives it a float4 passed by value as a
    complex128 of the same 16 bytes, as kt-tui's own worker does (gpu/device/lang.py by_value)."""
    import importlib.util

    run_cli(capsys, "export", "--out", tmp_path, "--json")
    spec = importlib.util.spec_from_file_location("tune_matmul", tmp_path / "tune_matmul.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    lanes = np.zeros((), np.dtype({"names": list("xyzw"), "formats": ["<f4"] * 4}))
    lanes[()] = (1.5, -0.25, 2.0, 3.0)
    seen = {}

    def tune_kernel(name, source, size, args, tune_params, **kw):
        seen[script.pick_lang()] = args[0]
        return [{"block_size_x": 64, "block_size_y": 16, "WORK_PER_THREAD": 8, "time": 0.19}], {"device_name": "fake"}

    script.load_inputs = lambda: ([lanes[()], np.float32(1.0)], {})
    script.run_kernel = lambda name, source, size, args, params, **kw: [None, args[1]]
    script.tune_kernel = tune_kernel
    script.store_output_file = lambda path, results, params: None
    for backend in ("cupy", "pycuda"):
        script.pick_lang = lambda backend=backend: backend
        script.main()
    assert isinstance(seen["cupy"], np.complex128) and seen["cupy"].tobytes() == lanes.tobytes()
    assert isinstance(seen["pycuda"], np.void)  # pycuda and cuda-python take the struct


def test_the_script_gives_nvrtc_backends_the_maths_constants_kt_tui_gave_them(capsys, db, tmp_path, monkeypatch):
    """kt-tui compiles for cupy and nvcuda with math.h's INFINITY, NAN, HUGE_VALF and HUGE_VAL defined
    (gpu/nvrtc.py backend_options): a kernel tuned there that uses them compiles in the script too."""
    import importlib.util

    run_cli(capsys, "export", "--out", tmp_path, "--json")
    spec = importlib.util.spec_from_file_location("tune_matmul", tmp_path / "tune_matmul.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    seen: dict = {}

    def tune_kernel(name, source, size, args, tune_params, **kw):
        seen[script.pick_lang()] = kw["compiler_options"] or []
        return [{"block_size_x": 64, "block_size_y": 16, "WORK_PER_THREAD": 8, "time": 0.19}], {"device_name": "fake"}

    script.load_inputs = lambda: ([np.float32(1.0)], {0: np.zeros(1, np.float32)})
    script.tune_kernel = tune_kernel
    script.store_output_file = lambda path, results, params: None
    monkeypatch.setattr(script, "as_cuda", lambda backend: "CUDA")
    for backend in ("cupy", "nvcuda", "pycuda"):
        script.pick_lang = lambda backend=backend: backend
        script.main()
    for backend in ("cupy", "nvcuda"):
        assert (
            "-DINFINITY=__int_as_float(0x7f800000)" in seen[backend]
            and "-DNAN=__int_as_float(0x7fc00000)" in seen[backend]
        )
    assert not [o for o in seen["pycuda"] if o.startswith("-DINFINITY")]  # nvcc has math.h
