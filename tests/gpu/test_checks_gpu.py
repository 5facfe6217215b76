"""Checks at other sizes on a real GPU, through a device worker (gpu/checking.py: untimed tuning
runs of one configuration, compared on the device): the verdicts and the first bad index, and a
kernel that takes the CUDA context down or hangs only at a check size costs that check while the
worker goes on. Skipped without a GPU."""

import pytest

from kt_tui.gpu import checking
from kt_tui.gpu.protocol import CheckJob
from kt_tui.gpu.tuner import Tuner
from kt_tui.kernel.spec import load_spec

from ..conftest import ROOT

pytestmark = pytest.mark.gpu

FAULTS = ROOT / "tests" / "faults"
SPEC = load_spec(FAULTS / "scaled_add.cu.toml")
GOOD = (FAULTS / "scaled_add.cu").read_text()
RAGGED = GOOD.replace("if (i < n) {", "if (i < (n & ~3)) {")  # the tail of a size not a multiple of 4 unwritten
CRASH = GOOD.replace("if (i < n) {", "if (i == 0 && (n & 1)) { out[(size_t)1 << 40] = 1.0f; }\n    if (i < n) {")
HANG = GOOD.replace("if (i < n) {", "for (long long t = clock64(); n & 1;) { t += clock64(); }\n    if (i < n) {")


def _check(gpu: Tuner, source: str, sizes=None) -> dict:
    backend = gpu.probe()["backend"]
    assert backend, "no GPU backend"
    job = CheckJob(
        "check:gpu", source, SPEC.to_dict(), GOOD, SPEC.to_dict(), SPEC.baseline_params(), backend,
        sizes or SPEC.extra_sizes(), [{"block_size_x": 128}],
    )  # fmt: skip
    seen: list = []
    gpu.run(job, lambda kind, p: seen.append(p) if kind == "check" else None, SPEC.timeout_s)
    return {c["unit"]: c for c in seen}


@pytest.fixture
def gpu(monkeypatch):
    monkeypatch.setattr(checking, "_REFS", {})
    tuner = Tuner()
    yield tuner
    tuner.close()


def test_a_right_kernel_is_right_at_every_size(gpu):
    got = _check(gpu, GOOD)
    assert sorted(got) == ["n=349525@128", "n=37@128"]
    assert all(c["status"] == "ok" and c["ok"] is True and c["verdicts"] for c in got.values()), got


def test_a_kernel_wrong_at_a_ragged_size_says_where(gpu):
    got = _check(gpu, RAGGED)
    at37, far = got["n=37@128"], got["n=349525@128"]
    assert at37["status"] == "wrong_result" and at37["reason"].startswith("wrong result at n=37: out[36] = nan")
    assert at37["verdicts"][0]["first_bad"] == 36 and far["verdicts"][0]["first_bad"] == 349524


def test_a_kernel_that_loses_the_context_at_a_check_size_costs_that_check_and_the_worker_goes_on(gpu):
    got = _check(gpu, CRASH)
    for unit in ("n=37@128", "n=349525@128"):
        assert got[unit]["status"] == "runtime_error" and got[unit]["ok"] is False, got[unit]
    assert gpu.restarts >= 1
    assert _check(gpu, GOOD)["n=37@128"]["status"] == "ok"  # the worker after it


def test_a_kernel_that_hangs_at_a_check_size_times_out_and_the_worker_goes_on(gpu):
    got = _check(gpu, HANG, [{"label": "n=37", "sizes": {"n": 37}}])
    assert got["n=37@128"]["status"] == "timeout" and "n=37" in got["n=37@128"]["reason"]
    assert gpu.restarts == 1
    assert _check(gpu, GOOD)["n=37@128"]["status"] == "ok"
