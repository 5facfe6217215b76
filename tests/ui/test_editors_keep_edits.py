"""Escape in an editor with changes asks before throwing them away (n or escape goes back to the
text as it was left); with nothing changed it leaves at once. In the kernel editor f6 goes between
the code and the parameters, where tab indents."""

from __future__ import annotations

from textual.app import App
from textual.widgets import TextArea

from kt_tui.ui.confirm import AskScreen
from kt_tui.ui.editors import KernelEditScreen, TextEditScreen
from kt_tui.ui.setup_screens import SpecEditScreen

from ..conftest import EXAMPLES
from .test_ui import new_app, wait_for

CODE = "__global__ void k(float *a) { a[threadIdx.x] = 0; }\n"


async def open_editor(pilot, screen) -> list:
    got: list = []
    await pilot.app.push_screen(screen, got.append)
    await pilot.pause()
    return got


async def test_escape_after_an_edit_asks_and_n_keeps_the_text():
    app = App(css_path=None)
    async with app.run_test(size=(80, 24)) as pilot:
        editor = TextEditScreen("Edit the plan", "1. tile\n")
        got = await open_editor(pilot, editor)
        await pilot.press("x", "y", "z")
        await pilot.press("escape")
        assert isinstance(app.screen, AskScreen) and got == []
        await pilot.press("n")
        assert app.screen is editor and "xyz" in editor.query_one(TextArea).text
        await pilot.press("escape")
        await pilot.press("y")
        assert got == [None] and app.screen is not editor


async def test_escape_with_nothing_changed_leaves_at_once():
    app = App(css_path=None)
    async with app.run_test(size=(80, 24)) as pilot:
        got = await open_editor(pilot, TextEditScreen("Edit the plan", "1. tile\n"))
        await pilot.press("escape")
        assert got == [None] and not isinstance(app.screen, AskScreen)
        got = await open_editor(pilot, KernelEditScreen(CODE, {"block_size_x": [16, 32]}, ["block_size_x >= 16"]))
        await pilot.press("escape")
        assert got == [None] and not isinstance(app.screen, AskScreen)


async def test_the_kernel_editor_asks_for_a_change_to_the_parameters_too_and_f6_goes_there():
    app = App(css_path=None)
    async with app.run_test(size=(80, 24)) as pilot:
        editor = KernelEditScreen(CODE, {"block_size_x": [16, 32]}, [])
        got = await open_editor(pilot, editor)
        assert app.focused is editor.query_one("#edit-code", TextArea)
        await pilot.press("f6")
        params = editor.query_one("#edit-params", TextArea)
        assert app.focused is params
        await pilot.press("#")
        assert params.text.startswith("#") and editor.query_one("#edit-code", TextArea).text == CODE
        await pilot.press("escape")
        assert isinstance(app.screen, AskScreen) and got == []
        await pilot.press("escape")  # no: back to the editor
        assert app.screen is editor and params.text.startswith("#")
        await pilot.press("f6")
        assert app.focused is editor.query_one("#edit-code", TextArea)


async def test_the_spec_editor_asks_before_quitting_with_changes(tmp_path):
    cu = tmp_path / "scale.cu"
    cu.write_text((EXAMPLES / "vector_add.cu").read_text())
    app = new_app(cu)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SpecEditScreen))
        await pilot.pause()
        await pilot.press("#")
        await pilot.press("escape")
        assert isinstance(app.screen, AskScreen)
        await pilot.press("n")
        assert isinstance(app.screen, SpecEditScreen) and app.is_running
        assert app.screen.query_one("#spec-text", TextArea).text.startswith("#")
        await pilot.press("escape")
        await pilot.press("y")
        await pilot.pause()
    assert app.return_code == 1 and not (tmp_path / "scale.cu.toml").exists()


async def test_escape_in_a_file_with_mixed_line_ends_and_no_edit_leaves_at_once():
    app = App(css_path=None)
    mixed = "1. tile\n2. unroll\r\n"  # the area makes the line ends one: that is no edit
    async with app.run_test(size=(80, 24)) as pilot:
        got = await open_editor(pilot, TextEditScreen("Edit the plan", mixed))
        await pilot.press("escape")
        assert got == [None] and not isinstance(app.screen, AskScreen)  # before: asked to discard changes
        got = await open_editor(pilot, KernelEditScreen(CODE.replace("\n", "\r\n") + "// tail\n", {}, []))
        await pilot.press("escape")
        assert got == [None] and not isinstance(app.screen, AskScreen)
