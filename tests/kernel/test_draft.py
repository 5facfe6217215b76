"""Drafting a spec from a kernel's source, and `kt-tui spec` (draft, --print, --check)."""

import pytest

from kt_tui.cli import main
from kt_tui.gpu.compile import find_nvcc
from kt_tui.kernel.draft import FLOAT_SCALAR, draft_spec
from kt_tui.kernel.draft_floats import draft_note
from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.source import find_kernels
from kt_tui.kernel.spec import dump_spec, load_spec, parse_spec

from ..llm_server import scripted_llm  # noqa: F401
from .extent_kernels import _draft

needs_nvcc = pytest.mark.skipif(find_nvcc() is None, reason="nvcc not found")

TWO_D = """
__global__ void blur(float *out, const float *in, int width, int height, float weight) {
    int x = blockIdx.x * block_size_x + threadIdx.x;
    int y = blockIdx.y * block_size_y + threadIdx.y;
    if (x < width && y < height) {
        out[y * width + x] = weight * in[y * width + x];
    }
}
"""
DEFINED = """
#define N 1024
#ifndef block_size_x
#define block_size_x 128
#endif
__global__ void add(float *c, float *a, float *b) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < N) c[i] = a[i] + b[i];
}
"""
GATHER = """
__global__ void gather(float *y, float *x, int *idx, float *sum, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) { y[i] = x[idx[i]]; atomicAdd(sum, x[i]); }
}
"""


def test_2d_kernel_drafts_a_2d_spec():
    spec = _draft(TWO_D)
    assert spec.problem_size == ["width", "height"] and set(spec.sizes) == {"width", "height"}
    assert "block_size_y" in spec.tune_params and spec.grid_div_y == ["block_size_y"]
    out, inp, width, height, weight = spec.args
    assert out.size == inp.size == "width*height"
    assert (width.value, height.value) == ("width", "height")
    assert weight.value == FLOAT_SCALAR and "weight" in draft_note(spec)
    assert (out.output, out.init, inp.output) == (True, "poison", False)


def test_defined_size_is_read_and_tunables_are_not():
    spec = _draft(DEFINED)
    assert spec.sizes == {"N": 1024} and spec.problem_size == ["N"]
    assert spec.verify_sizes == []  # a #define cannot change size: no checks at other sizes
    assert [a.name for a in spec.outputs()] == ["c"]


def test_outputs_are_pointers_written_and_index_arrays_are_bounded():
    spec = _draft(GATHER)
    y, x, idx, total, n = spec.args
    assert [a.name for a in spec.outputs()] == ["y", "sum"]  # neither is const, x is not written
    assert total.init == "zeros"  # only accumulated into
    assert (idx.low, idx.high) == (0, "n")
    values = make_args(spec, {"n": 100})[2]
    assert values.min() >= 0 and values.max() < 100


def test_spec_command_writes_prints_and_does_not_overwrite(tmp_path, capsys):
    cu = tmp_path / "blur.cu"
    cu.write_text(TWO_D)
    assert main(["spec", str(cu), "--print"]) == 0
    assert 'problem_size = ["width", "height"]' in capsys.readouterr().out
    assert not (tmp_path / "blur.cu.toml").exists()
    assert main(["spec", str(cu)]) == 0
    spec = load_spec(tmp_path / "blur.cu.toml")
    assert spec.problem_size == ["width", "height"]
    assert main(["spec", str(cu)]) == 2
    assert "exists; not overwritten" in capsys.readouterr().err


@needs_nvcc
def test_spec_check_passes_on_a_drafted_spec(tmp_path, capsys):
    cu = tmp_path / "blur.cu"
    cu.write_text(TWO_D)
    assert main(["spec", str(cu)]) == 0
    assert main(["spec", str(cu), "--check"]) == 0
    assert "spec ok, compiles" in capsys.readouterr().out


@needs_nvcc
def test_spec_check_reports_nvcc_file_and_line(tmp_path, capsys):
    cu = tmp_path / "bad.cu"
    cu.write_text(TWO_D)
    assert main(["spec", str(cu)]) == 0
    cu.write_text(TWO_D.replace("out[y * width + x] =", "out[y * width + x] = = "))
    assert main(["spec", str(cu), "--check"]) == 2
    err = capsys.readouterr().err
    assert f"{cu}:6: error:" in err and "Traceback" not in err


def test_spec_check_names_the_field(tmp_path, capsys):
    cu = tmp_path / "blur.cu"
    cu.write_text(TWO_D)
    assert main(["spec", str(cu)]) == 0
    toml = tmp_path / "blur.cu.toml"
    toml.write_text(toml.read_text().replace('init = "poison"', 'init = "posion"'))
    assert main(["spec", str(cu), "--check"]) == 2
    assert "args[0] (out).init: unknown init 'posion'" in capsys.readouterr().err


@needs_nvcc
def test_spec_check_template_kernel_and_defines(tmp_path, capsys):
    cu = tmp_path / "t.cu"
    cu.write_text("""
template <typename T>
__global__ void vadd(T *c, const T *a, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < LIMIT) c[i] = a[i] + (T)1;
}
""")
    (tmp_path / "t.cu.toml").write_text("""
kernel = "vadd<float>"
problem_size = ["n"]
[sizes]
n = 1000
[defines]
LIMIT = "n"
[tune_params]
block_size_x = [64, 128]
[[args]]
name = "c"
type = "float32"
size = "n"
output = true
[[args]]
name = "a"
type = "float32"
size = "n"
[[args]]
name = "n"
type = "int32"
value = "n"
""")
    assert main(["spec", str(cu), "--check"]) == 0, capsys.readouterr().err
    (tmp_path / "t.cu.toml").write_text((tmp_path / "t.cu.toml").read_text().replace('[defines]\nLIMIT = "n"\n', ""))
    assert main(["spec", str(cu), "--check"]) == 2
    assert "LIMIT" in capsys.readouterr().err


def test_an_array_read_and_written_starts_with_values():
    spec = _draft(
        "__global__ void saxpy(float *y, const float *x, float a, int n) {\n"
        "  int i = blockIdx.x * block_size_x + threadIdx.x;\n  if (i < n) y[i] = a * x[i] + y[i];\n}\n"
    )
    y, x, a, n = spec.args
    assert (y.output, y.init) == (True, "random") and (x.output, x.init) == (False, "random")


@needs_nvcc
async def test_spec_editor_shows_the_source_and_checks_without_saving(tmp_path):
    from kt_tui.ui.setup_screens import SpecEditScreen

    from ..ui.test_ui import SIZE, new_app, wait_for

    cu = tmp_path / "blur.cu"
    cu.write_text(TWO_D)
    app = new_app(cu)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SpecEditScreen))
        assert "__global__ void blur" in app.screen.query_one("#spec-source").text
        await pilot.press("ctrl+k")
        await wait_for(pilot, lambda: "compiles at" in str(app.screen.query_one("#spec-error").render()), 60)
        assert not (tmp_path / "blur.cu.toml").exists()
        area = app.screen.query_one("#spec-text")
        area.text = area.text.replace('init = "poison"', 'init = "posion"')
        await pilot.press("ctrl+k")
        await pilot.pause()
        assert "unknown init 'posion'" in str(app.screen.query_one("#spec-error").render())
        app.exit()


def test_spec_llm_drafts_with_the_model_checked_like_any_spec(tmp_path, capsys, scripted_llm):
    from kt_tui.kernel.draft import draft_spec as draft

    cu = tmp_path / "blur.cu"
    cu.write_text(TWO_D)
    (k,) = find_kernels(TWO_D)
    good = dump_spec(draft(k, src=TWO_D)).replace("width = 1024", "width = 640")
    bad = good.replace('init = "poison"', 'init = "posion"')
    server = scripted_llm([f"Here:\n```toml\n{bad}```", f"```toml\n{good}```"])
    assert main(["spec", str(cu), "--llm", "--approve", "--model", "scripted-model", "--base-url", server.url]) == 0
    text = (tmp_path / "blur.cu.toml").read_text()
    assert text.startswith("# drafted by the LLM (scripted-model)") and "width = 640" in text
    assert "unknown init 'posion'" in server.requests[1]["messages"][-1]["content"]
    assert load_spec(tmp_path / "blur.cu.toml").sizes["width"] == 640


def test_spec_llm_may_not_point_the_worker_at_python(tmp_path, capsys, scripted_llm):
    cu = tmp_path / "blur.cu"
    cu.write_text(TWO_D)
    (tmp_path / "evil.py").write_text("def f(a, b, atol=None):\n    return True\n")
    (k,) = find_kernels(TWO_D)
    sneaky = 'verify = "evil:f"\n' + dump_spec(draft_spec(k, src=TWO_D))
    server = scripted_llm([f"```toml\n{sneaky}```"] * 2)
    assert main(["spec", str(cu), "--llm", "--print", "--model", "m", "--base-url", server.url]) == 2
    assert "references files or Python functions" in capsys.readouterr().err


def _llm_spec(tmp_path, scripted_llm, replies, *flags):
    cu = tmp_path / "blur.cu"
    cu.write_text(TWO_D)
    server = scripted_llm([f"```toml\n{r}```" for r in replies])
    code = main(["spec", str(cu), "--llm", *flags, "--model", "scripted-model", "--base-url", server.url])
    return code, server, tmp_path / "blur.cu.toml"


def _heuristic():
    (k,) = find_kernels(TWO_D)
    return dump_spec(draft_spec(k, src=TWO_D))


def test_spec_llm_shows_its_changes_and_waits_for_a_decision(tmp_path, capsys, scripted_llm):
    good = _heuristic().replace("width = 1024", "width = 640")
    code, _, path = _llm_spec(tmp_path, scripted_llm, [good])
    out, err = capsys.readouterr()
    assert code == 2 and not path.exists() and "waits for a decision; pass --approve" in err
    assert "--- heuristic draft\n+++ LLM draft" in out and "-width = 1024\n+width = 640\n" in out


@pytest.mark.parametrize("answer, expect", [("s", "width = 1024"), ("a", "width = 640"), ("e", "width = 320")])
def test_spec_llm_gate_on_a_terminal_approve_edit_skip(tmp_path, capsys, scripted_llm, monkeypatch, answer, expect):
    good = _heuristic().replace("width = 1024", "width = 640")
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt: answer)
    monkeypatch.setenv("EDITOR", "sed -i s/640/320/")
    monkeypatch.delenv("VISUAL", raising=False)
    code, _, path = _llm_spec(tmp_path, scripted_llm, [good])
    assert code == 0 and f"\n{expect}\n" in path.read_text()
    assert load_spec(path).sizes["width"] == int(expect.split()[-1])


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda t: t.replace('name = "in"', 'name = "input"'), "named 'input', the kernel's parameter 1 is 'in'"),
        pytest.param(lambda t: "defines_only = true\n" + t, "does not compile", marks=needs_nvcc),
    ],
)
def test_spec_llm_reply_that_only_looks_valid_does_not_pass(tmp_path, capsys, scripted_llm, change, words):
    looks_valid = change(_heuristic())
    parse_spec(looks_valid)  # a valid spec as far as the spec's own checks go
    code, server, path = _llm_spec(tmp_path, scripted_llm, [looks_valid, looks_valid], "--approve")
    assert code == 2 and not path.exists()
    assert words in capsys.readouterr().err and words in server.requests[1]["messages"][-1]["content"]


@pytest.mark.parametrize("key", ["a", "e", "s"])
async def test_spec_editor_llm_draft_gate_approve_edit_skip(tmp_path, scripted_llm, key):
    from kt_tui.ui.setup_screens import SpecEditScreen
    from kt_tui.ui.spec_draft import SpecDraftGate

    from ..ui.test_ui import SIZE, new_app, wait_for

    cu = tmp_path / "blur.cu"
    cu.write_text(TWO_D)
    good = _heuristic().replace("width = 1024", "width = 640")
    looks_valid = good.replace('name = "in"', 'name = "input"')
    server = scripted_llm([f"```toml\n{looks_valid}```", f"```toml\n{good}```"])
    app = new_app(cu, model="scripted-model", base_url=server.url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SpecEditScreen))
        editor = app.screen
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, SpecDraftGate), 60)
        shown = app.screen.changes  # what #draft-diff shows
        assert "-width = 1024" in shown and "+width = 640" in shown and "input" not in shown
        await pilot.press(key)
        await pilot.pause()
        if key == "a":  # saved, and the session opens
            await wait_for(pilot, lambda: (tmp_path / "blur.cu.toml").exists())
            assert load_spec(tmp_path / "blur.cu.toml").sizes["width"] == 640
        else:
            assert app.screen is editor and not (tmp_path / "blur.cu.toml").exists()
            text = editor.query_one("#spec-text").text
            assert ("width = 640" in text) == (key == "e")
        app.exit()
    assert "named 'input'" in server.requests[1]["messages"][-1]["content"]
