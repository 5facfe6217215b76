"""A binary from the app's compile pool (gpu/compiles.py) loaded into kernel_tuner's backend by the
device worker (gpu/device/loaders.py) runs as kernel_tuner's own compile of that configuration: the
same outputs, on pycuda, nvcuda and cupy, constant memory and dynamic shared memory included."""

import importlib.util

import numpy as np
import pytest

from kt_tui.gpu.compiles import CompilePool
from kt_tui.gpu.device import loaders
from kt_tui.gpu.device.lang import cuda_lang

pytestmark = pytest.mark.gpu

MODULES = {"pycuda": "pycuda", "nvcuda": "cuda.bindings", "cupy": "cupy"}


def _missing(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is None
    except ModuleNotFoundError:  # its parent package is not there
        return True


BACKENDS = [pytest.param(b, marks=pytest.mark.skipif(_missing(m), reason=f"no {m} here")) for b, m in MODULES.items()]
OPTIONS = ["-std=c++17"]
N = 1000

PLAIN = """
__global__ void saxpy(float *y, const float *x, float a, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i] + (float)block_size_x;
}
"""
CONSTANT = """
__constant__ float coef[4];
__global__ void scale(float *y, const float *x, float a, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) y[i] = x[i] * coef[i % 4] + a;
}
"""
SHARED = """
extern __shared__ float buf[];
__global__ void flip(float *y, const float *x, float a, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    buf[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    int j = blockIdx.x * block_size_x + (block_size_x - 1 - threadIdx.x);
    if (j < n) y[j] = buf[threadIdx.x] * a;
}
"""
TEMPLATE = """
template <typename T, int B>
__global__ void tsaxpy(T *y, const T *x, T a, int n) {
    int i = blockIdx.x * B + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""
KERNELS = {
    "plain": ("saxpy", PLAIN),
    "constant": ("scale", CONSTANT),
    "shared": ("flip", SHARED),
    "template": ("tsaxpy<float, block_size_x>", TEMPLATE),
}


class Session:
    """kernel_tuner's DeviceInterface for one kernel on one backend, run as its runner runs it."""

    def __init__(self, backend: str, name: str, source: str):
        from kernel_tuner import core
        from kernel_tuner.interface import Options, _kernel_options

        with cuda_lang(backend) as lang:  # as the product prepares it: lang CUDA wraps a template
            self.source = core.KernelSource(name, source, lang, None)
            self.dev = core.DeviceInterface(self.source, device=0, quiet=True, compiler_options=OPTIONS, iterations=1)
        given = dict(
            kernel_name=name,
            kernel_source=source,
            problem_size=N,
            arguments=[],
            grid_div_x=None,
            grid_div_y=None,
            grid_div_z=None,
            block_size_names=["block_size_x", "block_size_y", "block_size_z"],
        )
        self.options = Options([(k, given.get(k)) for k in _kernel_options])
        self.cmem = {"coef": np.array([1, 2, 3, 4], dtype=np.float32)} if "__constant__" in source else None
        self.smem = {"size": 0}

    def instance(self, params: dict):
        self.smem = {"size": 4 * params["block_size_x"]}
        return self.dev.create_kernel_instance(self.source, self.options, params, False)

    def run(self, instance, func) -> np.ndarray:
        x = np.arange(N, dtype=np.float32) % 17
        y = np.arange(N, dtype=np.float32) % 5
        args = self.dev.ready_argument_list([y, x, np.float32(3), np.int32(N)])
        if self.cmem:
            self.dev.copy_constant_memory_args(self.cmem)
        self.dev.copy_shared_memory_args(self.smem)
        assert self.dev.run_kernel(func, args, instance)
        self.dev.dev.synchronize()  # the backend's: DeviceInterface has none
        out = np.zeros_like(y)
        self.dev.memcpy_dtoh(out, args[0])
        return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kernel", list(KERNELS))
def test_a_pool_binary_runs_as_kernel_tuners_own_compile(backend, kernel, monkeypatch):
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "1")
    name, source = KERNELS[kernel]
    s = Session(backend, name, source)
    cc = str(s.dev.dev.cc)
    with CompilePool(backend, cc, OPTIONS) as pool:
        for bx in (64, 128):
            instance = s.instance({"block_size_x": bx})
            theirs = s.run(instance, s.dev.compile_kernel(instance, False))
            compiled = pool.submit(str(bx), instance.name, instance.kernel_string).result(timeout=300)
            assert compiled.error is None and compiled.binary, compiled
            if backend != "pycuda" and kernel != "template":  # a C++ kernel's name in NVRTC's binary
                assert compiled.symbol and compiled.symbol != instance.name
            before = s.dev.dev.current_module
            func = loaders.load(s.dev, instance, compiled.binary, compiled.symbol)
            assert s.dev.dev.current_module is not before and s.dev.dev.func is func and s.dev.dev.num_regs > 0
            mine = s.run(instance, func)
            np.testing.assert_array_equal(mine, theirs)
            assert np.any(theirs != 0)


@pytest.mark.parametrize("backend", [p for p in BACKENDS if p.values[0] == "pycuda"])
def test_each_member_of_an_nvcc_batch_runs_as_alone(backend, monkeypatch):
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "8")
    s = Session(backend, "saxpy", PLAIN)
    instances = [s.instance({"block_size_x": bx}) for bx in (32, 64, 128, 256)]
    with CompilePool(backend, str(s.dev.dev.cc), OPTIONS, size=1) as pool:
        futures = pool.ahead([(str(i), x.name, x.kernel_string) for i, x in enumerate(instances)])
        done = [futures[str(i)].result(timeout=300) for i in range(len(instances))]
    assert pool.batches == 1 and pool.trusted and len({c.binary for c in done}) == 1
    for instance, compiled in zip(instances, done, strict=True):
        theirs = s.run(instance, s.dev.compile_kernel(instance, False))
        mine = s.run(instance, loaders.load(s.dev, instance, compiled.binary, compiled.symbol))
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_check_at_other_sizes_runs_the_cubins_the_sessions_pool_made(backend, monkeypatch):
    """A check's runs at other sizes (gpu/checking.py) are Runs of untimed tuning runs: each carries
    the session pool's binary, which the device's Session loads, compiling nothing itself, with the
    verdicts of kernel_tuner's own compile."""
    from kt_tui.gpu import checking
    from kt_tui.gpu.protocol import CheckJob
    from kt_tui.kernel.spec import load_spec

    from ..conftest import EXAMPLES
    from ..helpers import in_process_device, tuner_on

    if backend == "cupy":
        import cupy

        cc = str(cupy.cuda.Device(0).compute_capability)
    else:
        cc = loaders.device_cc(backend)
    spec = load_spec(EXAMPLES / "vector_add.cu.toml")
    source = (EXAMPLES / "vector_add.cu").read_text()
    sizes = [{"label": f"n={n}", "sizes": {"n": n}} for n in (37, 100000)]
    configs = [{"block_size_x": 64}, {"block_size_x": 1024}]
    job = CheckJob("c", source, spec.to_dict(), source, spec.to_dict(), spec.baseline_params(), backend, sizes, configs)
    real, loaded = loaders.load, []

    def load(dev, instance, binary, symbol=None):
        loaded.append(instance.name)
        return real(dev, instance, binary, symbol)

    def compile_kernel(*a):
        raise AssertionError("compiled in the worker")

    monkeypatch.setattr(loaders, "load", load)
    monkeypatch.setattr(checking, "_REFS", {})
    monkeypatch.setattr("kernel_tuner.core.DeviceInterface.compile_kernel", compile_kernel)
    tuner = tuner_on(in_process_device())
    tuner.arch = f"sm_{cc}"
    events: list = []
    try:
        tuner.run(job, lambda kind, payload: events.append((kind, payload)), 120)
    finally:
        tuner.close()
    statuses = [p["status"] for kind, p in events if kind == "check"]
    assert statuses == ["ok"] * 4 and len(loaded) == 6, events  # at each size the original and both


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_compute_capability_read_for_the_pool_and_the_probe_is_kernel_tuners_backends(backend):
    """The mutants' check child compiles for loaders.device_cc, the probe reports its arch from it."""
    from kt_tui.gpu.device.main import _arch

    cc = str(Session(backend, "saxpy", PLAIN).dev.dev.cc)
    assert loaders.device_cc(backend) == cc and _arch(backend) == f"sm_{cc}"
