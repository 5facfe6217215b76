"""Fixed costs: the remembered backend probe, the worker's imports, inputs made on threads, the
plot's drawing, no warnings at exit (behaviour only; speed is in benchmarks/). Compile-ahead:
tests/gpu/test_compile_ahead.py."""

from __future__ import annotations

import sys
from pathlib import Path

from kt_tui.gpu.probe_cache import cached_probe

ROOT = Path(__file__).resolve().parents[2]


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


# -- no resource-tracker noise at exit -----------------------------------------------------------
def test_no_resource_tracker_warning_on_stderr(tmp_path):
    import subprocess

    log = tmp_path / "worker.log"
    code = (
        "import os, sys, multiprocessing as mp\n"
        "from kt_tui.gpu.tuner import Tuner\n"
        "w = Tuner(log_path=sys.argv[1]); w.start()\n"
        "leak = mp.get_context('spawn').Lock()  # what a killed worker leaves behind\n"
        "w.kill(); sys.stdout.flush(); os._exit(0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(log)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "resource_tracker" not in out.stderr and "leaked" not in out.stderr
    import time

    for _ in range(50):  # the tracker writes after its parent is gone
        if log.exists() and "leaked" in log.read_text():
            break
        time.sleep(0.1)
    assert "leaked semaphore" in log.read_text()  # it went to the worker's log instead


# -- small spaces skip the model ---------------------------------------------------------------
def test_a_small_unbudgeted_space_runs_seeds_then_in_order_without_the_model(capsys, hermetic):
    import itertools

    from kt_tui.front.session import load_kernel_spec, read_kernel_file
    from kt_tui.store import Store

    from ..conftest import EXAMPLES
    from ..helpers import run_cli

    code, out = run_cli(capsys, "run", EXAMPLES / "reduction.cu", "--auto", "--json", "--backend", "sim")
    assert code == 0, out
    _, spec = load_kernel_spec(read_kernel_file(EXAMPLES / "reduction.cu"), None, None)
    assert spec.space_size() <= 32
    rows = Store(hermetic / "sessions.db").results(out["session"])
    seeded = {r.key for r in rows if (r.origin or "").startswith("seed: ")}
    tuned = [r.key for r in rows[1:] if r.key not in seeded]
    in_order = [",".join(map(str, c)) for c in itertools.product(*spec.tune_params.values())]
    assert len(tuned) > 10 and tuned == [k for k in in_order if k in set(tuned)]


# -- the search's own cost: tests/search/test_search_model.py ----------------------------------------
def test_average_ranks_match_scipy():
    import numpy as np
    from scipy.stats import rankdata

    from kt_tui.search.kt_search import average_ranks

    for a in (np.array([3.0, 1, 2, 2, np.inf, np.inf, 0]), np.random.default_rng(0).integers(0, 5, 50).astype(float)):
        np.testing.assert_allclose(average_ranks(a), rankdata(a))


def test_the_plot_draws_what_a_point_by_point_drawing_draws():
    import math
    import random

    from kt_tui.ui.plot import Canvas, render_plot

    def naive(times, width, height):  # every point and the best so far, one at a time
        ok = [t for t in times if t]
        lo, hi = math.log(min(ok)), math.log(max(ok))
        span, cw, n = (hi - lo) or 1.0, width - 10, len(times)
        canvas, best = Canvas(cw, height), None
        for i, t in enumerate(times):
            x = round(i * (cw * 2 - 1) / max(n - 1, 1))
            if t:
                canvas.dot(x, round((math.log(t) - lo) / span * (height * 4 - 1)), "point")
                best = t if best is None or t < best else best
            if best is not None:
                canvas.dot(x, round((math.log(best) - lo) / span * (height * 4 - 1)), "best")
        return canvas.cells, canvas.style

    rng = random.Random(3)
    for _ in range(50):
        times = [None if rng.random() < 0.1 else rng.uniform(0.01, 50) for _ in range(rng.randint(1, 3000))]
        w, h = rng.randint(15, 120), rng.randint(2, 10)
        cells, style = naive(times, w, h)
        got = render_plot(times, w, h, {"point": "cyan", "best": "yellow"})
        want = "\n".join("".join(chr(0x2800 + c) for c in row) for row in cells)
        assert [line[10:] for line in got.plain.split("\n")[:h]] == want.split("\n")


def test_random_inputs_made_on_threads_are_the_ones_made_one_by_one():
    import numpy as np

    from kt_tui.kernel import inputs
    from kt_tui.kernel.spec import parse_spec

    spec = parse_spec("""kernel = "k"
problem_size = ["n"]
[sizes]
n = 100000
[tune_params]
block_size_x = [32]
[[args]]
name = "out"
type = "float32"
size = "n"
init = "poison"
output = true
[[args]]
name = "a"
type = "float32"
size = "n"
seed = 3
[[args]]
name = "b"
type = "float64"
size = "n"
init = "normal"
seed = 4
[[args]]
name = "c"
type = "int32"
size = "n"
init = "uniform"
low = -5
high = 9
seed = 5
[[args]]
name = "d"
type = "float64"
size = "n"
init = "copy"
copy_of = "b"
[[args]]
name = "n"
type = "int32"
value = "n"
""")
    together = inputs.make_args(spec)
    done: dict = {}
    one_by_one = [None] * len(spec.args)
    for i in sorted(range(len(spec.args)), key=lambda i: spec.args[i].init == "copy"):
        one_by_one[i] = done[spec.args[i].name] = inputs.make_arg(spec.args[i], dict(spec.sizes), spec, done)
    for x, y in zip(together, one_by_one):
        assert np.asarray(x).dtype == np.asarray(y).dtype
        np.testing.assert_array_equal(x, y)
    assert together[4] is not together[2] and np.array_equal(together[4], together[2])


def test_a_tuning_run_starts_without_loading_our_searchs_model():
    """scipy (0.7 s) loads with the kt search's model, when a run asks for that search."""
    import subprocess

    code = (
        "import sys\nfrom kt_tui.gpu import tunerun\nfrom kt_tui.gpu.device import session, outputs, main\n"
        "print(sorted(m for m in ('scipy', 'kt_tui.search.kt_search', 'kt_tui.search.model') if m in sys.modules))\n"
        "tunerun.search_module('kt')\nprint('kt_tui.search.kt_search' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.stdout.split("\n")[:2] == ["[]", "True"], out.stderr
