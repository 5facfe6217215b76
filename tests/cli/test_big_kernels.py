"""benchmarks/big: the eight kernels the GPU overhead benchmark selects with `--kernels big`, their
specs' shape (configurations, array sizes), and checks their inputs make non-vacuous (the outputs
computed by numpy models of the kernels at the small check size)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kt_tui.gpu.compile import find_nvcc
from kt_tui.kernel.expr import evaluate
from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.spec import load_spec
from kt_tui.kernel.spec_model import default_verify_sizes
from kt_tui.kernel.strength import mutant_matches, weak_outputs

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from benchmarks.short import kernel_paths  # noqa: E402

BIG = ["conv3x3", "histogram", "particles", "saxpy", "softmax_rows", "stencil5", "transpose_tiled", "triad"]


def _spec(name: str):
    return load_spec(ROOT / "benchmarks" / "big" / f"{name}.cu.toml")


def test_big_or_its_folder_selects_all_eight():
    eight = [f"benchmarks/big/{n}.cu" for n in BIG]
    assert kernel_paths("big") == eight
    assert kernel_paths("benchmarks/big") == eight
    assert kernel_paths("saxpy,big") == ["benchmarks/big/saxpy.cu", *[k for k in eight if "saxpy" not in k]]
    assert kernel_paths("vector_add,triad") == ["examples/vector_add.cu", "benchmarks/big/triad.cu"]
    with pytest.raises(SystemExit, match="no kernel with a spec in the folder 'results'"):
        kernel_paths("results")


def test_specs_have_6_to_21_configurations_and_big_arrays_under_8_gb():
    big_ones = 0
    for name in BIG:
        spec = _spec(name)
        names = list(spec.tune_params)
        configs = sum(spec.allows(dict(zip(names, v))) for v in itertools.product(*spec.tune_params.values()))
        assert 6 <= configs <= 21, (name, configs)
        sizes = [
            int(evaluate(a.size, spec.sizes)) * a.lanes * np.dtype(a.dtype).itemsize for a in spec.args if a.is_array
        ]
        assert sum(sizes) < 8 << 30, name
        big_ones += max(sizes) >= 256 << 20
    assert big_ones >= 4


def _model(name: str, a: dict, s: dict) -> dict:
    """What the kernel computes, in numpy (outputs by name)."""
    if name == "saxpy":
        return {"out": a["a"] * a["x"] + a["y"]}
    if name == "triad":
        return {"a": a["b"] + a["scalar"] * a["c"]}
    if name in ("transpose_tiled", "stencil5", "conv3x3"):
        grid = a["in"].reshape(s["height"], s["width"])
        if name == "transpose_tiled":
            return {"out": grid.T.copy()}
        if name == "stencil5":
            p = np.pad(grid, 1, mode="edge")
            around = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:]
            return {"out": grid + a["alpha"] * (around - 4 * grid)}
        p, f = np.pad(grid, 1), a["filter"].reshape(3, 3)
        h, w = grid.shape
        return {"out": sum(p[i : i + h, j : j + w] * f[i, j] for i in range(3) for j in range(3))}
    if name == "particles":
        vel = a["vel"].reshape(-1, 3) * a["damping"]
        vel[:, 2] -= np.float32(9.81) * a["dt"] * a["damping"]
        return {"vel_out": vel, "pos_out": a["pos"].reshape(-1, 3) + vel * a["dt"]}
    if name == "softmax_rows":
        x = a["in"].reshape(s["rows"], s["cols"])
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return {"out": e / e.sum(axis=1, keepdims=True)}
    assert name == "histogram"
    return {"bins": np.bincount(a["data"] & 255, minlength=256).astype(np.uint32)}


@pytest.mark.parametrize("name", BIG)
def test_inputs_make_the_check_non_vacuous_at_every_check_size(name):
    spec = _spec(name)
    for small in spec.verify_sizes or default_verify_sizes(spec):
        sizes = {**spec.sizes, **small}
        before = {arg.name: v for arg, v in zip(spec.args, make_args(spec, sizes))}
        outputs = _model(name, before, sizes)
        assert {arg.name for arg in spec.args if arg.output} == set(outputs)
        tolerances = {arg.name: arg.tolerance() for arg in spec.args if arg.output}
        arrays = {k: v for k, v in before.items() if isinstance(v, np.ndarray)}
        assert weak_outputs(outputs, arrays, tolerances) == [], (name, small)
        assert mutant_matches(outputs, {k: arrays[k] for k in outputs}, tolerances) == [], (name, small)


@pytest.mark.skipif(find_nvcc() is None, reason="nvcc not found")
def test_every_spec_checks_and_its_kernel_compiles():
    for name in BIG:
        out = subprocess.run(
            [sys.executable, "-m", "kt_tui", "spec", f"benchmarks/big/{name}.cu", "--check"],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        assert out.returncode == 0 and "spec ok, compiles at" in out.stdout, (name, out.stdout, out.stderr)


def test_plain_kernel_tuner_side_dry_run_makes_the_spec_inputs():
    out = subprocess.run(
        [sys.executable, "benchmarks/plain_kt.py", "benchmarks/big/conv3x3.cu", "--dry-run"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    line = json.loads(out.stdout.strip().splitlines()[-1])
    spec = _spec("conv3x3")
    assert line["configs"] == 12 and line["problem_size"] == [4096, 4096] and line["outputs"] == ["out"]
    assert line["bytes"] == sum(x.nbytes for x in make_args(spec) if isinstance(x, np.ndarray))
