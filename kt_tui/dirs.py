"""Where kt-tui keeps its files: the config dir, and the data dir (sessions, logs, caches). Apart
from config.py so that a command can find them before the settings' libraries load."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_config_dir, user_data_dir

APP = "kt-tui"


def config_dir() -> Path:
    return Path(os.environ.get("KT_TUI_CONFIG_DIR") or user_config_dir(APP))


def data_dir() -> Path:
    return Path(os.environ.get("KT_TUI_DATA_DIR") or user_data_dir(APP))
