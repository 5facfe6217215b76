"""Themes are TOML files: the ones shipped in themes/ and any in the user's config dir."""

from __future__ import annotations

import tomllib
from pathlib import Path

from textual.theme import Theme

from ..config import config_dir
from ..theme_files import theme_files

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
            theme_name = data.pop("name", Path(name).stem)
            if not isinstance(theme_name, str) or not theme_name.strip():
                raise ValueError(f"its name is not text ({theme_name!r})")
            unknown = set(data) - _FIELDS
            if unknown:
                raise ValueError(f"unknown field {sorted(unknown)[0]!r}")
            themes.append(Theme(name=theme_name, **data))
        except (tomllib.TOMLDecodeError, ValueError, TypeError, RecursionError) as e:
            problems.append(f"theme {name}: {e}")
    return themes, problems
