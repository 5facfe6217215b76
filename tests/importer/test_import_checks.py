"""`kt-tui import` keeps what a kernel_tuner script checks (issue 21, items 4 and 5): its answer, the
kernel that computed a chained answer, nothing with the reason where no one reference is right;
outputs found through device functions; closures, defines as functions, lang="C", strategy=, and
inputs stored once."""

import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest

from kt_tui.cli import main
from kt_tui.gpu.ktsource import kernel_string
from kt_tui.importer.run import import_script
from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.source import find_kernels, read_source
from kt_tui.kernel.spec import load_spec, spec_path_for

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "kernel_tuner_examples"

KERNEL = """
__global__ void scale(float *out, const float *in, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i] + WIDTH * 0;
}
"""


@pytest.fixture
def examples(tmp_path):
    return Path(shutil.copytree(FIXTURES, tmp_path / "ex"))


def _spec(imported):
    source = read_source(imported.kernel_path)
    kernel = next(k for k in find_kernels(source) if k.name == imported.kernel.split("<")[0])
    return load_spec(spec_path_for(imported.kernel_path), kernel)


def _script(tmp_path, body: str, kernel: str = KERNEL) -> Path:
    (tmp_path / "k.cu").write_text(kernel)
    path = tmp_path / "tune.py"
    path.write_text("import numpy as np\nfrom kernel_tuner import tune_kernel\n" + textwrap.dedent(body))
    return path


def test_restriction_and_define_closures_over_locals_are_read(tmp_path):
    script = _script(
        tmp_path,
        """
        def tune():
            n, limit, wide = 1000, 128, 3
            args = [np.zeros(n, np.float32), np.ones(n, np.float32), np.int32(n)]
            tp = {"block_size_x": [32, 64, 128, 256], "tile": [1, 2]}
            tune_kernel("scale", "k.cu", n, args, tp, defines={"WIDTH": lambda p: n * wide,
                        "block_size_x": lambda p: p["block_size_x"]},
                        restrictions=[lambda p: p["block_size_x"] * p["tile"] <= limit],
                        grid_div_x=lambda p: p["block_size_x"] * p["tile"] * wide // 3)
        tune()
    """,
    )
    done, problems, _ = import_script(script, tmp_path / "out")
    assert problems == []
    spec = _spec(done[0])
    assert spec.restrictions == ["block_size_x * tile <= 128"]
    assert spec.grid_div_x == ["block_size_x * tile * 3 // 3"]
    assert spec.defines == {"WIDTH": 3000, "block_size_x": "block_size_x"} and spec.defines_only
    assert spec.allows({"block_size_x": 64, "tile": 2}) and not spec.allows({"block_size_x": 128, "tile": 2})


def test_a_define_that_is_a_function_of_the_configuration(tmp_path):
    script = _script(
        tmp_path,
        """
        n = 1000
        args = [np.zeros(n, np.float32), np.ones(n, np.float32), np.int32(n)]
        tune_kernel("scale", "k.cu", n, args, {"block_size_x": [32, 64]},
                    defines={"WIDTH": lambda p: p["block_size_x"] * 2, "block_size_x": lambda p: p["block_size_x"]})
    """,
    )
    done, problems, _ = import_script(script, tmp_path / "out")
    assert problems == []
    spec = _spec(done[0])
    assert spec.defines["WIDTH"] == "block_size_x * 2"
    text = kernel_string(spec, KERNEL, {"block_size_x": 64})[1]
    assert "#define WIDTH 128\n" in text and "#define block_size_x 64\n" in text


def test_a_define_function_that_is_no_expression_is_refused_with_the_reason(tmp_path, capsys):
    script = _script(
        tmp_path,
        """
        def width(p):
            w = p["block_size_x"]
            return w * 2
        n = 1000
        args = [np.zeros(n, np.float32), np.ones(n, np.float32), np.int32(n)]
        tune_kernel("scale", "k.cu", n, args, {"block_size_x": [32, 64]}, defines={"WIDTH": width})
    """,
    )
    assert main(["import", str(script)]) == 2
    err = capsys.readouterr().err
    assert "defines.WIDTH is a Python function: write it as an expression (its body is more than one return" in err


DEVICE_WRITE = """
template <typename T>
__device__ void store_sum(T *dst, const T *a, int i) { dst[blockIdx.x] = a[i]; }
#define SAVE(p, i, v) (p)[i] = (v)
__global__ void partial(const float *in, float *sums, float *other, float *opaque, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) store_sum<float>(sums, in, i);
    if (i == 0) SAVE(other, 0, in[0]);
    external_fill(opaque, n);
}
"""


def test_outputs_written_in_device_functions_and_macros_are_found(tmp_path):
    script = _script(
        tmp_path,
        """
        n = 256
        a = [np.ones(n, np.float32), np.zeros(8, np.float32), np.zeros(1, np.float32), np.zeros(4, np.float32),
             np.int32(n)]
        tune_kernel("partial", "k.cu", n, a, {"block_size_x": [32, 64]})
    """,
        DEVICE_WRITE + "__device__ void external_fill(float *p, int n);\n",
    )
    done, problems, _ = import_script(script, tmp_path / "out")
    assert problems == []
    spec = _spec(done[0])
    assert [a.name for a in spec.outputs()] == ["sums", "other"]  # not `in`, which the old match marked
    assert any(
        "cannot tell whether the kernel writes opaque: it is passed to external_fill" in n for n in done[0].notes
    )


def test_no_output_found_is_unverified_not_a_guess(tmp_path):
    script = _script(
        tmp_path,
        """
        n = 64
        tune_kernel("reader", "k.cu", n, [np.ones(n, np.float32), np.int32(n)], {"block_size_x": [32, 64]})
    """,
        "__global__ void reader(const float *in, int n) { float x = in[threadIdx.x]; (void)x; }\n",
    )
    done, _, _ = import_script(script, tmp_path / "out")
    spec = _spec(done[0])
    assert spec.verify == "none" and "found no argument the kernel writes" in spec.verify_reason


def test_a_tuned_filter_size_without_an_answer_is_unverified_with_the_reason(examples, capsys):
    done, problems, _ = import_script(examples / "convolution.py", examples / "out")
    assert problems == []
    spec = _spec(done[0])
    assert spec.verify == "none"
    assert "kernel_tuner checked nothing here" in spec.verify_reason
    assert "filter_width: the script sizes its data with it (line" in spec.verify_reason
    assert "filter_height" in spec.verify_reason
    assert any("UNVERIFIED" in n for n in done[0].losses)
    assert main(["import", str(examples / "convolution.py"), "--out", str(examples / "o2")]) == 0
    assert "not kept: this kernel is UNVERIFIED" in capsys.readouterr().out


def test_a_tuned_problem_size_with_an_answer_keeps_kernel_tuners_check_and_says_so(tmp_path):
    script = _script(
        tmp_path,
        """
        n = 1000
        args = [np.zeros(n, np.float32), np.ones(n, np.float32), np.int32(n)]
        tune_kernel("scale", "k.cu", "m", args, {"m": [500, 1000], "block_size_x": [32]},
                    answer=[None, np.ones(n, np.float32), None])
    """,
    )
    done, problems, _ = import_script(script, tmp_path / "out")
    assert problems == []
    spec = _spec(done[0])
    assert [a.name for a in spec.outputs()] == ["in"]  # the answer's non-None entry, as kernel_tuner reads it
    assert spec.verify == "elementwise" and spec.reference == "scale.reference.npz"
    assert any(
        "compares every configuration with one answer" in n and "m: the problem size is 'm'" in n for n in done[0].notes
    )


def test_no_answer_says_kernel_tuner_checked_nothing_and_what_kt_tui_checks(examples):
    done, _, _ = import_script(examples / "matmul.py", examples / "out")
    assert any(
        n.startswith("kernel_tuner checked nothing here (the script passes no answer); kt-tui compares C")
        for n in done[0].notes
    )
    assert _spec(done[0]).verify == "elementwise"


def test_a_chained_answer_becomes_the_reference_kernel(examples):
    done, problems, _ = import_script(examples / "convolution_correct.py", examples / "out")
    assert problems == []
    spec = _spec(done[1])
    assert spec.reference == {
        "kernel": "convolution_naive.cu:convolution_naive",
        "grid_div_x": ["block_size_x"],
        "grid_div_y": ["block_size_y"],
        "params": {"block_size_x": 16, "block_size_y": 16, "filter_width": 7, "filter_height": 7},
    }
    assert spec.verify == "elementwise" and [a.name for a in spec.outputs()] == ["output"]
    assert not any("checked against the original's outputs" in n for n in done[1].notes + done[1].losses)


def test_inputs_are_stored_once_and_a_partial_read_is_said(examples):
    done, problems, _ = import_script(examples / "reduction.py", examples / "out")
    assert problems == []
    first, second = (_spec(d) for d in done)
    assert first.args[1].file == second.args[1].file == "sum_floats.array.npy"
    assert sorted(p.name for p in (examples / "out").glob("*.np?")) == [
        "sum_floats.array.npy",
        "sum_floats.reference.npz",
        "sum_floats.sum_global.npy",
    ]
    assert any("array holds 100000 elements" in n and "reads only part of it" in n for n in done[1].notes)
    args = make_args(first)
    assert isinstance(args[1], np.memmap) and not args[1].flags.writeable  # mapped, not read in
    assert not isinstance(args[0], np.memmap) and args[0].flags.writeable  # an output is a private copy


def test_lang_c_imports_the_kernel_its_host_function_launches(examples):
    done, problems, _ = import_script(examples / "host_add.py", examples / "out")
    assert problems == []
    spec = _spec(done[0])
    assert spec.kernel == "add_kernel" and [a.name for a in spec.args] == ["sum", "left", "right", "count"]
    assert [a.name for a in spec.outputs()] == ["sum"] and spec.reference == "add_kernel.reference.npz"
    assert any('lang="C": the host function host_add launches the CUDA kernel add_kernel' in n for n in done[0].notes)


def test_lang_c_that_cannot_be_mapped_names_the_kernel(tmp_path, capsys):
    host = (
        "__global__ void k2(float *a) { a[0] = 1; }\n"
        'extern "C" float h(float *a, int n) { float *d; cudaMalloc(&d, 4); k2<<<1, 1>>>(d); return 0; }\n'
    )
    script = _script(
        tmp_path,
        """
        tune_kernel("h", "k.cu", 1, [np.zeros(1, np.float32), np.int32(1)], {"block_size_x": [1]}, lang="C")
    """,
        host,
    )
    assert main(["import", str(script)]) == 2
    err = capsys.readouterr().err
    assert "the host function h launches the CUDA kernel k2 (the same file), but passes it 'd'" in err


def test_strategy_is_mapped_to_search_or_noted(examples, tmp_path, capsys):
    done, _, _ = import_script(examples / "vector_add.py", examples / "out")
    assert done[0].search == "random_sample" and done[0].search_options == {"fraction": 0.5}
    script = _script(
        tmp_path,
        """
        class Mine:
            def tune(self, *a):
                return []
        n = 100
        args = [np.zeros(n, np.float32), np.ones(n, np.float32), np.int32(n)]
        tune_kernel("scale", "k.cu", n, args, {"block_size_x": [32]}, strategy=Mine(), defines={"WIDTH": 1})
    """,
    )
    done, _, _ = import_script(script, tmp_path / "out")
    assert any("strategy Mine has no kt-tui equivalent" in n for n in done[0].losses)
    assert main(["import", str(examples / "vector_add.py"), "--out", str(examples / "o2")]) == 0
    assert "--search random_sample --search-option fraction=0.5" in capsys.readouterr().out


def test_an_array_is_stored_once_unless_its_contents_change(tmp_path):
    script = _script(
        tmp_path,
        """
        n = 1000
        x, out = np.ones(n, np.float32), np.zeros(n, np.float32)
        tp = {"block_size_x": [32]}
        tune_kernel("scale", "k.cu", n, [out, x, np.int32(n)], tp, defines={"WIDTH": 1})
        tune_kernel("scale", "k.cu", n, [out, np.ones(n, np.float32), np.int32(n)], tp, defines={"WIDTH": 1})
        x[:] = 2  # the script changes the array between its calls
        tune_kernel("scale", "k.cu", n, [out, x, np.int32(n)], tp, defines={"WIDTH": 1})
    """,
    )
    done, problems, _ = import_script(script, tmp_path / "out")
    assert problems == []
    files = [_spec(d).args[1].file for d in done]
    assert files == ["scale.in.npy", "scale.in.npy", "scale_3.in.npy"]
    assert np.load(tmp_path / "out" / "scale_3.in.npy")[0] == 2 and np.load(tmp_path / "out" / "scale.in.npy")[0] == 1


@pytest.mark.gpu
def test_gpu_reference_kernel_verifies_and_a_tuned_filter_size_is_never_called_wrong(examples, capsys, hermetic):
    """convolution_correct: every configuration checked against the naive kernel; convolution (filter
    size tuned, no answer): nothing called verified or wrong, the session says UNVERIFIED."""
    from kt_tui.store import Store

    from ..helpers import run_cli

    for script in ("convolution_correct.py", "convolution.py"):
        out_dir = examples / script.replace(".py", "_kt")
        import_script(examples / script, out_dir)
        code, out = run_cli(
            capsys,
            "run",
            out_dir / "convolution_kernel.cu",
            "--auto",
            "--json",
            "--backend",
            "pycuda",
            "--search",
            "brute_force",
            "--no-seeds",
            "--max-configs",
            "12",
        )
        assert code == 0, out
        rows = [r for r in Store(hermetic / "sessions.db").results(out["session"]) if r.status == "ok"]
        assert rows
        if script == "convolution_correct.py":
            assert all(r.verified is True for r in rows)
        else:
            assert all(r.verified is None for r in rows) and "UNVERIFIED" in out["unverified"]
