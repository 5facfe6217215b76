"""Of several local GPUs, the check's test (compute-sanitizer and its runs) goes on the last one's,
so that what the others measure meanwhile is not disturbed (engine/runs.py re-times only its own)."""

import types

from kt_tui.gpu import checkrun
from kt_tui.gpu.pool import DeviceWorker, GpuPool


def _pool(n: int, via: str = "local") -> GpuPool:
    pool = GpuPool(gpus=n, via=via)
    pool.workers = [DeviceWorker(i) for i in range(n)]
    for w in pool.workers:
        w.env = {"CUDA_VISIBLE_DEVICES": str(4 + w.index)}  # as start() sets it, here for GPUs 4 and 5
    return pool


def test_the_check_runs_on_the_last_gpu_of_several_and_says_which(monkeypatch):
    said = []
    monkeypatch.setattr(checkrun, "test_check", lambda *a: said.append(a) or {"state": "ok"})
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

    def strength(source, spec, backend, timeout_s, sanitizer, child):
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

        def __init__(self, cmd, **kw):
            envs.append(kw["env"])

        def communicate(self, timeout=None):
            return "", None

    monkeypatch.setattr(checkrun.subprocess, "Popen", Proc)
    assert checkrun.run_child({"runs": []}, tmp_path, 10, device="5") == ""
    assert envs[-1]["CUDA_VISIBLE_DEVICES"] == "5" and envs[-1]["PYTHONPATH"]
    checkrun.run_child({"runs": []}, tmp_path, 10)
    assert envs[-1].get("CUDA_VISIBLE_DEVICES") == dict(__import__("os").environ).get("CUDA_VISIBLE_DEVICES")
