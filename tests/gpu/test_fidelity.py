"""The source kt-tui compiles for a configuration is the one kernel_tuner compiles (issue 12, item 3)."""

import math
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from kernel_tuner.core import DeviceInterface, KernelSource
from kernel_tuner.interface import Options

from kt_tui.cli import main
from kt_tui.gpu import compile as comp
from kt_tui.gpu.device.lang import BACKENDS, cuda_lang
from kt_tui.gpu.ktsource import block_names, kernel_string, launch, tuner_defines
from kt_tui.importer.run import import_script
from kt_tui.kernel.expr import launch_callables
from kt_tui.kernel.source import find_kernels, read_source
from kt_tui.kernel.spec import Spec, load_spec, spec_path_for

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "kernel_tuner_examples"
needs_nvcc = pytest.mark.skipif(comp.find_nvcc() is None, reason="nvcc not found")


def tuner_string(spec: Spec, source: str, params: dict, defines="spec") -> str:
    """What kernel_tuner's DeviceInterface.create_kernel_instance compiles (a device of 1024 threads)."""
    dev = DeviceInterface.__new__(DeviceInterface)
    dev.dev = SimpleNamespace(max_threads=1024)
    ps = spec.problem_size_values(None, params)
    opts = Options(
        kernel_name=spec.kernel,
        problem_size=tuple(ps) if len(ps) > 1 else ps[0],
        block_size_names=block_names(spec),
        arguments=[],
        **launch_callables(spec),
    )
    ks = KernelSource(spec.kernel, source, "CUDA", tuner_defines(spec) if defines == "spec" else defines)
    return dev.create_kernel_instance(ks, opts, params, False).kernel_string


def imported(tmp_path, script: str):
    ex = Path(shutil.copytree(FIXTURES, tmp_path / "ex"))
    kernels, _, _ = import_script(ex / script, ex / "out")
    out = []
    for k in kernels:
        source = read_source(k.kernel_path)
        kernel = next(x for x in find_kernels(source) if x.name == k.kernel.split("<")[0])
        out.append((source, load_spec(spec_path_for(k.kernel_path), kernel)))
    return out


def configs(spec: Spec, n: int = 5) -> list[dict]:
    """The defaults, the last values and a few mixed ones."""
    names = list(spec.tune_params)
    out = [spec.baseline_params(), {k: v[-1] for k, v in spec.tune_params.items()}]
    out += [{k: v[(i * (j + 1)) % len(v)] for j, (k, v) in enumerate(spec.tune_params.items())} for i in range(1, n)]
    out = [dict(zip(names, (c[k] for k in names))) for c in out]
    return [c for c in out if math.prod(launch(spec, c)[0]) <= 1024]


@pytest.mark.parametrize("script", ["reduction.py", "convolution.py", "matmul.py", "zeromeanfilter.py"])
def test_fixture_kernels_compile_kernel_tuners_string(tmp_path, script):
    for source, spec in imported(tmp_path, script):
        for params in configs(spec):
            assert kernel_string(spec, source, params)[1] == tuner_string(spec, source, params, defines=None)


def test_reduction_unroll_factor_is_a_constexpr_and_zero_drops_the_pragma(tmp_path):
    source, spec = imported(tmp_path, "reduction.py")[0]
    params = dict(spec.baseline_params(), loop_unroll_factor_0=8)
    assert "constexpr int loop_unroll_factor_0 = 8;\n" in kernel_string(spec, source, params)[1]
    zero = kernel_string(spec, source, dict(params, loop_unroll_factor_0=0))[1]
    assert "loop_unroll_factor_0" not in zero and "#define num_blocks 32\n" in zero


@needs_nvcc
def test_reduction_passes_spec_check_and_compiles_at_every_unroll_factor(tmp_path, capsys):
    source, spec = imported(tmp_path, "reduction.py")[0]
    path = tmp_path / "ex" / "out" / "sum_floats.cu"
    assert main(["spec", str(path), "--check"]) == 0
    assert "spec ok" in capsys.readouterr().out
    for f in spec.tune_params["loop_unroll_factor_0"][:3]:
        result = comp.compile_check(source, dict(spec.baseline_params(), loop_unroll_factor_0=f), spec=spec)
        assert result.ok is True, comp.format_errors(result)


@pytest.mark.parametrize("backend", ["pycuda", "cupy", "nvcuda"])
def test_worker_backends_prepare_the_source_as_cuda(tmp_path, monkeypatch, backend):
    # kernel_tuner 1.5 prepares a named backend's source with `#define loop_unroll_factor_0 8`,
    # which `#pragma unroll` cannot read: the reduction example failed every configuration on a GPU.
    # The worker passes lang "CUDA" and pins kernel_tuner's CUDA pick to the session's backend.
    import importlib

    import kernel_tuner.core as core

    source, spec = imported(tmp_path, "reduction.py")[0]
    params = dict(spec.baseline_params(), loop_unroll_factor_0=8)

    def init(self, ks, **kw):  # what DeviceInterface keeps of its lang and backend, without a GPU
        self.lang, self.backend = ks.lang, core._select_default_cuda_backend()

    monkeypatch.setattr(DeviceInterface, "__init__", init)
    with cuda_lang(backend) as lang:
        ks = KernelSource(spec.kernel, source, lang)
        dev = DeviceInterface(ks, iterations=1)
    module, name = BACKENDS[backend]
    assert ks.lang == "CUDA" and dev.backend is getattr(importlib.import_module(module), name)
    dev.dev = SimpleNamespace(max_threads=1024)
    ps = spec.problem_size_values(None, params)
    opts = Options(
        kernel_name=spec.kernel,
        problem_size=ps[0],
        block_size_names=block_names(spec),
        arguments=[],
        **launch_callables(spec),
    )
    text = dev.create_kernel_instance(ks, opts, params, False).kernel_string
    assert "constexpr int loop_unroll_factor_0 = 8;\n" in text and text == tuner_string(spec, source, params, None)


SRC = """
__global__ void scale(float *out, const float *in, int n) {
    int i = blockIdx.x * bx * tile + threadIdx.x;
    if (i < WIDTH && i < n) out[i] = 2.0f * in[i] + grid_size_x;
}
"""


def small_spec(**kw) -> Spec:
    base = dict(
        kernel="scale",
        args=[],
        problem_size=["n"],
        sizes={"n": 1000},
        tune_params={"bx": [32, 64], "by": [1, 2], "tile": [1, 4]},
        block_size_names=["bx", "by"],
        grid_div_x=["bx", "tile"],
    )
    return Spec(**{**base, **kw})


def test_block_size_names_and_grid_divisors_as_kernel_tuner():
    spec = small_spec()
    for params in configs(spec):
        text = kernel_string(spec, SRC, params)[1]
        assert text == tuner_string(spec, SRC, params, defines=None)
    params = {"bx": 64, "by": 2, "tile": 4}
    assert launch(spec, params) == ((64, 2, 1), (4, 1, 1))
    assert "#define grid_size_x 4\n#define grid_size_y 1\n" in kernel_string(spec, SRC, params)[1]


def test_spec_defines_are_added_to_kernel_tuners_own():
    spec = small_spec(defines={"WIDTH": "n * 2"})
    params = {"bx": 32, "by": 1, "tile": 4}
    plain = tuner_string(spec, SRC, params, defines=None)  # kernel_tuner's own defines, no WIDTH
    head, _, body = plain.partition("#line 1\n")
    assert kernel_string(spec, SRC, params)[1] == head + "#define WIDTH 2000\n#line 1\n" + body
    assert kernel_string(spec, SRC, params)[1] == tuner_string(spec, SRC, params)


def test_a_scripts_defines_are_the_only_defines(tmp_path):
    spec = small_spec(defines={"WIDTH": 512}, defines_only=True)
    params = {"bx": 32, "by": 1, "tile": 1}
    text = kernel_string(spec, SRC, params)[1]
    assert text == tuner_string(spec, SRC, params, defines={"WIDTH": 512})
    assert text.startswith("#define WIDTH 512\n#line 1\n") and "#define bx" not in text


def test_import_keeps_defines_only_and_the_spec_round_trips(tmp_path):
    (tmp_path / "scale.cu").write_text(SRC.replace("bx", "block_size_x").replace("* tile", ""))
    (tmp_path / "tune.py").write_text(
        "import numpy as np\nfrom kernel_tuner import tune_kernel\n"
        "args = [np.zeros(100, np.float32), np.ones(100, np.float32), np.int32(100)]\n"
        "tune_kernel('scale', 'scale.cu', 100, args, {'block_size_x': [32, 64]}, defines={'WIDTH': 100})\n"
    )
    k = import_script(tmp_path / "tune.py", tmp_path / "out")[0][0]
    kernel = find_kernels(read_source(k.kernel_path))[0]
    spec = load_spec(spec_path_for(k.kernel_path), kernel)
    assert spec.defines_only is True and spec.defines == {"WIDTH": 100}
    assert "defines_only" in spec.launch_dict()
    assert "defines_only" not in small_spec().launch_dict()  # older version ids stay as they were


def test_grid_divisors_are_whole_numbers_as_kernel_tuners_strings():
    from kernel_tuner import util

    spec = small_spec(grid_div_x=["bx / 3", "tile"])
    params = {"bx": 64, "by": 1, "tile": 1}
    strings = util.get_grid_dimensions((1000, 1, 1), params, (["bx / 3", "tile"], None, None), block_names(spec))
    assert launch(spec, params)[1] == strings == (48, 1, 1)  # ceil(1000 / 21), not ceil(1000 / 21.33) = 47
