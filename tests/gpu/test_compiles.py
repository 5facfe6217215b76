"""The app's compile pool (gpu/compiles.py), on the CPU: kernel strings as kernel_tuner makes them,
real sm_90 cubins from nvcc, batches with each configuration's machine code as alone, one compile
per kernel string, the compiler's errors, a bounded window, nothing left running after close()."""

import copy
import itertools
import os
import shutil
import time
import types
from pathlib import Path

import pytest

from kt_tui.gpu.compiled import Compiled, skippable
from kt_tui.gpu.compiles import CompilePool
from kt_tui.gpu.elf import elf_section, elf_sections
from kt_tui.gpu.ktsource import kernel_string, problem_size, tuner_defines
from kt_tui.gpu.nvcc import pycuda_arguments
from kt_tui.gpu.nvrtc import _makes_code, nvcuda_options
from kt_tui.kernel.expr import launch_callables
from kt_tui.kernel.source import find_kernels
from kt_tui.kernel.spec import load_spec
from kt_tui.kernel.text import compile_options, instantiations_wrapped

from ..helpers import fake_nvcc

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
NVCC = shutil.which("nvcc")
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="no nvcc here")


def _spec(path: Path):
    source = path.read_text()
    return load_spec(
        path.parent / "specs" / f"{path.name}.toml" if path.parent == CORPUS else Path(f"{path}.toml"),
        find_kernels(source)[0],
    ), source


def _configs(spec, n: int) -> list[dict]:
    names = list(spec.tune_params)
    return [dict(zip(names, v)) for v in itertools.islice(itertools.product(*spec.tune_params.values()), n)]


def _kernel_tuner_instance(spec, source: str, params: dict) -> tuple[str, str]:
    """kernel_tuner's own KernelInstance for `params`: its KernelSource and kernel_options made as
    tune_kernel makes them from the arguments the device worker passes it (the source with a template's
    explicit instantiations blanked, as kt-tui hands it over), then DeviceInterface.create_kernel_instance
    (on a stand-in without a device)."""
    from kernel_tuner import core, util
    from kernel_tuner.interface import Options, _kernel_options

    source = instantiations_wrapped(source, spec.kernel)
    names = util.check_block_size_params_names_list(spec.block_size_names, spec.tune_params)
    util.append_default_block_size_names(names)
    given = dict(
        kernel_name=spec.kernel,
        kernel_source=source,
        lang="CUDA",
        problem_size=problem_size(spec),
        arguments=[],
        block_size_names=names,
        defines=tuner_defines(spec),
        cmem_args=None,
        texmem_args=None,
        smem_args=None,
        **launch_callables(spec),
    )
    options = Options([(k, given.get(k)) for k in _kernel_options])
    kernel_source = core.KernelSource(spec.kernel, source, "CUDA", given["defines"])
    stand_in = types.SimpleNamespace(dev=types.SimpleNamespace(max_threads=2**31))
    instance = core.DeviceInterface.create_kernel_instance(stand_in, kernel_source, options, params, False)
    return instance.name, instance.kernel_string


KERNELS = sorted(p for p in CORPUS.glob("*.cu") if (CORPUS / "specs" / f"{p.name}.toml").exists())
EXAMPLES = sorted((ROOT / "examples").glob("*.cu"))


@pytest.mark.parametrize("path", KERNELS + EXAMPLES, ids=lambda p: p.name)
def test_the_kernel_string_is_kernel_tuners(path):
    spec, source = _spec(path)
    for params in _configs(spec, 2):
        assert kernel_string(spec, source, params) == _kernel_tuner_instance(spec, source, params)


def test_defines_block_size_names_and_a_tuned_problem_size_as_kernel_tuner_has_them():
    spec, source = _spec(ROOT / "examples" / "matmul.cu")
    variants = []
    named = copy.deepcopy(spec)
    named.tune_params = {"tx": [16, 32], "ty": [4, 8]}
    named.block_size_names = ["tx", "ty"]
    named.grid_div_x, named.grid_div_y = ["tx"], ["ty"]
    named.restrictions = []
    variants.append(named)
    defined = copy.deepcopy(spec)
    defined.defines = {"TILE": "n / 4", "ALPHA": 2.5}
    variants.append(defined)
    only = copy.deepcopy(defined)
    only.defines_only = True
    variants.append(only)
    tuned = copy.deepcopy(spec)
    tuned.problem_size = ["n / block_size_y", "n"]
    assert tuned.tuned_problem_size()
    variants.append(tuned)
    for v in variants:
        for params in _configs(v, 3):
            mine = kernel_string(v, source, params)
            assert mine == _kernel_tuner_instance(v, source, params)
    assert "#define TILE 256" in kernel_string(defined, source, _configs(defined, 1)[0])[1]
    assert "#define block_size_x" not in kernel_string(only, source, _configs(only, 1)[0])[1]


def test_a_templated_kernel_gets_kernel_tuners_wrapper_and_name():
    spec, source = _spec(CORPUS / "axpy_template.cu")
    name, text = kernel_string(spec, source, _configs(spec, 1)[0])
    assert (
        "<" not in name
        and 'extern "C"' in text
        and (name, text) == _kernel_tuner_instance(spec, source, _configs(spec, 1)[0])
    )


def test_an_unknown_backend_is_refused_by_name():
    with pytest.raises(ValueError, match="backend 'sim'"):
        CompilePool("sim", "90", [])
    with pytest.raises(ValueError, match="compute capability 'sm_90'"):
        CompilePool("pycuda", "sm_90", [])


# -- nvcc ---------------------------------------------------------------------------------------
def _items(path: Path, n: int):
    spec, source = _spec(path)
    return spec, [(str(i), *kernel_string(spec, source, p)) for i, p in enumerate(_configs(spec, n))]


def _sm(cubin: bytes) -> int:
    """The SM a cubin's code is for (its ELF header's flags, EF_CUDA_SM)."""
    import struct

    flags = struct.unpack_from("<I", cubin, 0x30)[0]
    return (flags >> 8) & 0xFF if flags & 0xFF00 else flags & 0xFF


@needs_nvcc
def test_the_pool_makes_linked_sm90_cubins_holding_the_kernel(monkeypatch):
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "1")
    spec, items = _items(ROOT / "examples" / "matmul.cu", 2)
    with CompilePool("pycuda", "90", compile_options(spec.compiler_options)) as pool:
        done = [pool.submit(*item).result(timeout=300) for item in items]
    for (_, name, _), c in zip(items, done, strict=True):
        assert isinstance(c, Compiled) and c.error is None and c.binary and c.ms > 0, c
        assert c.binary[:4] == b"\x7fELF" and _sm(c.binary) == 90
        sections = elf_sections(c.binary)
        assert sections.get(f".text.{name}"), sorted(sections)
        assert c.symbol is None
    assert done[0].binary != done[1].binary  # two configurations, two codes


@needs_nvcc
def test_a_batch_gives_each_configuration_the_machine_code_it_has_alone(monkeypatch):
    spec, items = _items(CORPUS / "matmul_rect.cu", 5)
    options = compile_options(spec.compiler_options)
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "1")
    with CompilePool("pycuda", "90", options) as pool:
        alone = [f.result(timeout=600) for f in pool.ahead(items).values()]
    assert pool.batches == 0
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "8")
    with CompilePool("pycuda", "90", options, size=1) as pool:
        together = [f.result(timeout=600) for f in pool.ahead(items).values()]
    assert pool.batches == 1 and pool.batches_failed == 0 and pool.trusted
    assert len({c.binary for c in together}) == 1  # one nvcc call, one cubin
    for (_, name, _), a, b in zip(items, alone, together, strict=True):
        assert b.symbol and b.symbol != name
        code = elf_section(a.binary, f".text.{name}")
        assert code and elf_section(b.binary, f".text.{b.symbol}") == code, name


@needs_nvcc
def test_a_kernel_string_compiles_once(monkeypatch):
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "1")
    spec, items = _items(ROOT / "examples" / "vector_add.cu", 1)
    _, name, text = items[0]
    with CompilePool("pycuda", "90", compile_options(spec.compiler_options)) as pool:
        first, again = pool.submit("a", name, text), pool.submit("b", name, text)
        assert first is again  # under way: the same compile
        done = first.result(timeout=300)
        later = pool.ahead([("c", name, text)])["c"]
        assert later.done() and later.result() == done  # finished: from the cache
        assert pool.compiled == 1


@needs_nvcc
def test_a_compile_error_comes_back_as_nvccs_text(monkeypatch):
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "8")
    text = "__global__ void broken(float *x) { x[0] = undeclared_thing; }\n"
    good = "__global__ void fine(float *x) { x[0] = 1.0f; }\n"
    with CompilePool("pycuda", "90", ["-std=c++17"], size=1) as pool:
        futures = pool.ahead([("bad", "broken", text), ("good", "fine", good)])
        bad, ok = futures["bad"].result(timeout=300), futures["good"].result(timeout=300)
    assert bad.binary is None and "undeclared_thing" in bad.error and "error" in bad.error
    assert ok.error is None and ok.binary  # the failed batch's other member, compiled alone
    assert pool.batches == 1 and pool.batches_failed == 1


@needs_nvcc
def test_the_window_bounds_what_is_compiled_ahead_of_what_was_asked_for(monkeypatch):
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "1")
    spec, items = _items(ROOT / "examples" / "vector_add.cu", 6)
    with CompilePool("pycuda", "90", compile_options(spec.compiler_options), size=2, window=2) as pool:
        futures = pool.ahead(items)
        for key in ("0", "1"):
            futures[key].result(timeout=300)
        time.sleep(0.5)
        assert [futures[k].done() for k in "2345"] == [False] * 4 and len(pool.queued) == 4
        pool.submit(*items[0])  # the queue's head asked for: one more starts
        assert len(pool.queued) == 3
        assert pool.submit(*items[5]) is futures["5"]  # asked for out of turn: it goes now
        assert futures["5"].result(timeout=300).binary and len(pool.queued) == 2
        pool.drop()
        assert futures["3"].cancelled() and not pool.queued


def _children() -> set[int]:
    """This process's children, but multiprocessing's resource tracker (one a process, for good)."""
    out: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            out |= {int(p) for p in (task / "children").read_text().split()}
        except OSError:
            pass
    return {pid for pid in out if b"resource_tracker" not in _cmdline(pid)}


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _nvcc_sleeping(tmp_path: Path, monkeypatch, dump: Path | None = None) -> None:
    """An `nvcc` first on PATH that writes its environment to `dump` and then hangs."""
    fake_nvcc(tmp_path, monkeypatch, f"env > {dump or '/dev/null'}\nexec sleep 300")


def test_close_stops_nvcc_and_leaves_no_process(tmp_path, monkeypatch):
    dump = tmp_path / "env.txt"
    _nvcc_sleeping(tmp_path, monkeypatch, dump)
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-nvcc")
    before = _children()
    pool = CompilePool("pycuda", "90", [], size=2)
    futures = pool.ahead([(str(i), "k", f"__global__ void k() {{ /* {i} */ }}") for i in range(4)])
    deadline = time.monotonic() + 20
    while not (dump.exists() and len(_children() - before) >= 2) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(_children() - before) >= 2  # two nvcc running
    pool.close()
    # the fake nvcc's own processes (`exec sleep 300`): another test's leftover compile may start
    # a child of this process meanwhile, which is not this pool's
    assert {pid for pid in _children() - before if _cmdline(pid).startswith(b"sleep\x00300")} == set()
    assert all(f.done() for f in futures.values())
    assert "OPENAI_API_KEY" not in dump.read_text() and "sk-not-for-nvcc" not in dump.read_text()


def test_the_nvrtc_processes_start_without_secrets_and_end_with_close(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_not-for-nvrtc")
    before = _children()
    pool = CompilePool("nvcuda", "90", [], size=2)
    started = _children() - before
    try:
        assert len(started) == 2
        for pid in started:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
            assert b"GITHUB_TOKEN" not in environ and b"ghp_not" not in environ
        assert os.environ["GITHUB_TOKEN"] == "ghp_not-for-nvrtc"  # the app's own is back
        # without NVRTC here (no cuda-python): not compiled ahead, the device worker compiles it
        done = pool.submit("0", "k", "__global__ void k() {}").result(timeout=120)
        if done.binary is None:
            assert done.error is None
    finally:
        pool.close()
    assert _children() - before == set()


def test_nvrtc_options_are_kernel_tuners_with_code_for_this_gpu():
    opts = nvcuda_options(["-std=c++17", "-O3"], "90", [75, 80, 86, 89, 90], "/usr/local/cuda")
    assert opts == ["-std=c++17", "-O3", "--gpu-architecture=sm_90", "-I/usr/local/cuda/include"]
    # a GPU newer than NVRTC knows: PTX for the nearest below, as kernel_tuner asks for
    assert nvcuda_options([], "120", [80, 90], None) == ["--std=c++11", "--gpu-architecture=compute_90"]
    assert nvcuda_options(["-arch=compute_80"], "90", [90], None) == ["-arch=compute_80", "--std=c++11"]
    assert not _makes_code(["-arch=compute_80"]) and _makes_code(["--gpu-architecture=sm_90"])


def test_pycuda_arguments_are_kernel_tuners():
    options, wrap = pycuda_arguments("90", ["-std=c++17"], "k", "__global__ void k() {}")
    assert options[:6] == ["-Xcompiler=-Wall", "-std=c++17", "-e", "k", "-rdc=true", "-lcudadevrt"]
    assert options[6:10] == ["-arch", "compute_90", "-code", "sm_90"] and wrap
    assert not pycuda_arguments("90", [], "k", 'extern "C" __global__ void k() {}')[1]


@needs_nvcc
def test_too_much_shared_memory_is_what_kernel_tuner_skips(monkeypatch):
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "1")
    text = "__global__ void big(float *x, int i) { __shared__ float s[65536]; s[threadIdx.x] = 1; x[0] = s[i]; }\n"
    with CompilePool("pycuda", "90", ["-std=c++17"], size=1) as pool:
        done = pool.submit("0", "big", text).result(timeout=300)
    assert done.binary is None and skippable(done.error), done.error
    assert not skippable('kernel.cu(1): error: identifier "x" is undefined')


def _no_nvrtc() -> bool:
    try:
        from cuda.bindings import nvrtc

        return nvrtc.nvrtcVersion()[0] != nvrtc.nvrtcResult.NVRTC_SUCCESS
    except Exception:  # noqa: BLE001 - no cuda-python, or no libnvrtc for it
        return True


@pytest.mark.skipif(_no_nvrtc(), reason="no NVRTC here (cuda-python and libnvrtc)")
def test_nvrtc_makes_an_sm90_cubin_under_the_lowered_name_and_says_its_errors():
    text = "__global__ void saxpy(float *y, const float *x, float a, int n) { y[0] = a * x[0] + y[0]; }\n"
    with CompilePool("nvcuda", "90", ["-std=c++17"], size=1) as pool:
        done = pool.submit("0", "saxpy", text).result(timeout=300)
        plain = pool.submit("1", "saxpy", 'extern "C" ' + text).result(timeout=300)
        bad = pool.submit("2", "k", "__global__ void k(float *x) { x[0] = nope; }").result(timeout=300)
    assert done.binary[:4] == b"\x7fELF" and _sm(done.binary) == 90 and done.symbol == "_Z5saxpyPfPKffi"
    assert elf_section(done.binary, ".text._Z5saxpyPfPKffi")
    assert plain.binary and plain.symbol is None
    assert bad.binary is None and 'identifier "nope" is undefined' in bad.error


def test_nvrtc_processes_killed_are_started_again(monkeypatch):
    before = _children()
    pool = CompilePool("nvcuda", "90", [], size=2)
    try:
        first = _children() - before
        os.kill(sorted(first)[0], 9)
        done = pool.submit("0", "k", "__global__ void k() {}").result(timeout=120)
        assert done.error is None and pool.restarts == 1  # compiled on new processes (or NVRTC is not here)
        deadline = time.monotonic() + 20
        while len(_children() - before - first) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(_children() - before - first) == 2  # two new processes
        later = pool.submit("1", "k", "__global__ void k(int x) {}").result(timeout=120)
        assert later.binary is not None or later.error is None  # compiled, or NVRTC is not here
    finally:
        pool.close()
    assert _children() - before == set()
    with pytest.raises(RuntimeError, match="closed"):
        pool.submit("2", "k", "__global__ void k() {}")


@needs_nvcc
def test_batch_1_gives_each_kernel_a_cubin_of_its_own_whatever_the_environment_says(monkeypatch):
    # the mutants' check child sorts mutants by their machine code (gpu/mutants.py machine_code): a
    # batch's members all carry the batch's one cubin, which made every mutant of a batch "the same
    # code" as the original there (two GPU tests of issue 35 failed on the H100, session 11)
    from kt_tui.gpu.mutants import machine_code

    items = [(str(v), f"k{v}", f"__global__ void k{v}(float *x) {{ x[0] = {v}.0f; }}\n") for v in (1, 2, 3)]
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "8")
    with CompilePool("pycuda", "90", ["-std=c++17"], size=1) as pool:
        batched = [f.result(timeout=600) for f in pool.ahead(items).values()]
    assert pool.batches == 1 and len({machine_code(c.binary) for c in batched}) == 1  # the hazard
    with CompilePool("pycuda", "90", ["-std=c++17"], size=1, batch=1) as pool:
        alone = [f.result(timeout=600) for f in pool.ahead(items).values()]
    assert pool.batches == 0
    assert len({machine_code(c.binary) for c in alone}) == 3
