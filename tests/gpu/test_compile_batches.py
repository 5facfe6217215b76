"""Several configurations in one nvcc call (gpu/device/batching.py): the same machine code as each
compiled alone, checked where it matters, and compiled alone again wherever a batch fails."""

import itertools
import shutil
import subprocess
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from kt_tui.gpu.device import compiled
from kt_tui.gpu.device.batching import alias, batch_source, batchable, elf_section, functions
from kt_tui.gpu.ktsource import kernel_string
from kt_tui.kernel.source import find_kernels
from kt_tui.kernel.spec import load_spec

from .test_compile_ahead import _pycuda_backend, fake_pycuda  # noqa: F401 - the fixture

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
NVCC = shutil.which("nvcc")


def _nvcc(tmp: Path, source: str, entries: list[str], tag: str) -> bytes:
    """What pycuda's compile runs for kernel_tuner's relocatable code (DynamicSourceModule), to a cubin."""
    src, out = tmp / f"{tag}.cu", tmp / f"{tag}.cubin"
    src.write_text(source)
    cmd = [NVCC, "--cubin", "-rdc=true", "-arch=sm_90", "-Xcompiler=-Wall", "-e", ",".join(entries)]
    subprocess.run([*cmd, "-o", str(out), str(src)], check=True, capture_output=True, timeout=300)
    return out.read_bytes()


def _configs(spec, n: int) -> list[dict]:
    names = list(spec.tune_params)
    return [dict(zip(names, values)) for values in itertools.islice(itertools.product(*spec.tune_params.values()), n)]


@pytest.mark.skipif(NVCC is None, reason="no nvcc here")
@pytest.mark.parametrize(
    "name", ["matmul_rect", "nbody", "histogram", "stencil3d", "softmax_rows", "warp_sum", "expdist_device"]
)
def test_each_configuration_of_a_batch_has_the_machine_code_it_has_alone(tmp_path, name):
    source = (CORPUS / f"{name}.cu").read_text()
    spec = load_spec(CORPUS / "specs" / f"{name}.cu.toml", find_kernels(source)[0])
    named = [kernel_string(spec, source, params) for params in _configs(spec, 3)]
    assert len(named) == 3 and all(batchable(k, text) for k, text in named), name
    kernel = named[0][0]
    batch = _nvcc(tmp_path, batch_source(named, functions(named[0][1])), [alias(kernel, i) for i in range(3)], "b")
    for i, (_, text) in enumerate(named):
        wrapped = text if 'extern "C"' in text else 'extern "C" {\n' + text + "\n}\n"
        alone = _nvcc(tmp_path, wrapped, [kernel], f"a{i}")
        code = elf_section(alone, f".text.{kernel}")
        assert code, f"{name}: no machine code for {kernel}"
        assert elf_section(batch, f".text.{alias(kernel, i)}") == code, f"{name}, configuration {i}"


def test_what_would_change_in_a_namespace_is_compiled_alone():
    assert batchable("k", "__global__ void k(float *x) { x[0] = 1; }")
    assert not batchable("k", "#include <cuda_fp16.h>\n__global__ void k(half *x) {}")
    assert not batchable("k", "__constant__ float c[4];\n__global__ void k(float *x) { x[0] = c[0]; }")
    assert not batchable("k<float>", "template <typename T> __global__ void k(T *x) {}")
    # counts on from one configuration to the next in a batch: only the first is checked against alone
    assert not batchable("k", "__global__ void k(int *x) { x[0] = __COUNTER__; }")


def test_a_batch_undefines_each_configurations_macros_and_renames_its_functions():
    one = "#define block_size_x 32\n#define HALF (block_size_x / 2)\n__device__ int f() { return HALF; }\n__global__ void k() {}"
    text = batch_source([("k", one), ("k", one.replace("32", "64"))], {"k", "f"})
    first, second = text.split("namespace kt_batch1 {")
    for macro in ("block_size_x", "HALF", "k", "f"):
        assert first.count(f"#undef {macro}\n") == 1 and f"#undef {macro}\n" in second
    assert "#define f f__kt_batch1\n#define k k__kt_batch1\n" in first and "block_size_x 64" in second


def _runner(backend, source="__global__ void k() {}"):
    def instance(src, options, params, _):
        return types.SimpleNamespace(kernel_string=f"// {params}\n{src}", name="k")

    dev = types.SimpleNamespace(dev=backend, create_kernel_instance=instance)
    return types.SimpleNamespace(dev=dev, kernel_source=source, kernel_options=None), instance


def _elf(sections: dict[str, bytes]) -> bytes:
    """A minimal 64-bit little-endian ELF file with these sections (what elf_section reads of a cubin)."""
    import struct

    names = b"\0" + b"".join(n.encode() + b"\0" for n in [*sections, ".shstrtab"])
    body, headers, at = b"", [b"\0" * 64], 64
    offsets = {}
    for n, data in [*sections.items(), (".shstrtab", names)]:
        offsets[n] = at + len(body)
        body += data
    shoff = 64 + len(body)
    for n, data in [*sections.items(), (".shstrtab", names)]:
        headers.append(
            struct.pack("<IIQQQQIIQQ", names.index(n.encode() + b"\0"), 1, 0, 0, offsets[n], len(data), 0, 0, 1, 0)
        )
    head = bytearray(64)
    head[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<Q", head, 0x28, shoff)
    struct.pack_into("<HHH", head, 0x3A, 64, len(headers), len(headers) - 1)
    return bytes(head) + body + b"".join(headers)


def test_elf_section_reads_a_cubins_sections():
    blob = _elf({".text.k": b"\x01\x02\x03", ".nv.info": b"xx"})
    assert elf_section(blob, ".text.k") == b"\x01\x02\x03" and elf_section(blob, ".nv.info") == b"xx"
    assert elf_section(blob, ".text.j") is None and elf_section(b"not elf", ".text.k") is None


def _fake_nvcc(fake_pycuda, monkeypatch, batch_code=b"CODE", fails=lambda source: False):
    """nvcc as pycuda runs it, faked: a batch's cubin holds each member's kernel (machine code
    `batch_code`), one alone holds `k` (b"CODE"); `fails(source)` makes a call fail as ptxas would."""
    from kt_tui.gpu.device import batching, compilers

    compiler, calls = fake_pycuda

    def compile(source, **kwargs):
        calls["compile"].append((source, kwargs))
        if fails(source):
            raise RuntimeError("ptxas: too much shared data")
        n = source.count("namespace kt_batch")
        return _elf({f".text.{alias('k', i)}": batch_code for i in range(n)} if n else {".text.k": b"CODE"})

    monkeypatch.setattr(compiler, "compile", compile)
    monkeypatch.setattr(compilers, "device_link", lambda cubin, code: cubin)
    monkeypatch.setattr(batching, "functions", lambda text: {"k"})
    backend = _pycuda_backend(compiler.DynamicSourceModule, [])
    backend.compile = lambda inst: pytest.fail("compiled by kernel_tuner in the measuring process")
    runner, instance = _runner(backend)
    return backend, runner, instance, calls


def test_the_prefetcher_compiles_eight_configurations_a_call_and_loads_each_from_the_batch(fake_pycuda, monkeypatch):
    from kt_tui.gpu.device import batching, compilers
    from kt_tui.gpu.device.prefetch import Prefetcher

    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "8")
    compiler, calls = fake_pycuda
    same = _elf({".text.k": b"CODE"})

    def compile(source, **kwargs):
        calls["compile"].append((source, kwargs))
        sections = {f".text.{alias('k', i)}": b"CODE" for i in range(source.count("namespace kt_batch"))}
        return _elf(sections) if sections else same

    monkeypatch.setattr(compiler, "compile", compile)
    monkeypatch.setattr(compilers, "device_link", lambda cubin, code: b"linked:" + cubin)
    monkeypatch.setattr(batching, "functions", lambda text: {"k"})
    backend = _pycuda_backend(compiler.DynamicSourceModule, [])
    backend.compile = lambda inst: pytest.fail("compiled again in the measuring process")
    runner, instance = _runner(backend)
    ahead = Prefetcher(runner, pool=ThreadPoolExecutor(4))
    configs = [{"b": b} for b in range(16)]
    assert ahead.upcoming(configs) == 16
    funcs = [backend.compile(instance(runner.kernel_source, None, c, False)) for c in configs]
    ahead.close()
    assert [f.name for f in funcs] == [alias("k", i % 8) for i in range(16)]
    batches = [s for s, kw in calls["compile"] if "namespace kt_batch" in s]
    assert len(batches) == 2 and all(s.count("namespace kt_batch") == 8 for s in batches)
    assert [kw["options"][kw["options"].index("-e") + 1] for s, kw in calls["compile"] if s in batches][0] == ",".join(
        alias("k", i) for i in range(8)
    )
    assert len(calls["compile"]) == 3  # the first batch's check: its first configuration compiled alone
    assert ahead.stats["batches"] == 2 and ahead.stats["batches_failed"] == 0 and ahead.stats["used"] == 16


def test_a_batch_whose_machine_code_differs_stops_batching_and_all_compile_alone(fake_pycuda, monkeypatch):
    from kt_tui.gpu.device.prefetch import Prefetcher

    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "4")
    backend, runner, instance, calls = _fake_nvcc(fake_pycuda, monkeypatch, batch_code=b"OTHER")
    ahead = Prefetcher(runner, pool=ThreadPoolExecutor(1))
    configs = [{"b": b} for b in range(8)]
    ahead.upcoming(configs)
    ahead.pool.submit(lambda: None).result()  # the batches are done (one thread: in order)
    funcs = [backend.compile(instance(runner.kernel_source, None, c, False)) for c in configs]
    ahead.close()
    assert [f.name for f in funcs] == ["k"] * 8  # every one from its own compile
    assert ahead.stats["batches_failed"] >= 1 and ahead.batch == 1


def test_a_batch_that_fails_to_compile_is_compiled_one_by_one(fake_pycuda, monkeypatch):
    from kt_tui.gpu.device.prefetch import Prefetcher

    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "4")
    fails = lambda source: "{'b': 5}" in source and "namespace" in source  # noqa: E731
    backend, runner, instance, calls = _fake_nvcc(fake_pycuda, monkeypatch, fails=fails)
    ahead = Prefetcher(runner, pool=ThreadPoolExecutor(1))
    configs = [{"b": b} for b in range(8)]
    ahead.upcoming(configs)
    ahead.pool.submit(lambda: None).result()
    funcs = [backend.compile(instance(runner.kernel_source, None, c, False)) for c in configs]
    ahead.close()
    assert [f.name for f in funcs] == [alias("k", i) for i in range(4)] + ["k"] * 4
    assert ahead.stats["batches"] == 2 and ahead.stats["batches_failed"] == 1 and ahead.batch == 4


def test_a_second_job_of_a_worker_takes_what_the_first_compiled(fake_pycuda):
    from kt_tui.gpu.device.prefetch import Prefetcher

    compiler, calls = fake_pycuda  # one configuration a call (the fixture)
    backend = _pycuda_backend(compiler.SourceModule, [])
    backend.compile = lambda inst: pytest.fail("compiled by kernel_tuner in the measuring process")
    runner, instance = _runner(backend)
    for job in range(3):  # verify, a check at another size, the tune: the same kernel string each time
        ahead = Prefetcher(runner, pool=ThreadPoolExecutor(2))
        ahead.upcoming([{"b": 32}, {"b": 64}])
        for b in (32, 64):
            assert backend.compile(instance(runner.kernel_source, None, {"b": b}, False)).blob.startswith(b"cubin:")
        ahead.close()
        assert ahead.stats["reused"] == (0 if job == 0 else 2)
    assert len(calls["compile"]) == 2
    compiled.forget()


def test_what_a_batch_compiled_serves_a_later_job_that_compiles_alone(fake_pycuda, monkeypatch):
    from kt_tui.gpu.device.prefetch import Prefetcher

    backend, runner, instance, calls = _fake_nvcc(fake_pycuda, monkeypatch)
    configs = [{"b": b} for b in range(8)]
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "8")
    sweep = Prefetcher(runner, pool=ThreadPoolExecutor(1))
    sweep.upcoming(configs)
    for c in configs:
        backend.compile(instance(runner.kernel_source, None, c, False))
    sweep.close()
    compiles = len(calls["compile"])
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "1")  # the results timed again: a job of their own
    again = Prefetcher(runner, pool=ThreadPoolExecutor(1))
    again.upcoming(configs[2:5])
    names = [backend.compile(instance(runner.kernel_source, None, c, False)).name for c in configs[2:5]]
    again.close()
    assert names == [alias("k", i) for i in (2, 3, 4)] and len(calls["compile"]) == compiles
    assert again.stats["reused"] == 3


def test_a_job_that_ends_while_its_compiles_run_leaves_them_to_the_next_job(fake_pycuda, monkeypatch):
    """A job stopped to hand half of its share to another GPU (gpu/dealing.py) ends at once, and
    the job with the half it kept takes over the compiles under way, not compiling them again."""
    import threading
    import time

    from kt_tui.gpu.device.prefetch import Prefetcher

    backend, runner, instance, calls = _fake_nvcc(fake_pycuda, monkeypatch)
    compiler, _ = fake_pycuda
    gate, fast = threading.Event(), compiler.compile

    def slow(source, **kwargs):
        gate.wait(30)
        return fast(source, **kwargs)

    monkeypatch.setattr(compiler, "compile", slow)
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "8")
    configs = [{"b": b} for b in range(8)]
    first = Prefetcher(runner, pool=ThreadPoolExecutor(1))
    first.upcoming(configs)
    t0 = time.monotonic()
    first.close()
    assert time.monotonic() - t0 < 1  # it did not wait for nvcc
    kept = Prefetcher(runner, pool=ThreadPoolExecutor(1))
    kept.upcoming(configs[:4])
    gate.set()
    names = [backend.compile(instance(runner.kernel_source, None, c, False)).name for c in configs[:4]]
    kept.close()
    assert names == [alias("k", i) for i in range(4)]
    assert len(calls["compile"]) == 2  # the batch and the configuration it is checked against, once
    compiled.forget()


def test_a_space_where_many_configurations_fail_to_compile_goes_back_to_one_a_call(fake_pycuda, monkeypatch):
    from kt_tui.gpu.device.prefetch import Prefetcher

    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "4")
    fails = lambda source: "namespace" in source and any(f"{{'b': {b}}}" in source for b in range(0, 64, 3))  # noqa: E731
    backend, runner, instance, calls = _fake_nvcc(fake_pycuda, monkeypatch, fails=fails)
    ahead = Prefetcher(runner, pool=ThreadPoolExecutor(1))
    configs = [{"b": b} for b in range(64)]
    for i, c in enumerate(configs):
        ahead.upcoming(configs[i : i + 16])
        backend.compile(instance(runner.kernel_source, None, c, False))
    ahead.close()
    assert ahead.batch == 1 and ahead.stats["batches_failed"] >= 3
    assert ahead.stats["batches"] < 8  # no more batches once most of them failed


def test_a_compile_that_failed_for_an_earlier_job_is_asked_for_again():
    from concurrent.futures import Future

    going, failed = Future(), Future()
    compiled.flying(len, ("a",), going)
    compiled.flying(len, ("b",), failed)
    failed.set_running_or_notify_cancel()
    assert compiled.pending(len, ("a",)) is going
    failed.set_exception(RuntimeError("ptxas"))
    assert compiled.pending(len, ("b",)) is None  # landed, and failed: compiled again, not waited on
    going.set_result(1)
    assert compiled.pending(len, ("a",)) is None  # landed: what it made is kept (compiled.submit), not flying
    compiled.forget()
