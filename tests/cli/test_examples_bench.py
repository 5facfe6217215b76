"""benchmarks/examples.py without a GPU: the dry run, and the kernel_tuner recorder's cap."""

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kt_tui.gpu.compile import find_nvcc

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("examples_bench", ROOT / "benchmarks" / "examples.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


@pytest.mark.skipif(find_nvcc() is None, reason="nvcc not found")
def test_dry_run_imports_and_checks_every_kernel(tmp_path, capsys):
    assert bench.main(["vector_add", "reduction", "--dry-run", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "examples-pycuda-dry.txt").read_text()
    for kernel in ("vector_add: vector_add.cu", "reduction: sum_floats.cu", "reduction: sum_floats_2.cu"):
        assert f"| {kernel} |" in text
    assert text.count("dry run: spec ok") == 3 and "capped at the first 25 configurations" in text


def test_bad_arguments_exit_2(tmp_path, capsys):
    assert bench.main(["nope", "--dry-run", "--out", str(tmp_path)]) == 2
    assert "no example 'nope'" in capsys.readouterr().err
    assert bench.main(["--timeout", "0", "--out", str(tmp_path)]) == 2


FAKE_KT = """
class Space:
    def sorted_list(self):
        return [(i,) for i in range(100)]

class Runner:
    def run(self, configs, opts):
        return [{"x": c[0], "time": 1.0 + c[0]} for c in configs]

def tune_kernel(name, *args, strategy=None, **kw):
    from kernel_tuner import core
    # lang "CUDA" as the script says, on the backend kt-tui measures with
    assert kw.get("lang") == "CUDA" and core._select_default_cuda_backend().__name__ == "PyCudaFunctions", kw
    return strategy.tune(Space(), Runner(), {}), {}
"""

FAKE_CORE = """
def _select_default_cuda_backend():
    raise AssertionError("kernel_tuner's own pick: the recorder must pin the backend")
"""


def test_the_recorder_caps_each_call_and_stops_after_the_imported_ones(tmp_path):
    pkg = tmp_path / "lib" / "kernel_tuner"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .interface import tune_kernel\n")
    (pkg / "interface.py").write_text(FAKE_KT)
    (pkg / "util.py").write_text("")
    (pkg / "searchspace.py").write_text("")
    (pkg / "core.py").write_text(FAKE_CORE)
    (pkg / "backends").mkdir()
    (pkg / "backends" / "__init__.py").write_text("")
    (pkg / "backends" / "pycuda.py").write_text("class PyCudaFunctions:\n    pass\n")
    script = tmp_path / "tune.py"
    script.write_text(
        textwrap.dedent("""
        from kernel_tuner import tune_kernel
        for k in range(5):
            tune_kernel("k", "src", 10, [], {"x": list(range(100))})
        open("reached_the_end", "w").write("")
    """)
    )
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path / "lib"), str(bench.ROOT)]), "PATH": "/usr/bin:/bin"}
    out = tmp_path / "calls.json"
    subprocess.run(
        [sys.executable, "-c", bench.RECORDER, "tune.py", str(out), "7", "2", "pycuda"],
        cwd=tmp_path,
        env=env,
        check=True,
        timeout=60,
    )
    calls = json.loads(out.read_text())
    assert [(c["configs"], c["best_ms"]) for c in calls] == [(7, 1.0), (7, 1.0)]
    assert not (tmp_path / "reached_the_end").exists()
