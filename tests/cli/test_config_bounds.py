"""Settings on pydantic-settings (flags > the variables named on the fields > config.toml and its
sections), each with its bound: a retry count, a size for every text, no control character in a URL
or a name, and a config.toml that is no regular file is refused in one line, never skipped or read
for ever. Each problem is one line and exit 2 before anything starts (no session made)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

import pytest
from pydantic_settings import BaseSettings

from kt_tui.config import ConfigError, Settings, load_settings
from kt_tui.store import Store

from ..conftest import EXAMPLES, ROOT
from ..helpers import run_cli
from .test_config import write_config

RUN = ("run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim")


def test_the_settings_are_a_pydantic_settings_model_and_a_declared_dependency():
    assert issubclass(Settings, BaseSettings)
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert any(d.replace("_", "-").startswith("pydantic-settings") for d in deps)


def test_llm_retries_has_a_bound(capsys, hermetic):
    config = write_config(hermetic, "llm_retries = 1000000000\n")
    with pytest.raises(ConfigError, match=r"llm_retries: must be at most 10, not 1000000000$"):
        load_settings({})
    code, out = run_cli(capsys, *RUN)
    assert code == 2 and out["error"] == f"{config}: llm_retries: must be at most 10, not 1000000000"
    assert out["session"] is None
    write_config(hermetic, "llm_retries = 10\n")
    assert load_settings({}).llm_retries == 10


@pytest.mark.parametrize("value", ["http://127.0.0.1:9/v1\r\nX-Evil: 1", "http://h/v1\n", "http://h/\x1b[2Jv1"])
def test_a_base_url_with_a_control_character_is_refused_before_anything_starts(capsys, hermetic, monkeypatch, value):
    monkeypatch.setenv("OPENAI_BASE_URL", value)
    code, out = run_cli(capsys, *RUN)
    assert code == 2 and out["error"].startswith("OPENAI_BASE_URL: must not hold control characters"), out
    assert "\n" not in out["error"] and out["session"] is None
    db = hermetic / "sessions.db"
    assert not db.exists() or Store(db).sessions() == []  # no session made


def test_every_setting_text_is_bounded_in_size(capsys, hermetic, monkeypatch):
    monkeypatch.setenv("KT_TUI_MODEL", "m" * 5000)  # a longer one: gpu/env.py scans values in quadratic time
    code, out = run_cli(capsys, *RUN)
    assert code == 2 and out["error"] == "KT_TUI_MODEL: must be at most 256 characters long, not 5000"
    monkeypatch.delenv("KT_TUI_MODEL")
    config = write_config(hermetic, "[keys]\n" + "".join(f'k{i} = "x"\n' for i in range(1001)))
    with pytest.raises(ConfigError, match=f"^{config}: keys: must be at most 1000 items long, not 1001$"):
        load_settings({})


def test_a_keys_entry_of_the_wrong_type_is_named_by_its_binding_id(hermetic):
    config = write_config(hermetic, '[keys]\nquit = "Q"\nstart = 5\n')
    with pytest.raises(ConfigError, match=f"^{config}: keys.start: must be a string, not 5$"):
        load_settings({})


def _refused(hermetic, make) -> str:
    """`kt-tui run` with config.toml made by `make(path)`: in a child with a deadline (a FIFO must
    not be waited on for ever)."""
    path = hermetic / "config" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    make(path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "kt_tui", *map(str, RUN)], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0], done.stderr
    return lines[0]


def test_a_config_file_that_is_a_fifo_is_refused_not_skipped(hermetic):
    assert "not a regular file" in _refused(hermetic, os.mkfifo)


def test_a_config_file_linked_to_a_device_is_refused(hermetic):
    assert "not a regular file" in _refused(hermetic, lambda p: p.symlink_to("/dev/zero"))


def test_a_config_file_that_is_a_folder_is_refused(hermetic):
    assert "config" in _refused(hermetic, lambda p: p.mkdir())


def test_the_sections_of_the_file_merge_with_the_flags(hermetic, monkeypatch):
    write_config(hermetic, '[keys]\nstart = "S"\n[strategy.sweep]\nmax_configs = 5\nsearch = "brute_force"\n')
    monkeypatch.setenv("KT_TUI_BACKEND", "sim")
    s = load_settings({"max_configs": 7})
    assert s.keys == {"start": "S"} and s.backend == "sim"
    from kt_tui.front.session import session_options

    options = session_options(s, "sweep")
    assert (options["max_configs"], options["search"]) == (7, "brute_force")  # the flag over its section
