"""A template kernel whose file instantiates it explicitly (`template __global__ void k<float>(...);`,
as libraries do): kernel_tuner's wrapper makes the template `__device__` and instantiates it itself,
so those statements are blanked before it (kernel/text.py instantiations_wrapped)."""

import shutil
import subprocess

import pytest

from kt_tui.gpu.ktsource import kernel_string
from kt_tui.kernel.spec import parse_spec
from kt_tui.kernel.text import instantiations_wrapped

SOURCE = """template <typename T>
__global__ void scale(T *x, T a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
template __global__ void scale<float>(float *, float, int);
template __global__ void scale<double>(double *,
                                       double, int);
template __global__ void other<float>(float *);
"""
SPEC = """
kernel = "scale<float>"
problem_size = ["n"]
[sizes]
n = 1000
[tune_params]
block_size_x = [128, 256]
[[args]]
name = "x"
type = "float32"
size = "n"
output = true
[[args]]
name = "a"
type = "float32"
value = 2.0
[[args]]
name = "n"
type = "int32"
value = "n"
"""


def test_the_kernels_own_explicit_instantiations_are_blanked_keeping_lines_and_the_rest():
    out = instantiations_wrapped(SOURCE, "scale<float>")
    assert "template __global__ void scale" not in out and len(out.splitlines()[6]) == len(SOURCE.splitlines()[6])
    assert [len(line) for line in out.splitlines()] == [len(line) for line in SOURCE.splitlines()]
    assert "template __global__ void other<float>(float *);" in out  # another kernel's: left
    assert out.splitlines()[:6] == SOURCE.splitlines()[:6]
    assert instantiations_wrapped(SOURCE, "scale") == SOURCE  # not a template instance: as it is


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc (compile only)")
def test_a_template_instantiated_in_its_file_compiles_as_kernel_tuner_wraps_it(tmp_path):
    name, text = kernel_string(
        parse_spec(SPEC), SOURCE.replace("template __global__ void other<float>(float *);", ""), {"block_size_x": 128}
    )
    assert name == "scale_wrapper"
    _compiles(tmp_path, text)


def _compiles(tmp_path, text):
    (tmp_path / "k.cu").write_text(text)
    done = subprocess.run(
        ["nvcc", "-c", "-arch=sm_80", "-std=c++17", str(tmp_path / "k.cu"), "-o", str(tmp_path / "k.o")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-600:]


FORMS = [
    "extern template __global__ void scale<float>(float *, float, int);",
    "template __global__ void __launch_bounds__(256) scale<float>(float *, float, int);",
    "template __global__ __launch_bounds__(256) void scale<float>(float *, float, int);",
    "template void __global__ scale<double>(double *, double, int);",
    "template __global__ void scale<float, 64>(float *__restrict__, int);",
]


@pytest.mark.parametrize("form", FORMS)
def test_every_form_of_an_explicit_instantiation_is_blanked(form):
    assert instantiations_wrapped(f"x\n{form}\ny", "scale<float>") == "x\n" + " " * len(form) + "\ny"


def test_a_specialisation_a_device_instantiation_and_a_macros_continuations_are_kept():
    for kept in ("template<> __global__ void scale<int>(int *) {}", "template __device__ void scale<float>(float *);"):
        assert instantiations_wrapped(kept, "scale<float>") == kept
    macro = "#define I(T) \\\ntemplate __global__ void scale<T>(T *, \\\nT, int); \\\ntemplate __global__ void other<T>(T *);\n"
    out = instantiations_wrapped(macro, "scale<float>")
    assert out.count("\\\n") == 3 and "other<T>(T *);" in out and len(out) == len(macro)


DECLARED = """template <typename T, int N = 4>
__global__ void __launch_bounds__(256) scale(T *x, T a, int n);

__device__ float twice(float v) { return 2.0f * v; }

template <typename T, int N>
__global__ void __launch_bounds__(256) scale(T *x, T a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
"""


def test_a_declaration_of_the_template_before_its_definition_is_blanked_and_the_definition_kept():
    out = instantiations_wrapped(DECLARED, "scale<float, 4>")
    assert [len(line) for line in out.splitlines()] == [len(line) for line in DECLARED.splitlines()]
    assert not "".join(out.splitlines()[:2]).strip()
    assert out.splitlines()[3:] == DECLARED.splitlines()[3:]  # the device function and the definition as they were
    other = "template <typename T> __global__ void other(T *x);"
    assert instantiations_wrapped(other, "scale<float, 4>") == other


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc (compile only)")
def test_a_template_declared_before_its_definition_compiles_as_kernel_tuner_wraps_it(tmp_path):
    name, text = kernel_string(
        parse_spec(SPEC.replace('"scale<float>"', '"scale<float, 4>"')), DECLARED, {"block_size_x": 128}
    )
    assert name == "scale_wrapper"
    _compiles(tmp_path, text)
