"""Compile errors past the kernel file's last line are in the code kernel_tuner appends to instantiate a
template kernel from the spec's name (`vadd<>`, `vadd<float, int>`): said so, not pinned to lines the
user's file does not have (review rev19b)."""

import shutil

import pytest

from kt_tui.gpu.compile import compile_check, parse_messages
from kt_tui.kernel.source import find_kernels
from kt_tui.kernel.spec import parse_spec

TEMPLATE = """template <typename T>
__global__ void vadd(T *c, const T *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + a[i];
}
"""
LOG = 'kernel.cu(7): error: no instance of function template "vadd" matches the specified type\n'


def test_an_error_past_the_files_last_line_is_said_to_be_in_kernel_tuners_instantiation():
    (m,) = parse_messages(LOG, TEMPLATE)
    assert m.line == 0 and m.source_line == ""  # before: line 7 of a 5-line file
    assert "kernel_tuner" in m.text and "template arguments" in m.text
    assert 'no instance of function template "vadd"' in m.text
    inside = parse_messages("kernel.cu(4): error: expression must have class type\n", TEMPLATE)
    assert inside[0].line == 4 and "kernel_tuner" not in inside[0].text


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found on PATH")
def test_a_template_kernel_named_with_too_many_arguments_fails_on_kernel_tuners_lines():
    kernel = find_kernels(TEMPLATE)[0]
    spec = parse_spec(
        'kernel = "vadd<float, int>"\nproblem_size = ["n"]\n[sizes]\nn = 4096\n[tune_params]\nblock_size_x = [128]\n'
        '[[args]]\nname = "c"\ntype = "float32"\nsize = "n"\noutput = true\n'
        '[[args]]\nname = "a"\ntype = "float32"\nsize = "n"\n'
        '[[args]]\nname = "n"\ntype = "int32"\nvalue = "n"\n',
        kernel,
    )
    result = compile_check(TEMPLATE, {"block_size_x": 128}, spec=spec)
    assert result.ok is False
    assert result.errors and all(0 <= m.line <= 5 for m in result.messages)
    assert "kernel_tuner" in result.errors[0].text


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found on PATH")
def test_spec_check_shows_no_line_0_for_errors_of_no_line(capsys, hermetic):
    from kt_tui.cli import main

    kernel = hermetic / "tv.cu"
    kernel.write_text(TEMPLATE)
    (hermetic / "tv.cu.toml").write_text(
        'kernel = "vadd<float, int>"\nproblem_size = ["n"]\n[sizes]\nn = 4096\n[tune_params]\nblock_size_x = [128]\n'
        '[[args]]\nname = "c"\ntype = "float32"\nsize = "n"\noutput = true\n'
        '[[args]]\nname = "a"\ntype = "float32"\nsize = "n"\n'
        '[[args]]\nname = "n"\ntype = "int32"\nvalue = "n"\n'
    )
    assert main(["spec", "--check", str(kernel)]) == 2
    err = capsys.readouterr().err
    assert err.count("kernel_tuner adds") >= 2, err
    assert ":0:" not in err and "Traceback" not in err  # before: "  .../tv.cu:0: no instance of ..."
