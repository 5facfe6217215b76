"""TOML is written by a library, read into one error format, and a user's comments survive the editor."""

import asyncio
import shutil
import tomllib

from kt_tui.config import load_settings
from kt_tui.engine.strategies.sweep import parse_search, search_text
from kt_tui.front.commands import tui_app as KtApp
from kt_tui.front.session import read_kernel_file
from kt_tui.kernel.spec import dump_spec, load_spec, parse_spec
from kt_tui.store import Store
from kt_tui.tomlfile import TomlError, dumps, load_toml
from kt_tui.ui.editors import tune_params_text
from kt_tui.ui.session_screen import SessionScreen
from kt_tui.ui.setup_screens import SpecEditScreen

from ..conftest import EXAMPLES


async def wait_for(condition, timeout=30.0):
    waited = 0.0
    while not condition():
        assert waited < timeout, "timed out waiting for the UI"
        await asyncio.sleep(0.05)
        waited += 0.05


def test_written_toml_reads_back_whatever_the_keys_and_strings_hold():
    data = {"a b": ['x"y', "it's", "line\nbreak", "\x7f"], "k\n[x]": {"q": 1.5}, "n": None}
    assert tomllib.loads(dumps(data)) == {"a b": ['x"y', "it's", "line\nbreak", "\x7f"], "k\n[x]": {"q": 1.5}}
    assert tomllib.loads(tune_params_text({"x = 1\n[defines]\nQ": [1, 2]})) == {"x = 1\n[defines]\nQ": [1, 2]}
    settings = {"search": "kt", "max_configs": 3, "time_limit_s": 0.5, "seeds": False}
    assert parse_search(search_text(settings)) == settings


def test_a_spec_written_fresh_is_readable_and_reads_back_the_same():
    spec = load_spec(EXAMPLES / "vector_add.cu.toml")
    spec.verify_sizes = [{"n": 1000}, {"n": 37}]
    text = dump_spec(spec)
    assert "block_size_x = [32, 64, 128, 256, 512, 1024]" in text and "verify_sizes = [{n = 1000}, {n = 37}]" in text
    assert text.count("[[args]]") == len(spec.args)
    assert parse_spec(text, base_dir=spec.base_dir).to_dict() == spec.to_dict()


def test_bad_toml_is_one_error_naming_the_file():
    try:
        load_toml("x = ", "f.toml")
    except TomlError as e:
        assert str(e).startswith("f.toml: not valid TOML: ") and e.path == "f.toml" and e.field == ""
    else:
        raise AssertionError("no error")


async def test_a_comment_in_a_spec_survives_a_save_from_the_editor(tmp_path):
    for f in ("vector_add.cu", "vector_add.cu.toml"):
        shutil.copy(EXAMPLES / f, tmp_path / f)
    spec = tmp_path / "vector_add.cu.toml"
    good = "# my notes on this kernel\n" + spec.read_text()
    assert "# a and b read, c written" in good
    spec.write_text(good.replace("iterations = 7", "iterations = 0"))
    settings = load_settings({"backend": "sim"})
    app = KtApp(settings, Store(settings.db), kernel_file=read_kernel_file(tmp_path / "vector_add.cu"))
    async with app.run_test(size=(150, 45)) as pilot:
        await wait_for(lambda: isinstance(app.screen, SpecEditScreen))
        assert "iterations" in str(app.screen.query_one("#spec-error").render())
        area = app.screen.query_one("#spec-text")
        area.text = area.text.replace("iterations = 0", "iterations = 9")
        await pilot.press("ctrl+s")
        await wait_for(lambda: isinstance(app.screen, SessionScreen))
        await pilot.press("q")
    saved = spec.read_text()
    assert saved == good.replace("iterations = 7", "iterations = 9")
    assert saved.startswith("# my notes on this kernel\n") and "# a and b read, c written" in saved
