"""A script that passes a CUDA vector by value (`float2 c`) as numpy passes one, a scalar of its bytes (a
struct, a complex64, a uint64 packing the lanes), imports as a vector scalar of its lanes (kernel/vectors.py)."""

import textwrap

import pytest

from kt_tui.cli import main
from kt_tui.importer.run import import_script

from .test_import import _spec

AFFINE = """__global__ void affine(float2 c, const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = c.x * in[i] + c.y;
}
"""
PASSED = {
    "a struct": 'c = np.zeros((), [("x", "<f4"), ("y", "<f4")])[()]\nc["x"], c["y"] = 1.5, -0.25',
    "a complex64": "c = np.complex64(1.5 - 0.25j)",
    "a uint64 of its bytes": "c = np.frombuffer(np.array([1.5, -0.25], np.float32).tobytes(), np.uint64)[0]",
}


def _script(tmp_path, c: str, kernel: str = AFFINE):
    (tmp_path / "affine.cu").write_text(kernel)
    body = """
    import numpy as np
    from kernel_tuner import tune_kernel
    n = np.int32(1000)
    inp = np.arange(n, dtype=np.float32)
    out = np.zeros_like(inp)
    {c}
    tune_kernel("affine", "affine.cu", n, [c, inp, out, n], {"block_size_x": [64, 128]})
    """
    path = tmp_path / "tune.py"
    path.write_text(textwrap.dedent(body).replace("{c}", c))
    return path


@pytest.mark.parametrize("how", list(PASSED))
def test_a_float2_passed_by_value_imports_with_its_lanes(tmp_path, how):
    done, problems, _ = import_script(_script(tmp_path, PASSED[how]), tmp_path / "out")
    assert problems == [] and len(done) == 1, problems  # before: refused (a complex64: the import's child failed)
    c = _spec(done[0]).args[0]
    assert (c.type, c.value) == ("float2", (1.5, -0.25))


def test_a_complex_for_a_float_parameter_is_refused_by_name(tmp_path, capsys):
    kernel = AFFINE.replace("float2 c", "float c").replace("c.x * in[i] + c.y", "c * in[i]")
    assert main(["import", str(_script(tmp_path, PASSED["a complex64"], kernel))]) == 2
    err = capsys.readouterr().err
    assert "argument 0 (c): numpy type complex64 is not supported" in err and "Traceback" not in err, err


BF16 = """#include <cuda_bf16.h>
__global__ void affine(__nv_bfloat162 c, const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __bfloat162float(c.x) * in[i] + __bfloat162float(c.y);
}
"""


def test_a_bfloat162_passed_as_its_bits_imports_with_its_lanes(tmp_path):
    # the upper halves of 1.5 and -0.25 as float32: their bfloat16 bits, x first, in one uint32
    c = "c = np.frombuffer(np.array([1.5, -0.25], np.float32).view(np.uint16)[1::2].tobytes(), np.uint32)[0]"
    done, problems, _ = import_script(_script(tmp_path, c, BF16), tmp_path / "out")
    assert problems == [] and len(done) == 1, problems
    arg = _spec(done[0]).args[0]
    assert (arg.type, arg.value) == ("bfloat162", (1.5, -0.25))  # before: a uint32 of the word
