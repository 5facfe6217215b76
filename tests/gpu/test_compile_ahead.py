"""Compile ahead (gpu/device/prefetch.py, gpu/device/compilers.py): the same compiles as kernel_tuner's, done
by a pool before kernel_tuner asks, and kernel_tuner then given what they made."""

import json
import shutil
import subprocess
import sys
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import kernel_tuner.backends.pycuda  # noqa: F401 - imported before the fake pycuda below
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fake_pycuda(monkeypatch):
    """Just enough of pycuda for kernel_tuner's backend and ours, without CUDA. One configuration per
    nvcc call unless a test says otherwise (tests/gpu/test_compile_batches.py)."""
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "1")
    calls = {"compile": [], "source_mod": [], "linked": []}

    class Module:
        def __init__(self, blob):
            self.blob = blob

        def get_function(self, name):
            return types.SimpleNamespace(name=name, blob=self.blob, num_regs=32)

        get_global = get_texref = get_function

    class SourceModule:
        def __init__(self, source, **kwargs):
            calls["source_mod"].append((type(self).__name__, source, kwargs))
            self.module = Module(b"")
            self._bind_module()

        def _bind_module(self):
            self.get_function = self.module.get_function

    class DynamicSourceModule(SourceModule):
        pass

    class DynamicModule:
        def __init__(self, **kwargs):
            self.kwargs, self.parts = kwargs, []

        def add_data(self, data, kind, name):
            self.parts.append((data, kind))

        def add_stdlib(self, name):
            self.parts.append(("lib", name))

        def link(self):
            calls["linked"].append((self.kwargs, self.parts))
            self.module = Module(self.parts[0][0])
            self.get_function = self.module.get_function
            return self

    def compile(source, **kwargs):
        calls["compile"].append((source, kwargs))
        return b"cubin:" + source.encode()

    compiler = types.ModuleType("pycuda.compiler")
    compiler.SourceModule, compiler.DynamicSourceModule, compiler.DynamicModule = (
        SourceModule,
        DynamicSourceModule,
        DynamicModule,
    )
    compiler.compile = compile
    driver = types.ModuleType("pycuda.driver")
    driver.module_from_buffer = Module
    driver.jit_input_type = types.SimpleNamespace(CUBIN="cubin")
    pkg = types.ModuleType("pycuda")
    pkg.compiler, pkg.driver = compiler, driver
    for name, mod in (("pycuda", pkg), ("pycuda.compiler", compiler), ("pycuda.driver", driver)):
        monkeypatch.setitem(sys.modules, name, mod)
    return compiler, calls


def _pycuda_backend(source_mod, options):
    from kernel_tuner.backends.pycuda import PyCudaFunctions

    backend = PyCudaFunctions.__new__(PyCudaFunctions)  # no GPU: only what compile() reads
    backend.cc, backend.compiler_options, backend.source_mod = "90", options, source_mod
    backend.allocations, backend.texrefs = [], []
    return backend


@pytest.mark.parametrize("which", ["SourceModule", "DynamicSourceModule"])
@pytest.mark.parametrize(
    "source", ["__global__ void k(float *x) { x[0] = 1; }", 'extern "C" __global__ void k(float *x) { x[0] = 1; }']
)
def test_pycuda_ahead_compiles_what_kernel_tuner_compiles(fake_pycuda, which, source):
    from kt_tui.gpu.device.compilers import pycuda_arguments, pycuda_cubin

    compiler, calls = fake_pycuda
    backend = _pycuda_backend(getattr(compiler, which), ["-O3", "-lineinfo"])
    instance = types.SimpleNamespace(kernel_string=source, name="k")
    type(backend).compile(backend, instance)  # kernel_tuner's own compile step
    _, kt_source, kt_args = calls["source_mod"][-1]
    ours = pycuda_arguments(backend, instance)
    pycuda_cubin(source, ours)
    compiled_source, compiled_args = calls["compile"][-1]
    assert compiled_source == kt_source == source
    assert compiled_args["target"] == "cubin"
    assert {k: v for k, v in compiled_args.items() if k not in ("options", "target")} == {
        k: v for k, v in kt_args.items() if k != "options"
    }
    extra = ["-rdc=true", "-lcudadevrt"] if which == "DynamicSourceModule" else []  # what DynamicSourceModule adds
    assert compiled_args["options"] == kt_args["options"] + extra


def test_relocatable_code_is_linked_on_the_compile_pool_and_only_loaded_where_it_is_measured(fake_pycuda, monkeypatch):
    from kt_tui.gpu.device import compilers
    from kt_tui.gpu.device.prefetch import Prefetcher

    compiler, calls = fake_pycuda
    monkeypatch.setattr(compilers, "device_link", lambda cubin, code: code.encode() + b" linked " + cubin)
    backend = _pycuda_backend(compiler.DynamicSourceModule, [])
    backend.compile = lambda inst: pytest.fail("compiled again in the measuring process")

    def instance(src, options, params, _):
        return types.SimpleNamespace(kernel_string=f"// {params}\n{src}", name="k")

    dev = types.SimpleNamespace(dev=backend, create_kernel_instance=instance)
    runner = types.SimpleNamespace(dev=dev, kernel_source="__global__ void k() {}", kernel_options=None)
    ahead = Prefetcher(runner, pool=ThreadPoolExecutor(2))
    ahead.upcoming([{"b": 32}])
    func = backend.compile(instance(runner.kernel_source, None, {"b": 32}, False))
    assert func.blob == b"sm_90 linked cubin:// {'b': 32}\n__global__ void k() {}"
    assert calls["linked"] == []  # nothing left to link where the GPU measures


def test_pycuda_prefetcher_loads_the_cubin_compiled_ahead(fake_pycuda, monkeypatch):
    from kt_tui.gpu.device import compilers
    from kt_tui.gpu.device.prefetch import Prefetcher

    monkeypatch.setattr(compilers, "device_link", lambda cubin, code: None)  # nvcc could not link it ahead
    compiler, calls = fake_pycuda
    backend = _pycuda_backend(compiler.DynamicSourceModule, [])
    own = []
    backend.compile = lambda inst: own.append(inst) or "compiled by kernel_tuner"

    def instance(src, options, params, _):
        return types.SimpleNamespace(kernel_string=f"// {params}\n{src}", name="k")

    dev = types.SimpleNamespace(dev=backend, create_kernel_instance=instance)
    runner = types.SimpleNamespace(dev=dev, kernel_source="__global__ void k() {}", kernel_options=None)
    assert Prefetcher.usable(runner)
    ahead = Prefetcher(runner, pool=ThreadPoolExecutor(2))
    ahead.upcoming([{"b": 32}, {"b": 64}])
    func = backend.compile(instance(runner.kernel_source, None, {"b": 64}, False))
    assert func.blob == b"cubin:// {'b': 64}\n__global__ void k() {}" and backend.num_regs == 32
    assert calls["linked"][-1][1][1] == ("lib", "cudadevrt")  # linked with the device runtime, as pycuda does
    assert backend.compile(instance(runner.kernel_source, None, {"b": 128}, False)) == "compiled by kernel_tuner"
    ahead.close()
    assert backend.compile(instance(runner.kernel_source, None, {"b": 32}, False)) == "compiled by kernel_tuner"
    assert len(own) == 2


def test_failed_compile_ahead_compiles_again_the_normal_way(fake_pycuda, monkeypatch):
    from kt_tui.gpu.device import prefetch

    compiler, calls = fake_pycuda
    backend = _pycuda_backend(compiler.SourceModule, [])
    backend.compile = lambda inst: "kernel_tuner's error, as usual"
    monkeypatch.setattr(compiler, "compile", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("nvcc failed")))
    dev = types.SimpleNamespace(
        dev=backend, create_kernel_instance=lambda s, o, p, _: types.SimpleNamespace(kernel_string=str(p), name="k")
    )
    ahead = prefetch.Prefetcher(
        types.SimpleNamespace(dev=dev, kernel_source="", kernel_options=None), pool=ThreadPoolExecutor(1)
    )
    ahead.upcoming([{"b": 1}])
    assert (
        backend.compile(types.SimpleNamespace(kernel_string="{'b': 1}", name="k")) == "kernel_tuner's error, as usual"
    )
    ahead.close()


def test_a_broken_pool_means_compiling_the_normal_way(fake_pycuda):
    from concurrent.futures.process import BrokenProcessPool

    from kt_tui.gpu.device.prefetch import Prefetcher

    compiler, _ = fake_pycuda
    backend = _pycuda_backend(compiler.SourceModule, [])
    backend.compile = lambda inst: "kernel_tuner's compile"

    class Broken:
        def submit(self, *a):
            raise BrokenProcessPool("a pool process died")

        def shutdown(self, **kw):
            pass

    dev = types.SimpleNamespace(
        dev=backend, create_kernel_instance=lambda s, o, p, _: types.SimpleNamespace(kernel_string=str(p), name="k")
    )
    ahead = Prefetcher(types.SimpleNamespace(dev=dev, kernel_source="", kernel_options=None), pool=Broken())
    ahead.upcoming([{"b": 1}, {"b": 2}])  # no exception: the run goes on
    ahead.upcoming([{"b": 3}])
    assert backend.compile(types.SimpleNamespace(kernel_string="{'b': 1}", name="k")) == "kernel_tuner's compile"
    ahead.close()


def test_the_process_pool_runs_prefetch_functions_in_spawned_processes(monkeypatch):
    from kt_tui.gpu.device import compilers

    monkeypatch.setenv("KT_TUI_PREFETCH_WORKERS", "2")
    pool = compilers.process_pool(16)
    try:
        assert pool.submit(compilers.pool_size).result(timeout=120) == 2  # the environment reaches the pool
    finally:
        pool.shutdown(wait=True)


def _pool_in_a_daemon(out, allow: bool) -> None:
    from kt_tui.gpu.device import compilers

    if allow:
        compilers.allow_children()
    try:
        pool = compilers.process_pool(2)
        out.put(pool.submit(compilers.pool_size, 4).result(timeout=120))
        pool.shutdown(wait=True)
    except Exception as e:  # noqa: BLE001 - reported to the test
        out.put(f"{type(e).__name__}: {e}")


@pytest.mark.parametrize("allow", [False, True])
def test_a_daemonic_gpu_worker_can_start_its_compile_ahead_pool(allow):
    """The GPU worker is started as a daemon; multiprocessing forbids a daemon children, so the
    pool failed at its first submit and nothing was ever compiled ahead (the H100 showed 0 of 24)."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    p = ctx.Process(target=_pool_in_a_daemon, args=(out, allow), daemon=True)
    p.start()
    got = out.get(timeout=180)
    p.join(timeout=60)
    if allow:
        assert got == prefetch_pool_size()
    else:
        assert "daemonic processes are not allowed to have children" in str(got)


def prefetch_pool_size() -> int:
    from kt_tui.gpu.device.compilers import pool_size

    return pool_size(4)


def test_the_gpu_worker_allows_itself_children():
    import inspect

    from kt_tui.gpu.device import main

    assert "allow_children()" in inspect.getsource(main.main)


def test_pycuda_compiles_ahead_on_threads_not_processes(fake_pycuda):
    from kt_tui.gpu.device.compilers import Pycuda

    compiler, _ = fake_pycuda
    pool = Pycuda(_pycuda_backend(compiler.SourceModule, [])).pool()
    try:
        assert isinstance(pool, ThreadPoolExecutor)
    finally:
        pool.shutdown()


def _h100(monkeypatch):
    drv = sys.modules["pycuda.driver"]
    monkeypatch.setattr(drv, "init", lambda: None, raising=False)
    monkeypatch.setattr(
        drv, "Device", lambda i: types.SimpleNamespace(compute_capability=lambda: (9, 0)), raising=False
    )


def test_the_baseline_compiles_while_its_inputs_are_made_and_kernel_tuner_gets_that_cubin(fake_pycuda, monkeypatch):
    from kt_tui.gpu import compile as comp
    from kt_tui.gpu.device.prefetch import Early, Prefetcher
    from kt_tui.kernel.source import find_kernels, read_source
    from kt_tui.kernel.spec import load_spec

    compiler, calls = fake_pycuda
    _h100(monkeypatch)
    source = read_source(ROOT / "examples" / "vector_add.cu")
    spec = load_spec(ROOT / "examples" / "vector_add.cu.toml", find_kernels(source)[0])
    params = spec.baseline_params()
    early = Early.start("pycuda", spec, source, [params])
    assert early is not None
    text = comp.prepared_text(source, params, spec=spec)  # kernel_tuner's own string (tests/gpu/test_fidelity.py)
    assert calls["compile"][0][0] == text
    assert calls["compile"][0][1]["arch"] == "compute_90" and "-rdc=true" in calls["compile"][0][1]["options"]

    backend = _pycuda_backend(compiler.DynamicSourceModule, [])
    backend.compile = lambda inst: "compiled by kernel_tuner"
    dev = types.SimpleNamespace(dev=backend, create_kernel_instance=None)
    ahead = Prefetcher(types.SimpleNamespace(dev=dev, kernel_source=source, kernel_options=None), early=early)
    assert early.adopted and ahead.pool is early.pool
    func = backend.compile(types.SimpleNamespace(kernel_string=text, name="vector_add"))
    assert func.blob == b"cubin:" + text.encode()
    ahead.close()
    assert ahead.stats["used"] == 1 and ahead.stats["not_ahead"] == 0


def test_no_early_compile_without_a_gpu_backend_or_configurations():
    from kt_tui.gpu.device.prefetch import Early

    assert Early.start("sim", None, "", [{"b": 1}]) is None
    assert Early.start("pycuda", types.SimpleNamespace(compiler_options=[]), "", []) is None


def test_kernel_tuners_warm_up_compile_of_the_first_configuration_is_served_again(fake_pycuda):
    from kt_tui.gpu.device.prefetch import Prefetcher

    compiler, calls = fake_pycuda
    backend = _pycuda_backend(compiler.SourceModule, [])
    own = []
    backend.compile = lambda inst: own.append(inst) or "compiled by kernel_tuner"
    dev = types.SimpleNamespace(
        dev=backend, create_kernel_instance=lambda s, o, p, _: types.SimpleNamespace(kernel_string=str(p), name="k")
    )
    ahead = Prefetcher(
        types.SimpleNamespace(dev=dev, kernel_source="", kernel_options=None), pool=ThreadPoolExecutor(2)
    )
    ahead.upcoming([{"b": 1}, {"b": 2}])
    first = types.SimpleNamespace(kernel_string="{'b': 1}", name="k")
    assert backend.compile(first).blob == backend.compile(first).blob == b"cubin:{'b': 1}"  # warm-up, then the run
    assert backend.compile(types.SimpleNamespace(kernel_string="{'b': 2}", name="k")).blob == b"cubin:{'b': 2}"
    ahead.close()
    assert not own and ahead.stats["used"] == 3 and len(calls["compile"]) == 2


def test_checks_at_other_sizes_compile_every_kernel_at_once_and_run_those(fake_pycuda, monkeypatch):
    import kernel_tuner.core as core
    import numpy as np

    from kt_tui.gpu.device import checking
    from kt_tui.gpu.ktsource import kernel_string
    from kt_tui.gpu.protocol import CheckJob
    from kt_tui.kernel.source import find_kernels, read_source
    from kt_tui.kernel.spec import load_spec

    compiler, calls = fake_pycuda
    _h100(monkeypatch)
    source = read_source(ROOT / "examples" / "vector_add.cu")
    spec = load_spec(ROOT / "examples" / "vector_add.cu.toml", find_kernels(source)[0]).to_dict()
    backend = _pycuda_backend(compiler.DynamicSourceModule, [])
    own = []
    backend.compile = lambda inst: own.append(inst) or "compiled by kernel_tuner"
    ran = []

    def run_outputs(s, src, params, sizes, backend_name):  # kernel_tuner.run_kernel's compile step, on a fake device
        name, text = kernel_string(s, src, params, sizes)
        dev = core.DeviceInterface.__new__(core.DeviceInterface)
        dev.dev = backend
        ran.append(dev.compile_kernel(types.SimpleNamespace(kernel_string=text, name=name), False))
        return {"c": np.ones(sizes["n"], np.float32)}

    monkeypatch.setattr(checking, "run_outputs", run_outputs)
    original = core.DeviceInterface.compile_kernel
    job = CheckJob(
        run_id="c",
        source=source,
        spec=spec,
        ref_source=source,
        ref_spec=spec,
        ref_params={"block_size_x": 256},
        backend="pycuda",
        sizes=[{"label": "n=37", "sizes": {"n": 37}}, {"label": "n=1000", "sizes": {"n": 1000}}],
        configs=[{"block_size_x": 128}, {"block_size_x": 512}],
    )
    events = []
    checking._REFS.clear()
    checking.run_check_job(job, lambda kind, payload: events.append((kind, payload)))
    assert len(calls["compile"]) == 6  # 2 sizes x (reference + 2 candidates), all started before any ran
    assert not own and len(ran) == 6  # none compiled the usual way
    assert sorted(f.blob for f in ran) == sorted(b"cubin:" + text.encode() for text, _ in calls["compile"])
    assert [p["status"] for k, p in events if k == "check"] == ["ok"] * 4
    assert core.DeviceInterface.compile_kernel is original


def test_an_unwritable_prefetch_stats_file_does_not_fail_the_job(fake_pycuda, monkeypatch, tmp_path, capsys):
    from kt_tui.gpu.device.prefetch import Prefetcher

    compiler, _ = fake_pycuda
    backend = _pycuda_backend(compiler.SourceModule, [])
    backend.compile = lambda inst: "compiled by kernel_tuner"
    dev = types.SimpleNamespace(
        dev=backend, create_kernel_instance=lambda s, o, p, _: types.SimpleNamespace(kernel_string=str(p), name="k")
    )
    monkeypatch.setenv("KT_TUI_PREFETCH_STATS", str(tmp_path / "no" / "such" / "dir" / "stats.jsonl"))
    Prefetcher(
        types.SimpleNamespace(dev=dev, kernel_source="", kernel_options=None), pool=ThreadPoolExecutor(1)
    ).close()
    assert "KT_TUI_PREFETCH_STATS" in capsys.readouterr().out
    monkeypatch.setenv("KT_TUI_PREFETCH_STATS", str(tmp_path / "stats.jsonl"))
    Prefetcher(
        types.SimpleNamespace(dev=dev, kernel_source="", kernel_options=None), pool=ThreadPoolExecutor(1)
    ).close()
    assert json.loads((tmp_path / "stats.jsonl").read_text())["how"] == "pycuda"


@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
def test_nvcc_device_links_relocatable_code_with_the_device_runtime(tmp_path):
    from kt_tui.gpu.device.compilers import device_link

    # a kernel that launches a kernel: its relocatable code calls into the device runtime
    src = tmp_path / "k.cu"
    src.write_text(
        'extern "C" __global__ void child(float *x) { x[threadIdx.x] = 1; }\n'
        'extern "C" __global__ void parent(float *x) { child<<<1, 32>>>(x); }\n'
    )
    out = tmp_path / "k.cubin"
    cmd = ["nvcc", "--cubin", "-rdc=true", "-arch=compute_90", "-code=sm_90", str(src), "-o", str(out)]
    subprocess.run(cmd, check=True, capture_output=True)
    linked = device_link(out.read_bytes(), "sm_90")
    assert linked is not None and linked[:4] == b"\x7fELF" and linked != out.read_bytes()
    assert device_link(b"not a cubin", "sm_90") is None  # pycuda's own link is then the way
