"""What NVRTC backends (nvcuda, cupy) are given so that they compile what nvcc compiles (gpu/nvrtc.py
backend_options), and a CUDA call's failure under memcheck read as what it is (gpu/sanitize.py).
Found on an H100 (session 20): gqa_scores_half2_3d (`-INFINITY`, which NVRTC does not define) and
cg_l2norm_rows_tile8 (cooperative groups, which need CUDA 13's CCCL folder) failed `spec --check`
on nvcuda as "fails compute-sanitizer memcheck: CUDA_ERROR_INVALID_IMAGE on cuModuleLoadData":
kernel_tuner's NVRTC compile had failed and its empty image was loaded."""

from __future__ import annotations

import os

import pytest

from kt_tui.gpu import nvrtc
from kt_tui.gpu import sanitize as san

from ..conftest import ROOT
from .test_sanitize import SOURCE, SPEC, fake_sanitizer, path_with  # noqa: F401 - the fixture

CORPUS = ROOT / "tests" / "corpus"
API_ONLY = """========= COMPUTE-SANITIZER
========= Program hit CUDA_ERROR_INVALID_IMAGE (error 200) due to "device kernel image is invalid" on CUDA API call to cuModuleLoadData.
=========     Saved host backtrace up to driver entry point at error
=========
Traceback (most recent call last):
RuntimeError: CUDA Driver error: CUDA_ERROR_INVALID_IMAGE
========= ERROR SUMMARY: 1 error
"""  # noqa: E501


def test_nvrtc_backends_get_maths_constants_and_nvcuda_the_cccl_folder(tmp_path, monkeypatch):
    (tmp_path / "include" / "cccl").mkdir(parents=True)
    (tmp_path / "include" / "cuda_runtime.h").write_text("")  # a toolkit's include folder
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    cccl = f"-I{tmp_path / 'include' / 'cccl'}"
    nv = nvrtc.backend_options("nvcuda", ["-DNAN=0.0f"])
    assert "-DINFINITY=__int_as_float(0x7f800000)" in nv and cccl in nv
    assert "-DNAN=0.0f" in nv and not [o for o in nv if o.startswith("-DNAN=__")]  # the user's definition stays
    cu = nvrtc.backend_options("cupy", [])
    assert "-DINFINITY=__int_as_float(0x7f800000)" in cu and cccl not in cu  # cupy adds its own CCCL
    assert nvrtc.backend_options("pycuda", ["-O3"]) == ["-std=c++17", "-O3"]  # nvcc: as the user wrote them
    (tmp_path / "include" / "cccl").rmdir()
    monkeypatch.setattr(nvrtc, "_cccl", lambda: None)
    assert not [o for o in nvrtc.backend_options("nvcuda", []) if "cccl" in o]  # before CUDA 13: no such folder


def test_without_cuda_home_nvcuda_gets_the_toolkits_include_folder_too(tmp_path, monkeypatch):
    """kernel_tuner's nvcuda backend adds CUDA's include folder only where CUDA_HOME (or CUDA_PATH,
    CUDA_ROOT) names it; nvcc finds its own. Without those variables the toolkit nvcc comes from is
    the one whose folders NVRTC is given (cooperative_groups.h is there, not in CCCL's folder)."""
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        monkeypatch.delenv(var, raising=False)
    toolkit = tmp_path / "cuda-13.9"
    (toolkit / "bin").mkdir(parents=True)
    (toolkit / "include" / "cccl").mkdir(parents=True)
    (toolkit / "include" / "cuda_runtime.h").write_text("")
    (toolkit / "bin" / "nvcc").write_text("#!/bin/sh\n")
    (toolkit / "bin" / "nvcc").chmod(0o755)
    monkeypatch.setenv("PATH", f"{toolkit / 'bin'}{os.pathsep}{os.environ['PATH']}")
    nv = nvrtc.backend_options("nvcuda", [])
    assert nv[-2:] == [f"-I{toolkit / 'include'}", f"-I{toolkit / 'include' / 'cccl'}"]
    monkeypatch.setenv("CUDA_HOME", str(toolkit))  # kernel_tuner adds the include folder itself
    assert nvrtc.backend_options("nvcuda", [])[-1:] == [f"-I{toolkit / 'include' / 'cccl'}"]
    assert not [o for o in nvrtc.backend_options("cupy", []) if o.startswith("-I")]  # cupy adds its own


@pytest.mark.parametrize("cuda_home", [True, False])
@pytest.mark.parametrize("name", ["gqa_scores_half2_3d", "cg_l2norm_rows_tile8"])
def test_nvrtc_compiles_with_the_nvcuda_options_what_it_could_not_compile_without(name, cuda_home, monkeypatch):
    """Real NVRTC (cuda-python's, no GPU needed): the kernel fails to compile with kernel_tuner's
    options alone and compiles with backend_options', with CUDA_HOME set or not."""
    bindings = pytest.importorskip("cuda.bindings.nvrtc")
    cccl = nvrtc._cccl()
    if cccl is None:
        pytest.skip("no CUDA 13 toolkit headers here")
    home = os.path.dirname(os.path.dirname(cccl))
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        monkeypatch.delenv(var, raising=False)
    if cuda_home:
        monkeypatch.setenv("CUDA_HOME", home)
    else:  # kernel_tuner finds no toolkit; backend_options finds it from the nvcc on PATH
        monkeypatch.setenv("PATH", f"{os.path.join(home, 'bin')}{os.pathsep}{os.environ.get('PATH', '')}")
        home = None
    source = (CORPUS / f"{name}.cu").read_text()

    def compiles(options: list[str]) -> bool:
        options = nvrtc.nvcuda_options(options, "90", [90], home)
        err, prog = bindings.nvrtcCreateProgram(source.encode(), b"k.cu", 0, [], [])
        result = bindings.nvrtcCompileProgram(prog, len(options), [o.encode() for o in options])
        bindings.nvrtcDestroyProgram(prog)
        return (result[0] if isinstance(result, tuple) else result) == bindings.nvrtcResult.NVRTC_SUCCESS

    assert not compiles(["-std=c++17"])
    assert compiles(nvrtc.backend_options("nvcuda", []))


def test_a_failed_module_load_under_memcheck_is_not_a_memory_error(tmp_path, path_with):  # noqa: F811
    path_with(fake_sanitizer(tmp_path / "bin", API_ONLY, status=1))
    report = san.sanitize(SOURCE, SPEC, {"block_size_x": 256}, "nvcuda")
    assert report.ok is None and report.errors == 1
    assert (
        report.reason.startswith("not a memory error: CUDA_ERROR_INVALID_IMAGE") and "cuModuleLoadData" in report.reason
    )
    assert "compile for this backend likely failed" in report.reason


def test_an_api_error_beside_a_bad_access_still_fails(tmp_path, path_with):  # noqa: F811
    bad = API_ONLY.replace(
        "========= ERROR SUMMARY: 1 error",
        "========= Invalid __global__ write of size 4 bytes\n========= ERROR SUMMARY: 2 errors",
    )
    path_with(fake_sanitizer(tmp_path / "bin", bad, status=1))
    report = san.sanitize(SOURCE, SPEC, {"block_size_x": 256}, "nvcuda")
    assert report.ok is False and report.errors == 2


ASSERTED = """========= COMPUTE-SANITIZER
========= Program hit CUDA_ERROR_ASSERT (error 710) due to "device-side assert triggered" on CUDA API call to cuCtxSynchronize.
=========     Saved host backtrace up to driver entry point at error
Traceback (most recent call last):
RuntimeError: CUDA Driver error: CUDA_ERROR_ASSERT
========= ERROR SUMMARY: 1 error
"""  # noqa: E501


def test_a_kernel_that_fails_as_it_runs_under_memcheck_is_not_called_a_failed_compile():
    """An assert, a trap or a launch the driver refuses shows under memcheck as a CUDA call's error
    alone: the kernel loaded and did not complete, which is a failure, not an unknown."""
    report = san.parse_output(san.SanitizeReport("memcheck", None), ASSERTED, 1)
    assert report.ok is False and report.errors == 1
    assert "did not complete" in report.reason and "CUDA_ERROR_ASSERT" in report.reason
    assert "compile" not in report.reason


NOT_FOUND = (
    '========= Program hit CUDA_ERROR_NOT_FOUND (error 500) due to "named symbol not found" on CUDA API call'
    " to cuModuleGetGlobal_v2.\n"
)


def test_a_benign_api_error_then_a_failed_run_is_a_failure():
    """cuModuleGetGlobal's NOT_FOUND (a name the kernel lacks) is harmless; the launch failure after it is not."""
    after = f"========= COMPUTE-SANITIZER\n{NOT_FOUND}{san.RAN}\n========= ERROR SUMMARY: 1 error\n"
    report = san.parse_output(san.SanitizeReport("memcheck", None), after, 0)
    assert report.ok is True and report.reason.startswith("not a memory error: CUDA_ERROR_NOT_FOUND")
    both = ASSERTED.replace("========= Program hit", NOT_FOUND + "========= Program hit", 1)
    report = san.parse_output(san.SanitizeReport("memcheck", None), both.replace("1 error", "2 errors"), 1)
    assert report.ok is False and report.errors == 2 and "CUDA_ERROR_ASSERT" in report.reason


@pytest.mark.gpu
@pytest.mark.parametrize("backend", ["nvcuda", "cupy"])
def test_a_kernel_that_traps_fails_memcheck_on_a_gpu(backend):
    """On a GPU: a kernel that loads and traps as it runs is a failure under memcheck (ok False),
    whatever the tool prints for it, never an unknown blamed on its compile."""
    pytest.importorskip({"nvcuda": "cuda.bindings", "cupy": "cupy"}[backend])
    good = (ROOT / "tests" / "faults" / "scaled_add.cu").read_text()
    trapping = good.replace("{", "{\n    if (blockIdx.x == 0 && threadIdx.x == 0) __trap();", 1)
    report = san.sanitize(trapping, SPEC, {"block_size_x": 256}, backend, timeout_s=120)
    assert report.ok is False, report.reason + "\n" + report.text
    assert "compile" not in report.reason


def test_errors_past_the_print_limit_are_counted_once():
    """compute-sanitizer says how many of its errors it left unprinted on a second ERROR SUMMARY line;
    that is part of the total, not more errors."""
    text = (
        "========= COMPUTE-SANITIZER\n========= Invalid __global__ write of size 4 bytes\n"
        "========= ERROR SUMMARY: 25 errors\n"
        "========= ERROR SUMMARY: 5 errors were not printed. Use --print-limit option to adjust the number of "
        "printed errors\n"
    )
    report = san.parse_output(san.SanitizeReport("memcheck", None), text, 1)
    assert report.ok is False and report.errors == 25
