"""Stand-ins for the tests of several GPU workers (tests/gpu/test_scale*.py, test_dealing.py, ...):
the recorded matmul job, and a worker that streams its configurations or dies."""

from __future__ import annotations

from kt_tui.front.session import load_kernel_spec, read_kernel_file
from kt_tui.gpu.devices import WorkerError
from kt_tui.gpu.protocol import TuneJob

from ..conftest import EXAMPLES

CACHE = next((EXAMPLES / "recorded").glob("matmul-*.json"))


def matmul_job(**kw) -> TuneJob:
    kf = read_kernel_file(EXAMPLES / "matmul.cu")
    _, spec = load_kernel_spec(kf, None, None)
    kw = {"backend": "sim", "search": "brute_force", **kw}
    return TuneJob(run_id="r", source=kf.source, spec=spec.to_dict(), sim_cache=str(CACHE), **kw)


class FakeWorker:
    """Stands in for a RayWorker: streams its configurations, or dies for good after the first."""

    def __init__(self, label: str, gpu: str, dies: bool = False):
        self.label, self.gpu, self.dies, self.num_gpus, self.restarts = label, gpu, dies, 1, 0

    def probe(self, backends, timeout):
        return {"backend": "pycuda", "gpu": self.gpu, "errors": {}}

    def run(self, job, on_event, timeout_s):
        names = list(job.spec["tune_params"])
        for i, c in enumerate(job.configs):
            if self.dies and i == 1:
                raise WorkerError("the GPU worker failed 4 times in a row")
            key = ",".join(str(c[n]) for n in names)
            on_event("result", {"key": key, "params": c, "time_ms": 1.0, "status": "ok"})
        return {"device": self.gpu, "stopped": False}


def run_matmul_on_two(capsys) -> tuple[int, dict]:
    """`kt-tui run examples/matmul.cu --auto --json` replayed on two GPU workers, brute force."""
    from ..helpers import run_cli

    argv = [
        "run",
        EXAMPLES / "matmul.cu",
        "--auto",
        "--json",
        "--backend",
        "sim",
        "--gpus",
        "2",
        "--search",
        "brute_force",
    ]
    return run_cli(capsys, *argv)
