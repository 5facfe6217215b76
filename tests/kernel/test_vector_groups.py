"""A vector's other names and a template kernel's instantiations are read from the groups the compile
reads (kernel/conditions.py), with the spec's -D options: not from an `#if 0` or an `#ifdef` of a name
defined nowhere."""

import pytest

from kt_tui.engine.backend import probe_order
from kt_tui.kernel.draft import draft
from kt_tui.kernel.source import find_kernels
from kt_tui.kernel.vector_layout import nvcuda_unpassable, pycuda_misplaced

PRECISION = "#ifdef USE_DOUBLE\ntypedef double2 vec2;\n#else\ntypedef float2 vec2;\n#endif\n"
SCALE = """__global__ void scale(int n, vec2 c, float2 *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { out[i].x = c.x * i; out[i].y = c.y; }
}
"""


@pytest.mark.parametrize("options, wanted", [((), "float2"), (("-DUSE_DOUBLE",), "double2")])
def test_a_vectors_other_name_is_drafted_as_the_group_compiled_defines_it(options, wanted):
    src = PRECISION + SCALE
    (k,) = find_kernels(src)
    (c,) = [a for a in draft(k, src, 1 << 12, options=options).spec.args if a.name == "c"]
    assert c.type == wanted  # before: double2 either way, the first definition written


@pytest.mark.parametrize("options, unpassable", [((), None), (("-DUSE_DOUBLE",), "`vec2 c` of scale")])
def test_a_vectors_other_name_decides_the_backends_as_the_group_compiled_defines_it(options, unpassable):
    src = PRECISION + SCALE
    assert nvcuda_unpassable(src, options=options) == unpassable  # before: double2, nvcuda never probed
    assert ("nvcuda" in probe_order("auto", src, options=options)) == (unpassable is None)


TEMPLATED = """template <typename T>
__global__ void k(int n, T v, float *o) { if (n) o[0] = v.x; }
template __global__ void k<float2>(int, float2, float *);
"""


@pytest.mark.parametrize("skipped", ["#if 0\n{}#endif\n", "#ifdef WIDE\n{}#endif\n"])
def test_an_instantiation_in_a_group_not_compiled_does_not_count(skipped):
    wide = "template __global__ void k<float4>(int, float4, float *);\n"
    src = TEMPLATED + skipped.format(wide)
    assert nvcuda_unpassable(src) is None and pycuda_misplaced(src) is None  # before: k<float4>'s v
    if "WIDE" in skipped:
        assert nvcuda_unpassable(src, options=("-DWIDE",)) == "`float4 v` of k<float4>"


def test_a_name_an_included_header_may_define_leaves_the_group_as_written_first():
    src = '#include "precision.h"\n' + PRECISION + SCALE  # USE_DOUBLE may be defined there: not known here
    (k,) = find_kernels(src)
    (c,) = [a for a in draft(k, src, 1 << 12).spec.args if a.name == "c"]
    assert c.type == "double2" and nvcuda_unpassable(src) == "`vec2 c` of scale"


WIDTH = "#if VEC == 4\ntypedef float4 vec_t;\n#else\ntypedef float2 vec_t;\n#endif\n"
STORE = "__global__ void store(int n, vec_t c, float *out) { if (n) out[0] = c.x; }\n"


def test_a_tune_parameter_or_a_specs_define_in_a_condition_is_what_kernel_tuner_defines():
    from kt_tui.kernel.conditions import spec_names

    src = WIDTH + STORE
    tuned = spec_names(["VEC"], {})  # a value per configuration: VEC == 4 in some
    assert nvcuda_unpassable(src, names=tuned) == "`vec_t c` of store"  # before: VEC read as 0, float2
    assert "nvcuda" not in probe_order("auto", src, names=tuned)
    assert nvcuda_unpassable(src, names=spec_names([], {"VEC": 2})) is None
    assert nvcuda_unpassable(src, names=spec_names([], {"VEC": 4})) == "`vec_t c` of store"
    (k,) = find_kernels(src)
    (c,) = [a for a in draft(k, src, 1 << 12, names=spec_names([], {"VEC": 4})).spec.args if a.name == "c"]
    assert c.type == "float4"


PARTICLE = """#ifdef USE_FLOAT
struct Particle { float x, y, z, w; };
#else
struct Particle { double x, y, z, w; };
#endif
__global__ void k(Particle *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i].x *= 2.0;
}
"""


@pytest.mark.parametrize(
    "test, options, wanted",
    [("#ifdef USE_FLOAT", (), "float64"), ("#if 1", (), "float32"), ("#ifdef USE_FLOAT", ("-DUSE_FLOAT",), "float32")],
)
def test_a_struct_the_kernel_file_defines_under_a_condition_is_read_from_the_group_compiled(test, options, wanted):
    src = PARTICLE.replace("#ifdef USE_FLOAT", test)
    (k,) = find_kernels(src)
    (p,) = [a for a in draft(k, src, 1 << 12, options=options).spec.args if a.name == "p"]
    assert p.type == wanted  # before: float64 each time, the last definition written
