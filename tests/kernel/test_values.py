"""Tunable names and values are checked wherever they enter: no value can reach the compiler as
source text, no number can be non-finite or unbounded (hostile test of main, findings 1-21)."""

import json

import pytest

import kt_tui.gpu.compile as compile_mod
from kt_tui.kernel.spec import SpecError, dump_spec, parse_spec, spec_from_dict
from kt_tui.kernel.values import check_tune_params, clean_tune_params
from kt_tui.store import Store

from ..conftest import EXAMPLES
from ..helpers import run_cli
from ..llm_server import MODEL, ScriptedServer

KERNEL = (
    "__global__ void vector_add(float *c, const float *a, const float *b, int n) {\n"
    "    int i = blockIdx.x * block_size_x * items_per_thread + threadIdx.x;\n"
    "    for (int k = 0; k < items_per_thread; k++) {\n        int j = i + k * block_size_x;\n"
    "        if (j < n) {\n            c[j] = a[j] + b[j];\n        }\n    }\n}\n"
)
UNROLLED = KERNEL.replace("    for (int k", "    #pragma unroll loop_unroll_factor_k\n    for (int k")
BASE = {
    "kernel_code": KERNEL,
    "tune_params": {"block_size_x": [64, 128, 256], "items_per_thread": [1, 2]},
    "grid_div_x": ["block_size_x", "items_per_thread"],
    "explanation": "x",
}


@pytest.fixture
def compiles(monkeypatch):
    seen, real = [], compile_mod.compile_check

    def counting(source, params, *a, **k):
        seen.append(source)
        return real(source, params, *a, **k)

    monkeypatch.setattr(compile_mod, "compile_check", counting)
    return seen


def one_prompt(capsys, reply: dict):
    with ScriptedServer([json.dumps(reply)]) as server:
        return run_cli(
            capsys,
            "run",
            EXAMPLES / "vector_add.cu",
            "--strategy",
            "one-prompt",
            "--auto",
            "--json",
            "--backend",
            "sim",
            "--sim-cache",
            EXAMPLES / "recorded",
            "--base-url",
            server.url,
            "--model",
            MODEL,
        )


LU_INC = {
    **BASE,
    "kernel_code": UNROLLED,
    "grid_div_x": ["block_size_x"],
    "tune_params": {"block_size_x": [128, 256], "loop_unroll_factor_k": ['1;\n#include "/etc/hostname"\n//', 2]},
}
J_CR = {**BASE, "tune_params": {"block_size_x": [64, 128, 256], "items_per_thread": ['1\r#include "/etc/hostname"', 2]}}


@pytest.mark.parametrize("reply", [LU_INC, J_CR], ids=["lu_inc", "j_cr"])
def test_an_llm_value_that_would_write_source_is_dropped_flagged_and_never_compiled(capsys, hermetic, compiles, reply):
    code, out = one_prompt(capsys, reply)
    gate = Store(hermetic / "sessions.db").gate(out["session"], "kernel:one-prompt").body
    assert [f["kind"] for f in gate["flags"]] == ["expression"] and "[0]" in gate["flags"][0]["message"]
    assert gate["compile"].get("deferred")
    assert all("#include" not in str(v) for vals in gate["tune_params"].values() for v in vals)
    assert reply["kernel_code"] not in compiles  # not before approval; --auto does not approve flagged code
    assert out["steps"][-1]["state"] == "skipped"


SPEC = {
    "kernel": "vector_add",
    "problem_size": ["n"],
    "sizes": {"n": 1000},
    "args": [
        {"name": "c", "type": "float32", "size": "n", "output": True},
        {"name": "n", "type": "int32", "value": "n"},
    ],
}


@pytest.mark.parametrize(
    "tune, field",
    [
        ({"b": ['1\r#include "/etc/hostname"']}, "tune_params.b[0]"),
        ({"b": [1, float("nan")]}, "tune_params.b[1]"),
        ({"b": [1, 10**400]}, "tune_params.b[1]"),
        ({"b": [True]}, "tune_params.b[0]"),
        ({"b": [[1, 2]]}, "tune_params.b[0]"),
        ({"b": ["a b"]}, "tune_params.b[0]"),
        ({"b": []}, "tune_params.b"),
        ({"b": [1, 1]}, "tune_params.b"),
        ({"W 1\n#include x": [1]}, "tune_params.'W 1\\n#include x'"),
        ({"__x": [1]}, "tune_params.'__x'"),
    ],
)
def test_the_spec_refuses_bad_tunable_names_and_values_naming_the_field(tune, field):
    with pytest.raises(SpecError) as e:
        spec_from_dict({**SPEC, "tune_params": tune})
    assert e.value.field == field


def test_good_values_pass_and_the_llm_cleaner_keeps_only_them():
    assert check_tune_params({"b": [32, 64], "f": [0.5, 1e30], "s": ["float4", "v1.2"]})
    kept, dropped = clean_tune_params({"b": [32, "a;b", float("inf")], "1x": [1], "s": ["x" * 65]})
    assert kept == {"b": [32]} and len(dropped) == 5


def test_a_defines_key_must_be_a_name():
    with pytest.raises(SpecError) as e:
        spec_from_dict({**SPEC, "defines": {'W 1\n#include "/etc/hostname"': 1}})
    assert e.value.field.startswith("defines.'W 1\\n") and "\n" not in str(e.value)


def test_dump_spec_quotes_keys_so_no_key_adds_a_line():
    spec = spec_from_dict(SPEC)
    spec.metrics = {'bytes\nverify = "none"': "n"}  # a key no check let through still cannot inject
    text = dump_spec(spec)
    assert '\nverify = "none"' not in text
    import tomllib

    assert list(tomllib.loads(text)["metrics"]) == ['bytes\nverify = "none"']


@pytest.mark.parametrize(
    "tp",
    [
        '{"block_size_x": [32, 64], \'evil = 1\\nverify = "none"\\n[defines]\\nQ\': [1, 2]}',
        '{"block_size_x": [32, "1;\\n#include \\"/etc/hostname\\"\\n//"]}',
    ],
)
def test_import_refuses_a_bad_tunable_naming_the_call_and_parameter(tmp_path, capsys, tp):
    from kt_tui.cli import main

    (tmp_path / "k.cu").write_text(
        "__global__ void k(float *a, int n) {int i = threadIdx.x + blockIdx.x * block_size_x; if (i < n) a[i] = 1;}\n"
    )
    (tmp_path / "t.py").write_text(
        "import numpy as np\nfrom kernel_tuner import tune_kernel\n"
        "a = np.zeros(1000, np.float32)\n"
        f"tune_kernel('k', 'k.cu', 1000, [a, np.int32(1000)], {tp})\n"
    )
    assert main(["import", str(tmp_path / "t.py"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "call 1 (k): tune_params." in err and "Traceback" not in err
    assert not list((tmp_path / "out").glob("*.toml")) if (tmp_path / "out").exists() else True


def test_a_steps_file_value_that_would_write_source_is_refused():
    from kt_tui.engine.strategies.steps_file import StepsError, parse_steps

    good = '[[step]]\nid = "a"\ntitle = "A"\nprompt = "do A to {kernel_string}"\n'
    for bad, field in [
        ('tune_params = { u = ["1\\r#include \\"/etc/hostname\\""] }', "tune_params.u[0]"),
        ("tune_params = { u = [nan] }", "tune_params.u[0]"),
        ("tune_params = { u = [true] }", "tune_params.u[0]"),
    ]:
        with pytest.raises(StepsError, match=field.replace("[", r"\[").replace("]", r"\]")):
            parse_steps(good + bad + "\n")


def test_a_space_edit_value_that_would_write_source_is_refused():
    from kt_tui.search.space import SpaceEdit, SpaceError, apply_edit

    spec = spec_from_dict({**SPEC, "tune_params": {"block_size_x": [32, 64]}})
    for edit in [
        SpaceEdit("add_param", "u", ["1;\n#include x"]),
        SpaceEdit("add_values", "block_size_x", [float("inf")]),
        SpaceEdit("add_param", "__u", [1]),
    ]:
        with pytest.raises(SpaceError):
            apply_edit(spec, edit)


def test_a_seed_rule_value_must_be_finite():
    from kt_tui.search.seeds import RuleError, parse_rule

    for bad in ["block_size_x = { min = nan }", "block_size_x = [inf]"]:
        with pytest.raises(RuleError):
            parse_rule(f'name = "r"\n[[seeds]]\n{bad}\n')


@pytest.mark.parametrize("bad", [-1.0, 0.0, float("nan"), float("inf")])
def test_a_recorded_time_that_is_not_a_positive_finite_number_is_never_ok_nor_best(capsys, hermetic, bad):
    src = next((EXAMPLES / "recorded").glob("vector_add-*.json"))
    data = json.loads(src.read_text())
    fastest = min(
        (k for k, r in data["cache"].items() if isinstance(r.get("time"), float)),
        key=lambda k: data["cache"][k]["time"],
    )
    data["cache"][fastest]["time"] = bad
    (hermetic / "rec").mkdir()
    (hermetic / "rec" / src.name).write_text(json.dumps(data))
    code, out = run_cli(
        capsys,
        "run",
        EXAMPLES / "vector_add.cu",
        "--auto",
        "--json",
        "--backend",
        "sim",
        "--sim-cache",
        hermetic / "rec",
    )
    assert code == 0 and out["best"]["time_ms"] > 0 and out["best"]["params"]["block_size_x"] != int(fastest)
    rows = {r.key: r for r in Store(hermetic / "sessions.db").results(out["session"])}
    assert rows[fastest].status == "invalid_time" and rows[fastest].time_ms is None


def _arg(**kw):
    return {"name": "a", "type": "float32", "size": "n", "init": "random", **kw}


@pytest.mark.parametrize(
    "change, field",
    [
        ({"args": [{**SPEC["args"][0], "type": "float4", "size": "n * 7000000"}, SPEC["args"][1]]}, "args"),
        ({"args": [{**SPEC["args"][0], "size": "1e309"}, SPEC["args"][1]]}, "args[0] (c).size"),
        ({"args": [{**SPEC["args"][0], "size": float("nan")}, SPEC["args"][1]]}, "args[0] (c).size"),
        ({"args": [{**SPEC["args"][0], "size": "9" * 900}, SPEC["args"][1]]}, "args[0] (c).size"),
        ({"problem_size": ["1e309"]}, "problem_size[0]"),
        ({"args": [SPEC["args"][0], {**SPEC["args"][1], "value": 2**40}]}, "args[1] (n).value"),
        ({"args": [SPEC["args"][0], {**SPEC["args"][1], "value": float("inf")}]}, "args[1] (n).value"),
        ({"args": [*SPEC["args"], _arg(low=float("-inf"), high=float("inf"))]}, "args[2] (a).low"),
        ({"args": [*SPEC["args"], _arg(low=1e30)]}, "args[2] (a).low"),
        ({"args": [*SPEC["args"], _arg(low=0, high=1e300)]}, "args[2] (a).high"),
        ({"args": [*SPEC["args"], _arg(type="int32", low=2**40, high=2**41)]}, "args[2] (a).low"),
        ({"args": [*SPEC["args"], _arg(init="constant", value=1e300)]}, "args[2] (a).value"),
        ({"args": [{**SPEC["args"][0], "atol": float("inf")}, SPEC["args"][1]]}, "args[0] (c).atol"),
        ({"grid_div_x": ["block_size_x - block_size_x"]}, "grid_div_x[0]"),
        ({"grid_div_x": ["-block_size_x"]}, "grid_div_x[0]"),
        ({"grid_div_x": ["block_size_x ** 64"]}, "grid_div_x[0]"),
        ({"smem_size": "2**62"}, "smem_size"),
        ({"metrics": {"bytes": -1}}, "metrics.bytes"),
        ({"metrics": {"bytes": float("inf")}}, "metrics.bytes"),
        ({"iterations": 0.5}, "iterations"),
        ({"timeout_s": float("nan")}, "timeout_s"),
        ({"defines": {"W": float("inf")}}, "defines.W"),
    ],
)
def test_the_spec_check_refuses_values_that_cannot_be_built_naming_the_field(change, field):
    data = {**SPEC, "tune_params": {"block_size_x": [32, 64]}, **change}
    with pytest.raises(SpecError) as e:
        parse_spec(_toml(data))
    assert e.value.field == field, str(e.value)


def _toml(data: dict) -> str:
    """`data` as TOML text (values a Spec would refuse included)."""
    from kt_tui.tomlfile import dumps

    return dumps(data)


def test_spec_check_says_which_field_and_exits_2_never_a_traceback(capsys, tmp_path):
    for f in ("vector_add.cu", "vector_add.cu.toml"):
        (tmp_path / f).write_text((EXAMPLES / f).read_text())
    spec = tmp_path / "vector_add.cu.toml"
    spec.write_text(spec.read_text().replace('size = "n"', 'size = "1e309"', 1))
    from kt_tui.cli import main

    assert main(["spec", str(tmp_path / "vector_add.cu"), "--check"]) == 2
    err = capsys.readouterr().err
    assert "args[0] (c).size" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "flags, config, says",
    [
        (["--timeout", "nan"], "", "--timeout: must be a finite number"),
        (["--timeout", "inf"], "", "--timeout: must be a finite number"),
        (["--strategy", "autonomous", "--threshold", "nan"], "", "--threshold: must be a finite number"),
        (["--time-limit", "nan"], "", "--time-limit: must be a finite number"),
        (["--strategy", "config-search", "--batch-size", "0"], "", "--batch-size: must be at least 1"),
        (["--search-option", "popsize=nan"], "", "popsize: must be finite numbers"),
        (["--search-option", "popsize=[1e999]"], "", "popsize: must be finite numbers"),
        ([], 'strategy = "autonomous"\nthreshold = nan\n', "config.toml: threshold: must be a finite number"),
        ([], "timeout_s = 1e400\n", "config.toml: timeout_s: must be a finite number"),
        ([], 'search = "__import__"\n', "'__import__': unknown search (known: kt, brute_force"),
        ([], 'strategy = "config-search"\nhybrid = "nope"\n', "'nope': unknown search"),
    ],
)
def test_settings_refuse_non_finite_numbers_and_unknown_searches(capsys, hermetic, flags, config, says):
    from kt_tui.cli import main

    (hermetic / "config").mkdir()
    (hermetic / "config" / "config.toml").write_text(config)
    assert (
        main(
            [
                "run",
                str(EXAMPLES / "vector_add.cu"),
                "--auto",
                "--json",
                "--backend",
                "sim",
                "--sim-cache",
                str(EXAMPLES / "recorded"),
                *flags,
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err
    assert not (hermetic / "sessions.db").exists() or Store(hermetic / "sessions.db").sessions() == []


def test_a_database_with_a_negative_schema_version_is_refused_not_restamped(tmp_path):
    import sqlite3

    from kt_tui.store.db import SchemaError

    path = tmp_path / "s.db"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = -5")
    with pytest.raises(SchemaError, match="schema version -5"):
        Store(path).sessions()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == -5


@pytest.mark.parametrize(
    "values, field",
    [
        ("[[256], 256]", "tune_params.block_size_x[0]"),
        ("[nan, 256]", "tune_params.block_size_x[0]"),
        ('["256;", 32]', "tune_params.block_size_x[0]"),
    ],
)
def test_run_with_a_bad_tunable_value_exits_2_naming_it(capsys, hermetic, values, field):
    from kt_tui.cli import main

    for f in ("vector_add.cu", "vector_add.cu.toml"):
        (hermetic / f).write_text((EXAMPLES / f).read_text())
    spec = hermetic / "vector_add.cu.toml"
    text = spec.read_text()
    assert "block_size_x = [32, 64, 128, 256, 512, 1024]" in text
    spec.write_text(text.replace("block_size_x = [32, 64, 128, 256, 512, 1024]", f"block_size_x = {values}"))
    assert main(["run", str(hermetic / "vector_add.cu"), "--auto", "--json", "--backend", "sim"]) == 2
    err = capsys.readouterr().err
    assert field in err and "Traceback" not in err
