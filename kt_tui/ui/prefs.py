"""Choices made in the app that outlive it: the theme picked in the palette and whether the source
pane shows. Kept in ui.json in the config dir, apart from config.toml (the user's own file, which
the app never rewrites). A file that cannot be read or written is ignored: these are conveniences."""

from __future__ import annotations

import json
import os

from ..paths import config_dir

KNOWN = {"theme": str, "source_pane": bool}


def path():
    return config_dir() / "ui.json"


def load() -> dict:
    try:
        data = json.loads(path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if k in KNOWN and isinstance(v, KNOWN[k])}


def save(**changes) -> None:
    data = {**load(), **{k: v for k, v in changes.items() if k in KNOWN}}
    target = path()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".ui.json.{os.getpid()}")
        tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, target)
    except OSError:
        pass
