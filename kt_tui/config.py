"""Settings: command-line flags > environment (OPENAI_*, KT_TUI_*) > config.toml in the XDG config dir."""

from __future__ import annotations

import math
import os
import tomllib
import types
import typing
from dataclasses import dataclass, field, fields
from pathlib import Path
from urllib.parse import urlparse

from platformdirs import user_config_dir, user_data_dir

from .errors import UserError
from .files import CONFIG_MAX, FileRefused, read_text_file
from .gpu.protocol import SEARCHES
from .gpu.simcache import read_header
from .theme_files import theme_names

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
    gpus: int | str = ""  # N or "all": measure on that many GPUs at once (through Ray); "": one, as always
    ray_address: str = ""  # a running Ray cluster to measure on
    allow_mixed: bool = False  # let workers of different GPU models tune together
    keys: dict[str, str] = field(default_factory=dict)  # binding id -> key, remaps the defaults
    # the autonomous strategy
    with_replanning: bool = True
    max_replanning: int = 1
    breakdown_steps: bool = False
    max_breakdowns: int = 1
    threshold: float = 0.02  # accept a kernel when it is this much faster than the current best
    llm_timeout_s: float = 120.0  # total deadline of each attempt of an LLM call
    llm_retries: int = 3  # attempts per LLM call, in all
    llm_max_tokens: int = 4096  # max_tokens sent with every LLM request
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


def load_settings(flags: dict | None = None, config_file: Path | None = None,
                  flag_names: dict[str, str] | None = None) -> Settings:
    """flag_names: setting -> the command-line flag that sets it, for messages."""
    s = Settings()
    origin: dict[str, str] = {}
    path = config_file or config_dir() / "config.toml"
    if path.is_file():
        try:
            data = tomllib.loads(read_text_file(path, "config", CONFIG_MAX))
        except FileRefused as e:
            raise ConfigError(str(e)) from None
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{path}: {e}") from None
        known = {f.name for f in fields(Settings)} - {"api_key"}
        for k, v in data.items():
            if k not in known:
                raise ConfigError(f"{path}: unknown setting {k!r} (known: {', '.join(sorted(known))})")
            _check_type(k, v, f"{path}: setting {k!r}")
            setattr(s, k, v)
            origin[k] = f"{path}: setting {k!r}"
    for env, name in _ENV.items():
        if os.environ.get(env):
            setattr(s, name, os.environ[env])
            origin[name] = env
    for k, v in (flags or {}).items():
        if v is not None:
            setattr(s, k, v)
            origin[k] = (flag_names or {}).get(k) or "--" + k.replace("_", "-")
    _check_values(s, origin)
    if not s.db:
        s.db = str(data_dir() / "sessions.db")
    _check_llm(s, path)
    return s


_POSITIVE = {"timeout_s", "llm_timeout_s", "batch_size"}  # a watchdog of 0 s would stop everything at once


def _types() -> dict[str, tuple[type, ...]]:
    out = {}
    for name, hint in typing.get_type_hints(Settings).items():
        union = typing.get_origin(hint) in (typing.Union, types.UnionType)
        args = typing.get_args(hint) if union else (hint,)
        out[name] = tuple(typing.get_origin(a) or a for a in args if a is not type(None))
    return out


def _check_type(name: str, value, where: str) -> None:
    wanted = _types()[name]
    ok = isinstance(value, wanted) and not (isinstance(value, bool) and bool not in wanted)
    if not ok and float in wanted and isinstance(value, int) and not isinstance(value, bool):
        ok = True
    if ok and name == "keys" and not all(isinstance(k, str) for k in value.values()):
        ok = False  # binding id -> key, both strings
    if not ok:
        kinds = " or ".join({"str": "a string", "int": "an integer", "float": "a number", "bool": "true or false",
                             "dict": "a table"}.get(t.__name__, t.__name__) for t in wanted)
        raise ConfigError(f"{where} must be {kinds}, not {value!r}")


def _check_values(s: Settings, origin: dict[str, str]) -> None:
    for name in _types():
        value = getattr(s, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        where = origin.get(name, name)
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{where} must be a finite number, not {value}")
        if name in _POSITIVE and value <= 0:
            raise ConfigError(f"{where} must be more than 0, not {value}")
        if value < 0:
            raise ConfigError(f"{where} must not be negative, not {value}")
    for name in ("search", "hybrid"):
        value = getattr(s, name)
        if value and value not in SEARCHES:
            raise ConfigError(f"{origin.get(name, name)} {value!r}: unknown search (known: {', '.join(SEARCHES)})")
    for k, v in (s.search_options or {}).items():
        if not _finite(v):
            raise ConfigError(f"{origin.get('search_options', 'search_options')} {k}: must be finite numbers, "
                              f"not {v!r}")
    if s.base_url:
        url = urlparse(s.base_url)
        if url.scheme not in ("http", "https") or not url.netloc:
            raise ConfigError(f"{origin.get('base_url', 'base_url')} must be an http:// or https:// URL, "
                              f"not {s.base_url!r}")
    if s.theme != Settings.theme:
        names = theme_names(config_dir() / "themes")
        if s.theme not in names:
            raise ConfigError(f"{origin.get('theme', 'theme')} {s.theme}: no such theme "
                              f"(have: {', '.join(sorted(names))})")
    if s.sim_cache:
        _check_sim_cache(s.sim_cache, origin.get("sim_cache", "sim_cache"))


def _finite(v) -> bool:
    """No nan or inf in `v`, as a number, a number's text, or inside a list or table."""
    if isinstance(v, (list, tuple)):
        return all(map(_finite, v))
    if isinstance(v, dict):
        return all(map(_finite, v.values()))
    if isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            return True
    return not isinstance(v, float) or math.isfinite(v)


def _check_sim_cache(value: str, where: str) -> None:
    p = Path(value)
    if p.is_dir():
        return  # a folder of recorded caches, searched by kernel version
    if not p.is_file():
        raise ConfigError(f"{where} {value}: no such file or folder")
    try:
        head = read_header(p)
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
        head = None
    if not isinstance(head, dict) or "tune_params_keys" not in head:
        raise ConfigError(f"{where} {value}: not a kernel_tuner cachefile")


def _check_llm(s: Settings, path: Path) -> None:
    for name, kind, low in (("llm_timeout_s", (int, float), 0), ("llm_retries", int, 1), ("llm_max_tokens", int, 1)):
        v = getattr(s, name)
        if isinstance(v, bool) or not isinstance(v, kind) or v < low or (name == "llm_timeout_s" and not 0 < v < 1e9):
            raise ConfigError(f"{path}: {name} must be a number {'above 0' if low == 0 else f'of at least {low}'} "
                              f"(got {v!r})")
