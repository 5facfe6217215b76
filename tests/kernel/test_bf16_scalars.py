"""cuda_bf16.h's types by value (`__nv_bfloat162 ab`, `__nv_bfloat16 s`): the spec's "bfloat162" and
"bfloat16", each lane's value passed as its bfloat16 bits; an array of them is refused by name, as
numpy has no bfloat16 (kernel/vectors.py, kernel/inputs.py bf16_bits).
tests/gpu/test_vector_scalars_gpu.py runs them on a GPU."""

import struct

import numpy as np
import pytest

from kt_tui.kernel.draft import draft
from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.source import find_kernels
from kt_tui.kernel.spec import SpecError, check_spec, dump_spec, parse_spec
from kt_tui.kernel.vector_layout import pycuda_misplaced

SCALE = """#include <cuda_bf16.h>
__global__ void scale(int n, __nv_bfloat162 ab, __nv_bfloat16 s, const float *in, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __bfloat162float(ab.x) * in[i] + __bfloat162float(ab.y) - __bfloat162float(s);
}
"""
SPEC = """kernel = "scale"
problem_size = ["n"]
[sizes]
n = 1000
[tune_params]
block_size_x = [64, 128]
[[args]]
name = "n"
type = "int32"
value = "n"
[[args]]
name = "ab"
type = "bfloat162"
value = [1.5, -0.25]
[[args]]
name = "s"
type = "bfloat16"
value = 0.5
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
ARRAYS = """#include <cuda_bf16.h>
__global__ void copy(const __nv_bfloat16 *in, __nv_bfloat162 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __halves2bfloat162(in[2 * i], in[2 * i + 1]);
}
"""


def _kernel(src):
    (k,) = find_kernels(src)
    return k


def _bf16(value):
    return struct.pack("<I", struct.unpack("<I", struct.pack("<f", value))[0])[2:]  # upper half of the float


def test_bf16_scalars_by_value_are_drafted_as_bfloat16_lanes_and_say_so():
    k = _kernel(SCALE)
    d = draft(k, SCALE, n=1 << 12)
    check_spec(d.spec, k)
    assert parse_spec(dump_spec(d.spec), k).to_dict() == d.spec.to_dict()
    ab, s = d.spec.args[1], d.spec.args[2]
    assert (ab.type, s.type) == ("bfloat162", "bfloat16")  # before: both float32, no note
    assert len(set(ab.value)) == 2 and len(s.value) == 1
    said = dict(d.guesses)
    assert "bfloat16 bits" in said["args.ab"] and "bfloat16 bits" in said["args.s"], said
    ab_arg, s_arg = make_args(d.spec)[1:3]
    assert np.asarray(ab_arg).tobytes() == _bf16(ab.value[0]) + _bf16(ab.value[1])  # two 16-bit halves, x first
    assert np.asarray(s_arg).tobytes() == _bf16(s.value[0])


def test_a_spec_passes_the_bf16_bytes_a_kernel_reads():
    spec = parse_spec(SPEC)
    assert spec.args[2].value == (0.5,)  # one number, as any scalar
    ab, s = make_args(spec)[1:3]
    assert isinstance(ab, np.uint32) and isinstance(s, np.uint16)  # a word each backend passes by value
    assert np.asarray(ab).tobytes() == _bf16(1.5) + _bf16(-0.25)
    assert np.asarray(s).tobytes() == _bf16(0.5)
    assert pycuda_misplaced(SCALE) is None  # 4 bytes aligned to 4 after the int, 2 after it: where CUDA puts them
    assert parse_spec(dump_spec(spec)).to_dict() == spec.to_dict()


@pytest.mark.parametrize(
    ("value", "bits"),
    [
        (1.0, 0x3F80),
        (-2.0, 0xC000),
        (0.1, 0x3DCD),
        (1 + 2**-8, 0x3F80),
        (1 + 3 * 2**-8, 0x3F82),
        (float("inf"), 0x7F80),
    ],
)
def test_bf16_bits_round_to_nearest_even_as_cuda_does(value, bits):
    from kt_tui.kernel.inputs import bf16_bits  # here: main had none (the other tests fail there on behaviour)

    assert bf16_bits(value) == bits


def test_bf16_value_reads_the_bits_back():
    from kt_tui.kernel.inputs import bf16_bits, bf16_value

    assert [bf16_value(bf16_bits(v)) for v in (1.5, -0.25, 0.625, 0.1)] == [1.5, -0.25, 0.625, 0.10009765625]
    assert np.isnan(bf16_value(bf16_bits(float("nan"))))


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (('type = "bfloat162"', 'type = "float32"'), "args[1] (ab).type: kernel parameter ab is a bfloat162"),
        (('type = "bfloat16"', 'type = "float32"'), "args[2] (s).type: kernel parameter s is a bfloat16 passed by"),
        (("value = 0.5", "value = 1e39"), "args[2] (s).value[0]: 1e+39 is beyond the range of bfloat16"),
    ],
)
def test_a_float32_for_a_bf16_parameter_is_refused_by_name(change, said):
    with pytest.raises(SpecError) as e:
        parse_spec(
            SPEC.replace(*change).replace("value = [1.5, -0.25]", "value = 1.5", change[0].endswith('2"')),
            _kernel(SCALE),
        )
    assert str(e.value).startswith(said), str(e.value)


def test_arrays_of_bf16_are_drafted_not_passable_and_refused_by_name():
    k = _kernel(ARRAYS)
    d = draft(k, ARRAYS, n=1 << 12)
    said = dict(d.guesses)
    assert said["args.in"].startswith("NOT PASSABLE: in is an array of __nv_bfloat16"), said
    assert said["args.out"].startswith("NOT PASSABLE: out is an array of __nv_bfloat162"), said
    with pytest.raises(SpecError) as e:
        check_spec(d.spec, k)
    assert str(e.value).startswith("args[0] (in).type: kernel parameter in is an array of __nv_bfloat16"), str(e.value)
    text = dump_spec(d.spec).replace('type = "float32"', 'type = "bfloat16"', 1)
    with pytest.raises(SpecError) as e:
        parse_spec(text)
    assert "args[0] (in).type: 'bfloat16' is a scalar's type only" in str(e.value), str(e.value)
