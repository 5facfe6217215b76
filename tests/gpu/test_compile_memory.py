"""A compiler's memory is held (gpu/env.py): a kernel that includes a device file (`#include
"/dev/zero"`) ends in a one-line error, not in the machine's OOM killer (the hostile tester, session 22)."""

import os
import resource
import shutil
import subprocess
import sys

import pytest

from kt_tui.gpu import env, nvcc

from ..helpers import fake_nvcc

KERNEL = '#include "/dev/zero"\n__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n'


def test_nvcc_and_what_it_starts_run_under_the_memory_limit(tmp_path, monkeypatch):
    fake_nvcc(tmp_path, monkeypatch, "ulimit -d; sh -c 'ulimit -d'")
    monkeypatch.setattr(env, "compile_memory", lambda: 3 << 30)
    rc, log = nvcc.run_nvcc(["--version"], str(tmp_path), None, timeout_s=30)
    assert rc == 0
    assert log.split() == [str(3 << 20), str(3 << 20)]  # KiB, in nvcc and in a process it starts


def test_a_compiler_out_of_memory_is_said_with_the_limit(tmp_path, monkeypatch):
    fake_nvcc(tmp_path, monkeypatch, "echo 'cc1plus: out of memory allocating 1073741840 bytes' >&2; exit 1")
    monkeypatch.setattr(env, "compile_memory", lambda: 2 << 30)
    monkeypatch.setattr(nvcc, "compile_memory", lambda: 2 << 30)
    rc, log = nvcc.run_nvcc(["--cubin", "k.cu"], str(tmp_path), None, timeout_s=30)
    assert rc == 1
    assert "nvcc ran out of the 2 GiB of memory a compile may take" in log


def test_a_missing_nvcc_is_still_an_oserror(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(OSError):
        nvcc.run_nvcc(["--version"], str(tmp_path), None, nvcc="nvcc-not-here")


def test_the_limit_is_half_the_machine_at_most_8_gib():
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    soft = resource.getrlimit(resource.RLIMIT_DATA)[0]
    half = max(1 << 30, min(8 << 30, physical // 2))
    assert env.compile_memory() == (half if soft == resource.RLIM_INFINITY else min(half, soft))


def test_a_lower_data_limit_the_user_set_is_kept_not_raised():
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_DATA, (1536 << 20, resource.RLIM_INFINITY)); "
        "from kt_tui.gpu.env import limit_compile_memory, memory_limited; import subprocess; "
        "print(subprocess.run(memory_limited(['sh', '-c', 'ulimit -d']), capture_output=True, text=True).stdout); "
        "limit_compile_memory(); print(resource.getrlimit(resource.RLIMIT_DATA)[0])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == [str(1536 << 10), str(1536 << 20)]  # KiB for nvcc's shell, bytes for NVRTC's


def test_an_nvrtc_process_holds_its_own_data():
    code = (
        "import resource; from kt_tui.gpu.env import limit_compile_memory; limit_compile_memory(1 << 30); "
        "print(resource.getrlimit(resource.RLIMIT_DATA)[0]); "
        "x = bytearray(2 << 30)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split()[0] == str(1 << 30)
    assert out.returncode != 0 and "MemoryError" in out.stderr


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc here")
def test_a_kernel_including_dev_zero_stops_at_the_limit_in_nvcc(tmp_path, monkeypatch):
    monkeypatch.setattr(env, "compile_memory", lambda: 1 << 30)
    monkeypatch.setattr(nvcc, "compile_memory", lambda: 1 << 30)
    (tmp_path / "k.cu").write_text(KERNEL)
    rc, log = nvcc.run_nvcc(["--cubin", "-arch=sm_90", "k.cu"], str(tmp_path), None, timeout_s=120)
    assert rc not in (0, None)
    assert "nvcc ran out of the 1 GiB of memory a compile may take" in log


@pytest.mark.parametrize(
    "echo",
    [  # nvcc's and gcc's echo of a kernel line under an error about it
        'k.cu(2): error: identifier "y" is undefined\n    const char *m = "out of memory"; x[0] = y;\n'
        "                                            ^\n",
        "k.cpp:1:50: error: 'y' was not declared in this scope\n"
        '    1 | int f(){ const char *m = "out of memory"; return y; } // std::bad_alloc\n'
        "      |                                                  ^\n",
    ],
    ids=["nvcc", "gcc"],
)
def test_a_kernel_line_saying_out_of_memory_is_no_out_of_memory(tmp_path, monkeypatch, echo):
    (tmp_path / "said.txt").write_text(echo)
    fake_nvcc(tmp_path, monkeypatch, f"cat '{tmp_path / 'said.txt'}'; exit 1")
    rc, log = nvcc.run_nvcc(["--cubin", "k.cu"], str(tmp_path), None, timeout_s=30)
    assert rc == 1 and 'out of memory"' in log
    assert "kt-tui: nvcc ran out" not in log


@pytest.mark.gpu
@pytest.mark.parametrize(
    "flavour, module", [("nvcuda", "cuda.bindings.nvrtc"), ("cupy", "cupy_backends.cuda.libs.nvrtc")]
)
def test_nvrtc_still_compiles_under_the_pool_processes_limit(flavour, module):
    """The pool's processes import NVRTC (cuda-python's or cupy's) after limit_compile_memory: the
    libraries' mappings must fit under it, at the smallest limit (1 GiB) a machine gets."""
    pytest.importorskip(module)
    code = (
        "from kt_tui.gpu.env import limit_compile_memory; limit_compile_memory(1 << 30); "
        "from kt_tui.gpu.nvrtc import nvrtc_job; "
        "b = nvrtc_job('extern \"C\" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }', 'k', "
        f"'{flavour}', (), '90'); print(len(b[0]) > 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.stdout.split()[-1:] == ["True"], out.stderr


def test_an_nvcc_found_through_a_relative_path_entry_runs_from_the_compile_folder(tmp_path, monkeypatch):
    fake = tmp_path / "bin" / "nvcc"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho fake nvcc ran\n")
    fake.chmod(0o755)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f"bin{os.pathsep}{os.environ['PATH']}")
    rc, log = nvcc.run_nvcc(["--version"], str(tmp_path / "work"), None, timeout_s=30)
    assert (rc, log.strip()) == (0, "fake nvcc ran")


def test_a_limit_below_a_gib_is_said_as_it_is(tmp_path, monkeypatch):
    fake_nvcc(tmp_path, monkeypatch, "echo 'cc1plus: out of memory allocating 1073741840 bytes' >&2; exit 1")
    monkeypatch.setattr(env, "compile_memory", lambda: 512 << 20)  # a user's own `ulimit -S -d`, kept
    monkeypatch.setattr(nvcc, "compile_memory", lambda: 512 << 20)
    rc, log = nvcc.run_nvcc(["--cubin", "k.cu"], str(tmp_path), None, timeout_s=30)
    assert rc == 1 and "nvcc ran out of the 0.5 GiB of memory a compile may take" in log
