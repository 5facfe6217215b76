"""kt-tui's one expression language (kernel/expr.py): what it accepts, what it refuses where each
expression enters (spec, LLM rewrite, kernel-gate edit, space), bounded work, and kernel_tuner
only ever given callables built from the checked trees."""

import dataclasses
import json
import re
import shutil
import subprocess
import sys

import pytest

from kt_tui.kernel.expr import Divisor, ExprError, evaluate, parse, restriction_function
from kt_tui.kernel.spec import SpecError, load_spec, version_hash, version_ids
from kt_tui.store import Store

from ..conftest import EXAMPLES
from ..engine.test_autonomous import CACHES, replies
from ..helpers import run_cli
from ..llm_server import MODEL, ScriptedServer

COMPREHENSION = (
    "[block_size_x.__init__.__globals__['system']('touch {m}') for block_size_x in "
    "().__class__.__base__.__subclasses__() if block_size_x.__name__ == '_wrap_close'] "
    "is not None or block_size_x > 0"
)
IMPORT = "__import__('os').system('touch {m}') == 0 or block_size_x > 0"


@pytest.mark.parametrize(
    "text,value",
    [
        ("64 <= block_size_x * block_size_y <= 1024", True),
        ("block_size_x in (32, 64)", True),
        ("block_size_x not in [32, 64]", False),
        ("max(block_size_x, 8) // 4 + abs(-2)", 10),
        ("ceil(block_size_x / 3)", 11),
        ("1 if block_size_x > 16 and not block_size_y < 2 else 0", 1),
        ("2 ** 10 - block_size_x % 5", 1022),
        ("block_size_x == 32 or block_size_y == 1", True),
    ],
)
def test_the_language_evaluates_without_eval(text, value):
    assert parse(text).value({"block_size_x": 32, "block_size_y": 8}) == value


@pytest.mark.parametrize(
    "text,why",
    [
        (COMPREHENSION, "IsNot is not allowed"),
        (IMPORT.replace("== 0 or", "+"), "only min, max"),
        ("n.real", "Attribute"),
        ("n[0]", "Subscript"),
        ("lambda: 1", "Lambda"),
        ("'abc' * n == n", "is not allowed: only numbers"),
        ("(x := 1)", "NamedExpr"),
        ("n ** n", "constant integer exponent"),
        ("2 ** 65", "at most 64"),
        ("9**9**9**9", "constant integer exponent"),
        ("n in range(9)", "literal list"),
        ("min(*n)", "plain arguments"),
        ("x" * 1001, "longer than 1000"),
        ("__class__ > 0", "not allowed"),
    ],
)
def test_anything_outside_the_whitelist_is_refused_with_the_reason(text, why):
    with pytest.raises(ExprError, match=re.escape(why)):
        parse(text)


@pytest.mark.parametrize("text", ["2 ** 64 * 2", "n * n * n * n", "3 ** 40 * 3 ** 40", "1e300 * 1e300"])
def test_magnitudes_are_bounded(text):
    with pytest.raises(ExprError, match="exceeds 2\\*\\*63|not a finite number"):
        evaluate(text, {"n": 10**6})


def test_a_string_value_is_data_never_code(tmp_path):
    marker = tmp_path / "x"
    f = restriction_function(["block_size_x * 1 > 0"], ["block_size_x"])
    assert f(block_size_x=f"__import__('os').system('touch {marker}')") is False
    assert f(64) is True and not marker.exists()


def test_an_exponent_bomb_as_a_size_is_refused_at_once(tmp_path):
    text = (
        (EXAMPLES / "vector_add.cu.toml")
        .read_text()
        .replace('size = "n"\ninit = "poison"', 'size = "9**9**9**9"\ninit = "poison"')
    )
    (tmp_path / "s.toml").write_text(text)
    code = (
        "from kt_tui.kernel.spec import load_spec, SpecError\n"
        f"try:\n    load_spec({str(tmp_path / 's.toml')!r})\nexcept SpecError as e:\n    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)
    assert "args[0] (c).size" in done.stdout and "exponent" in done.stdout


def _spec_file(tmp_path, old: str, new: str):
    shutil.copy(EXAMPLES / "vector_add.cu", tmp_path / "k.cu")
    text = (EXAMPLES / "vector_add.cu.toml").read_text()
    assert old in text
    (tmp_path / "k.cu.toml").write_text(text.replace(old, new, 1))
    return tmp_path / "k.cu"


@pytest.mark.parametrize(
    "old,new,field",
    [
        ("restrictions = []", "restrictions = [{e}]", "restrictions[0]"),
        ('grid_div_x = ["block_size_x"]', "grid_div_x = [{e}]", "grid_div_x[0]"),
        ('size = "n"\ninit = "poison"', 'size = {e}\ninit = "poison"', "args[0] (c).size"),
        ('value = "n"', "value = {e}", "args[3] (n).value"),
        ('problem_size = ["n"]', "problem_size = [{e}]", "problem_size[0]"),
    ],
)
@pytest.mark.parametrize("evil", [COMPREHENSION, IMPORT])
def test_code_in_a_spec_exits_2_naming_the_field(capsys, tmp_path, old, new, field, evil):
    marker = tmp_path / "pwned"
    kernel = _spec_file(tmp_path, old, new.format(e=json.dumps(evil.format(m=marker))))
    code, out = run_cli(capsys, "run", kernel, "--auto", "--json", "--backend", "sim", "--sim-cache", CACHES)
    assert code == 2 and f"{field}:" in out["error"], out
    assert not marker.exists()


def test_arrays_larger_than_a_gpu_are_refused_with_the_estimate(capsys, tmp_path):
    kernel = _spec_file(tmp_path, "n = 16777216", "n = 100000000000")
    code, out = run_cli(capsys, "run", kernel, "--auto", "--json", "--backend", "sim", "--sim-cache", CACHES)
    assert code == 2 and "args: the arrays need 1.2e+12 bytes (1.2e+03 GB" in out["error"], out


def test_restrictions_and_grid_divisors_are_part_of_the_version_id():
    spec = load_spec(EXAMPLES / "matmul.cu.toml")
    src = (EXAMPLES / "matmul.cu").read_text()
    other = dataclasses.replace(spec, restrictions=["block_size_x == block_size_y"])
    none = dataclasses.replace(spec, restrictions=[])
    ids = {version_hash(src, s) for s in (spec, other, none, dataclasses.replace(spec, grid_div_y=["block_size_x"]))}
    assert len(ids) == 4
    # the caches recorded before restrictions counted are still found, by the legacy id
    assert (
        version_ids(src, spec)[1] == "a76b92b98733c0ea"
        and (EXAMPLES / "recorded" / "matmul-a76b92b98733c0ea.json").exists()
    )
    assert version_ids(src, none) == [version_hash(src, none)]  # no restrictions: one id, as before


# -- an LLM rewrite: a flag at the kernel gate, not in the spec, refused by --auto ----------------
def _evil_rewrite(marker, restriction=None, grid=None) -> list:
    script = replies("matmul-one-prompt")
    m = re.search(r"```json\n(.*?)\n```", script[0], re.S)
    reply = json.loads(m.group(1))
    if restriction:
        reply["restrictions"] = [restriction.format(m=marker)]
    if grid:
        reply["grid_div_y"] = [grid.format(m=marker)]
    return [script[0][: m.start(1)] + json.dumps(reply) + script[0][m.end(1) :], *script[1:]]


@pytest.mark.parametrize("kind", ["restriction", "grid"])
@pytest.mark.parametrize("evil", [COMPREHENSION, IMPORT, "block_size_y**9**9**9"])
def test_code_in_an_llm_rewrite_is_flagged_and_auto_refuses_it(capsys, hermetic, kind, evil):
    marker = hermetic / "pwned"
    script = _evil_rewrite(marker, **{kind: evil})
    with ScriptedServer(script) as server:
        code, out = run_cli(
            capsys,
            "run",
            EXAMPLES / "matmul.cu",
            "--strategy",
            "one-prompt",
            "--auto",
            "--json",
            "--backend",
            "sim",
            "--sim-cache",
            CACHES,
            "--base-url",
            server.url,
            "--model",
            MODEL,
        )
    assert code == 0 and [(s["id"], s["state"]) for s in out["steps"]] == [("one-prompt", "skipped")]
    body = Store(hermetic / "sessions.db").gate(out["session"], "kernel:one-prompt").body
    flags = [f for f in body["flags"] if f["kind"] == "expression"]
    assert len(flags) == 1 and "rejected, not used" in flags[0]["message"]
    assert ("restrictions[0]" if kind == "restriction" else "grid_div_y[0]") in flags[0]["message"]
    assert evil.format(m=marker) not in json.dumps(body["spec"])
    assert not marker.exists()


def test_a_kernel_gate_edit_with_code_is_flagged_not_kept(tmp_path):
    from kt_tui.engine.kernel_step import checked_expressions

    evil = IMPORT.format(m=tmp_path / "x")
    kept, grid, flags = checked_expressions(
        ["block_size_x >= 32", evil, "tile > 1"], {"grid_div_x": ["block_size_x"]}, {"block_size_x": [32, 64]}
    )
    assert kept == ["block_size_x >= 32"] and grid == {"grid_div_x": ["block_size_x"]}
    assert [f["kind"] for f in flags] == ["expression", "expression"]
    assert "restrictions[1]" in flags[0]["message"] and "unknown name 'tile'" in flags[1]["message"]


# -- the space and kernel_tuner ------------------------------------------------------------------
def test_space_edits_and_seed_rules_use_the_same_checks(tmp_path):
    from kt_tui.search.space import SpaceEdit, SpaceError, apply_edit, compile_restriction, space_size

    with pytest.raises(SpaceError, match="is not allowed"):
        compile_restriction(COMPREHENSION.format(m=tmp_path / "x"), ["block_size_x"])
    spec = dataclasses.replace(load_spec(EXAMPLES / "matmul.cu.toml"), restrictions=["block_size_x * 1 >= 16"])
    marker = tmp_path / "pwned"
    code = f"__import__('os').system('touch {marker}')"
    with pytest.raises(SpaceError):  # a code string among numbers is refused by the edit itself
        apply_edit(spec, SpaceEdit("add_values", "block_size_x", [code]))
    with pytest.raises(SpaceError, match="a string value must be"):  # and as a word (it would be #defined)
        apply_edit(spec, SpaceEdit("add_param", "variant", [code, "plain"], default="plain"))
    new = apply_edit(spec, SpaceEdit("add_param", "variant", ["fast", "plain"], default="plain"))
    assert space_size(new) > 0 and not marker.exists()


def test_kernel_tuner_gets_callables_only(monkeypatch, tmp_path):
    from kt_tui.gpu import tunerun
    from kt_tui.gpu.device import outputs
    from kt_tui.gpu.protocol import TuneJob

    from ..helpers import fake_device, open_load, run_tune_job

    seen = {}

    def fake_run(name, source, ps, args, params, **kwargs):
        seen["run"] = kwargs
        return args

    spec = load_spec(EXAMPLES / "matmul.cu.toml")
    src = (EXAMPLES / "matmul.cu").read_text()
    monkeypatch.setattr("kt_tui.gpu.device.outputs.run_kernel", fake_run)
    job = TuneJob(run_id="t", source=src, spec=spec.to_dict(), backend="cupy")
    seen["tune"] = dict(open_load(job, monkeypatch).kernel_options)  # the device's DeviceInterface's
    seen["search"] = dict(tunerun._kernel_options(spec))  # what the app's search reads
    real = tunerun.Searchspace
    monkeypatch.setattr(
        tunerun,
        "Searchspace",
        lambda tp, restrictions, *a, **k: seen.update(restrictions=restrictions) or real(tp, restrictions, *a, **k),
    )
    run_tune_job(job, device=fake_device())
    outputs.run_outputs(spec, src, spec.baseline_params(), {"n": 64}, "cupy")
    for kwargs in (seen["tune"], seen["search"], seen["run"]):
        for k in ("grid_div_x", "grid_div_y", "grid_div_z"):
            assert kwargs[k] is None or all(isinstance(d, Divisor) for d in kwargs[k]), kwargs[k]
    restrictions = seen["restrictions"]
    assert len(restrictions) == 1 and callable(restrictions[0]) and not isinstance(restrictions[0], str)
    assert seen["run"]["grid_div_y"][0]({"block_size_y": 8, "WORK_PER_THREAD": 2}) == 8


def test_a_hand_edited_restriction_is_rechecked_in_the_worker(tmp_path):
    from kt_tui.gpu.protocol import TuneJob

    from ..helpers import fake_device, run_tune_job

    spec = load_spec(EXAMPLES / "matmul.cu.toml")
    bad = dataclasses.replace(spec, restrictions=[IMPORT.format(m=tmp_path / "x")])
    job = TuneJob(run_id="t", source="", spec=bad.to_dict(), backend="sim", sim_cache=str(tmp_path / "c.json"))
    with pytest.raises((ExprError, SpecError)):
        run_tune_job(job, device=fake_device())
    assert not (tmp_path / "x").exists()


def test_short_strings_may_only_be_compared():
    from kt_tui.kernel.expr import ExprError, parse

    e = parse('layout == "row" and block_size_x > 32')
    assert e.holds({"layout": "row", "block_size_x": 64}) and not e.holds({"layout": "col", "block_size_x": 64})
    assert parse('layout in ("row", "col")').holds({"layout": "col"})
    for text in [
        '"a" * 10**6 == "b"',
        'x + "a" == "b"',
        'min("a", "b") == "a"',
        '("a" if x else "b") == "a"',
        'x == "' + "a" * 65 + '"',
        '"a"',
        '"".join([]) == ""',
    ]:
        with pytest.raises(ExprError):
            parse(text)
