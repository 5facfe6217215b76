"""A CUDA vector type passed by value on a real GPU (kernel/vectors.py, kernel/inputs.py vector_value):
the kernel sees every lane, at the offset CUDA gives the parameter (after an int: a float2 is aligned
to 8), through `spec --check` and one run of kernel_tuner, on each backend installed. Skipped
without a GPU."""

import importlib.util

import numpy as np
import pytest

from kt_tui.cli import main
from kt_tui.gpu.device.outputs import run_arrays
from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.spec import parse_spec

from ..kernel.test_bf16_scalars import SCALE
from ..kernel.test_bf16_scalars import SPEC as BF16_SPEC

pytestmark = pytest.mark.gpu

# `int n` first: the float2 starts at byte 8, not 4, as a backend that packs the arguments must place it
AFFINE = """__global__ void affine(int n, float2 c, const float *in, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = c.x * in[i] + c.y;
}
"""
SPEC = """kernel = "affine"
problem_size = ["n"]
[sizes]
n = 10000
[tune_params]
block_size_x = [64, 128]
[[args]]
name = "n"
type = "int32"
value = "n"
[[args]]
name = "c"
type = "float2"
value = [1.5, -0.25]
[[args]]
name = "in"
type = "float32"
size = "n"
[[args]]
name = "out"
type = "float32"
size = "n"
init = "poison"
output = true
"""
# four lanes, 16 bytes aligned to 16: passed as a structured numpy scalar
AFFINE4 = AFFINE.replace("float2 c", "float4 c").replace("c.x * in[i] + c.y", "c.x * in[i] + c.y - c.z * c.w")
SPEC4 = SPEC.replace('type = "float2"\nvalue = [1.5, -0.25]', 'type = "float4"\nvalue = [1.5, -0.25, 2.0, 0.5]')
MODULES = {"pycuda": "pycuda", "cupy": "cupy", "nvcuda": "cuda"}


def _backend(name):
    if importlib.util.find_spec(MODULES[name]) is None:
        pytest.skip(f"{name} is not installed")
    return name


@pytest.mark.parametrize("backend", ["pycuda", "cupy", "nvcuda"])
def test_a_float2_by_value_reaches_the_kernel_with_both_lanes(backend):
    backend = _backend(backend)
    spec = parse_spec(SPEC)
    args = make_args(spec)
    inp = args[2].copy()
    out = run_arrays(spec, AFFINE, spec.baseline_params(), None, backend, args)
    np.testing.assert_allclose(out["out"], 1.5 * inp - 0.25, rtol=1e-6, atol=1e-6)


# pycuda packs a struct of more than 8 bytes unaligned (kernel/vector_layout.py): there the float4 comes first
FLOAT4_FIRST = (
    AFFINE4.replace("int n, float4 c", "float4 c, int n"),
    SPEC4.replace(
        'name = "n"\ntype = "int32"\nvalue = "n"\n[[args]]\nname = "c"\ntype = "float4"\nvalue = [1.5, -0.25, 2.0, 0.5]',
        'name = "c"\ntype = "float4"\nvalue = [1.5, -0.25, 2.0, 0.5]\n[[args]]\nname = "n"\ntype = "int32"\nvalue = "n"',
    ),
)


@pytest.mark.parametrize("backend", ["pycuda", "cupy"])  # nvcuda: refused (tests/kernel/test_vector_scalars.py)
def test_a_float4_by_value_reaches_the_kernel_with_all_four_lanes(backend):
    backend = _backend(backend)
    source, text = FLOAT4_FIRST if backend == "pycuda" else (AFFINE4, SPEC4)  # cupy: a complex128 of its bytes
    spec = parse_spec(text)
    args = make_args(spec)
    inp = next(v for a, v in zip(spec.args, args) if a.name == "in").copy()
    out = run_arrays(spec, source, spec.baseline_params(), None, backend, args)
    np.testing.assert_allclose(out["out"], 1.5 * inp - 0.25 - 2.0 * 0.5, rtol=1e-6, atol=1e-6)


def test_spec_check_tests_a_kernel_taking_a_float2_by_value(tmp_path, capsys, hermetic):
    kernel = tmp_path / "affine.cu"
    kernel.write_text(AFFINE)
    (tmp_path / "affine.cu.toml").write_text(SPEC)
    assert main(["spec", str(kernel), "--check"]) == 0, capsys.readouterr().err
    said = capsys.readouterr().out
    assert "spec ok" in said and "check tested on" in said and "a do-nothing kernel fails it" in said, said
    assert "VACUOUS" not in said and "NOT MEASURED" not in said, said


WIDE = """__global__ void wide(VEC c, int n, const float *in, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (float)c.x * in[i] + (float)c.y - (float)c.z LAST;
}
"""


# sizes no numpy scalar has (3, 12, 24, 32 bytes): passed as the structured scalar itself (not on nvcuda:
# cuda-python takes no struct, and kt-tui never picks it for such a kernel: tests/kernel/test_vector_scalars.py)
@pytest.mark.parametrize("backend", ["pycuda", "cupy"])
@pytest.mark.parametrize(
    ("vec", "lanes"), [("char3", [3, -2, 1]), ("float3", [1.5, -0.25, 2.0]), ("double3", [1.5, -0.25, 2.0]),
                       ("double4", [1.5, -0.25, 2.0, 0.5]), ("longlong4", [3, -2, 1, 5])],
)  # fmt: skip
def test_a_three_lane_or_32_byte_vector_by_value_reaches_the_kernel(backend, vec, lanes):
    backend = _backend(backend)
    last = " * (float)c.w" if len(lanes) == 4 else ""
    source = WIDE.replace("VEC", vec).replace(" LAST", last)
    text = FLOAT4_FIRST[1].replace('type = "float4"', f'type = "{vec}"').replace("[1.5, -0.25, 2.0, 0.5]", str(lanes))
    spec = parse_spec(text.replace('kernel = "affine"', 'kernel = "wide"'))
    args = make_args(spec)
    inp = next(v for a, v in zip(spec.args, args) if a.name == "in").copy()
    out = run_arrays(spec, source, spec.baseline_params(), None, backend, args)
    want = lanes[0] * inp + lanes[1] - lanes[2] * (lanes[3] if len(lanes) == 4 else 1)
    np.testing.assert_allclose(out["out"], want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("backend", ["pycuda", "cupy", "nvcuda"])
def test_bf16_scalars_by_value_reach_the_kernel_as_their_bfloat16_bits(backend):
    backend = _backend(backend)
    spec = parse_spec(BF16_SPEC)
    args = make_args(spec)
    inp = next(v for a, v in zip(spec.args, args) if a.name == "in").copy()
    # pycuda wraps a kernel in extern "C", where cuda_bf16.h's C++ breaks, unless the kernel says extern "C"
    source = SCALE.replace("__global__", 'extern "C" __global__') if backend == "pycuda" else SCALE
    out = run_arrays(spec, source, spec.baseline_params(), None, backend, args)
    np.testing.assert_allclose(out["out"], 1.5 * inp - 0.25 - 0.5, rtol=1e-6, atol=1e-6)  # all exact in bf16


def test_spec_check_tests_a_kernel_taking_bf16_scalars_by_value(tmp_path, capsys, hermetic):
    kernel = tmp_path / "scale.cu"
    kernel.write_text(SCALE)
    (tmp_path / "scale.cu.toml").write_text(BF16_SPEC)
    assert main(["spec", str(kernel), "--check"]) == 0, capsys.readouterr().err
    said = capsys.readouterr().out
    assert "spec ok" in said and "check tested on" in said and "a do-nothing kernel fails it" in said, said


COMPLEX_BY_VALUE = """#include <cuComplex.h>
__global__ void cplx(int n, cuDoubleComplex c, const double *in, double *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = cuCreal(c) * in[i] + cuCimag(c);
}
"""


def test_spec_check_passes_a_cudoublecomplex_by_value_on_the_backend_auto_picks(tmp_path, capsys, hermetic):
    # 16 bytes after an int: auto never picks nvcuda (no struct) nor pycuda (misplaced) for it
    kernel = tmp_path / "cplx.cu"
    kernel.write_text(COMPLEX_BY_VALUE)
    text = SPEC.replace('kernel = "affine"', 'kernel = "cplx"').replace('type = "float2"', 'type = "double2"')
    (tmp_path / "cplx.cu.toml").write_text(text.replace('type = "float32"', 'type = "float64"'))
    assert main(["spec", str(kernel), "--check"]) == 0, capsys.readouterr()
    assert "spec ok" in capsys.readouterr().out
