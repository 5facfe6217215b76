"""User code runs in a process tree kt-tui can always kill (gpu/supervise.py): a daemon that
double-forks and calls setsid dies with the import, and `--timeout` is kept."""

import os
import time

import pytest

from kt_tui.cli import main
from kt_tui.importer.run import import_script

from ..importer.test_import import _script

DAEMON = """
import os, sys, time
def daemon(name):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            open(name, "w").write(str(os.getpid()))
            time.sleep(300)  # holds the output pipe open
            os._exit(0)
        os._exit(0)
    os.wait()
    while not os.path.exists(name):
        time.sleep(0.01)
"""


def _gone(pid_file) -> bool:
    pid = int(pid_file.read_text())
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"python" not in f.read()  # a reused pid
    except FileNotFoundError:
        return True


def test_a_daemon_left_by_a_script_that_ends_dies_with_it(tmp_path):
    script = _script(
        tmp_path,
        DAEMON
        + """
daemon("daemon.pid")
tune_kernel("scale", "scale.cu", n, args, tp)
""",
    )
    done, problems, _ = import_script(script, tmp_path / "out", timeout_s=20)
    assert len(done) == 1 and problems == []  # neither waited for the daemon (300 s) nor stopped at the timeout
    assert _gone(tmp_path / "daemon.pid")


def test_a_script_that_never_ends_and_its_setsid_daemon_are_stopped_at_the_timeout(tmp_path, capsys):
    script = _script(
        tmp_path,
        DAEMON
        + """
daemon("daemon.pid")
import subprocess
subprocess.Popen(["sleep", "300"])
open("main.pid", "w").write(str(os.getpid()))
while True:
    time.sleep(1)
""",
    )
    assert main(["import", str(script), "--timeout", "5"]) == 2
    assert "did not finish within 5 s and was stopped" in capsys.readouterr().err
    assert _gone(tmp_path / "daemon.pid") and _gone(tmp_path / "main.pid")


def test_the_supervisor_kills_what_is_left_when_told_to_stop(tmp_path):
    from kt_tui.gpu.supervise import run_supervised

    code, out = run_supervised(
        ["sh", "-c", "echo hello; setsid sleep 300 & echo $! > pid; exec sleep 300"], 1.5, cwd=tmp_path
    )
    assert code is None and "hello" in out
    pid = int((tmp_path / "pid").read_text())
    assert not os.path.exists(f"/proc/{pid}")
    code, out = run_supervised(["sh", "-c", "echo done; exit 3"], 10, cwd=tmp_path)
    assert (code, out) == (3, "done\n")


SUBREAPER = """
import os, sys, time
from kt_tui.gpu.env import PR_SET_CHILD_SUBREAPER, prctl
prctl(PR_SET_CHILD_SUBREAPER, 1)  # as the GPU worker does, where init/verify functions run
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(300)
        os._exit(0)
    os._exit(0)
os.wait()
print(" ".join(str(p) for p in __import__("kt_tui.gpu.supervise").gpu.supervise.children(os.getpid())), flush=True)
time.sleep(300)
"""


def _dead(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie no one reaped yet
    except FileNotFoundError:
        return True


def test_kill_tree_kills_a_worker_and_the_setsid_daemon_its_user_code_left(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    from kt_tui.gpu.supervise import kill_tree

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    worker = subprocess.Popen([sys.executable, "-c", SUBREAPER], env=env, stdout=subprocess.PIPE, text=True)
    daemons = [int(p) for p in worker.stdout.readline().split()]
    assert len(daemons) == 1  # the daemon was reparented to the subreaper, not to init
    kill_tree(worker.pid)
    worker.wait(5)
    deadline = time.monotonic() + 5
    while not _dead(daemons[0]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _dead(daemons[0])


@pytest.mark.gpu
def test_a_daemon_a_verify_function_starts_in_the_gpu_worker_dies_with_it(tmp_path, hermetic, capsys):
    """The GPU worker is a subreaper and is ended with its tree: user code there cannot leave a
    setsid daemon behind `kt-tui run`."""
    pid_file = tmp_path / "daemon.pid"
    script = _script(
        tmp_path,
        f"""
        def close_enough(answer, result, atol=None):
            import os, time
            if not os.path.exists({str(pid_file)!r}):
                if os.fork() == 0:
                    os.setsid()
                    if os.fork() == 0:
                        open({str(pid_file)!r}, "w").write(str(os.getpid()))
                        time.sleep(300)
                        os._exit(0)
                    os._exit(0)
                os.wait()
                while not os.path.exists({str(pid_file)!r}):
                    time.sleep(0.01)
            return np.allclose(answer[0], result[0], atol=atol or 1e-6)
        if __name__ == "__main__":
            tune_kernel("scale", "scale.cu", n, args, tp, answer=[args[1] * 2, None, None], verify=close_enough)
    """,
    )
    done, problems, _ = import_script(script, tmp_path / "out")
    assert problems == []
    code = main(["run", str(done[0].kernel_path), "--auto", "--json", "--max-configs", "2"])
    capsys.readouterr()
    assert code == 0 and pid_file.exists()  # the verify function ran, and started its daemon
    assert _gone(pid_file)
