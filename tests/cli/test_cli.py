"""The command line, headless, on the caches recorded on a real GPU (sim backend)."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from kt_tui.gpu.simcache import find_cache, read_header
from kt_tui.kernel.source import find_kernels, read_source
from kt_tui.kernel.spec import load_spec, version_ids
from kt_tui.store import Store

from ..conftest import EXAMPLES, HAS_GPU, ROOT
from ..helpers import run_cli

KERNELS = {"vector_add": "vector_add", "matmul": "matmul", "transpose": "transpose", "reduction": "reduce_sum"}


def recorded(name: str) -> dict:
    src = read_source(EXAMPLES / f"{name}.cu")
    spec = load_spec(EXAMPLES / f"{name}.cu.toml", find_kernels(src)[0])
    path = find_cache(EXAMPLES / "recorded", KERNELS[name], version_ids(src, spec))  # recorded under a legacy id
    return json.loads(path.read_text())


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_sim_replays_the_recorded_sweep(name, capsys):
    code, out = run_cli(capsys, "run", EXAMPLES / f"{name}.cu", "--auto", "--json", "--backend", "sim")
    assert code == 0
    cache = recorded(name)
    assert out["simulated"] is True and out["backend"] == "sim"
    assert out["gpu"].startswith(cache["device_name"]) and "recorded 2026-" in out["gpu"]
    assert out["results"] == len(cache["cache"])
    fastest = min(v["time"] for v in cache["cache"].values() if v.get("kt_correct", 1) == 1)
    assert out["best"]["time_ms"] == pytest.approx(fastest)
    assert out["state"] == "finished" and out["error"] is None
    assert out["steps"] and out["steps"][0]["state"] == "approved"


@pytest.mark.skipif(HAS_GPU, reason="on a GPU machine auto picks the GPU")
def test_auto_without_gpu_falls_back_to_the_recorded_cache_and_says_so(capsys):
    code, out = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json")
    assert code == 0
    assert out["backend"] == "sim"
    assert "No working CUDA backend" in out["note"] and "SIMULATED" in out["note"]


@pytest.mark.skipif(HAS_GPU, reason="on a GPU machine auto picks the GPU")
def test_no_gpu_and_no_cache_tells_what_to_do(capsys, tmp_path):
    for f in ("vector_add.cu", "vector_add.cu.toml"):
        shutil.copy(EXAMPLES / f, tmp_path / f)
    code, out = run_cli(capsys, "run", tmp_path / "vector_add.cu", "--auto", "--json")
    assert code == 2
    assert out["session"] is None
    assert "No working CUDA backend" in out["error"] and "--sim-cache" in out["error"]
    assert "--backend none" in out["error"]  # the other way on: prepare it here, measure it on a GPU later


def test_sim_cache_folder_is_searched_by_kernel_version(capsys, tmp_path):
    for f in ("matmul.cu", "matmul.cu.toml"):
        shutil.copy(EXAMPLES / f, tmp_path / f)
    code, out = run_cli(
        capsys,
        "run",
        tmp_path / "matmul.cu",
        "--auto",
        "--json",
        "--backend",
        "sim",
        "--sim-cache",
        EXAMPLES / "recorded",
    )
    assert code == 0 and out["results"] == 17


def test_a_cache_for_another_kernel_fails_clearly_and_keeps_the_session(capsys):
    cache = next((EXAMPLES / "recorded").glob("matmul-*.json"))
    code, out = run_cli(
        capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim", "--sim-cache", cache
    )
    assert code == 1
    assert "does not match" in out["error"]
    code, rows = run_cli(capsys, "sessions", "--json")
    assert [r["id"] for r in rows] == [out["session"]] and rows[0]["state"] == "failed"


@pytest.mark.parametrize(
    "content, spec, message",
    [
        (b"int main() { return 0; }\n", None, "no __global__ kernel"),
        (b"\xff\xfe__global__ void k(float *x) {}", None, "not UTF-8"),
        (b"__global__ void k(float *x, int n) {}", None, "no launch spec"),
        (
            b"__global__ void k(float *x, int n) {}",
            "kernel = 'k'\nproblem_size = ['n']\n[sizes]\nn = 8\n"
            "[[args]]\nname = 'x'\ntype = 'flaot32'\nsize = 'n'\noutput = true\n",
            "args[0] (x).type",
        ),
        (b"__global__ void k(float *x, int n) {}", "this is = not toml [", "not valid TOML"),
    ],
)
def test_bad_input_gets_a_message_and_exit_2(content, spec, message, capsys, tmp_path):
    cu = tmp_path / "k.cu"
    cu.write_bytes(content)
    if spec:
        (tmp_path / "k.cu.toml").write_text(spec)
    code = __import__("kt_tui.cli").cli.main(["run", str(cu), "--auto", "--backend", "sim"])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and "Traceback" not in err


def test_missing_kernel_file(capsys, tmp_path):
    code, out = run_cli(capsys, "run", tmp_path / "nope.cu", "--auto", "--json")
    assert code == 2 and "no such file" in out["error"]


def test_sessions_lists_every_run(capsys):
    for name in ("vector_add", "reduction"):
        run_cli(capsys, "run", EXAMPLES / f"{name}.cu", "--auto", "--json", "--backend", "sim")
    code, rows = run_cli(capsys, "sessions", "--json")
    assert code == 0 and len(rows) == 2
    for key in ("id", "kernel", "created", "state", "gpu", "best_time_ms"):
        assert all(key in r for r in rows)
    assert {os.path.basename(r["kernel"]) for r in rows} == {"vector_add.cu", "reduction.cu"}
    assert main_text(capsys, "sessions").count("finished") == 2


def main_text(capsys, *argv) -> str:
    from kt_tui.cli import main

    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_help_and_version_do_not_load_the_heavy_parts():
    code = (
        "import sys\nfrom kt_tui.cli import main\n"
        "for argv in (['--help'], ['--version'], ['run', '--help']):\n"
        "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
        "print(sorted(m for m in ('textual', 'numpy', 'kernel_tuner', 'openai') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"
    assert "kt-tui 0.1.0" in out


def test_python_dash_m_works():
    out = subprocess.run([sys.executable, "-m", "kt_tui", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and "kt-tui" in out.stdout


def test_the_api_key_is_never_stored(capsys, monkeypatch, hermetic):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-do-not-store-4242")
    code, out = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim")
    assert code == 0
    for path in hermetic.rglob("*"):
        if path.is_file():
            assert b"sk-test-do-not-store-4242" not in path.read_bytes(), path


def test_recorded_caches_say_which_gpu_and_when():
    for path in (EXAMPLES / "recorded").glob("*.json"):
        head = read_header(path)
        assert head["device_name"].startswith("NVIDIA")
        assert head["kt_tui"]["recorded"].startswith("2026-") and head["kt_tui"]["backend"] == "pycuda"


def test_worker_hang_is_killed_and_the_next_config_runs(capsys, monkeypatch, hermetic):
    monkeypatch.setenv("KT_TUI_FAULT", "hang:64")
    code, out = run_cli(
        capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim", "--timeout", "1"
    )
    assert code == 0
    rows = {r.key: r for r in Store(hermetic / "sessions.db").results(out["session"])}
    assert rows["64"].status == "timeout" and "killed" in rows["64"].error
    assert [rows[k].status for k in ("32", "128", "256", "512", "1024")] == ["ok"] * 5


def test_worker_crash_is_recorded_and_the_worker_restarted(capsys, monkeypatch, hermetic):
    monkeypatch.setenv("KT_TUI_FAULT", "crash:512")
    code, out = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim")
    assert code == 0
    rows = {r.key: r for r in Store(hermetic / "sessions.db").results(out["session"])}
    assert rows["512"].status == "crash" and "exit code 77" in rows["512"].error
    assert rows["1024"].status == "ok"


def test_kill_9_mid_sweep_then_resume_loses_no_row(hermetic):
    env = dict(os.environ, KT_TUI_SIM_PACE="0.25")
    db = hermetic / "kill.db"
    res = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "kill_resume.py"),
            str(EXAMPLES / "matmul.cu"),
            "--db",
            str(db),
            "--backend",
            "sim",
            "--after",
            "4",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
    )
    report = json.loads(res.stdout.strip().splitlines()[-1])
    assert report["rows_at_kill"] >= 4 and report["rows_after_resume"] == 17
    assert report["lost"] == 0 and report["remeasured"] == 0 and report["state"] == "finished"
    assert res.returncode == 0


def test_resume_with_nothing_to_resume(capsys):
    code = __import__("kt_tui.cli").cli.main(["resume", "--auto"])
    assert code == 2 and "no sessions yet" in capsys.readouterr().err
    code = __import__("kt_tui.cli").cli.main(["resume", "nope", "--auto"])
    assert code == 2 and "no session 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--timeout", "0"], "--timeout: must be more than 0"),
        (["--timeout", "-1"], "--timeout: must be more than 0"),
        (["--max-configs", "-5"], "--max-configs: must not be negative"),
        (["--sim-cache", "nowhere.json"], "--sim-cache: nowhere.json: no such file or folder"),
        (["--sim-cache", str(EXAMPLES / "vector_add.cu.toml")], "not a kernel_tuner cachefile"),
        (["--base-url", "ftp://example.com/v1"], "--base-url: must be an http:// or https:// URL"),
        (["--base-url", "localhost:8000"], "--base-url: must be an http:// or https:// URL"),
        (["--theme", "no-such-theme"], "--theme: no-such-theme: no such theme"),
    ],
)
def test_bad_flags_get_one_line_and_exit_2_before_any_work(flags, message, capsys, hermetic):
    code = __import__("kt_tui.cli").cli.main(
        ["run", str(EXAMPLES / "vector_add.cu"), "--auto", "--backend", "sim", *flags]
    )
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not (hermetic / "sessions.db").exists()


@pytest.mark.parametrize(
    "line, message",
    [
        ('max_configs = "ten"', "config.toml: max_configs: must be an integer, not 'ten'"),
        ("seeds = 1", "config.toml: seeds: must be true or false, not 1"),
        ("timeout_s = true", "config.toml: timeout_s: must be a number, not True"),
        ("keys = 3", "config.toml: keys: must be a table, not 3"),
        ("time_limit_s = -2", "config.toml: time_limit_s: must not be negative"),
        ('theme = "nope"', "config.toml: theme: nope: no such theme"),
    ],
)
def test_a_config_value_of_the_wrong_type_names_the_key_and_the_file(line, message, capsys, hermetic):
    config = hermetic / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(line + "\n")
    code = __import__("kt_tui.cli").cli.main(["run", str(EXAMPLES / "vector_add.cu"), "--auto", "--backend", "sim"])
    err = capsys.readouterr().err
    assert code == 2 and str(config) in err and message in err, err
    assert not (hermetic / "sessions.db").exists()


def test_a_good_config_still_loads(hermetic):
    from kt_tui.config import load_settings
    from kt_tui.front.session import session_options

    config = hermetic / "config.toml"
    config.write_text('threshold = 1\nmax_configs = 5\nkeys = {start = "enter"}\ntheme = "kt-light"\n')
    s = load_settings({}, config_file=config)
    options = session_options(s, "autonomous")
    assert (options["threshold"], options["max_configs"], s.keys, s.theme) == (1, 5, {"start": "enter"}, "kt-light")


def test_a_reader_that_goes_away_is_not_an_internal_error(tmp_path):
    """`kt-tui run ... | head`: the session finishes and is saved; no "internal error" on stderr."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, KT_TUI_DATA_DIR=str(tmp_path), KT_TUI_CONFIG_DIR=str(tmp_path))
    run = subprocess.Popen(
        [sys.executable, "-m", "kt_tui", "run", "examples/vector_add.cu", "--auto", "--json", "--backend", "sim"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    run.stdout.close()  # like `| head` that has read enough
    _, err = run.communicate(timeout=240)
    assert b"internal error" not in err and run.returncode == 141, err[-500:]
