"""`kt-tui import`: kernel_tuner scripts become kernels + launch specs, with nothing tuned."""

import json
import os
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest

from kt_tui.cli import main
from kt_tui.gpu.compile import find_nvcc
from kt_tui.importer.run import import_script
from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.source import find_kernels, read_source
from kt_tui.kernel.spec import SpecError, load_spec, spec_path_for

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "kernel_tuner_examples"
needs_nvcc = pytest.mark.skipif(find_nvcc() is None, reason="nvcc not found")

KERNEL = """
__global__ void scale(float *out, const float *in, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}
"""


@pytest.fixture
def examples(tmp_path):
    """A copy of the fixture scripts: importing runs them, and they write files beside themselves."""
    return Path(shutil.copytree(FIXTURES, tmp_path / "ex"))


def _script(tmp_path, body: str, name: str = "tune.py") -> Path:
    (tmp_path / "scale.cu").write_text(KERNEL)
    path = tmp_path / name
    path.write_text(
        textwrap.dedent("""
        import numpy as np
        from kernel_tuner import tune_kernel
        n = 1000
        args = [np.zeros(n, np.float32), np.arange(n, dtype=np.float32), np.int32(n)]
        tp = {"block_size_x": [32, 64, 128], "tile": [1, 2]}
    """)
        + textwrap.dedent(body)
    )
    return path


def _spec(imported):
    k = imported.kernel_path
    kernel = find_kernels(read_source(k))
    return load_spec(spec_path_for(k), next(x for x in kernel if x.name == imported.kernel.split("<")[0]))


@pytest.mark.parametrize(
    "name,kernels",
    [
        ("vector_add", ["vector_add"]),
        ("matmul", ["matmul_kernel"]),
        ("convolution", ["convolution_kernel"]),
        ("stencil", ["stencil_kernel"]),
        ("zeromeanfilter", ["computeMeanVertically", "computeMeanHorizontally"]),
        ("reduction", ["sum_floats"] * 2),  # the script stops at min() of the 2nd call's empty results
        ("convolution_correct", ["convolution_naive", "convolution_kernel"]),
        ("host_add", ["add_kernel"]),
    ],
)
def test_kernel_tuner_example_imports_and_checks(examples, name, kernels, capsys):
    out = examples / "out"
    done, problems, _ = import_script(examples / f"{name}.py", out)
    assert problems == []
    assert [d.kernel for d in done] == kernels
    for d in done:
        assert all(f.is_file() for f in d.files)
        spec = _spec(d)
        assert len(make_args(spec)) == len(spec.args)
    if find_nvcc():
        assert main(["spec", str(done[0].kernel_path), "--check"]) == 0
        assert "spec ok, compiles" in capsys.readouterr().out


def test_import_keeps_what_tune_kernel_was_given(examples):
    done, _, _ = import_script(examples / "matmul.py", examples / "out")
    spec = _spec(done[0])
    assert spec.restrictions == ["block_size_x==block_size_y*tile_size_y"]
    assert spec.grid_div_x == ["block_size_x", "tile_size_x"] and spec.iterations == 32
    assert spec.problem_size == ["nx", "ny"] and spec.sizes == {"nx": 512, "ny": 512}
    # the script computes an answer but does not pass it: C is the output because the body writes it
    assert [a.name for a in spec.outputs()] == ["C"] and spec.reference is None
    a = np.load(examples / "out" / "matmul_kernel.A.npy")
    assert a.shape == (512 * 512,) and a.dtype == np.float32
    assert any("metrics not imported" in n for n in done[0].losses)


def test_import_cmem_args_and_tuned_problem_size(examples):
    done, _, _ = import_script(examples / "convolution.py", examples / "out")
    spec = _spec(done[0])
    assert spec.cmem_args == "convolution_kernel.cmem.npz"
    assert set(np.load(examples / "out" / spec.cmem_args).files) == {"d_filter"}
    assert spec.restrictions == ["use_padding==0 or (block_size_x % 32 != 0)"]
    done, _, notes = import_script(examples / "reduction.py", examples / "out2")
    spec = _spec(done[0])
    assert spec.problem_size == ["num_blocks"] and spec.tuned_problem_size()
    assert spec.verify == "sum_floats_verify:add_up_partials"  # nested in tune(), but reads no locals
    assert "import numpy" in (examples / "out2" / "sum_floats_verify.py").read_text()
    assert any("min() arg is an empty sequence" in n for n in notes)  # the script's post-processing


def test_problem_size_callable_string_tuple_and_restriction_lambda(tmp_path):
    script = _script(
        tmp_path,
        """
        size = 32
        tune_kernel("scale", "scale.cu", lambda p: (p["block_size_x"] * 8, size), args, tp,
                    restrictions=[lambda p: p["block_size_x"] * p["tile"] <= 128, "tile < 2 or block_size_x > 32"])
        tune_kernel("scale", "scale.cu", "block_size_x", args, tp, restrictions=lambda p: p["tile"] == 1)
        tune_kernel("scale", "scale.cu", (n, 1), args, tp)
    """,
    )
    done, problems, _ = import_script(script, tmp_path / "out")
    assert problems == []
    first, second, third = (_spec(d) for d in done)
    assert first.problem_size == ["block_size_x * 8", "32"]
    assert first.restrictions == ["block_size_x * tile <= 128", "tile < 2 or block_size_x > 32"]
    assert second.problem_size == ["block_size_x"] and second.restrictions == ["tile == 1"]
    assert third.problem_size == ["nx", 1] and third.sizes == {"nx": 1000}
    assert third.args[2].value == "nx" and third.args[0].size == "nx"
    assert [a.name for a in third.outputs()] == ["out"]  # written in the body


def test_restriction_function_that_is_not_an_expression_is_refused(tmp_path, capsys):
    script = _script(
        tmp_path,
        """
        import math
        def check(p):
            x = p["tile"]
            return x < 2
        tune_kernel("scale", "scale.cu", n, args, tp, restrictions=[check])
    """,
    )
    assert main(["import", str(script)]) == 2
    err = capsys.readouterr().err
    assert "restrictions[0] is a Python function: write it as an expression" in err
    assert not (tmp_path / "tune_kt").exists()


def test_several_calls_and_chained_run_kernel(tmp_path):
    script = _script(
        tmp_path,
        """
        from kernel_tuner import run_kernel
        ref = run_kernel("scale", "scale.cu", n, args, {"block_size_x": 64, "tile": 1})
        tune_kernel("scale", "scale.cu", n, args, tp, answer=[ref[0], None, None], atol=1e-3)
    """,
    )
    done, problems, _ = import_script(script, tmp_path / "out")
    assert problems == [] and [d.kernel_path.name for d in done] == ["scale.cu", "scale_2.cu"]
    assert _spec(done[0]).tune_params == {"block_size_x": [64], "tile": [1]}
    spec = _spec(done[1])
    # run_kernel ran nothing during the import: the kernel it ran is the reference, at its parameters
    assert spec.reference == {"kernel": "scale.cu:scale", "params": {"block_size_x": 64, "tile": 1}}
    assert any("[reference] kernel" in n for n in done[1].notes)
    assert spec.outputs()[0].atol == 1e-3


@pytest.mark.parametrize(
    "call,message",
    [
        (
            'tune_kernel("scale", "scale.cu", n, args, tp, lang="OpenCL")',
            "lang = 'OpenCL' is not supported: kt-tui tunes CUDA kernels",
        ),
        (
            'tune_kernel("scale", "scale.cu", n, args, tp, texmem_args={"tex": {"array": args[1]}})',
            "texmem_args is not supported by kt-tui yet (tex)",
        ),
        (
            'tune_kernel("scale", "scale.cu", n, args, tp, smem_args={"size": 64, "x": 1})',
            'smem_args: only "size" is supported (got size, x)',
        ),
        (
            'tune_kernel("scale", lambda p: "// " * p["block_size_x"], n, args, tp)',
            "is a Python function (__main__:<lambda>) that generates code, and it fails when given parameter names",
        ),
        (
            'tune_kernel("scale", lambda p: "// %d" % (p["tile"] + 1), n, args, tp)',
            "it fails when given parameter names",
        ),
        ('tune_kernel("nope", "scale.cu", n, args, tp)', "no __global__ kernel named 'nope'"),
    ],
)
def test_unsupported_calls_are_refused_clearly(tmp_path, capsys, call, message):
    script = _script(tmp_path, call + "\n")
    assert main(["import", str(script)]) == 2
    err = capsys.readouterr().err
    assert "kt-tui: import: call 1 (" in err and message in err
    assert "Traceback" not in err


def test_script_cannot_see_api_keys(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("KT_TUI_FOR_SCRIPT", "visible")
    script = _script(
        tmp_path,
        """
        import json, os
        open("env.json", "w").write(json.dumps(dict(os.environ)))
        assert __name__ == "__main__"
        tune_kernel("scale", "scale.cu", n, args, tp)
    """,
    )
    done, problems, _ = import_script(script, tmp_path / "out")
    env = (tmp_path / "env.json").read_text()  # cwd is the script's folder
    assert "sk-secret" not in env and "OPENAI_API_KEY" not in env and "visible" in env
    assert json.loads(env)["CUDA_VISIBLE_DEVICES"] == ""
    assert len(done) == 1 and problems == []


def test_script_that_never_ends_is_stopped(tmp_path, capsys):
    script = _script(tmp_path, "while True:\n    pass\n")
    assert main(["import", str(script), "--timeout", "3"]) == 2
    assert "did not finish within 3 s and was stopped" in capsys.readouterr().err


def test_script_with_no_call_or_an_error_before_it(tmp_path, capsys):
    script = _script(tmp_path, "raise RuntimeError('no data file')\n")
    assert main(["import", str(script)]) == 2
    err = capsys.readouterr().err
    assert "made no tune_kernel or run_kernel call" in err and "RuntimeError: no data file" in err


def test_top_level_verify_function_is_kept_and_runs_only_in_the_worker(tmp_path, monkeypatch):
    script = _script(
        tmp_path,
        """
        def close_enough(answer, result, atol=None):
            return np.allclose(answer[0], result[0], atol=atol)
        if __name__ == "__main__":
            tune_kernel("scale", "scale.cu", n, args, tp, answer=[args[1] * 2, None, None], verify=close_enough)
    """,
    )
    done, problems, _ = import_script(script, tmp_path / "out")
    assert problems == []
    spec = _spec(done[0])
    assert spec.verify == "scale_verify:close_enough" and not (tmp_path / "out" / "tune.py").exists()
    from kt_tui.gpu.device.session import user_verify
    from kt_tui.kernel import inputs

    with pytest.raises(SpecError, match="runs only in the GPU worker"):
        user_verify(spec)
    monkeypatch.setattr(inputs, "_USER_CODE", [True])  # as the GPU worker does (allow_user_code)
    fn = user_verify(spec)
    ref = np.load(tmp_path / "out" / spec.reference)["out"]
    assert fn([ref, None, None], [ref + 1e-7, None, None], atol=1e-5)
    assert not fn([ref, None, None], [ref + 1, None, None], atol=1e-5)
    assert np.array_equal(ref, np.arange(1000, dtype=np.float32) * 2)  # a plain answer is kept


def test_worker_gets_the_imported_keys(examples, monkeypatch):
    """cmem_args, defines, a tuned problem size and the reference file reach kernel_tuner's tune_kernel."""
    from kt_tui.gpu.protocol import TuneJob

    from ..helpers import open_load

    done, _, _ = import_script(examples / "convolution.py", examples / "out")
    spec = _spec(done[0])
    spec.defines = {"EXTRA": "nx // 2"}
    spec.problem_size = ["nx // block_size_x * block_size_x", "ny"]
    job = TuneJob(
        run_id="r",
        source=done[0].kernel_path.read_text(),
        spec=spec.to_dict(),
        backend="cupy",
        cachefile=str(examples / "cache.json"),
        configs=None,
    )
    opened = open_load(job, monkeypatch)
    seen = dict(opened.kernel_options, args=opened.host_args)
    assert list(seen["cmem_args"]) == ["d_filter"] and seen["defines"]["EXTRA"] == 128
    # added to kernel_tuner's own defines (which a `defines` argument would otherwise replace)
    assert seen["defines"]["tile_size_x"]({"tile_size_x": 4}) == 4 and seen["defines"]["kernel_tuner"] == 1
    assert seen["problem_size"]({"block_size_x": 48}) == (240, 256)
    assert np.array_equal(seen["args"][1], np.load(examples / "out" / "convolution_kernel.input.npy"))


def test_open_a_script_imports_it_first(tmp_path):
    from kt_tui.front.commands import _imported_kernel

    script = _script(tmp_path, 'tune_kernel("scale", "scale.cu", n, args, tp)\n')
    path = _imported_kernel(str(script))
    assert path.endswith("tune_kt/scale.cu") and Path(path + ".toml").is_file()


def test_unverified_session_says_so_at_gates_and_in_the_report(tmp_path, capsys):
    from kt_tui.store import Store

    from ..conftest import EXAMPLES
    from ..helpers import run_cli

    for f in ("vector_add.cu", "vector_add.cu.toml"):
        shutil.copy(EXAMPLES / f, tmp_path / f)
    shutil.copytree(EXAMPLES / "recorded", tmp_path / "recorded")
    toml = tmp_path / "vector_add.cu.toml"
    toml.write_text('verify = "none"\nverify_reason = "testing the banner"\n' + toml.read_text())
    code, out = run_cli(capsys, "run", tmp_path / "vector_add.cu", "--auto", "--json", "--backend", "sim")
    assert code == 0 and out["simulated"] is True
    assert out["unverified"] == 'UNVERIFIED: outputs are not checked (verify = "none": testing the banner)'
    gates = Store(os.environ["KT_TUI_DB"]).gates(out["session"])
    assert gates and all("UNVERIFIED" in g.body["unverified"] for g in gates)


def test_checks_at_other_sizes_get_defines_at_that_size(monkeypatch):
    from kt_tui.gpu.device import outputs
    from kt_tui.gpu.device.outputs import run_outputs
    from kt_tui.kernel.spec import parse_spec

    spec = parse_spec(
        'kernel = "k"\nproblem_size = ["n"]\n[sizes]\nn = 64\n[defines]\nN = "n"\n'
        '[tune_params]\nblock_size_x = [32]\n[[args]]\nname = "out"\ntype = "float32"\nsize = "n"\n'
        "output = true\n"
    )
    seen = {}

    def fake_run_kernel(name, source, problem_size, args, params, **kw):
        seen.update(kw, problem_size=problem_size)
        return args

    monkeypatch.setattr(outputs, "run_kernel", fake_run_kernel)
    run_outputs(spec, "", {"block_size_x": 32}, {"n": 37}, "cupy")
    assert seen["defines"]["N"] == 37 and seen["problem_size"] == 37
    assert seen["defines"]["grid_size_x"]({"block_size_x": 32}) == 2  # at that size too


def test_a_code_generator_that_fills_in_values_becomes_source(tmp_path):
    script = _script(
        tmp_path,
        """
        def generate(p):
            return open("scale.cu").read().replace("2.0f", "(%s * 1.0f)" % p["tile"])
        tune_kernel("scale", generate, n, args, tp)
    """,
    )
    done, problems, _ = import_script(script, tmp_path / "out")
    assert problems == [] and "out[i] = (tile * 1.0f) * in[i]" in done[0].kernel_path.read_text()
    assert any("generate's output with the parameter names" in n for n in done[0].notes)
    if find_nvcc():
        assert main(["spec", str(done[0].kernel_path), "--check"]) == 0


def test_smem_args_size_becomes_smem_size(tmp_path, monkeypatch):
    script = _script(
        tmp_path,
        """
        tune_kernel("scale", "scale.cu", n, args, tp, smem_args={"size": lambda p: p["block_size_x"] * 4})
        tune_kernel("scale", "scale.cu", n, args, tp, smem_args={"size": 256})
    """,
    )
    done, problems, _ = import_script(script, tmp_path / "out")
    assert problems == []
    first, second = (_spec(d) for d in done)
    assert first.smem_size == "block_size_x * 4" and second.smem_size == 256
    assert first.smem_function()({"block_size_x": 64, "tile": 1}) == 256


def test_verify_function_reading_locals_is_not_kept_and_the_kernel_says_unverified(tmp_path, capsys):
    script = _script(
        tmp_path,
        """
        def tune():
            tol = 1e-3
            def close(answer, result, atol=None):
                return np.allclose(answer[0], result[0], atol=tol)
            tune_kernel("scale", "scale.cu", n, args, tp, answer=[args[1] * 2, None, None], verify=close)
        tune()
    """,
    )
    done, problems, _ = import_script(script, tmp_path / "out")
    spec = _spec(done[0])
    assert spec.verify == "none" and "close could not be copied" in spec.verify_reason
    assert any("reads tol from the function around it" in n for n in done[0].losses)
    if find_nvcc():
        assert main(["spec", str(done[0].kernel_path), "--check"]) == 0
        assert "UNVERIFIED" in capsys.readouterr().out


def test_positional_options_odd_values_and_unknown_options(tmp_path, capsys):
    script = _script(
        tmp_path,
        """
        tune_kernel("scale", "scale.cu", n, args, tp, ["block_size_x"], observers=[object()], verbose=True)
        tune_kernel("scale", "scale.cu", n, args, {"block_size_x": [32, None]})
    """,
    )
    done, problems, _ = import_script(script, tmp_path / "out")
    assert _spec(done[0]).grid_div_x == ["block_size_x"] and "not imported: observers" in done[0].losses
    assert problems == ["call 2 (scale): tune_params.block_size_x[1]: None: expected a number or a short word"]
