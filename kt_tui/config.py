"""Settings: command-line flags > environment (OPENAI_*, KT_TUI_*) > config.toml in the XDG config dir."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

from .errors import UserError
from platformdirs import user_config_dir, user_data_dir

APP = "kt-tui"


def config_dir() -> Path:
    return Path(os.environ.get("KT_TUI_CONFIG_DIR") or user_config_dir(APP))


def data_dir() -> Path:
    return Path(os.environ.get("KT_TUI_DATA_DIR") or user_data_dir(APP))


class ConfigError(UserError):
    pass


@dataclass
class Settings:
    db: str = ""
    backend: str = "auto"
    sim_cache: str | None = None
    strategy: str = "sweep"
    steps: str | None = None  # the explicit strategy's steps file; None: the library shipped with kt-tui
    llm: str = "auto"  # "none": manual mode, no LLM calls
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = field(default=None, repr=False)  # never stored or logged
    theme: str = "kt-dark"
    timeout_s: float | None = None  # per-config watchdog; the spec's timeout_s when unset
    gpus: str = ""  # "N" or "all": measure on that many GPUs at once (through Ray); "": one, as always
    ray_address: str = ""  # a running Ray cluster to measure on
    allow_mixed: bool = False  # let workers of different GPU models tune together
    keys: dict[str, str] = field(default_factory=dict)  # binding id -> key, remaps the defaults
    # the autonomous strategy
    with_replanning: bool = True
    max_replanning: int = 1
    breakdown_steps: bool = False
    max_breakdowns: int = 1
    threshold: float = 0.02  # accept a kernel when it is this much faster than the current best
    llm_timeout_s: float = 120.0
    llm_retries: int = 3
    # how each tuning run searches its space
    search: str = "kt"  # kt (ours) | brute_force | a kernel_tuner strategy name
    max_configs: int = 0  # budget per tuning run; 0: none
    time_limit_s: float = 0.0  # budget per tuning run; 0: none
    seeds: bool = True  # evaluate the heuristic seed configurations first
    search_options: dict = field(default_factory=dict)  # passed to the search strategy
    # the config-search strategy
    rounds: int = 6
    batch_size: int = 8
    plateau_rounds: int = 2  # stop after this many rounds without a 1 % gain
    hybrid: str = ""  # a search strategy that goes on from the LLM's first batch
    space_edits: bool = True  # let the LLM propose search-space edits on a plateau

    def strategy_options(self) -> dict:
        return {k: getattr(self, k) for k in (
            "with_replanning", "max_replanning", "breakdown_steps", "max_breakdowns", "threshold", "search",
            "max_configs", "time_limit_s", "seeds", "search_options", "rounds", "batch_size", "plateau_rounds",
            "hybrid", "space_edits", "steps")}

    def public(self) -> dict:
        """What may be written to the session store: everything but secrets."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("api_key", "keys")}

    @property
    def data_dir(self) -> Path:
        return data_dir()


_ENV = {
    "KT_TUI_DB": "db", "KT_TUI_BACKEND": "backend", "KT_TUI_SIM_CACHE": "sim_cache", "KT_TUI_MODEL": "model",
    "KT_TUI_THEME": "theme", "KT_TUI_LLM": "llm", "OPENAI_BASE_URL": "base_url", "OPENAI_API_KEY": "api_key",
    "RAY_ADDRESS": "ray_address",
}


def load_settings(flags: dict | None = None, config_file: Path | None = None) -> Settings:
    s = Settings()
    path = config_file or config_dir() / "config.toml"
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise ConfigError(f"{path}: {e}") from None
        known = {f.name for f in fields(Settings)} - {"api_key"}
        for k, v in data.items():
            if k not in known:
                raise ConfigError(f"{path}: unknown setting {k!r} (known: {', '.join(sorted(known))})")
            setattr(s, k, v)
    for env, name in _ENV.items():
        if os.environ.get(env):
            setattr(s, name, os.environ[env])
    for k, v in (flags or {}).items():
        if v is not None:
            setattr(s, k, v)
    if not s.db:
        s.db = str(data_dir() / "sessions.db")
    return s
