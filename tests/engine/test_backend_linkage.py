"""A kernel that includes one of CUDA's C++ headers never runs on pycuda's extern "C" wrap: auto tries
pycuda last, and asking for pycuda is refused in one line (the compile errors of every configuration
otherwise)."""

import pytest

from kt_tui.cli import main
from kt_tui.engine.backend import BackendError, choose_backend, cxx_code, cxx_include, probe_order

HALF = """#include <cuda_fp16.h>
__global__ void scale(__half *y, const __half *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hmul(x[i], __float2half(2.0f));
}
"""


def test_which_includes_the_wrap_may_break():
    assert cxx_include(HALF) == ("cuda_fp16.h", True)
    assert cxx_include('#include "my_helpers.cuh"\n__global__ void k() {}') == ("my_helpers.cuh", False)
    assert cxx_include("#include <stdint.h>\n#include <math.h>\n__global__ void k() {}") is None
    assert cxx_include('#include <cuda_fp16.h>\nextern "C" __global__ void k() {}') is None  # not wrapped
    assert cxx_include("__global__ void k() {}") is None
    assert cxx_include("/*\n#include <cuda_fp16.h>\n*/\n__global__ void k() {}") is None  # commented out
    assert cxx_include("#include <curand_kernel.h>\n__global__ void k() {}") == ("curand_kernel.h", True)


def test_auto_probes_pycuda_last_for_such_a_kernel():
    asked = []

    def probe(backends):
        asked.append(tuple(backends))
        return {"backend": backends[0], "gpu": "NVIDIA H100", "errors": {}}

    assert choose_backend("auto", probe, "scale", "v", [], HALF).backend == "nvcuda"
    assert asked[-1] == ("nvcuda", "cupy", "pycuda")
    assert choose_backend("auto", probe, "scale", "v", [], "__global__ void scale() {}").backend == "pycuda"
    assert probe_order("cupy", HALF) == ("cupy",)
    assert probe_order("pycuda", '#include "mine.h"\n') == ("pycuda",)  # a header of the user's: their call


def test_pycuda_asked_for_is_refused_in_one_line(capsys, hermetic):
    with pytest.raises(BackendError, match=r'extern "C", where <cuda_fp16.h> cannot be included'):
        probe_order("pycuda", HALF)
    kernel = hermetic / "scale.cu"
    kernel.write_text(HALF)
    spec = hermetic / "scale.cu.toml"
    spec.write_text(
        'kernel = "scale"\nproblem_size = ["n"]\n[sizes]\nn = 4096\n[tune_params]\nblock_size_x = [64, 128]\n'
        '[[args]]\nname = "y"\ntype = "float16"\nsize = "n"\noutput = true\n'
        '[[args]]\nname = "x"\ntype = "float16"\nsize = "n"\n'
        '[[args]]\nname = "n"\ntype = "int32"\nvalue = "n"\n'
    )
    code = main(["run", str(kernel), "--auto", "--json", "--backend", "pycuda"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "--backend nvcuda or cupy" in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if line.strip()]) == 1


OVERLOADED = """
__device__ void put(unsigned char *p, float v) { *p = (unsigned char)v; }
__device__ void put(float *p, float v) { *p = v; }
__global__ void k(const float *in, float *out, int n) { int i = threadIdx.x; if (i < n) put(out + i, in[i]); }
"""
HELPER_TEMPLATE = """
template <typename T> __device__ T twice(T v) { return v + v; }
__global__ void k(const float *in, float *out, int n) { int i = threadIdx.x; if (i < n) out[i] = twice(in[i]); }
"""


def test_code_that_pycudas_extern_c_wrap_breaks_puts_pycuda_last_and_is_refused_when_asked_for():
    assert cxx_code(OVERLOADED, "k") == "overloaded function put"
    assert cxx_code(HELPER_TEMPLATE, "k") == "a template"
    assert cxx_code(OVERLOADED, "k<float>") is None  # kernel_tuner writes the extern "C" for an instance
    assert cxx_code('extern "C" ' + OVERLOADED.strip(), "k") is None
    assert (
        cxx_code("__device__ float f(float v) { return v; }\n__global__ void k(float *o) { o[0] = f(1); }", "k") is None
    )
    assert probe_order("auto", OVERLOADED, "k")[-1] == "pycuda"
    with pytest.raises(BackendError, match="the kernel file's overloaded function put cannot be"):
        probe_order("pycuda", OVERLOADED, "k")
    assert probe_order("pycuda", "__global__ void k(float *o) { o[0] = 1; }", "k") == ("pycuda",)
