"""A CUDA vector type passed by value (`float2 c`, `int4 box`, `uchar4 color`, `double2 w`): the spec
gives it as `type = "float2"`, `value = [1.5, -0.25]`; the drafter drafts it with its lanes apart; the
argument kernel_tuner passes holds the CUDA struct's bytes (kernel/vectors.py, kernel/inputs.py).
tests/gpu/test_vector_scalars_gpu.py runs one through the check on a GPU."""

import json
import struct

import numpy as np
import pytest

from kt_tui.kernel.draft import draft
from kt_tui.kernel.inputs import make_args, vector_dtype, vector_value
from kt_tui.kernel.source import find_kernels
from kt_tui.kernel.spec import SpecError, check_spec, dump_spec, parse_spec, spec_from_plain
from kt_tui.kernel.vectors import vector_bytes, vector_scalar

AFFINE = """__global__ void affine(float2 c, const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = c.x * in[i] + c.y;
}
"""
BOXES = """__global__ void boxes(int4 box, uchar4 color, double2 w, uchar4 *img, double *acc, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height && x >= box.x && x < box.z && y >= box.y && y < box.w) {
        img[y * width + x] = color;
        acc[y * width + x] = w.x * x + w.y * y;
    }
}
"""
SPEC = """kernel = "affine"
problem_size = ["n"]
[sizes]
n = 1000
[tune_params]
block_size_x = [64, 128]
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
init = "zeros"
output = true
[[args]]
name = "n"
type = "int32"
value = "n"
"""


def _draft(src, name):
    (k,) = [k for k in find_kernels(src) if k.name == name]
    d = draft(k, src, n=1 << 12)
    check_spec(d.spec, k)
    assert parse_spec(dump_spec(d.spec), k).to_dict() == d.spec.to_dict()
    return d


def test_a_float2_by_value_is_drafted_as_a_float2_scalar_with_both_lanes_apart():
    d = _draft(AFFINE, "affine")
    c = d.spec.args[0]
    assert (c.name, c.type, c.size, c.dtype, c.lanes) == ("c", "float2", None, "float32", 2)
    assert isinstance(c.value, tuple) and len(set(c.value)) == 2 and 0 not in c.value
    assert 'type = "float2"' in d.text() and "value = [1.25, 0.625]" in d.text()
    assert any(k == "args.c" and "lanes apart" in why for k, why in d.guesses)
    value = make_args(d.spec)[0]
    assert np.asarray(value).tobytes() == struct.pack("<ff", *c.value)  # x then y, not one component


def test_int4_uchar4_and_double2_by_value_are_drafted_with_every_lane():
    spec = _draft(BOXES, "boxes").spec
    scalars = {a.name: (a.type, a.value) for a in spec.args if not a.is_array}
    assert scalars["box"][0] == "int4" and len(set(scalars["box"][1])) == 4
    assert scalars["color"][0] == "uchar4" and len(set(scalars["color"][1])) == 4
    assert scalars["w"][0] == "double2" and len(set(scalars["w"][1])) == 2
    box, color, w = make_args(spec)[:3]
    assert np.asarray(box).tobytes() == struct.pack("<4i", *scalars["box"][1])
    assert np.asarray(color).tobytes() == bytes(scalars["color"][1])
    assert np.asarray(w).tobytes() == struct.pack("<2d", *scalars["w"][1])


@pytest.mark.parametrize(
    ("name", "lanes", "layout", "size", "align"),
    [
        ("float2", [1.5, -0.25], "<ff", 8, 8),
        ("int2", [7, -3], "<ii", 8, 8),
        ("uchar4", [1, 2, 250, 4], "<4B", 4, 4),
        ("short2", [-2, 9], "<hh", 4, 4),
        ("float4", [1.0, 2.0, 3.0, -4.0], "<4f", 16, 16),
        ("double2", [0.5, -8.0], "<2d", 16, 16),
        ("int4", [1, 2, 3, 4], "<4i", 16, 16),
    ],
)
def test_the_argument_holds_the_cuda_structs_bytes_at_its_size_and_alignment(name, lanes, layout, size, align):
    assert vector_scalar(name)[2] == align and vector_bytes(name) == size
    value = vector_value(name, lanes)
    assert isinstance(value, np.generic) and value.dtype.itemsize == size  # a numpy scalar, as kernel_tuner wants
    assert np.asarray(value).tobytes() == struct.pack(layout, *lanes)
    if size <= 8:  # an unsigned word of the struct's size: aligned as the struct is (pycuda packs at it)
        assert value.dtype.alignment == align and value.dtype.kind == "u"
    else:
        assert value.dtype.names == tuple("xyzw"[: len(lanes)])


def test_three_lane_vectors_keep_cudas_size_and_offsets():
    assert (vector_scalar("float3"), vector_bytes("float3")) == (("float32", 3, 4), 12)
    assert (vector_scalar("double3"), vector_bytes("double3")) == (("float64", 3, 8), 24)
    assert vector_dtype("char3").itemsize == 3 and vector_dtype("double4").itemsize == 32
    assert vector_scalar("float32") is None and vector_scalar("float5") is None and vector_scalar("int8") is None


def test_a_spec_gives_the_lanes_and_round_trips():
    spec = parse_spec(SPEC)
    c = spec.args[0]
    assert c.value == (1.5, -0.25) and c.vector and not spec.args[3].vector
    assert parse_spec(dump_spec(spec)).to_dict() == spec.to_dict()
    assert np.asarray(make_args(spec)[0]).tobytes() == struct.pack("<ff", 1.5, -0.25)
    lanes = parse_spec(SPEC.replace("value = [1.5, -0.25]", 'value = [1.5, "n"]'))
    assert np.asarray(make_args(lanes)[0]).tobytes() == struct.pack("<ff", 1.5, 1000.0)  # a size expression lane


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (("value = [1.5, -0.25]", "value = [1.5]"), "args[0] (c).value: a float2 scalar needs 2 lane values (x, y)"),
        (("value = [1.5, -0.25]", "value = [1, 2, 3]"), "args[0] (c).value: a float2 scalar needs 2 lane values"),
        (("value = [1.5, -0.25]", "value = 1.5"), "args[0] (c).value: a float2 scalar needs 2 lane values"),
        (("value = [1.5, -0.25]", "value = [1.5, 1e39]"), "args[0] (c).value[1]: 1e+39 is beyond the range of float32"),
        (("value = [1.5, -0.25]", 'value = [1.5, "m"]'), "args[0] (c).value[1]: unknown name 'm'"),
        (("value = [1.5, -0.25]", "value = [[1], 2]"), "args[0] (c).value: expected a vector scalar's lanes"),
        (('type = "float2"', 'type = "float5"'), "args[0] (c).type: unknown type 'float5'"),
        (('type = "float2"', 'type = "float32"'), "args[0] (c).value: a list of lane values is for a CUDA vector type"),
        (('type = "float2"', 'type = "float2"\ninit = "random"'), "args[0] (c).init: a float2 scalar is the constant"),
        (('type = "float2"', 'type = "float2"\nsize = "n"'), "args[0] (c).value: an array's value is one number"),
    ],
)
def test_bad_lanes_or_an_unknown_vector_type_are_one_line_naming_the_scalar(change, said):
    with pytest.raises(SpecError) as e:
        parse_spec(SPEC.replace(*change))
    text = str(e.value)
    assert text.startswith(said) and "\n" not in text


@pytest.mark.parametrize(
    ("param", "arg", "said"),
    [
        (
            "float2 c",
            'type = "float32"\nvalue = 1.5',
            'kernel parameter c is a float2 passed by value: give type = "float2"',
        ),
        ("float2 c", 'type = "float4"\nvalue = [1, 2, 3, 4]', "kernel parameter c is a float2 passed by value"),
        ("const __half2 c", 'type = "float32"\nvalue = 1', "kernel parameter c is a half2 passed by value"),
        (
            "float c",
            'type = "float2"\nvalue = [1, 2]',
            'kernel parameter c is a float, not a vector: give type = "float32"',
        ),
    ],
)
def test_a_vector_scalar_and_the_kernels_parameter_must_agree(param, arg, said):
    src = AFFINE.replace("float2 c", param)
    with pytest.raises(SpecError) as e:
        parse_spec(SPEC.replace('type = "float2"\nvalue = [1.5, -0.25]', arg), find_kernels(src)[0])
    assert str(e.value).startswith(f"args[0] (c).type: {said}") and "\n" not in str(e.value)


@pytest.mark.parametrize("param", ["float2 &c", "const float2& c"])
def test_a_reference_parameter_is_refused_by_name(param):  # nvcc compiles it; the kernel reads host memory
    with pytest.raises(SpecError) as e:
        parse_spec(SPEC, find_kernels(AFFINE.replace("float2 c", param))[0])
    assert str(e.value).startswith("args[0] (c): kernel parameter c is a reference") and "\n" not in str(e.value)


@pytest.mark.parametrize("param", ["cuComplex c", "const float2 c", "struct float2 c"])
def test_a_vector_scalar_fits_its_parameter_under_another_name(param):
    parse_spec(SPEC, find_kernels(AFFINE.replace("float2 c", param))[0])


@pytest.mark.parametrize(
    "change",
    [
        ("value = [1.5, -0.25]", 'value = ["' + "a" * 200_000 + '", "b", "c"]'),
        ("value = [1.5, -0.25]", 'value = "' + "a" * 200_000 + '"'),
        ('type = "float2"', 'type = "' + "float2" * 30_000 + '"'),
    ],
)
def test_a_long_value_or_type_is_not_echoed_whole(change):
    with pytest.raises(SpecError) as e:
        parse_spec(SPEC.replace(*change))
    assert len(str(e.value)) < 600 and "\n" not in str(e.value)


def test_a_vector_scalars_spec_round_trips_through_the_stored_json():
    spec = parse_spec(SPEC)
    stored = spec_from_plain(json.dumps(spec.to_dict()))
    assert stored.args[0].value == (1.5, -0.25) and stored.to_dict() == spec.to_dict()


def test_cupy_gets_a_16_byte_vector_as_a_complex128_of_the_same_bytes_and_the_others_the_struct():
    from kt_tui.gpu.device.lang import by_value

    args = [vector_value("float4", [1.0, 2.0, 3.0, -4.0]), vector_value("float2", [1.5, -0.25]), np.int32(3)]
    on_cupy = by_value(args, "cupy")
    assert on_cupy[0].dtype == np.complex128 and on_cupy[0].tobytes() == struct.pack("<4f", 1.0, 2.0, 3.0, -4.0)
    assert on_cupy[1:] == args[1:] and on_cupy[1].dtype == np.uint64
    assert by_value(args, "pycuda") is args and by_value(args, "nvcuda") is args


def test_auto_never_probes_a_backend_that_would_pass_a_vector_wrongly_and_such_a_backend_is_refused():
    from kt_tui.engine.backend import BackendError, probe_order
    from kt_tui.kernel.vector_layout import nvcuda_unpassable, pycuda_misplaced

    after_int = "__global__ void k(int n, float4 c, float *out) { if (n) out[0] = c.x + c.w; }\n"
    assert pycuda_misplaced(after_int) == "`float4 c` of k"  # CUDA: at byte 16; pycuda: at 4
    assert pycuda_misplaced("__global__ void j(double d, float4 c) { }\n") == "`float4 c` of j"  # 16 and 8
    # cuda-python takes no struct (seen on an H100, 2026-12-07: "Unsupported type: PyCStructType")
    assert nvcuda_unpassable(after_int) == "`float4 c` of k"
    assert probe_order("auto", after_int) == ("cupy",) and probe_order("cupy", after_int) == ("cupy",)
    with pytest.raises(BackendError) as e:
        probe_order("pycuda", after_int)
    assert "`float4 c` of k at another offset" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(BackendError) as e:
        probe_order("nvcuda", after_int)
    assert "cannot pass `float4 c` of k by value" in str(e.value) and "\n" not in str(e.value)
    first = after_int.replace("int n, float4 c", "float4 c, int n")  # pycuda places it right; nvcuda still cannot
    assert probe_order("auto", first) == ("pycuda", "cupy")
    for vec in ("char3", "float3", "double2", "longlong4"):
        assert nvcuda_unpassable(f"__global__ void k({vec} v, float *o) {{ o[0] = v.x; }}\n") == f"`{vec} v` of k"
    for vec in ("char2", "short2", "float2", "uchar4", "__nv_bfloat162"):
        assert nvcuda_unpassable(f"__global__ void k({vec} v, float *o) {{ o[0] = 0; }}\n") is None, vec
    for fine in (
        after_int.replace("int n, float4 c", "float4 c, int n"),  # first: at 0 either way
        "__global__ void k(int n, float2 c, float *out) { if (n) out[0] = c.x; }\n",  # an 8-byte word: aligned
        "__global__ void k(double2 w, float4 c, float *out) { out[0] = c.x + w.y; }\n",  # 16 bytes before it
        AFFINE,
    ):
        assert pycuda_misplaced(fine) is None and probe_order("auto", fine)[0] == "pycuda", fine


STRUCT = """struct Affine { float a; int b; };
__global__ void k(Affine p, const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = p.a * in[i] + p.b;
}
"""


@pytest.mark.parametrize(
    "src", [STRUCT, STRUCT.replace("Affine p", "dim3 p").replace("p.a", "p.x").replace("p.b", "p.y")]
)
def test_a_struct_passed_by_value_is_drafted_with_a_note_that_it_cannot_be_passed(src):
    d = _draft(src, "k")
    said = [why for key, why in d.guesses if key == "args.p"]
    assert said and said[0].startswith("NOT PASSABLE: p is a struct") and "\n" not in said[0]


@pytest.mark.parametrize(
    "src",
    [
        STRUCT.replace("float a; int b;", "float a;").replace(" + p.b", ""),  # one float: passed as one
        "template <typename T>\n"
        + STRUCT.split("\n", 1)[1].replace("Affine p", "T p").replace("p.a", "p").replace(" + p.b", ""),
    ],
)
def test_a_struct_of_one_number_or_a_type_parameter_gets_no_such_note(src):
    assert not any("NOT PASSABLE" in why for _, why in _draft(src, "k").guesses)


def test_cuda_13s_aligned_four_lane_vectors_are_vectors_by_value_and_in_arrays():
    assert vector_scalar("double4_32a") == ("float64", 4, 32) and vector_bytes("double4_32a") == 32
    assert vector_scalar("ulonglong4_16a") == ("uint64", 4, 16)
    assert vector_scalar("float4_32a") is None and vector_scalar("double2_16a") is None  # no such types
    src = "__global__ void k(double4_32a c, const double4_32a *p, double *out, int n) {\n"
    src += (
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) out[i] = c.x * p[i].x + c.w * p[i].w;\n}\n"
    )
    args = {a.name: a for a in _draft(src, "k").spec.args}
    assert (args["c"].type, len(args["c"].value)) == ("double4_32a", 4)  # before: float32, 0.75
    assert (args["p"].type, args["p"].size) == ("float64", "4*n")  # before: float32 elements


def test_a_template_kernel_instantiated_for_a_vector_takes_it_by_value():
    src = "template <typename T>\n" + AFFINE.replace("float2 c", "T c")
    src += "template __global__ void affine<float2>(float2, const float *, float *, int);\n"
    spec = _draft(src, "affine").spec
    assert spec.kernel == "affine<float2>"  # before: affine<float>, whose c.x does not compile
    assert (spec.args[0].type, len(spec.args[0].value)) == ("float2", 2)


def test_a_complex_type_by_value_is_laid_out_as_the_vector_it_is():
    from kt_tui.engine.backend import probe_order
    from kt_tui.kernel.vector_layout import nvcuda_unpassable, pycuda_misplaced

    src = "#include <cuComplex.h>\n__global__ void k(int n, cuDoubleComplex z, double *o) { o[n] = z.x; }\n"
    assert nvcuda_unpassable(src) == "`cuDoubleComplex z` of k"  # drafted double2: 16 bytes, no word
    assert pycuda_misplaced(src) == "`cuDoubleComplex z` of k"  # CUDA: at byte 16; pycuda: at 4
    assert probe_order("auto", src) == ("cupy",)
    assert nvcuda_unpassable(src.replace("cuDoubleComplex", "cuFloatComplex")) is None  # 8 bytes: a word


def test_only_the_tuned_kernels_vectors_decide_the_backends_of_a_file_with_several():
    from kt_tui.engine.backend import BackendError, probe_order
    from kt_tui.kernel.vector_layout import nvcuda_unpassable, pycuda_misplaced

    two = (
        "__global__ void other(int n, float4 v, float *o) { o[0] = v.x; }\n"
        "__global__ void k(int n, float2 v, float *o) { if (n) o[0] = v.x; }\n"
    )
    assert nvcuda_unpassable(two, "k") is None and pycuda_misplaced(two, "k") is None
    assert probe_order("nvcuda", two, "k") == ("nvcuda",) and probe_order("auto", two, "k")[0] == "pycuda"
    assert nvcuda_unpassable(two, "other") == "`float4 v` of other" == nvcuda_unpassable(two)
    with pytest.raises(BackendError):
        probe_order("nvcuda", two, "other")
    assert nvcuda_unpassable(two, "nowhere") == "`float4 v` of other"  # a name not found: every kernel, as before


@pytest.mark.parametrize(
    "alias",
    ["typedef float4 vec4;", "using vec4 = float4;", "#define vec4 float4", "typedef float4 v4;\ntypedef v4 vec4;"],
)
def test_a_vector_under_another_name_is_laid_out_as_the_vector(alias):
    from kt_tui.engine.backend import probe_order
    from kt_tui.kernel.vector_layout import nvcuda_unpassable, pycuda_misplaced

    src = f"{alias}\n__global__ void k(int n, const vec4 z, float *o) {{ if (n) o[0] = z.x; }}\n"
    assert nvcuda_unpassable(src) == "`const vec4 z` of k" == pycuda_misplaced(src)
    assert probe_order("auto", src) == ("cupy",)
    assert nvcuda_unpassable("// typedef float4 vec4;\n" + src.split("\n", alias.count("\n") + 1)[-1]) is None


@pytest.mark.parametrize(
    "alias",
    [
        "typedef float4 vec4;",
        "using vec4 = float4;",
        "#define vec4 float4",
        "typedef float4 v4;\nusing v3 = v4;\n#define vec4 v3",
    ],
)
def test_a_vector_under_another_name_is_drafted_as_the_vector(alias):
    body = AFFINE.replace("float2 c", "vec4 c").replace("const float *in", "const vec4 *in")
    d = _draft(f"{alias}\n{body.replace('c.x * in[i] + c.y', 'c.x * in[i].w + c.y')}", "affine")
    c, arr = d.spec.args[0], d.spec.args[1]
    assert (c.type, c.value) == ("float4", (1.25, 0.625, 1.75, 0.375))  # before: float32, 0.75, no note
    assert (arr.type, arr.size) == ("float4", "n")  # before: float32 and "vec4 is not a number type"
    assert not any("not a number type" in why for _, why in d.guesses)
    plain = _draft(AFFINE.replace("float2 c", "float4 c"), "affine").spec.args[0]
    assert (plain.type, plain.value) == (c.type, c.value)


TEMPLATED = """template <typename T, int N>
__global__ void k(int n, T v, float *o) { if (n) o[0] = v.x * N; }
template __global__ void k<float4, 2>(int, float4, float *);
"""


def test_a_template_kernels_instantiated_vector_decides_the_backends_as_a_written_one_does():
    from kt_tui.engine.backend import BackendError, probe_order
    from kt_tui.kernel.vector_layout import nvcuda_unpassable, pycuda_misplaced

    assert nvcuda_unpassable(TEMPLATED) == "`float4 v` of k<float4, 2>" == pycuda_misplaced(TEMPLATED)
    assert probe_order("auto", TEMPLATED) == ("cupy",) == probe_order("auto", TEMPLATED, "k<float4, 2>")
    with pytest.raises(BackendError) as e:  # before: nvcuda probed, and cuda-python refuses the struct
        probe_order("nvcuda", TEMPLATED, "k<float4, 2>")
    assert "cannot pass `float4 v` of k<float4, 2> by value" in str(e.value)
    assert probe_order("auto", TEMPLATED, "k<float2, 2>")[0] == "pycuda"  # the spec's own instantiation counts
    aliased = "typedef float4 vec4;\n" + TEMPLATED.replace("<float4, 2>(int, float4", "<vec4, 2>(int, vec4")
    assert nvcuda_unpassable(aliased) == "`vec4 v` of k<vec4, 2>"
    assert nvcuda_unpassable(TEMPLATED.replace("float4", "float2")) is None


GATHER = """__global__ void gather(const dim3 *at, const float *in, float *out, int n, int m) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { dim3 a = at[i]; out[i] = in[a.x] + in[a.y] - in[a.z]; }
}
"""


@pytest.mark.parametrize("shape", ["dim3", "uint3", "int3"])
def test_an_array_of_launch_shapes_is_drafted_as_three_integer_lanes_in_the_range_they_index(shape):
    spec = _draft(GATHER.replace("dim3", shape), "gather").spec
    at = spec.args[0]
    lane = "int32" if shape == "int3" else "uint32"
    assert (at.type, at.size, at.low, at.high) == (lane, "3*n", 0, "m")  # before, dim3: float32, n, no range
    assert spec.args[1].size == "m"


def test_a_dim3_by_value_is_still_a_struct_the_spec_cannot_pass():
    src = GATHER.replace("const dim3 *at", "dim3 at").replace("at[i]", "at")
    assert any(why.startswith("NOT PASSABLE: at is a struct dim3") for _, why in _draft(src, "gather").guesses)
