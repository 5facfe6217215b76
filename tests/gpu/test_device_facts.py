"""Device facts (issue 39): read by the worker with the backend's API, kept with the backend probe,
stamped into the caches a real run records and read back from a replay, always checked. The numbers
are those read on an NVIDIA H100 80GB HBM3 on 2026-12-06 (tests/fixtures/h100-2026-12-06)."""

import json
import sys
import types

from kt_tui.engine.backend import choose_backend
from kt_tui.engine.core import Engine
from kt_tui.engine.strategies.sweep import sweep
from kt_tui.gpu.device import device
from kt_tui.gpu.facts import clean_facts
from kt_tui.gpu.probe_cache import cached_probe
from kt_tui.gpu.simcache import read_header
from kt_tui.store import Store

from ..conftest import ROOT
from ..engine.test_outcomes import FakeGpu, approve, real_session

H100 = ROOT / "tests" / "fixtures" / "h100-2026-12-06"
FACTS = json.loads((H100 / "facts.json").read_text())


def test_cupys_device_properties_become_the_facts(monkeypatch):
    props = {
        "name": b"NVIDIA H100 80GB HBM3",
        "major": 9,
        "minor": 0,
        "multiProcessorCount": 132,
        "clockRate": 1980000,
        "memoryClockRate": 2619000,
        "memoryBusWidth": 5120,
        "totalGlobalMem": 85017493504,
        "l2CacheSize": 52428800,
        "sharedMemPerBlock": 49152,
        "sharedMemPerBlockOptin": 232448,
        "sharedMemPerMultiprocessor": 233472,
        "regsPerMultiprocessor": 65536,
        "maxThreadsPerBlock": 1024,
        "maxThreadsPerMultiProcessor": 2048,
    }  # as cupy read them on the H100 (tests/fixtures/h100-2026-12-06)
    runtime = types.SimpleNamespace(getDeviceProperties=lambda i: props)
    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=runtime)))
    facts = device.device_facts("cupy", "NVIDIA H100 80GB HBM3", peaks=False)
    same = {k: v for k, v in FACTS.items() if k not in ("copy_gbps", "fma_gflops", "recorded")}
    assert {k: facts[k] for k in same} == same  # theoretical bandwidth 3352.3 GB/s included
    assert clean_facts(facts) == facts


def test_facts_read_back_are_checked():
    assert clean_facts(FACTS) == FACTS
    bad = dict(FACTS, sms=float("nan"), copy_gbps=True, l2_bytes="50 MiB", name="H100\x1b]0;x\x07" + "y" * 500, cc=9)
    clean = clean_facts(bad)
    assert "sms" not in clean and "copy_gbps" not in clean and "l2_bytes" not in clean and "cc" not in clean
    assert "\x1b" not in clean["name"] and len(clean["name"]) <= 200
    assert clean_facts({"sms": 1}) is None and clean_facts([1]) is None


def test_the_probe_cache_keeps_the_facts_and_reads_them_back_checked(tmp_path):
    calls = []

    def probe(backends):
        calls.append(backends)
        return {"backend": "cupy", "gpu": "NVIDIA H100 80GB HBM3", "arch": "sm_90", "errors": {}, "facts": FACTS}

    path = tmp_path / "backend-probe.json"
    run = cached_probe(probe, path, fingerprint=lambda: "machine")
    assert run(("cupy",))["facts"] == FACTS
    again = run(("cupy",))
    assert again["facts"] == FACTS and again["cached"] and len(calls) == 1  # measured once
    stored = json.loads(path.read_text())
    stored["answers"]["cupy"]["facts"]["copy_gbps"] = "fast"
    path.write_text(json.dumps(stored))
    assert "copy_gbps" not in run(("cupy",))["facts"]


class RecordingGpu(FakeGpu):
    """FakeGpu that writes the kernel_tuner cachefile a real run leaves (open, as kernel_tuner leaves it)."""

    def run(self, job, on_event, timeout_s):
        info = super().run(job, on_event, timeout_s)
        if getattr(job, "cachefile", None):
            with open(job.cachefile, "w") as f:
                f.write('{\n"device_name": "Fake GPU",\n"kernel_name": "vector_add",\n"cache": {\n')
        return info


def test_a_real_run_stamps_the_facts_into_its_cache_and_a_replay_of_it_shows_them(hermetic):
    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    choice.facts = FACTS
    Engine(store, sid, RecordingGpu(), choice, approve, cache_dir=hermetic / "caches").run(sweep)
    caches = sorted((hermetic / "caches").glob("vector_add-*.json"))
    assert caches and all(read_header(c)["kt_tui"]["device"] == FACTS for c in caches)
    vid = store.versions(sid)[0]["id"]
    replay = choose_backend("sim", lambda b: {}, "vector_add", vid, [str(hermetic / "caches")])
    assert replay.facts == FACTS


def test_the_peaks_and_the_launch_are_measured_with_kernel_tuners_own_times(monkeypatch):
    import kernel_tuner

    asked = []

    def tune_kernel(name, src, size, args, params, **kw):
        asked.append((name, size))
        if name == "kt_fma_peak":
            times = [0.2, 0.25]
        elif size == 256:  # the copy on one block: next to nothing but the launch
            times = [0.019, 0.021, 0.023]
        else:
            times = [0.3633, 0.37]
        return [{"times": times, "time": sum(times) / len(times)}], {}

    monkeypatch.setattr(kernel_tuner, "tune_kernel", tune_kernel)
    peaks = device.measure_peaks("stand-in", 132)
    assert peaks["copy_gbps"] == round(2 * device.COPY_BYTES / 0.3633e-3 / 1e9, 1)  # the best run of the copy
    assert peaks["launch_us"] == 21.0  # kernel_tuner's time (the mean), as every result's
    assert ("kt_copy_peak", 256) in asked and clean_facts(dict(FACTS, **peaks))["launch_us"] == 21.0
