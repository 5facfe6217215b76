"""A template kernel is drafted by a name with its arguments, and a spec naming one bare is refused:
no backend compiles a template by its bare name (batch 20's convert_scale draft failed on an H100
under pycuda's extern "C" wrap, its overloaded helpers given C linkage)."""

from __future__ import annotations

import subprocess
import sys

from kt_tui.kernel.draft import draft
from kt_tui.kernel.source import find_kernels

SRC = """
__device__ void put(unsigned char *p, float v) { *p = (unsigned char)v; }
__device__ void put(float *p, float v) { *p = v; }

template <typename T, bool ROUND>
__global__ void scale(const float *in, T *out, int n, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) put(out + i, ROUND ? rintf(a * in[i]) : a * in[i]);
}

template __global__ void scale<float, false>(const float *, float *, int, float);
template __global__ void scale<unsigned char, true>(const float *, unsigned char *, int, float);
"""


def test_a_bool_template_parameter_is_taken_as_the_file_instantiates_it():
    d = draft(find_kernels(SRC)[0], SRC)
    assert d.spec.kernel in ("scale<float, false>", "scale<unsigned char, true>")
    assert any("ROUND = " in g and "as the file instantiates it" in g for _, g in d.guesses)


def test_a_value_parameter_the_file_never_instantiates_is_left_to_the_user():
    src = SRC.split("template __global__")[0]
    d = draft(find_kernels(src)[0], src)
    assert "<" not in d.spec.kernel
    assert any('give their values in kernel = "scale<...>"' in g for _, g in d.guesses)


def test_spec_check_refuses_a_template_kernel_named_bare(tmp_path):
    kernel = tmp_path / "scale.cu"
    kernel.write_text(SRC)
    d = draft(find_kernels(SRC)[0], SRC)
    from kt_tui.kernel.spec import dump_spec

    text = dump_spec(d.spec).replace(f'kernel = "{d.spec.kernel}"', 'kernel = "scale"')
    (tmp_path / "scale.cu.toml").write_text(text)
    out = subprocess.run(
        [sys.executable, "-m", "kt_tui", "spec", "--check", str(kernel)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 2
    assert "scale is a template: name it with its template arguments" in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
