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


ACT = "__global__ void k(float *a, int n) { int i = threadIdx.x; if (i < n) a[i] = act(a[i]); }\n"


def test_one_function_defined_apart_under_preprocessor_branches_is_no_overload():
    branches = "#ifdef FAST\n__device__ float act(float x) { return __expf(x); }\n#else\n"
    branches += "__device__ float act(float x) { return expf(x); }\n#endif\n"
    assert cxx_code(branches + ACT, "k") is None  # before: "overloaded function act", pycuda refused
    dead = "#if 0\n__device__ float act(double x) { return 1; }\n#endif\n__device__ float act(float x) { return x; }\n"
    assert cxx_code(dead + ACT, "k") is None
    quoted = 'const char *doc = "__device__ float act(double x) {";\n__device__ float act(float x) { return x; }\n'
    assert cxx_code(quoted + ACT, "k") is None
    assert probe_order("pycuda", branches + ACT, "k") == ("pycuda",)


def test_members_of_structs_take_no_c_linkage_and_are_no_overloads():
    members = "struct A { __device__ float get() const { return 1; } };\n"
    members += "struct B { __device__ float get() const { return 2; } };\n"
    ctors = "struct V { float x; __device__ V() : x(0) {} __device__ V(float y) : x(y) {} };\n"
    outside = "struct W { float x; __device__ W(); __device__ W(float y); };\n"
    outside += "__device__ W::W() : x(0) {}\n__device__ W::W(float y) : x(y) {}\n"
    for code in (members, ctors, outside):
        assert cxx_code(code + "__device__ float act(float x) { return x; }\n" + ACT, "k") is None
    spaced = "namespace a { __device__ float f(float x) { return x; } }\n"
    spaced += "namespace b { __device__ float f(double x) { return -x; } }\n"
    assert cxx_code(spaced + ACT, "k") == "overloaded function f"  # one C name, two functions


def test_overloaded_operators_are_overloads():
    ops = "__device__ float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }\n"
    ops += "__device__ float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }\n"
    assert cxx_code(ops + ACT, "k") == "overloaded function operator+"  # before: None, pycuda probed first
    with pytest.raises(BackendError, match="overloaded function operator"):
        probe_order("pycuda", ops + ACT, "k")


def test_auto_keeps_pycuda_first_for_the_c_headers_cplusplus_names():
    """<cfloat>, <cstdint>, <cmath> ... build inside pycuda's extern "C" wrap as <float.h> ... do
    (nvcc 13.0 on GCC 12's headers), and NVRTC (nvcuda, cupy) opens none of the host's headers: a
    kernel that includes one (argmax_rows_warp's <cfloat>) is probed on pycuda first."""
    source = "#include <cfloat>\n#include <cstdint>\n__global__ void k(float *o) { o[0] = FLT_MAX; }\n"
    assert cxx_include(source) is None
    assert probe_order("auto", source, "k")[0] == "pycuda"
    assert cxx_include("#include <cmath>\n#include <cuda_fp16.h>\n__global__ void k() {}") == ("cuda_fp16.h", True)
    assert cxx_include("#include <complex>\n__global__ void k() {}") == ("complex", True)  # declares C++ templates
