"""Of several local GPUs, the check's test (compute-sanitizer and its runs) goes on the last one's,
so that what the others measure meanwhile is not disturbed (engine/runs.py re-times only its own);
that GPU measures again once the test has left it."""

import types

import numpy as np

from kt_tui.gpu import checkrun
from kt_tui.gpu.devices import LocalDevice
from kt_tui.gpu.sanitize import SanitizeReport
from kt_tui.gpu.tuner import Tuner

from ..kernel.test_strength import KERNEL, fake_child, spec


def _pool(n: int, via: str = "local") -> Tuner:
    pool = Tuner(gpus=n, via=via)
    pool.workers = [LocalDevice(i) for i in range(n)]
    for w in pool.workers:
        w.env = {"CUDA_VISIBLE_DEVICES": str(4 + w.index)}  # as start() sets it, here for GPUs 4 and 5
    return pool


def test_the_check_runs_on_the_last_gpu_of_several_and_says_which(monkeypatch):
    said = []
    monkeypatch.setattr(checkrun, "test_check", lambda *a, **k: said.append(a) or {"state": "ok"})
    pool = _pool(2)
    assert pool.check_gpu() == "gpu1"
    assert pool.test_check("src", {}, "pycuda", 60) == {"state": "ok"}
    assert said[-1][-1] == "5"  # CUDA_VISIBLE_DEVICES of its children
    one = _pool(1)
    assert one.check_gpu() is None and (one.test_check("src", {}, "pycuda", 60), said[-1][-1]) == (
        {"state": "ok"},
        None,
    )


def test_the_sanitizer_and_the_runs_are_given_that_gpu(monkeypatch):
    seen = {}

    def strength(source, spec, backend, timeout_s, sanitizer, child, gpu_free=None):
        seen["sanitizer"], seen["child"] = sanitizer, child
        return {"state": "ok"}

    monkeypatch.setattr(checkrun, "check_strength", strength)
    monkeypatch.setattr(checkrun, "spec_from_plain", lambda plain: types.SimpleNamespace())
    checkrun.test_check("src", {}, "pycuda", 60, "5")
    assert seen["sanitizer"].keywords == {"device": "5"} and seen["child"].keywords == {"device": "5"}
    checkrun.test_check("src", {}, "pycuda", 60)
    assert seen["sanitizer"] is checkrun.sanitize and seen["child"] is checkrun.run_child


def test_the_checks_child_process_sees_only_that_gpu(monkeypatch, tmp_path):
    envs = []

    class Proc:
        returncode = 0
        stdout: list[str] = []

        def __init__(self, cmd, **kw):
            envs.append(kw["env"])

        def wait(self, timeout=None):
            return 0

    monkeypatch.setattr(checkrun.subprocess, "Popen", Proc)
    assert checkrun.run_child({"runs": []}, tmp_path, 10, device="5") == ""
    assert envs[-1]["CUDA_VISIBLE_DEVICES"] == "5" and envs[-1]["PYTHONPATH"]
    checkrun.run_child({"runs": []}, tmp_path, 10)
    assert envs[-1].get("CUDA_VISIBLE_DEVICES") == dict(__import__("os").environ).get("CUDA_VISIBLE_DEVICES")


def test_the_test_says_it_left_the_gpu_before_its_child_has_judged():
    """gpu_free comes once the sanitizer is done and the child's runs have ended, while the child
    still judges its arrays (gpu/tuner.py lets that GPU measure then)."""
    import threading

    freed = threading.Event()
    order = []
    write = fake_child({"original": np.arange(1000, dtype=np.int32), "mutant": np.zeros(1000, np.int32)})

    def child(job, out, timeout_s, gpu_done=None, **kw):
        gpu_done()
        order.append(("freed while judging", freed.wait(5)))
        return write(job, out, timeout_s)

    def sanitizer(source, spec, params, backend, tool="memcheck", timeout_s=0, sizes=None, more=()):
        return SanitizeReport(tool, True, 0, sizes=sizes)

    state = checkrun.check_strength(KERNEL, spec(), "cupy", sanitizer=sanitizer, child=child, gpu_free=freed.set)
    assert order == [("freed while judging", True)] and state["state"] in ("ok", "vacuous")


def test_the_childs_line_that_it_left_the_gpu_is_not_taken_for_its_output_nor_said_by_a_kernel(monkeypatch, tmp_path):
    """The line carries the job's token: a kernel's printf reaches the same stdout and cannot say it."""
    import json
    import threading

    said = threading.Event()
    heard: list[bool] = []

    class Proc:
        returncode = 1

        def __init__(self, cmd, **kw):
            token = json.loads(open(cmd[-2]).read())["token"]
            self.stdout = self.lines(token)

        def lines(self, token):
            yield checkrun.GPU_DONE + "\n"  # a kernel's printf of it, without the token
            heard.append(said.is_set())
            yield "compiling\n"
            yield f"{checkrun.GPU_DONE} {token}\n"
            heard.append(said.is_set())
            yield "boom\n"

        def wait(self, timeout=None):
            return 1

    monkeypatch.setattr(checkrun.subprocess, "Popen", Proc)
    error = checkrun.run_child({"runs": []}, tmp_path, 10, gpu_done=said.set)
    assert heard == [False, True]
    assert error == f"the check runs failed (exit status 1): {checkrun.GPU_DONE} | compiling | boom"
