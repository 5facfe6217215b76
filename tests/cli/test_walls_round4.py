"""Bounds and one-line messages (issue 36, item 6): KT_TUI_SIM_PACE, tunables that restrictions
would read as functions, secrets inside other variables' values, and a session listing that reads
a bounded part of each row."""

import json
import sqlite3

import pytest

from kt_tui import cli
from kt_tui.gpu.env import is_secret, scrubbed_env
from kt_tui.kernel.spec import SpecError, parse_spec
from kt_tui.store import Store

from ..conftest import EXAMPLES

SPEC = (EXAMPLES / "vector_add.cu.toml").read_text()


@pytest.mark.parametrize("pace,says", [("abc", "'abc'"), ("1e9", "'1e9'"), ("-1", "'-1'"), ("nan", "'nan'")])
def test_a_bad_sim_pace_is_one_line_naming_the_variable(capsys, hermetic, monkeypatch, pace, says):
    monkeypatch.setenv("KT_TUI_SIM_PACE", pace)
    argv = ["run", str(EXAMPLES / "vector_add.cu"), "--auto", "--backend", "sim", "--llm", "none"]
    assert cli.main([*argv, "--sim-cache", str(EXAMPLES / "recorded")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("kt-tui: KT_TUI_SIM_PACE:") and says in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("name", ["min", "round", "ceil", "int", "len", "lambda", "True", "type"])
def test_a_tunable_named_like_a_function_restrictions_read_is_refused(name):
    text = SPEC.replace("block_size_x = [", f"{name} = [1, 2]\nblock_size_x = [", 1)
    with pytest.raises(SpecError, match=rf"tune_params.*{name}.*function or keyword"):
        parse_spec(text)


@pytest.mark.parametrize(
    "name,value",
    [
        ("AZURE_STORAGE", "DefaultEndpointsProtocol=https;AccountName=acc;AccountKey=Zm9vYmFyYmF6==;EndpointSuffix=x"),
        ("SAS_URL", "https://acc.blob.core.windows.net/c?sv=2022&SharedAccessSignature=abc"),
        ("NOTES", "harmless\nOPENAI_API_KEY=sk-canary-123"),
        ("NOTES2", "first line\nexport OPENAI_API_KEY=abc123"),
        ("DOTENV", "a=1\nGITHUB_TOKEN=ghp_abc"),
    ],
)
def test_secrets_inside_another_variables_value_are_scrubbed(name, value):
    assert is_secret(name, value) and name not in scrubbed_env({name: value, "PATH": "/bin"})


@pytest.mark.parametrize("name,value", [("LS_COLORS", "rs=0:di=01;34:ln=01;36"), ("PATH", "/usr/bin:/bin")])
def test_ordinary_values_stay(name, value):
    assert not is_secret(name, value)


def test_listing_reads_a_bounded_part_of_each_row(capsys, tmp_path):
    db = tmp_path / "s.db"
    argv = ["run", str(EXAMPLES / "vector_add.cu"), "--auto", "--backend", "sim", "--llm", "none"]
    assert cli.main([*argv, "--sim-cache", str(EXAMPLES / "recorded"), "--db", str(db)]) == 0
    with sqlite3.connect(db) as c:
        c.execute("update sessions set settings = ?, gpu = ?", ("x" * 5_000_000, "G" * 5_000_000))
    rows = Store(db).sessions()
    assert "settings" not in rows[0] and len(rows[0]["gpu"]) == 1000
    capsys.readouterr()
    assert cli.main(["sessions", "--json", "--db", str(db)]) == 0
    assert len(json.loads(capsys.readouterr().out)[0]["gpu"]) == 1000


def test_a_locks_path_that_is_a_file_is_named(capsys, tmp_path):
    db = tmp_path / "s.db"
    (tmp_path / "s.db.locks").write_text("not a folder")
    argv = ["run", str(EXAMPLES / "vector_add.cu"), "--auto", "--backend", "sim", "--llm", "none"]
    assert cli.main([*argv, "--sim-cache", str(EXAMPLES / "recorded"), "--db", str(db)]) == 3
    err = capsys.readouterr().err
    assert "s.db.locks is not a folder" in err and "internal error" not in err
