"""The check's test (seconds of compute-sanitizer) runs beside the first measurements under --auto:
results come before its state, what it timed while they shared the GPU is timed again, and its
verdict still decides what is called verified and whether the session is refused."""

import threading

import pytest

from kt_tui.engine.core import Engine
from kt_tui.engine.strategies.sweep import sweep
from kt_tui.engine.strength import CheckRefused
from kt_tui.engine.summary import session_summary
from kt_tui.front.headless import make_policy
from kt_tui.gpu.protocol import TuneJob
from kt_tui.kernel import strength
from kt_tui.store import Store

from .test_outcomes import FakeGpu, real_session


class SlowCheckGpu(FakeGpu):
    """test_check answers only once the first tuning job has measured (or after 10 s)."""

    def __init__(self, state, **kw):
        super().__init__(**kw)
        self.state, self.release, self.order = state, threading.Event(), []

    def test_check(self, source, spec, backend, timeout_s, gpu_free=None):
        self.release.wait(10)
        self.order.append("check")
        return dict(self.state)

    def run(self, job, on_event, timeout_s):
        info = super().run(job, on_event, timeout_s)
        if isinstance(job, TuneJob):
            self.order.append(job.run_id)
            if job.run_id.startswith("sweep"):
                self.release.set()
        return info


def _session(hermetic, state, **kw):
    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    gpu = SlowCheckGpu(state, **kw)
    return store, sid, gpu, Engine(store, sid, gpu, choice, make_policy())


def test_under_auto_the_sweep_does_not_wait_for_the_check_and_what_shared_the_gpu_is_timed_again(hermetic):
    store, sid, gpu, engine = _session(hermetic, strength.verdict([], [], changed=["c"]))
    assert engine.run(sweep) == "finished"
    # measured before the check's state came, then measured again once it had
    assert gpu.order[0].startswith("baseline:") and gpu.order[1:3] == ["sweep:1", "check"]
    assert gpu.order[3].startswith("again:")
    again = next(j for j in gpu.jobs if isinstance(j, TuneJob) and j.run_id.startswith("again:"))
    assert sorted(c["block_size_x"] for c in again.configs) == sorted(
        {r.params["block_size_x"] for r in store.results(sid)}
    )
    assert session_summary(store, sid)["check"]["state"] == "ok"


def test_a_vacuous_verdict_that_comes_after_the_sweep_started_still_calls_nothing_verified(hermetic):
    store, sid, gpu, engine = _session(hermetic, strength.verdict(["`c` is 1 everywhere (16 elements)"], []))
    engine.run(sweep)
    summary = session_summary(store, sid)
    assert summary["check"]["state"] == "vacuous"
    assert gpu.order.index("check") > gpu.order.index("sweep:1")  # it did come after
    assert summary["best"]["verified"].startswith("unchecked: the check proves nothing because `c` is 1")


def test_an_original_out_of_bounds_is_said_as_that_when_its_baseline_failed_first(hermetic):
    why = "the original kernel accesses memory out of bounds at n=37 (2 errors under memcheck): `a`[40] ..."
    refused = {"state": "unsafe", "why": why, "refused": why, "fixes": []}
    store, sid, gpu, engine = _session(hermetic, refused, capture=False)  # the baseline gives no reference
    gpu.release.set()
    with pytest.raises(CheckRefused, match="out of bounds at n=37"):
        engine.run(sweep)
    assert "`a`[40]" in store.session(sid)["error"]


def test_an_original_refused_after_the_sweep_started_leaves_no_best_and_nothing_verified(hermetic):
    why = "the original kernel accesses memory out of bounds at n=37 (2 errors under memcheck): `a`[40] ..."
    store, sid, gpu, engine = _session(hermetic, {"state": "unsafe", "why": why, "refused": why, "fixes": []})
    with pytest.raises(CheckRefused, match="out of bounds at n=37"):
        engine.run(sweep)
    assert gpu.order.index("check") > gpu.order.index("sweep:1") and store.count_results(sid) > 0
    summary = session_summary(store, sid)
    assert summary["state"] == "failed" and summary["best"] is None
    from kt_tui.engine.strength import vacuous_why
    from kt_tui.store import SessionStore

    assert vacuous_why(SessionStore(store, sid)).startswith("the original kernel was refused: ")
    row = store.session(sid)  # the row the sessions table and its star read says the same: no best
    assert (row["best_ms"], row["best_key"], row["best_version"]) == (None, None, None)


def test_timing_again_keeps_the_first_verdict_and_checks_no_outputs_again(hermetic):
    store, sid, gpu, engine = _session(hermetic, strength.verdict([], [], changed=["c"]))
    engine.run(sweep)
    again = [j for j in gpu.jobs if isinstance(j, TuneJob) and j.run_id.startswith("again:")]
    assert again and all(j.reference is None for j in again)  # timing only: no reference sent, no comparison
    base = engine.reference_key()  # the baseline is the reference: nothing checks it
    verified = {r.key: r.verified for r in store.results(sid)}
    assert verified.pop(base) is None and set(verified.values()) == {True}  # the first verdicts stand


class TwoGpus(SlowCheckGpu):
    """Two GPUs of a pool: each job's results are dealt over gpu0 and gpu1; the check runs on gpu1."""

    def __init__(self, state, **kw):
        super().__init__(state, **kw)
        self.dealt: dict[str, dict[str, str]] = {}  # run -> key -> the GPU that measured it

    def check_gpu(self):
        return "gpu1"

    def run(self, job, on_event, timeout_s):
        turn = iter(range(1_000_000))
        dealt = self.dealt.setdefault(job.run_id, {})

        def label(kind, payload):
            if kind == "result":
                worker = "gpu0" if job.one_worker else f"gpu{next(turn) % 2}"
                dealt[payload["key"]] = worker
                payload = dict(payload, worker=worker)
            on_event(kind, payload)

        return super().run(job, label, timeout_s)


def test_of_several_gpus_only_what_the_checks_gpu_timed_beside_it_is_timed_again(hermetic):
    store = Store(hermetic / "two.db")
    sid, choice = real_session(store)
    gpu = TwoGpus(strength.verdict([], [], changed=["c"]))
    assert Engine(store, sid, gpu, choice, make_policy()).run(sweep) == "finished"
    swept = gpu.dealt["sweep:1"]
    again = next(j for j in gpu.jobs if isinstance(j, TuneJob) and j.run_id.startswith("again:"))
    assert {str(c["block_size_x"]) for c in again.configs} == {k for k, w in swept.items() if w == "gpu1"}
    assert "gpu0" in swept.values() and again.one_worker  # gpu0's were not disturbed; the rest timed on one GPU


def test_a_result_the_checks_gpu_measured_after_the_test_ended_is_not_timed_again():
    """The GPU the test ran on starts measuring only after it (gpu/dealing.py): its first results
    arrive within the arrival margin, but their own timestamps say they came after."""
    import time
    from datetime import UTC, datetime

    from kt_tui.engine.strength import CheckInFlight

    flight = CheckInFlight(lambda gpu_free: {"state": "ok"}, gpu="gpu1")
    flight.result()
    now = time.monotonic()
    after = str(datetime.fromtimestamp(flight.freed_at + 0.3, UTC))
    during = str(datetime.fromtimestamp(flight.freed_at - 0.5, UTC))
    assert not flight.shared_gpu(now, "gpu1", after)
    assert flight.shared_gpu(now, "gpu1", during)
    assert flight.shared_gpu(now, "gpu1", None)  # no timestamp: it arrived too soon after the test to tell
    assert not flight.shared_gpu(now, "gpu0", during)  # another GPU of the pool
    one = CheckInFlight(lambda gpu_free: {"state": "ok"})  # one GPU: its worker is this host's
    one.result()
    assert not one.shared_gpu(time.monotonic(), None, after) and one.shared_gpu(time.monotonic(), None, during)
    assert one.shared_gpu(time.monotonic(), "ray:node2", after)  # another host's clock: by arrival only


def test_the_check_started_while_the_kernel_is_compile_checked_is_the_one_the_session_takes(hermetic):
    """A new session's check test starts once its backend is picked (front/session.py), seconds of
    the GPU sooner; the session takes that test over rather than starting a second one."""
    from kt_tui.engine import strength as flights
    from kt_tui.front.kernelfile import load_kernel_spec, read_kernel_file

    from ..conftest import EXAMPLES

    store = Store(hermetic / "early.db")
    sid, choice = real_session(store)
    gpu = SlowCheckGpu(strength.verdict([], [], changed=["c"]))
    calls = []
    test = gpu.test_check
    gpu.test_check = lambda *a, **k: calls.append(a) or test(*a, **k)
    kf = read_kernel_file(EXAMPLES / "vector_add.cu")
    _, spec = load_kernel_spec(kf, None, None)
    flights.start_early(gpu, kf.source, spec, choice.backend, None)
    flights.start_early(gpu, kf.source, spec, "pycuda", None)  # another pick: the first is dropped
    flights.start_early(gpu, kf.source, spec, choice.backend, None)
    engine = Engine(store, sid, gpu, choice, make_policy())
    early = next(iter(flights._EARLY.values()))
    assert engine.run(sweep) == "finished"
    assert len(calls) == 3 and engine.check_in_flight is None and not flights._EARLY
    assert early.done() and session_summary(store, sid)["check"]["state"] == "ok"
    assert gpu.order.count("check") == 3  # the three tests ran; the session waited on the last only


def test_a_result_timed_after_the_test_left_the_gpu_is_not_timed_again_while_the_test_still_judges():
    import threading
    import time
    from datetime import UTC, datetime

    from kt_tui.engine.strength import CheckInFlight

    judging = threading.Event()

    def test(gpu_free):
        gpu_free()  # the sanitizer and the runs are done; the child judges their arrays
        judging.wait(10)
        return {"state": "ok"}

    flight = CheckInFlight(test, gpu="gpu1")
    deadline = time.monotonic() + 10
    while flight.freed_at is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not flight.done()
    stamp = str(datetime.fromtimestamp(flight.freed_at + 0.2, UTC))
    assert not flight.shared_gpu(time.monotonic(), "gpu1", stamp)
    judging.set()
    assert flight.result()["state"] == "ok"
