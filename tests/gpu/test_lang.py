"""kernel_tuner prepares a kernel as CUDA (constexpr loop_unroll_factor_*, template wrapping) only
under lang "CUDA"; kt-tui passes "CUDA" and pins kernel_tuner's CUDA pick to the session's backend."""

import kernel_tuner.core as core
import pytest
from kernel_tuner import util
from kernel_tuner.backends.nvcuda import CudaFunctions
from kernel_tuner.backends.pycuda import PyCudaFunctions

from kt_tui.gpu.device.lang import cuda_lang
from kt_tui.gpu.protocol import TuneJob
from kt_tui.kernel.spec import parse_spec

SOURCE = """__global__ void k(float *x, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    float s = 0.0f;
#pragma unroll loop_unroll_factor_j
    for (int j = 0; j < 8; j++) s += j;
    if (i < n) x[i] = s;
}
"""
SPEC = """kernel = "k"
problem_size = ["n"]
[sizes]
n = 1024
[tune_params]
block_size_x = [32, 64]
loop_unroll_factor_j = [0, 2]
[[args]]
name = "x"
type = "float32"
size = "n"
init = "poison"
output = true
[[args]]
name = "n"
type = "int32"
value = "n"
"""


def test_kernel_tuner_under_a_backend_name_loses_the_unroll_constant():
    """Why the pin exists: the same parameter is a constexpr under "CUDA" and a #define otherwise."""
    params = {"block_size_x": 32, "loop_unroll_factor_j": 2}
    as_cuda = util.prepare_kernel_string(
        "k", SOURCE, params, (32, 1, 1), (32, 1, 1), ("block_size_x", "block_size_y", "block_size_z"), "CUDA", None
    )
    as_pycuda = util.prepare_kernel_string(
        "k", SOURCE, params, (32, 1, 1), (32, 1, 1), ("block_size_x", "block_size_y", "block_size_z"), "PYCUDA", None
    )
    assert "constexpr int loop_unroll_factor_j = 2;" in as_cuda[1]
    assert "constexpr" not in as_pycuda[1]


@pytest.mark.parametrize("backend, expected", [("pycuda", PyCudaFunctions), ("nvcuda", CudaFunctions)])
def test_cuda_lang_pins_kernel_tuners_pick_and_restores_it(backend, expected):
    before = core._select_default_cuda_backend
    with cuda_lang(backend) as lang:
        assert lang == "CUDA" and core._select_default_cuda_backend() is expected
    assert core._select_default_cuda_backend is before


def test_a_gpu_tuning_run_passes_lang_cuda_with_the_sessions_backend(monkeypatch):
    from ..helpers import open_load

    spec = parse_spec(SPEC, None, "k.cu.toml")
    job = TuneJob(
        run_id="r",
        source=SOURCE,
        spec=spec.to_dict(),
        backend="pycuda",
        cachefile=None,
        configs=None,
        search="brute_force",
    )
    made = open_load(job, monkeypatch).dev  # the worker's DeviceInterface, as kernel_tuner made it
    seen = {"lang": made.kernel_source.lang, "backend": made.backend}
    assert seen == {"lang": "CUDA", "backend": PyCudaFunctions}


def test_kernel_tuner_is_told_there_is_no_cupy_except_on_cupy(monkeypatch):
    import sys
    import types

    import kernel_tuner.core as core
    import kernel_tuner.util as util
    import numpy as np

    from kt_tui.gpu.device.lang import numpy_arguments

    fake = types.ModuleType("cupy")
    fake.ndarray = type("ndarray", (), {})
    monkeypatch.setitem(sys.modules, "cupy", fake)
    assert util._get_cupy() is fake
    for backend in ("pycuda", "nvcuda", "sim"):
        with numpy_arguments(backend):
            assert util._get_cupy() is None and core._get_cupy() is None
            assert util.check_argument_list("k", "__global__ void k(float *a) {}", [np.zeros(4, np.float32)]) is None
        assert util._get_cupy() is fake and core._get_cupy() is fake
    with numpy_arguments("cupy"):
        assert util._get_cupy() is fake
