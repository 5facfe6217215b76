"""Fixed costs: the remembered backend probe, the worker started early, compile-ahead for every
backend, the search model's cost, no warnings at exit (behaviour only; speed is in benchmarks/)."""

from __future__ import annotations

from kt_tui.gpu.probe_cache import cached_probe


def _counting_probe(answer):
    calls = []

    def probe(backends):
        calls.append(tuple(backends))
        return dict(answer)
    return probe, calls


def test_probe_remembered_per_driver_and_gpu(tmp_path, monkeypatch):
    monkeypatch.delenv("KT_TUI_PROBE_CACHE", raising=False)
    mark = {"v": "driver 580 / H100"}
    probe, calls = _counting_probe({"backend": "pycuda", "gpu": "NVIDIA H100", "errors": {}})
    cached = cached_probe(probe, tmp_path / "probe.json", fingerprint=lambda: mark["v"])
    assert cached(("pycuda", "nvcuda"))["backend"] == "pycuda"
    again = cached(("pycuda", "nvcuda"))
    assert (again["backend"], again["gpu"], again["cached"]) == ("pycuda", "NVIDIA H100", True)
    assert len(calls) == 1
    # a new process reads the same file
    assert cached_probe(probe, tmp_path / "probe.json", fingerprint=lambda: mark["v"])(("pycuda", "nvcuda"))["cached"]
    assert len(calls) == 1
    cached(("cupy",))  # another request is probed on its own
    assert len(calls) == 2
    mark["v"] = "driver 590 / H100"  # a driver update (or another GPU): probed again
    cached(("pycuda", "nvcuda"))
    assert len(calls) == 3
    monkeypatch.setenv("KT_TUI_PROBE_CACHE", "0")
    cached(("pycuda", "nvcuda"))
    assert len(calls) == 4


def test_probe_failure_and_no_driver_never_remembered(tmp_path):
    probe, calls = _counting_probe({"backend": None, "gpu": None, "errors": {"pycuda": "no"}})
    cached = cached_probe(probe, tmp_path / "probe.json", fingerprint=lambda: "same")
    cached(("pycuda",))
    cached(("pycuda",))
    assert len(calls) == 2 and not (tmp_path / "probe.json").exists()
    probe, calls = _counting_probe({"backend": "pycuda", "gpu": "G", "errors": {}})
    cached = cached_probe(probe, tmp_path / "probe.json", fingerprint=lambda: None)  # no /proc/driver/nvidia
    cached(("pycuda",))
    cached(("pycuda",))
    assert len(calls) == 2


def test_probe_cache_file_damaged(tmp_path):
    (tmp_path / "probe.json").write_text("{not json")
    probe, calls = _counting_probe({"backend": "nvcuda", "gpu": "G", "errors": {}})
    cached = cached_probe(probe, tmp_path / "probe.json", fingerprint=lambda: "m")
    assert cached(("nvcuda",))["backend"] == "nvcuda"
    assert cached(("nvcuda",))["cached"] and len(calls) == 1
