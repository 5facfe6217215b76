"""A file in the themes folder that is not a regular UTF-8 file (a FIFO, a folder, other bytes) is
never opened as one: choosing a theme neither hangs on it nor fails on it; the app and an unknown
theme's message name it as left out."""

from __future__ import annotations

import os

import pytest

from kt_tui.config import ConfigError, load_settings
from kt_tui.theme_files import theme_names


def _plant(folder, kind: str):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "odd.toml"
    if kind == "fifo":
        os.mkfifo(path)  # opening it to read would wait for a writer for ever
    elif kind == "folder":
        path.mkdir()
    else:
        path.write_bytes(b'\xff\xfename = "odd"\n')
    return path


@pytest.mark.parametrize("kind", ["fifo", "folder", "not utf-8"])
def test_an_odd_theme_file_is_left_out_and_named(hermetic, monkeypatch, kind):
    path = _plant(hermetic / "config" / "themes", kind)
    problems: list[str] = []
    assert theme_names(hermetic / "config" / "themes", problems) >= {"kt-dark", "kt-light"}
    assert len(problems) == 1 and str(path) in problems[0]
    monkeypatch.setenv("KT_TUI_THEME", "kt-light")
    assert load_settings({}).theme == "kt-light"
    monkeypatch.setenv("KT_TUI_THEME", "odd")
    with pytest.raises(ConfigError, match="no such theme") as e:
        load_settings({})
    assert f"left out: theme {path}" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("called", ["5", "true", '""', "[1, 2]"])
def test_a_theme_whose_name_is_not_text_is_left_out_and_said(hermetic, called):
    folder = hermetic / "config" / "themes"
    folder.mkdir(parents=True)
    (folder / "odd.toml").write_text(f'name = {called}\nprimary = "#ff0000"\n')
    problems: list[str] = []
    names = theme_names(folder, problems)
    assert names >= {"kt-dark", "kt-light"} and not any(n in ("5", "True", "", "[1, 2]") for n in names)
    assert len(problems) == 1 and f"{folder / 'odd.toml'}: its name is not text (" in problems[0]
