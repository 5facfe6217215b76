"""Theme files (TOML): the ones shipped in themes/ and any in the user's themes folder. Read here
without Textual, so that config.py can check a theme's name; ui/theme.py turns them into themes."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from .files import CONFIG_MAX, FileRefused, read_text_file


def _shipped_themes():
    """themes/ at the repository root is installed as the package kt_tui.themes; in a source
    checkout (tests run from one) it is read where it is."""
    root = Path(__file__).resolve().parents[1]
    if (root / "pyproject.toml").is_file() and (root / "themes").is_dir():
        return (root / "themes").iterdir()
    return resources.files("kt_tui.themes").iterdir()


def theme_files(user_dir: Path, problems: list[str] | None = None) -> list[tuple[str, str]]:
    """(name, text) of each shipped theme file, then of each in `user_dir` that is a regular UTF-8 file
    under the config files' cap (a FIFO there is never opened); why each other one is left out is
    added to `problems`."""
    files = [(f.name, f.read_text(encoding="utf-8")) for f in _shipped_themes() if f.name.endswith(".toml")]
    if user_dir.is_dir():
        for p in sorted(user_dir.glob("*.toml")):
            try:
                files.append((str(p), read_text_file(p, "theme", CONFIG_MAX)))
            except FileRefused as e:
                if problems is not None:
                    problems.append(str(e))
    return files


def theme_names(user_dir: Path, problems: list[str] | None = None) -> set[str]:
    """The names of the theme files that parse (why a file is not read is added to `problems`)."""
    names = set()
    for name, text in theme_files(user_dir, problems):
        try:
            names.add(theme_name(name, tomllib.loads(text)))
        except (tomllib.TOMLDecodeError, RecursionError):
            continue
        except ValueError as e:
            if problems is not None:
                problems.append(f"theme {name}: {e}")
    return names


def theme_name(file_name: str, data: dict) -> str:
    """A theme's name: its `name`, else its file's; ValueError where the name is not text."""
    called = data.get("name", Path(file_name).stem)
    if not isinstance(called, str) or not called.strip():
        raise ValueError(f"its name is not text ({called!r})")
    return called
