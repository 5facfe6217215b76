"""The mutants' check child compiles on the compile pool a tuning run compiles on (gpu/mutants_child.py
Kernels over gpu/device/loaders.py's Ahead): the mutants sorted by the machine code of the kernels it
runs (an equivalent or stillborn one never runs), the runs loading those binaries, pycuda, nvcuda and
cupy alike. Without a GPU: nvcc for an sm_90, the device's compute capability stood in."""

import importlib.util
import shutil
from pathlib import Path

import numpy as np
import pytest

from kt_tui.gpu import mutants as mutation
from kt_tui.gpu import mutants_child
from kt_tui.gpu.compiles import CompilePool
from kt_tui.gpu.device import loaders, outputs
from kt_tui.gpu.mutation_score import score as mutation_score
from kt_tui.kernel.mutant import Mutant, blocks_reversed
from kt_tui.kernel.spec import parse_spec
from kt_tui.kernel.text import compile_options

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc (compile only)")
CORPUS = Path(__file__).parents[1] / "corpus"
CONV = (CORPUS / "conv2d.cu").read_text()
CONV_SPEC = parse_spec((CORPUS / "specs" / "conv2d.cu.toml").read_text())
SAME = CONV.replace("(x + i)", "(i + x)")
BROKEN = CONV.replace("float sum = 0.0f;", "float sum = ;")
WRONG = CONV.replace("filter[j * FILTER_W + i]", "filter[i * FILTER_W + j]")  # in bounds: a GPU runs it too


def _job(backend: str) -> dict:
    job = {"token": "t", "source": CONV, "sizes": CONV_SPEC.extra_sizes(), "budget_s": 60, "strengthen_s": 0}
    job["backend"], job["runs"] = backend, [{"source": CONV, "params": CONV_SPEC.baseline_params()}]
    job["mutants"] = [{"id": f"m0{k}", "kind": "k", "what": w, "source": t} for k, (w, t) in
                      enumerate([("same", SAME), ("broken", BROKEN), ("wrong", WRONG)], 1)]  # fmt: skip
    return job


def _run_arrays(ran: list[str]):
    """device/outputs.py run_arrays for conv2d: WRONG's output differs from the original's."""

    def run_arrays(s, source, params, sizes, backend, args):
        ran.append(source)
        out = {a.name: np.array(v, copy=True) for a, v in zip(s.args, args, strict=True) if a.is_array}
        out["output"][: s.sizes["image_w"] * s.sizes["image_h"]] = 1.0 if source == WRONG else 0.0
        return out

    return run_arrays


@needs_nvcc
@pytest.mark.parametrize("prefetch", ["1", "0"])
def test_the_childs_compiles_sort_the_mutants_and_only_the_live_one_runs(tmp_path, monkeypatch, capsys, prefetch):
    """KT_TUI_PREFETCH=0: the compiles still sort the mutants, and the runs compile their own
    kernels (none loaded, none held to the original's time)."""
    monkeypatch.setattr(loaders, "device_cc", lambda backend: "90")
    monkeypatch.setenv("KT_TUI_PREFETCH", prefetch)
    job, ran = _job("pycuda"), []
    with mutants_child.compiled_ahead(CONV_SPEC, job, tmp_path) as kernels:
        assert kernels is not None and kernels.ahead.pool.batch == 1  # a batch would make every mutant "the same"
        assert outputs._LOADING[-1] is (kernels.ahead if prefetch == "1" else None)
        mutants_child.run_in_child(CONV_SPEC, job, tmp_path, _run_arrays(ran), kernels)
        for future in kernels.ahead.futures.values():  # the original at the sizes no mutant reached too
            future.result(timeout=600)
        assert kernels.ahead.pool.compiled == 1 + len(job["sizes"]) + 3  # each kernel once, nothing again
    assert SAME not in ran and BROKEN not in ran and WRONG in ran
    records = {r["id"]: r for r in mutation.read_jsonl(tmp_path / mutation.RECORDS)}
    assert records["m01"]["how"] == "compiles to the same code as the original (sm_90)"
    assert records["m02"]["class"] == "stillborn" and "error" in records["m02"]["how"]
    score = mutation_score(job["mutants"], list(records.values()), [], {})
    assert (score["counted"], score["killed"], len(score["equivalent"]), len(score["stillborn"])) == (1, 1, 1, 1)
    limit = mutation.hang_limit(0) if prefetch == "1" else mutation.HANG_S  # the run's compile is not in its time
    assert f"{mutation.MARK} t {limit:.3g} mutant m03 base" in capsys.readouterr().out
    kept = [p for p in (tmp_path / "cubins").iterdir() if p.suffix == ".bin"]
    assert len(kept) == kernels.ahead.pool.compiled - 1  # for a child started again; the stillborn has none


def test_cupys_kernels_compile_on_the_pool_as_pycudas_and_nvcudas_do(monkeypatch, tmp_path):
    started = []

    class Pool:
        def __init__(self, backend, cc, options, **kw):
            started.append((backend, cc, options, kw["batch"]))

    monkeypatch.setattr(loaders, "device_cc", lambda backend: {"cupy": "80"}[backend])
    monkeypatch.setattr(loaders, "CompilePool", Pool)
    monkeypatch.setattr(loaders.Ahead, "add", lambda self, named: None)
    assert loaders.Ahead.start("cupy", ["-std=c++17"], [("k", "__global__ void k() {}")], batch=1) is not None
    assert started == [("cupy", "80", ["-std=c++17"], 1)]
    assert loaders.Ahead.start("cupy", [], []) is None and len(started) == 1  # nothing to compile: no pool


@needs_nvcc
@pytest.mark.parametrize("name", ["gemm_strided_batched", "axpy_template", "spmv_csr_warp"])
def test_the_kernel_with_its_blocks_reversed_compiles_to_other_code(name):
    source = (CORPUS / f"{name}.cu").read_text()
    spec = parse_spec((CORPUS / "specs" / f"{name}.cu.toml").read_text())
    reordered = Mutant("r", "order", 1, "blocks reversed", blocks_reversed(source))
    pool = CompilePool("pycuda", "90", compile_options(spec.compiler_options), size=1, window=1 << 20, batch=1)
    kernels = mutants_child.Kernels(spec, loaders.Ahead(pool))
    try:
        kernels.compile_at(spec, source)
        kernels.compile_at(spec, reordered.source)
        assert kernels.sorter(spec, source)(reordered.source) == ("live", "")
    finally:
        kernels.close()


BACKENDS = {"pycuda": "pycuda", "nvcuda": "cuda.bindings", "cupy": "cupy"}


def _missing(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is None
    except ModuleNotFoundError:
        return True


@pytest.mark.gpu
@pytest.mark.parametrize(
    "backend", [pytest.param(b, marks=pytest.mark.skipif(_missing(m), reason=f"no {m}")) for b, m in BACKENDS.items()]
)
def test_on_the_gpu_the_childs_runs_load_the_pools_binaries_and_match_kernel_tuners_compile(
    backend, tmp_path, monkeypatch
):
    """The child's compile of each backend (nvcc for pycuda, NVRTC for nvcuda and cupy) sorts the
    mutants by the code it loads, and a loaded run gives kernel_tuner's own compile's outputs."""
    from kt_tui.kernel.inputs import make_args

    loaded = []
    real = loaders.load

    def load_binary(dev, instance, binary, symbol=None):
        loaded.append(instance.kernel_string)
        return real(dev, instance, binary, symbol)

    monkeypatch.setattr(loaders, "load", load_binary)
    job = _job(backend)
    first = mutation.sizes_in_order(CONV_SPEC, job)[0][1]
    base = CONV_SPEC.baseline_params()
    theirs = outputs.run_arrays(first, WRONG, base, None, backend, make_args(first, first.sizes))
    assert loaded == []  # outside the child's compiles: kernel_tuner's
    with mutants_child.compiled_ahead(CONV_SPEC, job, tmp_path) as kernels:
        assert kernels is not None and kernels.ahead.pool.backend == backend and kernels.loaded
        sort = kernels.sorter(first, CONV)
        assert sort(SAME)[0] == "equivalent" and sort(BROKEN)[0] == "stillborn" and sort(WRONG) == ("live", "")
        assert kernels.ready(first, WRONG, base)
        mine = outputs.run_arrays(first, WRONG, base, None, backend, make_args(first, first.sizes))
    assert loaded == [kernels.text(WRONG, first.sizes)[1]]
    np.testing.assert_array_equal(mine["output"], theirs["output"])
    assert np.any(theirs["output"] != 0)


@pytest.mark.gpu
@pytest.mark.parametrize(
    "backend", [pytest.param(b, marks=pytest.mark.skipif(_missing(m), reason=f"no {m}")) for b, m in BACKENDS.items()]
)
def test_on_the_gpu_a_checks_child_on_every_backend_sorts_out_the_equivalent_mutants(backend):
    """`spec --check`'s test end to end (its child, memcheck): conv2d's two mutants that swap its equal
    FILTER_W and FILTER_H compile to the original's code, with the backend's own compiler."""
    from kt_tui.gpu import checkrun

    score = checkrun.check_strength(CONV, CONV_SPEC, backend)["mutants"]
    same = [e for e in score["equivalent"] if "compiles to the same code as the original (sm_" in e]
    assert sum("FILTER_" in e for e in same) == 2, score["equivalent"]
    assert score["killed"] > 0
