"""Arrays of every CUDA vector type (float3, uchar4, short2, int3, double3, ...) are arrays of their
component type, `lanes` values an element (half2 and the bfloat16 pairs aside); a type that names nothing
is a one-line exit 2."""

import shutil

import numpy as np
import pytest

from kt_tui import cli
from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.source import find_kernels
from kt_tui.kernel.spec import SpecError, dump_spec, parse_spec
from kt_tui.kernel.spec_keys import VECTORS
from kt_tui.kernel.vectors import COMPONENTS

from ..conftest import EXAMPLES

KERNEL = find_kernels(
    "__global__ void shade(const float3 *pos, const uchar4 *rgba, float *out, int n) {"
    " int i = blockIdx.x * blockDim.x + threadIdx.x;"
    " if (i < n) out[i] = pos[i].x * rgba[i].w; }"
)[0]
SPEC = """
kernel = "shade"
problem_size = ["n"]
[sizes]
n = 100
[tune_params]
block_size_x = [32, 64]
[[args]]
name = "pos"
type = "{pos}"
size = "n"
[[args]]
name = "rgba"
type = "uchar4"
size = "n"
low = 0
high = 256
[[args]]
name = "out"
type = "float32"
size = "n"
output = true
[[args]]
name = "n"
type = "int32"
value = "n"
"""


def test_a_spec_with_float3_and_uchar4_arrays_loads_and_draws_their_components():
    spec = parse_spec(SPEC.format(pos="float3"), KERNEL)
    pos, rgba = spec.args[0], spec.args[1]
    assert (pos.dtype, pos.lanes, rgba.dtype, rgba.lanes) == ("float32", 3, "uint8", 4)
    args = make_args(spec)
    assert (args[0].dtype, args[0].shape) == (np.float32, (300,))
    assert (args[1].dtype, args[1].shape) == (np.uint8, (400,))
    assert parse_spec(dump_spec(spec), KERNEL).to_dict() == spec.to_dict()


@pytest.mark.parametrize("component", sorted(COMPONENTS))
def test_every_vector_type_of_one_to_four_lanes_is_an_array_of_its_component(component):
    for lanes in (1, 2, 3, 4):
        assert VECTORS[f"{component}{lanes}"] == (COMPONENTS[component], lanes)
    assert "half2" not in VECTORS and "bfloat162" not in VECTORS  # as before: no array of them


def test_an_array_of_double3_is_three_doubles_an_element():
    spec = parse_spec(SPEC.format(pos="double3"), KERNEL)
    assert (make_args(spec)[0].dtype, make_args(spec)[0].shape) == (np.float64, (300,))


def test_a_type_that_names_nothing_is_a_one_line_exit_2(capsys, tmp_path):
    shutil.copy(EXAMPLES / "vector_add.cu", tmp_path / "vector_add.cu")
    spec = (EXAMPLES / "vector_add.cu.toml").read_text().replace('type = "float32"', 'type = "flaot3"', 1)
    (tmp_path / "vector_add.cu.toml").write_text(spec)
    assert cli.main(["spec", str(tmp_path / "vector_add.cu"), "--check"]) == 2
    err = capsys.readouterr().err
    assert "unknown type 'flaot3'" in err and len(err.strip().splitlines()) == 1, err
    with pytest.raises(SpecError, match="unknown type 'float5'"):
        parse_spec(SPEC.format(pos="float5"), KERNEL)
