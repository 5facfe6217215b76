"""Where kt-tui keeps its files: the config dir, the data dir, and the session database. Apart from
config.py (pydantic, a fifth of a second to import) so that `kt-tui sessions` starts at once."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

from platformdirs import user_config_dir, user_data_dir

from .errors import UserError
from .files import CONFIG_MAX, read_text_file

APP = "kt-tui"
CONTROL = re.compile(r"[\x00-\x1f\x7f]")  # refused in every setting (config.py) and a --db path


def config_dir() -> Path:
    return Path(os.environ.get("KT_TUI_CONFIG_DIR") or user_config_dir(APP))


def data_dir() -> Path:
    return Path(os.environ.get("KT_TUI_DATA_DIR") or user_data_dir(APP))


def session_db(flag: str | None = None) -> str:
    """The session database, as load_settings() finds it: --db, else KT_TUI_DB, else `db` in
    config.toml, else sessions.db in the data dir. Of config.toml only `db` is read: listing
    sessions uses no other setting, and the commands that do check the whole file."""
    if flag:
        return _plain(flag, "--db")
    if os.environ.get("KT_TUI_DB"):
        return _plain(os.environ["KT_TUI_DB"], "KT_TUI_DB")
    path = config_dir() / "config.toml"
    db = None
    if path.is_file():
        try:
            db = tomllib.loads(read_text_file(path, "config", CONFIG_MAX)).get("db")
        except (tomllib.TOMLDecodeError, RecursionError) as e:
            from .tomlfile import TomlError  # here: it loads pydantic, which a good file never needs

            raise TomlError("", f"not valid TOML: {e or 'nested too deep'}", path) from None
    if db is not None and not isinstance(db, str):
        from .tomlfile import TomlError  # here: it loads pydantic, which a good file never needs

        raise TomlError("db", f"must be a string, not {db!r}", path)
    if db and (m := CONTROL.search(db)):
        from .tomlfile import TomlError  # here: it loads pydantic, which a good file never needs

        raise TomlError("db", f"must not hold control characters (found {m.group()!r})", path)
    return db or str(data_dir() / "sessions.db")


def _plain(db: str, where: str) -> str:
    """The path as given; refused, as every other command refuses it, when it holds a control character."""
    if m := CONTROL.search(db):
        raise UserError(f"{where}: must not hold control characters (found {m.group()!r})")
    return db
