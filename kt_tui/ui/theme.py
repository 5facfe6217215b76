"""Themes are TOML files: the ones shipped in themes/ and any in the user's config dir."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from ..config import config_dir

_FIELDS = {"primary", "secondary", "warning", "error", "success", "accent", "foreground", "background",
           "surface", "panel", "boost", "dark", "luminosity_spread", "text_alpha", "variables"}


def _shipped_themes():
    """themes/ at the repository root is installed as the package kt_tui.themes; in a source
    checkout (tests run from one) it is read where it is."""
    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").is_file() and (root / "themes").is_dir():
        return (root / "themes").iterdir()
    return resources.files("kt_tui.themes").iterdir()


def _theme_files() -> list[tuple[str, str]]:
    files = [(f.name, f.read_text(encoding="utf-8")) for f in _shipped_themes() if f.name.endswith(".toml")]
    user = config_dir() / "themes"
    if user.is_dir():
        files += [(str(p), p.read_text(encoding="utf-8")) for p in sorted(user.glob("*.toml"))]
    return files


def theme_names() -> set[str]:
    """The names of the theme files that parse (without loading Textual)."""
    names = set()
    for name, text in _theme_files():
        try:
            names.add(str(tomllib.loads(text).get("name", Path(name).stem)))
        except tomllib.TOMLDecodeError:
            continue
    return names


def load_themes() -> tuple[list, list[str]]:
    """All themes that load (textual Theme objects), and a message for each file that does not."""
    from textual.theme import Theme
    themes, problems = [], []
    for name, text in _theme_files():
        try:
            data = tomllib.loads(text)
            theme_name = data.pop("name", Path(name).stem)
            unknown = set(data) - _FIELDS
            if unknown:
                raise ValueError(f"unknown field {sorted(unknown)[0]!r}")
            themes.append(Theme(name=theme_name, **data))
        except (tomllib.TOMLDecodeError, ValueError, TypeError) as e:
            problems.append(f"theme {name}: {e}")
    return themes, problems
