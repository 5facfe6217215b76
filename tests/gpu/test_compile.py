import shutil

import pytest

from kt_tui.gpu import compile as comp
from kt_tui.gpu.compile import (
    CompileMessage,
    CompileResult,
    Resources,
    compile_check,
    demangle,
    format_errors,
    parse_messages,
    parse_resources,
)
from kt_tui.gpu.ktsource import kernel_string

from ..conftest import EXAMPLES
from ..helpers import spec_for

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found on PATH")

BROKEN = """__global__ void scale(float *x, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) {
        x[i] = x[i] * ;
    }
}
"""

SCALE = spec_for("scale", {"block_size_x": 128})

PTXAS_LOG = """ptxas info    : 0 bytes gmem
ptxas info    : Function properties for _Z6helperf
    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function '_Z6matmulPfPKfS1_i' for 'sm_90'
ptxas info    : Function properties for _Z6matmulPfPKfS1_i
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 8192 bytes smem
ptxas info    : Compiling entry function '_ZN3ops5spillEPfPKii' for 'sm_90'
ptxas info    : Function properties for _ZN3ops5spillEPfPKii
    1040 bytes stack frame, 12 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 24 registers, used 0 barriers, 1040 bytes cumulative stack size
"""


@needs_nvcc
def test_matmul_compiles_with_resources():
    params = {"block_size_x": 16, "block_size_y": 16}
    result = compile_check((EXAMPLES / "matmul.cu").read_text(), params, spec=spec_for("matmul", params))
    assert result.ok is True, format_errors(result)
    text = kernel_string(spec_for("matmul", params), (EXAMPLES / "matmul.cu").read_text(), params)[1]
    assert "#define block_size_x 16\n" in text and "#define block_size_y 16\n" in text
    assert "-arch=sm_90" in result.command and "--cubin" in result.command
    res = result.resources["matmul"]
    assert res.registers > 0
    assert (res.spill_stores, res.spill_loads) == (0, 0)


@needs_nvcc
def test_syntax_error_points_at_its_line():
    result = compile_check(BROKEN, {"block_size_x": 128}, spec=SCALE)
    assert result.ok is False
    error = result.errors[0]
    assert error.line == 4 and error.source_line == "        x[i] = x[i] * ;"
    assert "expected an expression" in error.text
    text = format_errors(result)
    assert text.startswith("line 4: error: expected an expression") and "x[i] = x[i] * ;" in text


@needs_nvcc
def test_too_much_static_shared_memory():
    src = (
        "__global__ void big(float *out) {\n"
        "    __shared__ float big[100000];\n"
        "    big[threadIdx.x] = 1.0f;\n    __syncthreads();\n    out[threadIdx.x] = big[255 - threadIdx.x];\n}\n"
    )
    result = compile_check(src, {"block_size_x": 256}, spec=spec_for("big", {"block_size_x": 256}))
    assert result.ok is False
    (error,) = result.errors
    assert "kernel big uses too much shared memory: 400000 bytes" in error.text
    assert error.line == 1
    assert result.resources["big"].shared_bytes == 400000


@needs_nvcc
def test_spills_are_reported():
    src = """__global__ void spill(float *out, const int *idx, int n) {
    float local[256];
    for (int k = 0; k < 256; k++) local[k] = out[k] * k;
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) out[i] = local[idx[i] & 255];
}
"""
    result = compile_check(
        src, {"block_size_x": 128}, compiler_options=["-maxrregcount=24"], spec=spec_for("spill", {"block_size_x": 128})
    )
    assert result.ok is True, format_errors(result)
    assert "-maxrregcount=24" in result.command
    res = result.resources["spill"]
    assert res.stack_bytes > 0 or res.spill_stores > 0


@needs_nvcc
def test_bools_unroll_factors_and_implied_defines():
    src = """#if !use_fast || block_size_y != 1 || !kernel_tuner || grid_size_x != 1
#error wrong defines
#endif
__global__ void sum(float *x, int n) {
    float s = 0.0f;
#pragma unroll loop_unroll_factor
    for (int k = 0; k < 64; k++) s += x[k * n];
    x[0] = s
}
"""
    params = {"block_size_x": 64, "use_fast": 1, "loop_unroll_factor": 4}
    spec = spec_for("sum", params)
    result = compile_check(src, params, spec=spec)
    assert "constexpr int loop_unroll_factor = 4;" in kernel_string(spec, src, params)[1]
    # the constexpr kernel_tuner puts in front does not shift the line numbers
    assert [(m.line, m.source_line.strip()) for m in result.errors] == [(9, "}")]
    fixed = src.replace("x[0] = s\n", "x[0] = s;\n")
    assert compile_check(fixed, params, spec=spec).ok is True
    assert compile_check(fixed, dict(params, loop_unroll_factor=0), spec=spec).ok is True
    assert compile_check(fixed, dict(params, use_fast=0), spec=spec).ok is False
    # as kernel_tuner does: a bool is defined as True / False, which #if reads as 0
    assert "#define use_fast True\n" in kernel_string(spec, fixed, dict(params, use_fast=True))[1]


def test_no_compiler_gives_ok_none(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setattr(comp, "SEARCH_DIRS", ())
    monkeypatch.setattr(comp, "find_nvrtc", lambda: False)
    assert comp.find_nvcc() is None
    result = compile_check(BROKEN, {"block_size_x": 128}, spec=SCALE)
    assert result.ok is None
    assert result.reason == "no CUDA compiler found (nvcc or NVRTC); install the CUDA toolkit"
    assert format_errors(result) == result.reason


def test_nvcc_found_through_cuda_home(tmp_path, monkeypatch):
    (tmp_path / "bin").mkdir()
    fake = tmp_path / "bin" / "nvcc"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    assert comp.find_nvcc() == str(fake)


def test_a_hanging_compiler_is_killed(tmp_path, monkeypatch):
    fake = tmp_path / "nvcc"
    fake.write_text("#!/bin/sh\nsleep 30\n")
    fake.chmod(0o755)
    monkeypatch.setattr(comp, "find_nvcc", lambda: str(fake))
    result = compile_check(BROKEN, {"block_size_x": 128}, timeout_s=0.5, spec=SCALE)  # the fake sleeps 30 s
    assert result.ok is False
    assert "did not finish within 0.5 s" in result.errors[0].text


def test_nvrtc_fallback(tmp_path, monkeypatch):
    pkg = tmp_path / "cuda" / "bindings"
    pkg.mkdir(parents=True)
    (tmp_path / "cuda" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "nvrtc.py").write_text("""import ctypes
class nvrtcResult:
    NVRTC_SUCCESS = 0
LOG = b'CUDAProgram(4): error: expected an expression\\n'
def nvrtcGetSupportedArchs():
    return 0, [75, 80, 90]
def nvrtcCreateProgram(src, name, n, headers, names):
    return 0, src
def nvrtcAddNameExpression(prog, name):
    return 0,
def nvrtcCompileProgram(prog, n, options):
    assert b"--gpu-architecture=sm_80" in options and b"#define block_size_x 128\\n" in prog
    return (6 if b"* ;" in prog else 0),
def nvrtcGetCUBINSize(prog):
    return 0, 4
def nvrtcGetCUBIN(prog, buf):
    return 0,
def nvrtcGetLoweredName(prog, name):
    return 0, name
def nvrtcDestroyProgram(prog):
    return 0,
def nvrtcGetProgramLogSize(prog):
    return 0, (len(LOG) + 1 if b"* ;" in prog else 1)
def nvrtcGetProgramLog(prog, buf):
    if len(buf) > 1:
        ctypes.memmove(ctypes.c_char_p(buf), LOG, len(LOG))
    return 0,
""")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(comp, "find_nvcc", lambda: None)
    monkeypatch.setattr(comp, "find_nvrtc", lambda: True)
    result = compile_check(BROKEN, {"block_size_x": 128}, arch="sm_80", spec=SCALE)
    assert result.ok is False and result.resources == {}
    assert [(m.line, m.source_line) for m in result.errors] == [(4, "        x[i] = x[i] * ;")]
    good = compile_check(BROKEN.replace("* ;", "* 2;"), {"block_size_x": 128}, arch="80", spec=SCALE)
    assert good.ok is True and good.messages == []


@pytest.mark.gpu
def test_the_nvrtc_check_points_at_the_line_through_the_compile_pool(monkeypatch):
    pytest.importorskip("cuda.bindings.nvrtc")
    monkeypatch.setattr(comp, "find_nvcc", lambda: None)
    result = compile_check(BROKEN, {"block_size_x": 128}, spec=SCALE)
    assert result.ok is False and result.command[0] == "nvrtc"
    assert [(m.line, m.source_line) for m in result.errors] == [(4, "        x[i] = x[i] * ;")]
    assert "expected an expression" in result.errors[0].text
    good = compile_check(BROKEN.replace("* ;", "* 2;"), {"block_size_x": 128}, spec=SCALE)
    assert good.ok is True, format_errors(good)


def test_a_hanging_nvrtc_is_stopped(tmp_path, monkeypatch):
    pkg = tmp_path / "cuda" / "bindings"
    pkg.mkdir(parents=True)
    (tmp_path / "cuda" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "nvrtc.py").write_text("""import time
class nvrtcResult:
    NVRTC_SUCCESS = 0
def nvrtcGetSupportedArchs():
    return 0, [90]
def nvrtcCreateProgram(src, name, n, headers, names):
    return 0, src
def nvrtcAddNameExpression(prog, name):
    return 0,
def nvrtcCompileProgram(prog, n, options):
    time.sleep(60)
def nvrtcDestroyProgram(prog):
    return 0,
""")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(comp, "find_nvcc", lambda: None)
    monkeypatch.setattr(comp, "find_nvrtc", lambda: True)
    result = compile_check(BROKEN, {"block_size_x": 128}, timeout_s=3, spec=SCALE)
    assert result.ok is False
    assert result.errors[0].text == "NVRTC did not finish within 3 s and was stopped"


def test_parse_resources_and_demangle():
    res = parse_resources(PTXAS_LOG)
    assert res == {"matmul": Resources(32, 8192, 0, 0, 0), "spill": Resources(24, 0, 12, 8, 1040)}
    assert demangle("_Z2tkILi4EEvPf") == "tk" and demangle("vector_add") == "vector_add"


def test_parse_messages_from_headers_and_tools():
    log = (
        'helper.cuh(3): error: identifier "foo" is undefined\n\n'
        'kernel.cu(2): warning #177-D: variable "i" was declared but never referenced\n'
        "      int i = 0;\n          ^\n\n"
        'kernel.cu(1): error: no instance of overloaded function "f" matches the argument list\n'
        "            argument types are: (float *)\n\n"
        "ptxas error   : Entry function '_Z1kPf' uses too much data for parameters\n"
        "nvcc fatal   : Unsupported gpu architecture 'sm_999'\n"
    )
    msgs = parse_messages(log, "__global__ void k(float *x) {\n    int i = 0;\n}\n")
    assert msgs[0] == CompileMessage(0, "error", 'helper.cuh(3): identifier "foo" is undefined', "")
    assert (msgs[1].line, msgs[1].severity, msgs[1].source_line) == (2, "warning", "    int i = 0;")
    assert msgs[2].text.endswith("; argument types are: (float *)")
    assert msgs[3].text == "ptxas: Entry function 'k' uses too much data for parameters" and msgs[3].line == 1
    assert msgs[4].text == "nvcc: Unsupported gpu architecture 'sm_999'" and msgs[4].severity == "error"


def test_format_errors_puts_errors_first_and_truncates():
    msgs = [CompileMessage(2, "warning", "unused", "int i;")] + [
        CompileMessage(n, "error", f"bad {n}", f"line {n}") for n in range(3, 20)
    ]
    text = format_errors(CompileResult(ok=False, messages=msgs), max_lines=6)
    assert text.splitlines() == [
        "line 3: error: bad 3",
        "    line 3",
        "line 4: error: bad 4",
        "    line 4",
        "line 5: error: bad 5",
        "    line 5",
        "... 30 more",
    ]
    assert format_errors(CompileResult(ok=True)) == "compiled without errors"


def test_messages_from_a_file_outside_the_kernel_hide_its_words():
    log = '/home/u/.config/secret.txt(1): error: identifier "sk_live_abc" is undefined\n'
    msgs = parse_messages(log, "__global__ void k(float *x) {\n}\n")
    assert msgs[0].text == "/home/u/.config/secret.txt(1): error in a file the kernel includes (its text is not shown)"
