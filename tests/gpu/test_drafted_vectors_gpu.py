"""Drafts of vectors under other names on a real GPU (rev18): a float4 by value under a typedef (and a
float2 or double2 one under #ifdef, as the spec's -D decides), a
template kernel instantiated with a float4 after an int (auto must pick neither nvcuda, which cannot
pass it, nor pycuda, which would misplace it), and an array of dim3 drafted as uint3. Each is drafted by
`kt-tui spec` and checked by `spec --check` on this machine's GPU; the dim3 lanes are also read back.
Skipped without a GPU."""

import numpy as np
import pytest

from kt_tui.cli import main
from kt_tui.gpu.device.outputs import run_arrays
from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.spec import parse_spec

from .test_vector_scalars_gpu import _backend

pytestmark = pytest.mark.gpu

ALIASED = """typedef float4 vec4;
__global__ void aliased(int n, vec4 c, const float *in, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = c.x * in[i] + c.y - c.z * c.w;
}
"""
TEMPLATED = """template <typename T>
__global__ void templated(int n, T c, const float *in, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = c.x * in[i] + c.y - c.z * c.w;
}
template __global__ void templated<float4>(int, float4, const float *, float *);
"""
SHAPES = """__global__ void shapes(const dim3 *at, const float *in, float *out, int n, int m) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { dim3 a = at[i]; out[i] = in[a.x] + 2.0f * in[a.y] - in[a.z]; }
}
"""


@pytest.mark.parametrize("name, source", [("aliased", ALIASED), ("templated", TEMPLATED), ("shapes", SHAPES)])
def test_the_drafted_spec_passes_its_check_on_the_backend_auto_picks(tmp_path, capsys, hermetic, name, source):
    kernel = tmp_path / f"{name}.cu"
    kernel.write_text(source)
    assert main(["spec", str(kernel)]) == 0
    capsys.readouterr()
    assert main(["spec", str(kernel), "--check"]) == 0, capsys.readouterr()
    said = capsys.readouterr().out
    assert "spec ok" in said and "a do-nothing kernel fails it" in said and "VACUOUS" not in said, said


@pytest.mark.parametrize("backend", ["pycuda", "cupy", "nvcuda"])
def test_a_dim3_array_drafted_as_uint3_reaches_the_kernel_lane_by_lane(tmp_path, hermetic, backend):
    backend = _backend(backend)
    kernel = tmp_path / "shapes.cu"
    kernel.write_text(SHAPES)
    assert main(["spec", str(kernel)]) == 0
    spec = parse_spec((tmp_path / "shapes.cu.toml").read_text())
    args = make_args(spec)
    named = {a.name: v for a, v in zip(spec.args, args, strict=True)}
    at, inp = named["at"].reshape(-1, 3).astype(np.int64), named["in"].copy()
    out = run_arrays(spec, SHAPES, spec.baseline_params(), None, backend, args)
    want = inp[at[:, 0]] + 2.0 * inp[at[:, 1]] - inp[at[:, 2]]
    np.testing.assert_allclose(out["out"], want, rtol=1e-6, atol=1e-6)


PRECISION = """#ifdef USE_DOUBLE
typedef double2 vec2;
#else
typedef float2 vec2;
#endif
__global__ void precision(int n, vec2 c, const float *in, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = c.x * in[i] + c.y;
}
"""


@pytest.mark.parametrize("defined", [False, True])
def test_a_vector_typedef_under_ifdef_is_drafted_and_passed_as_the_group_compiled(tmp_path, capsys, hermetic, defined):
    kernel = tmp_path / "precision.cu"
    kernel.write_text(PRECISION)
    if defined:  # the spec's -D is read by the draft of the spec already there, and by the backend choice
        (tmp_path / "precision.cu.toml").write_text('kernel = "precision"\ncompiler_options = ["-DUSE_DOUBLE"]\n')
        assert main(["spec", str(kernel), "--print"]) == 0
        drafted = capsys.readouterr().out
        (tmp_path / "precision.cu.toml").write_text(
            drafted.replace("restrictions = []", 'restrictions = []\ncompiler_options = ["-DUSE_DOUBLE"]')
        )
    else:
        assert main(["spec", str(kernel)]) == 0
    spec = (tmp_path / "precision.cu.toml").read_text()
    assert f'type = "{"double2" if defined else "float2"}"' in spec  # before: double2 either way
    capsys.readouterr()
    assert main(["spec", str(kernel), "--check"]) == 0, capsys.readouterr()
    said = capsys.readouterr().out
    assert "spec ok" in said and "VACUOUS" not in said, said
