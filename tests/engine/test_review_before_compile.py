"""Generated code is reviewed before it is compiled; child processes get one scrubbed environment;
the offline compile check targets the session's GPU."""

import json
import sys

import pytest

import kt_tui.gpu.compile as compile_mod
from kt_tui.engine.backend import BackendChoice
from kt_tui.gpu.compile import find_nvcc
from kt_tui.gpu.env import scrubbed_env
from kt_tui.kernel.review import review
from kt_tui.store import Store

from ..conftest import EXAMPLES
from ..helpers import run_cli, spec_for
from ..llm_server import MODEL, ScriptedServer

ORIGINAL = (EXAMPLES / "vector_add.cu").read_text()
FAKE_KEY = "sk-FAKEKEY0123456789abcdef"


def including(path: str) -> str:
    return f'#include "{path}"\n' + ORIGINAL


def one_prompt(capsys, hermetic, code: str, *extra: str):
    reply = json.dumps(
        {
            "kernel_code": code,
            "tune_params": {"block_size_x": [32, 64, 128, 256, 512, 1024]},
            "explanation": "an include",
        }
    )
    with ScriptedServer([reply]) as server:
        return run_cli(
            capsys,
            "run",
            EXAMPLES / "vector_add.cu",
            "--strategy",
            "one-prompt",
            "--auto",
            "--json",
            "--backend",
            "sim",
            "--sim-cache",
            EXAMPLES / "recorded",
            "--base-url",
            server.url,
            "--model",
            MODEL,
            *extra,
        )


@pytest.fixture
def compiles(monkeypatch):
    """The sources compile_check was asked to compile, in order."""
    seen, real = [], compile_mod.compile_check

    def counting(source, *a, **k):
        seen.append(source)
        return real(source, *a, **k)

    monkeypatch.setattr(compile_mod, "compile_check", counting)
    return seen


@pytest.mark.parametrize("allow", [False, True])
def test_an_include_of_a_key_file_is_never_compiled_before_approval_and_the_key_stays_out(
    capsys, hermetic, compiles, allow
):
    secret = hermetic / "secret.txt"
    secret.write_text(f"{FAKE_KEY}\n")
    code, out = one_prompt(capsys, hermetic, including(str(secret)), *(["--allow-flagged"] if allow else []))
    store = Store(hermetic / "sessions.db")
    gate = store.gate(out["session"], "kernel:one-prompt").body
    assert gate["flags"][0]["kind"] == "include" and "the compiler would read it" in gate["flags"][0]["message"]
    assert gate["compile"]["deferred"] and gate["compile"]["ok"] is None
    flagged = [s for s in compiles if str(secret) in s]
    step = out["steps"][-1]
    if not allow:  # the policy refused it: never compiled at all
        assert flagged == [] and step["state"] == "skipped"
    else:  # compiled once, after the gate was approved
        assert len(flagged) == 1 and store.gate(out["session"], "kernel:one-prompt").state == "decided"
        if find_nvcc():
            assert step["state"] == "failed" and "does not compile" in step["reason"]
            assert "its text is not shown" in step["reason"]
    for f in hermetic.rglob("*"):
        if f.is_file() and f != secret:
            assert FAKE_KEY.encode() not in f.read_bytes(), f
            assert b"FAKEKEY0123456789abcdef" not in f.read_bytes(), f


@pytest.mark.parametrize(
    "line",
    [
        '#include "/dev/zero"',
        '#include "../../etc/passwd"',
        "#include </proc/self/environ>",
        '#define F "/dev/zero"\n#include F',
        '#inc\\\nlude "/dev/zero"',
    ],
)
def test_path_and_macro_includes_are_flagged(line):
    flags = [f for f in review(ORIGINAL, line + "\n" + ORIGINAL, "vector_add") if f.kind == "include"]
    assert len(flags) == 1 and "could read" in flags[0].message or "would read" in flags[0].message


def test_dev_zero_include_is_flagged_and_not_compiled(capsys, hermetic, compiles):
    code, out = one_prompt(capsys, hermetic, including("/dev/zero"))
    gate = Store(hermetic / "sessions.db").gate(out["session"], "kernel:one-prompt").body
    assert gate["flags"] and gate["compile"].get("deferred")
    assert not [s for s in compiles if "/dev/zero" in s]


def test_one_scrubber_removes_keys_tokens_pats_credentials_and_url_passwords():
    env = {
        "PATH": "/usr/bin",
        "HOME": "/h",
        "OPENAI_API_KEY": "sk-1",
        "GITHUB_TOKEN": "t",
        "FOO_PAT": "p",
        "X_CREDENTIALS": "c",
        "DATABASE_URL": "postgres://u:pw@h/db",
        "AWS_SECRET_ACCESS_KEY": "s",
        "MY_PASSWORD": "x",
        "SOME_KEY": "k",
        "PLAIN_URL": "https://example.org/x",
        "CUDA_HOME": "/cuda",
    }
    out = scrubbed_env(env, PYTHONPATH="/p")
    assert out == {
        "PATH": "/usr/bin",
        "HOME": "/h",
        "PLAIN_URL": "https://example.org/x",
        "CUDA_HOME": "/cuda",
        "PYTHONPATH": "/p",
    }


def test_nvcc_and_the_sanitizer_get_the_scrubbed_environment(monkeypatch):
    import kt_tui.gpu.sanitize as sanitize_mod

    monkeypatch.setenv("FOO_PAT", "pat-secret")
    monkeypatch.setenv("DATABASE_URL", "postgres://u:pw@h/db")
    seen = []

    class Popen:
        def __init__(self, cmd, **k):
            seen.append(k.get("env"))
            raise OSError("not really")

    import kt_tui.gpu.nvcc as nvcc_mod  # the check runs nvcc as the compile pool does

    monkeypatch.setattr(nvcc_mod.subprocess, "Popen", Popen)
    monkeypatch.setattr(compile_mod, "find_nvcc", lambda: sys.executable)  # a program that is there
    compile_mod.compile_check(ORIGINAL, {"block_size_x": 32}, spec=spec_for("vector_add", {"block_size_x": 32}))
    monkeypatch.setattr(sanitize_mod, "find_sanitizer", lambda: "/bin/compute-sanitizer")
    import kt_tui.gpu.supervise as supervise_mod  # the sanitizer runs under the supervisor

    monkeypatch.setattr(supervise_mod.subprocess, "Popen", Popen)
    from kt_tui.kernel.spec import load_spec

    sanitize_mod.sanitize(ORIGINAL, load_spec(EXAMPLES / "vector_add.cu.toml"), {"block_size_x": 32}, "cupy")
    assert len(seen) == 2
    for env in seen:
        assert env is not None and "FOO_PAT" not in env and "DATABASE_URL" not in env and "PATH" in env


def test_compile_arch_comes_from_the_probe_and_the_gate_says_which():
    assert BackendChoice("cupy", "NVIDIA H200", arch="sm_90").compile_arch() == (
        "sm_90",
        "checked for sm_90 (NVIDIA H200)",
    )
    assert BackendChoice("cupy", "NVIDIA A100", arch="sm_80").compile_arch()[0] == "sm_80"
    assert BackendChoice("sim", "NVIDIA H200").compile_arch() == ("sm_90", "assumed sm_90 (simulated)")


def test_the_probed_arch_reaches_the_compile_check(capsys, hermetic, monkeypatch):
    from kt_tui.engine.backend import choose_backend

    probe = lambda backends: {"backend": "cupy", "gpu": "NVIDIA A100", "errors": {}, "arch": "sm_80"}  # noqa: E731
    choice = choose_backend("auto", probe, "vector_add", "v", [])
    assert choice.arch == "sm_80"
    asked = []
    monkeypatch.setattr(
        compile_mod,
        "compile_check",
        lambda src, params, arch=None, **k: asked.append(arch) or compile_mod.CompileResult(ok=True),
    )
    code, out = one_prompt(capsys, hermetic, ORIGINAL.replace("int i =", "int i = 0 +"))
    gate = Store(hermetic / "sessions.db").gate(out["session"], "kernel:one-prompt").body
    assert gate["compile"]["arch"] == "assumed sm_90 (simulated)" and "sm_90" in asked


def test_a_kernel_that_does_not_compile_says_so_first_in_sim_mode(capsys, hermetic):
    if not find_nvcc():
        pytest.skip("no nvcc here")
    broken = hermetic / "vector_add.cu"
    broken.write_text(ORIGINAL.replace("c[i] = a[i] + b[i];", "c[i] = a[i] + b[i] + oops;"))
    assert "oops" in broken.read_text()
    (hermetic / "vector_add.cu.toml").write_text((EXAMPLES / "vector_add.cu.toml").read_text())
    (hermetic / "empty").mkdir()
    code, out = run_cli(
        capsys, "run", broken, "--auto", "--json", "--backend", "sim", "--sim-cache", hermetic / "empty"
    )
    line = next(i + 1 for i, text in enumerate(broken.read_text().splitlines()) if "oops" in text)
    col = broken.read_text().splitlines()[line - 1].index("oops") + 1
    assert code == 2 and out["state"] == "error"
    assert f'{broken}:{line}:{col}: error: identifier "oops" is undefined' in out["error"]
    assert "no recorded cache" not in out["error"] and "assumed sm_90" in out["error"]


def test_without_a_compiler_the_check_is_said_to_be_skipped(monkeypatch):
    from kt_tui.engine.precheck import checked_backend
    from kt_tui.kernel.spec import load_spec

    monkeypatch.setattr(compile_mod, "compile_check", lambda *a, **k: compile_mod.CompileResult(ok=None, reason="x"))
    choice = checked_backend(
        lambda: BackendChoice("cupy", "GPU", arch="sm_80"),
        ORIGINAL,
        load_spec(EXAMPLES / "vector_add.cu.toml"),
        "vector_add.cu",
    )
    assert "Compile check skipped" in choice.note


def test_flagged_code_is_not_run_under_the_sanitizer_before_approval():
    from types import SimpleNamespace

    from kt_tui.engine.gates import KernelGate
    from kt_tui.ui.report_screen import start_sanitizer

    said, ran = [], []
    engine = SimpleNamespace(sanitize=lambda *a, **k: ran.append(a))
    gate = KernelGate(
        key="kernel:1",
        title="Kernel",
        flags=[{"kind": "include", "line": 1, "message": "m"}],
        code=including("/dev/zero"),
    )
    screen = SimpleNamespace(
        gate=gate,
        engine=engine,
        notify=lambda text, **k: said.append(text),
        run_worker=lambda *a, **k: ran.append("worker"),
    )
    start_sanitizer(screen, "memcheck")
    assert ran == [] and "only after you approve it" in said[0]
