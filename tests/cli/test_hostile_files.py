"""Hostile files and folders (findings 6, 7, 9, 16, 17, 18, 22): nothing is read but a regular file
under a cap, nothing is written into / or over a file unless --force, nothing through a link."""

import os
import shutil

import pytest

from kt_tui import cli
from kt_tui.search.seeds import RuleError, load_rules

from ..conftest import EXAMPLES
from ..export.test_export import db, recorded  # noqa: F401  (fixtures)
from ..helpers import run_cli
from ..importer.test_import import _script


def one_line_exit_2(capsys, *argv, name: str = "") -> str:
    assert cli.main([str(a) for a in argv]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err and len(err.strip().splitlines()) == 1, err
    assert name in err, err
    return err


# -- export (findings 6) -----------------------------------------------------------------------
def test_export_refuses_the_root_and_an_empty_path(capsys, db, tmp_path):
    one_line_exit_2(capsys, "export", "--out", "/", name="refusing to write into the root folder")
    one_line_exit_2(capsys, "export", "--out", "", name="give a folder")
    assert not os.path.lexists("/matmul.best.cu")


def test_export_never_overwrites_without_force(capsys, db, tmp_path):
    out = tmp_path / "out"
    code, first = run_cli(capsys, "export", "--out", out, "--json")
    assert code == 0
    (out / "matmul.best.cu").write_text("// my edits\n")
    err = one_line_exit_2(capsys, "export", "--out", out, name=str(out / "matmul.best.cu"))
    assert "--force" in err and (out / "matmul.best.cu").read_text() == "// my edits\n"
    only_cache = tmp_path / "other"
    shutil.copytree(out / "cache", only_cache / "cache")
    one_line_exit_2(capsys, "export", "--out", only_cache, name="cache")
    code, again = run_cli(capsys, "export", "--out", out, "--json", "--force")
    assert code == 0 and (out / "matmul.best.cu").read_text() != "// my edits\n"
    assert sorted(again["files"]) == sorted(first["files"])


async def test_the_export_screen_refuses_then_overwrites_on_a_second_enter(db, tmp_path):
    from kt_tui.config import load_settings
    from kt_tui.front.commands import tui_app
    from kt_tui.ui.export_screen import ExportScreen
    from kt_tui.ui.sessions_screen import SessionsScreen

    from ..ui.test_ui import SIZE, wait_for

    folder = tmp_path / "x"
    folder.mkdir()
    (folder / "report.md").write_text("mine")
    app = tui_app(load_settings({}), db, browse=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen))
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
        screen = app.screen
        screen.query_one("#export-dir").value = str(folder)
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.refused == str(folder), timeout=60)
        assert "already exists" in str(screen.query_one("#export-result").render())
        assert (folder / "report.md").read_text() == "mine"
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.written is not None, timeout=60)
        assert (folder / "report.md").read_text() != "mine"


# -- import (findings 7, 16) ------------------------------------------------------------------
def test_import_refuses_the_root_an_existing_file_and_overwriting(capsys, hermetic, tmp_path):
    script = _script(tmp_path, 'tune_kernel("scale", "scale.cu", n, args, tp)\n')
    one_line_exit_2(capsys, "import", script, "--out", "/", name="refusing to write into the root folder")
    (tmp_path / "a-file").write_text("x")
    one_line_exit_2(capsys, "import", script, "--out", tmp_path / "a-file", name="exists and is not a folder")
    out = tmp_path / "out"
    assert cli.main(["import", str(script), "--out", str(out)]) == 0
    (out / "scale.cu").write_text("// edited\n")
    capsys.readouterr()
    assert cli.main(["import", str(script), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{out / 'scale.cu'} already exists; --force overwrites it" in err and "Traceback" not in err
    assert (out / "scale.cu").read_text() == "// edited\n"
    assert cli.main(["import", str(script), "--out", str(out), "--force"]) == 0
    assert "__global__" in (out / "scale.cu").read_text()


# -- spec drafts and links (finding 9) ----------------------------------------------------------
@pytest.mark.parametrize("target_exists", [False, True])
def test_spec_draft_never_writes_through_a_link(capsys, hermetic, tmp_path, target_exists):
    kernel = tmp_path / "k.cu"
    shutil.copy(EXAMPLES / "vector_add.cu", kernel)
    target = tmp_path / "elsewhere"
    if target_exists:
        target.write_text("keep")
    (tmp_path / "k.cu.toml").symlink_to(target)
    one_line_exit_2(capsys, "spec", kernel, name="k.cu.toml: exists; not overwritten")
    assert (target.read_text() == "keep") if target_exists else not target.exists()


def test_a_spec_nested_past_tomls_depth_beside_a_draft_gives_no_options_not_a_crash(capsys, hermetic, tmp_path):
    kernel = tmp_path / "k.cu"
    shutil.copy(EXAMPLES / "vector_add.cu", kernel)
    (tmp_path / "k.cu.toml").write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert cli.main(["spec", str(kernel), "--print"]) == 0  # its -D options unread: none, as for a broken one
    assert "internal error" not in capsys.readouterr().err
    one_line_exit_2(capsys, "spec", kernel, name="k.cu.toml: exists; not overwritten")


# -- reading only regular files under a cap (findings 16, 17) -------------------------------------
@pytest.fixture
def odd_files(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    big = tmp_path / "big.cu"
    with open(big, "wb") as f:
        f.truncate(5 << 20)
    return {"folder": tmp_path, "fifo": fifo, "zero": "/dev/zero", "urandom": "/dev/urandom", "big": big}


@pytest.mark.parametrize(
    "kind,says",
    [
        ("folder", "is a directory"),
        ("fifo", "not a regular file"),
        ("zero", "not a regular file"),
        ("urandom", "not a regular file"),
    ],
)
def test_a_spec_that_is_not_a_regular_file_is_refused_before_reading(capsys, hermetic, odd_files, kind, says):
    path = odd_files[kind]
    one_line_exit_2(capsys, "spec", EXAMPLES / "vector_add.cu", "--check", "--spec", path, name=says)
    one_line_exit_2(
        capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--backend", "sim", "--spec", path, name=str(path)
    )


@pytest.mark.parametrize(
    "kind,says",
    [
        ("fifo", "not a regular file"),
        ("urandom", "not a regular file"),
        ("folder", "is a directory"),
        ("big", "at most 4,194,304 are read"),
    ],
)
def test_a_kernel_that_is_not_a_regular_file_or_too_big_is_refused(capsys, hermetic, odd_files, kind, says):
    one_line_exit_2(capsys, "run", odd_files[kind], "--auto", "--backend", "sim", name=says)
    one_line_exit_2(capsys, "spec", odd_files[kind], "--check", name=says)


def test_a_too_big_spec_steps_file_and_config_are_refused(capsys, hermetic, tmp_path):
    big = tmp_path / "big.toml"
    big.write_text("# x\n" * 300_000)
    one_line_exit_2(capsys, "spec", EXAMPLES / "vector_add.cu", "--check", "--spec", big, name="at most 1,048,576")
    one_line_exit_2(
        capsys,
        "run",
        EXAMPLES / "vector_add.cu",
        "--auto",
        "--backend",
        "sim",
        "--strategy",
        "explicit",
        "--steps",
        big,
        name="at most 1,048,576",
    )
    (hermetic / "config").mkdir(exist_ok=True)
    shutil.copy(big, hermetic / "config" / "config.toml")
    one_line_exit_2(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--backend", "sim", name="config")


def test_a_rule_file_that_is_a_fifo_is_refused_not_read(tmp_path):
    os.mkfifo(tmp_path / "r.toml")
    with pytest.raises(RuleError, match="not a regular file"):
        load_rules([tmp_path])


# -- rule regexes (finding 18) --------------------------------------------------------------------
RULE = 'name = "r"\ndescription = "d"\n[when]\nsource_matches = [{rx}]\n[[seeds]]\nblock_size_x = 64\n'


@pytest.mark.parametrize(
    "rx,why",
    [
        (r'"(\\s*\\S*\\s*)*\\$\\$"', "nested quantifiers"),
        (r'"(a|aa)*b"', "alternation inside a repeat"),
        (r'"(\\w+)\\1"', "backreference"),
        ('"' + "a" * 201 + '"', "longer than 200"),
    ],
)
def test_rule_regexes_that_could_backtrack_forever_are_refused(tmp_path, rx, why):
    (tmp_path / "r.toml").write_text(RULE.format(rx=rx))
    with pytest.raises(RuleError, match=why) as e:
        load_rules([tmp_path])
    assert "when.source_matches" in str(e.value)


def test_plain_rule_regexes_still_work(tmp_path):
    (tmp_path / "r.toml").write_text(RULE.format(rx=r'"for\\s*\\(", "__global__\\s+void"'))
    assert "r" in {r.name for r in load_rules([tmp_path])}


# -- the internal-error line (finding 22) -----------------------------------------------------------
@pytest.mark.parametrize(
    "argv,made,saved",
    [
        (["spec", "K", "--check"], True, False),
        (["import", "S.py"], True, False),
        (["run", "K", "--auto"], True, True),
        (["run", "K", "--auto"], False, False),
    ],
)
def test_only_session_commands_say_the_session_is_saved(capsys, hermetic, monkeypatch, argv, made, saved):
    from kt_tui.store import db as store_db

    def boom(args):
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "_dispatch", boom)
    monkeypatch.setattr(store_db, "SESSIONS_HERE", ["abc123"] if made else [])
    assert cli.main(argv) == 1
    err = capsys.readouterr().err  # no claim where no session was made (issue 22, item 12)
    assert "internal error: RuntimeError: boom" in err and ("session abc123 is saved" in err) == saved
    assert "is saved" in err or not saved


def test_a_fifo_among_recorded_caches_is_never_opened(tmp_path):
    from kt_tui.gpu.simcache import find_cache

    os.mkfifo(tmp_path / "vector_add-abc.json")
    os.mkfifo(tmp_path / "other.json")
    assert find_cache(tmp_path, "vector_add", "abc") is None


@pytest.mark.parametrize("kind", ["fifo", "folder", "zero", "dangling"])
def test_the_app_never_opens_on_a_spec_that_is_not_a_regular_file(capsys, hermetic, odd_files, monkeypatch, kind):
    from kt_tui.ui.app import KtApp

    monkeypatch.setattr(KtApp, "run", lambda self: pytest.fail("the app started"))
    path = odd_files.get(kind) or odd_files["folder"] / "dangling.toml"
    if kind == "dangling":
        path.symlink_to(odd_files["folder"] / "nowhere")
    one_line_exit_2(capsys, "open", EXAMPLES / "vector_add.cu", "--spec", path, name=str(path))
