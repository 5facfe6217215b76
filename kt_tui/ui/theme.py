"""Themes are TOML files: the ones shipped in themes/ and any in the user's config dir."""

from __future__ import annotations

import tomllib

from textual.theme import Theme

from ..config import config_dir
from ..theme_files import theme_files, theme_name

_FIELDS = {
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
    "dark",
    "luminosity_spread",
    "text_alpha",
    "variables",
}


def load_themes() -> tuple[list, list[str]]:
    """All themes that load (textual Theme objects), and a message for each file that does not."""
    themes: list = []
    problems: list[str] = []
    for name, text in theme_files(config_dir() / "themes", problems):
        try:
            data = tomllib.loads(text)
            called = theme_name(name, data)
            data.pop("name", None)
            unknown = set(data) - _FIELDS
            if unknown:
                raise ValueError(f"unknown field {sorted(unknown)[0]!r}")
            themes.append(Theme(name=called, **data))
        except (tomllib.TOMLDecodeError, ValueError, TypeError, RecursionError) as e:
            problems.append(f"theme {name}: {e}")
    return themes, problems
