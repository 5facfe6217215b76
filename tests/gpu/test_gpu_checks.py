"""Issue 21 on a real GPU: a check that can fail. An out-of-bounds spec is refused naming the
argument, an escape-time kernel whose reference is constant is vacuous, a tuned parameter that
changes the outputs is refused, and a correct kernel is tested and verified. Skipped without a GPU
(and the sanitizer parts without compute-sanitizer)."""

import pytest

from kt_tui.cli import main
from kt_tui.gpu.sanitize import find_sanitizer

from ..conftest import EXAMPLES
from ..helpers import report, run_cli

pytestmark = pytest.mark.gpu

PARTICLES = """__global__ void norms(double *dist, const float *pos, int n) {
    int p = blockIdx.x * block_size_x + threadIdx.x;
    if (p < n) {
        float s = 0.0f;
        for (int d = 0; d < 3; d++) { s += pos[p * 3 + d] * pos[p * 3 + d]; }
        dist[p] = sqrt((double)s);
    }
}
"""
# pos holds n floats where the kernel reads 3 n: out of bounds at every size
PARTICLES_SPEC = """kernel = "norms"
problem_size = ["n"]
grid_div_x = ["block_size_x"]
[sizes]
n = 100000
[tune_params]
block_size_x = [128, 256]
[[args]]
name = "dist"
type = "float64"
size = "n"
init = "poison"
output = true
[[args]]
name = "pos"
type = "float32"
size = "n"
init = "random"
[[args]]
name = "n"
type = "int32"
value = "n"
"""

ESCAPE = """__global__ void escape(int *iters, const float *cx, const float *cy, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) {
        float x = 0.0f, y = 0.0f;
        int k = 0;
        while (k < MAX_ITER && x * x + y * y < 4.0f) {
            float t = x * x - y * y + cx[i];
            y = 2.0f * x * y + cy[i];
            x = t;
            k++;
        }
        iters[i] = k;
    }
}
"""
# placeholder coordinates far outside the set: every point stops at iteration 1
ESCAPE_SPEC = """kernel = "escape"
problem_size = ["n"]
grid_div_x = ["block_size_x"]
[sizes]
n = 65536
[tune_params]
block_size_x = [128, 256]
MAX_ITER = [64]
[[args]]
name = "iters"
type = "int32"
size = "n"
init = "zeros"
output = true
[[args]]
name = "cx"
type = "float32"
size = "n"
init = "constant"
value = 10.0
[[args]]
name = "cy"
type = "float32"
size = "n"
init = "constant"
value = 10.0
[[args]]
name = "n"
type = "int32"
value = "n"
"""


def _write(tmp_path, name, source, spec):
    (tmp_path / f"{name}.cu").write_text(source)
    (tmp_path / f"{name}.cu.toml").write_text(spec)
    return tmp_path / f"{name}.cu"


def test_an_out_of_bounds_spec_is_refused_naming_the_argument(tmp_path, capsys, hermetic):
    if find_sanitizer() is None:
        pytest.skip("compute-sanitizer not found")
    kernel = _write(tmp_path, "particles", PARTICLES, PARTICLES_SPEC)
    assert main(["spec", str(kernel), "--check", "--backend", "pycuda"]) == 2
    err = capsys.readouterr().err
    assert "out of bounds" in err and "`pos`[" in err, err
    report(f"spec --check particles (pos sized n, read 3n): {err.strip().splitlines()[0][:300]}")
    code, out = run_cli(capsys, "run", kernel, "--auto", "--json", "--backend", "pycuda")
    assert code == 2 and out["check"]["state"] == "unsafe" and "`pos`[" in out["error"]
    assert out["best"] is None  # what was timed beside the test (the check runs beside the first results) is no best


def test_an_escape_time_kernel_with_a_constant_reference_is_vacuous(tmp_path, capsys, hermetic):
    kernel = _write(tmp_path, "escape", ESCAPE, ESCAPE_SPEC)
    assert main(["spec", str(kernel), "--check", "--backend", "pycuda"]) == 2
    err = capsys.readouterr().err
    assert "VACUOUS CHECK" in err and "`iters` is 1 everywhere" in err, err
    code, out = run_cli(capsys, "run", kernel, "--auto", "--json", "--backend", "pycuda")
    assert out["check"]["state"] == "vacuous" and "`iters` is 1 everywhere" in out["check"]["why"]
    assert out["best"]["verified"].startswith("unchecked: the check proves nothing because")
    assert "VACUOUS CHECK" in (out["unverified"] or "")
    report(f"escape (constant coordinates): {out['check']['why'][:200]}; best {out['best']['verified'][:80]}")


def test_a_tuned_parameter_that_changes_the_outputs_is_refused(tmp_path, capsys, hermetic):
    spec = ESCAPE_SPEC.replace("MAX_ITER = [64]", "MAX_ITER = [64, 128]").replace(
        'init = "constant"\nvalue = 10.0', 'init = "uniform"\nlow = -2.0\nhigh = 1.0'
    )
    kernel = _write(tmp_path, "escape2", ESCAPE, spec)
    code, out = run_cli(capsys, "run", kernel, "--auto", "--json", "--backend", "pycuda")
    assert code == 2 and "MAX_ITER" in out["check"]["result_params"]
    assert "[reference] kernel" in out["error"]
    report(f"escape with MAX_ITER tuned: refused: {out['error'][:160]}")


def test_a_correct_kernel_is_tested_and_verified(capsys, hermetic):
    assert main(["spec", str(EXAMPLES / "vector_add.cu"), "--check", "--backend", "pycuda"]) == 0
    said = capsys.readouterr().out
    assert "check tested on pycuda" in said and "a do-nothing kernel fails it" in said, said
    code, out = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "pycuda")
    assert code == 0 and out["check"]["state"] == "ok" and out["check"]["changed"] == ["c"]
    assert out["best"]["verified"] in ("verified", "reference")
    report(f"vector_add: spec --check: {said.strip()[-160:]}; run: check ok, best {out['best']['verified']}")
