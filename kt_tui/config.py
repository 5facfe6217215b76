"""Settings: command-line flags > environment (OPENAI_*, KT_TUI_*) > config.toml in the XDG config dir.

The Settings model is the one list of settings: the config file's keys, the flags the CLI passes on,
the knobs of the settings screen and what a session stores are all read from its fields."""

from __future__ import annotations

import math
import os
from contextvars import ContextVar
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from pydantic import Field, StrictInt, StrictStr, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from .files import CONFIG_MAX, FileRefused, read_text_file
from .gpu.protocol import SEARCHES
from .gpu.simcache import read_header
from .paths import config_dir, data_dir  # noqa: F401 - the names other modules import from here
from .redact import mask_url, register_url
from .theme_files import theme_names
from .tomlfile import TomlError, load_toml, problem_text

ConfigError = TomlError  # one error class for every TOML file and setting


def _f(
    default, help_text: str = "", *, env: str | None = None, strategy: bool = False, strict: bool | None = True, **kw
) -> Any:
    """A setting: `env` is the variable that sets it, `strategy` marks an option the strategy reads."""
    return Field(
        default, description=help_text, strict=strict, json_schema_extra={"env": env, "strategy": strategy}, **kw
    )


class Settings(BaseSettings):
    model_config = SettingsConfigDict(extra="forbid", validate_default=False)

    db: str = _f("", "session database", env="KT_TUI_DB")
    backend: str = _f("auto", "where numbers come from", env="KT_TUI_BACKEND")
    sim_cache: str | None = _f(None, "recorded kernel_tuner cachefile or folder", env="KT_TUI_SIM_CACHE")
    strategy: str = _f("sweep", "the session strategy")
    # [strategy.NAME] tables of config.toml: each strategy's own options, validated by its `Options`
    # (engine/registry.py strategy_options); a flag given for a key wins over the table
    strategy_tables: dict[str, dict[str, Any]] = _f({}, "per-strategy options from config.toml", strict=None)
    steps: str | None = _f(
        None, "the explicit strategy's steps file (None: the library shipped with kt-tui)", strategy=True
    )
    llm: str = _f("auto", "none: manual mode, no LLM calls", env="KT_TUI_LLM")
    base_url: str | None = _f(None, "OpenAI-compatible endpoint", env="OPENAI_BASE_URL")
    model: str | None = _f(None, "LLM model name", env="KT_TUI_MODEL")
    api_key: str | None = Field(None, repr=False, exclude=True, json_schema_extra={"env": "OPENAI_API_KEY"})
    theme: str = _f("kt-dark", "theme name", env="KT_TUI_THEME")
    timeout_s: float | None = _f(
        None, "watchdog per configuration; the spec's timeout_s when unset", gt=0, allow_inf_nan=False
    )
    gpus: StrictInt | StrictStr = _f("", 'N or "all": measure on that many GPUs at once (through Ray)', strict=None)
    ray_address: str = _f("", "a running Ray cluster to measure on", env="RAY_ADDRESS")
    allow_mixed: bool = _f(False, "let workers of different GPU models tune together")
    keys: dict[str, str] = _f({}, "binding id -> key, remaps the defaults")
    # the autonomous strategy
    with_replanning: bool = _f(True, "ask for a new plan when the steps run out", strategy=True)
    max_replanning: int = _f(1, "new plans at most", strategy=True, ge=0)
    breakdown_steps: bool = _f(False, "let the LLM break a step into smaller ones", strategy=True)
    max_breakdowns: int = _f(1, "levels of breakdown", strategy=True, ge=0)
    threshold: float = _f(
        0.02, "accept a kernel at least this fraction faster", strategy=True, ge=0, allow_inf_nan=False
    )
    llm_timeout_s: float = _f(120.0, "total deadline of each attempt of an LLM call", gt=0, lt=1e9)
    llm_retries: int = _f(3, "attempts per LLM call, in all", ge=1)
    llm_max_tokens: int = _f(4096, "max_tokens sent with every LLM request", ge=1)
    # how each tuning run searches its space
    search: str = _f("kt", "kt, brute_force or a kernel_tuner strategy", strategy=True)
    max_configs: int = _f(0, "configurations per run at most (0: no budget)", strategy=True, ge=0)
    time_limit_s: float = _f(0.0, "seconds per run at most (0: no budget)", strategy=True, ge=0, allow_inf_nan=False)
    seeds: bool = _f(True, "measure the heuristic seed configurations first", strategy=True)
    search_options: dict[str, Any] = _f({}, "passed to the search strategy", strategy=True)
    # the config-search strategy
    rounds: int = _f(6, "rounds of LLM-proposed batches at most", strategy=True, ge=1)
    batch_size: int = _f(8, "configurations the LLM proposes per round", strategy=True, ge=1)
    plateau_rounds: int = _f(2, "stop after this many rounds without a 1 % gain", strategy=True, ge=0)
    hybrid: str = _f("", "a search strategy that goes on from the LLM's first batch", strategy=True)
    space_edits: bool = _f(True, "let the LLM propose search-space edits on a plateau", strategy=True)

    @classmethod
    def settings_customise_sources(
        cls, settings_cls, init_settings, env_settings, dotenv_settings, file_secret_settings
    ):
        return init_settings, _Environment(settings_cls), _ConfigFile(settings_cls)

    def strategy_options(self) -> dict:
        """The flat strategy knobs (flags, variables, older config keys); the engine gets these with
        the strategy's [strategy.NAME] table over them (engine/registry.py strategy_options)."""
        return {k: getattr(self, k) for k, f in type(self).model_fields.items() if _extra(f, "strategy")}

    def table_for(self, strategy: str) -> dict[str, Any]:
        return dict(self.strategy_tables.get(strategy) or {})

    def public(self) -> dict:
        """What may be written to the session store: everything but secrets."""
        public = self.model_dump(exclude={"api_key", "keys"})
        public["base_url"] = mask_url(public["base_url"]) if public.get("base_url") else public.get("base_url")
        return public

    @property
    def data_dir(self) -> Path:
        return data_dir()

    @field_validator("search", "hybrid")
    @classmethod
    def _search(cls, v: str) -> str:
        if v and v not in SEARCHES:
            raise ValueError(f"{v!r}: unknown search (known: {', '.join(SEARCHES)})")
        return v

    @field_validator("search_options")
    @classmethod
    def _options(cls, v: dict) -> dict:
        for k, x in v.items():
            if not _finite(x):
                raise ValueError(f"{k}: must be finite numbers, not {x!r}")
        return v

    @field_validator("base_url")
    @classmethod
    def _url(cls, v: str | None) -> str | None:
        register_url(v)
        url = urlparse(v or "")
        if v and (url.scheme not in ("http", "https") or not url.netloc):
            raise ValueError(f"must be an http:// or https:// URL, not {mask_url(v)!r}")
        return v

    @field_validator("theme")
    @classmethod
    def _theme(cls, v: str) -> str:
        names = theme_names(config_dir() / "themes")
        if v != "kt-dark" and v not in names:
            raise ValueError(f"{v}: no such theme (have: {', '.join(sorted(names))})")
        return v

    @field_validator("sim_cache")
    @classmethod
    def _sim_cache(cls, v: str | None) -> str | None:
        if v:
            _check_sim_cache(v)
        return v


def _extra(f: FieldInfo, key: str):
    return (f.json_schema_extra or {}).get(key) if isinstance(f.json_schema_extra, dict) else None


def setting_fields() -> dict[str, FieldInfo]:
    return dict(Settings.model_fields)


class _Environment(PydanticBaseSettingsSource):
    """The variables named on the fields (KT_TUI_DB, OPENAI_API_KEY, ...); an empty one is unset."""

    def get_field_value(self, field: FieldInfo, field_name: str):
        env = _extra(field, "env")
        return (os.environ.get(env) or None) if env else None, field_name, False

    def __call__(self) -> dict:
        out = {}
        for name, f in self.settings_cls.model_fields.items():
            value = self.get_field_value(f, name)[0]
            if value is not None:
                out[name] = value
        return out


_config_file: ContextVar[Path | None] = ContextVar("config_file", default=None)


class _ConfigFile(PydanticBaseSettingsSource):
    """config.toml in the config dir (or the file load_settings is given), read under the size cap."""

    def get_field_value(self, field: FieldInfo, field_name: str):
        return None, field_name, False

    def __call__(self) -> dict:
        path = _config_file.get() or config_dir() / "config.toml"
        if not path.is_file():
            return {}
        try:
            data = load_toml(read_text_file(path, "config", CONFIG_MAX), path)
        except FileRefused as e:
            raise ConfigError("", str(e)) from None
        data = _strategy_tables(data, path)
        for k in data:
            if k == "api_key":
                raise ConfigError(k, "the API key is never read from a file: set OPENAI_API_KEY", path)
            if k not in Settings.model_fields:
                known = ", ".join(sorted(set(Settings.model_fields) - {"api_key"}))
                raise ConfigError(k, f"unknown setting (known: {known})", path)
        return data


def _strategy_tables(data: dict, path: Path) -> dict:
    """`strategy` as a table: [strategy] name = "..." (the strategy to run) and one [strategy.NAME]
    table of options per strategy. A plain `strategy = "NAME"` (older files) stays as it is."""
    table = data.get("strategy")
    if not isinstance(table, dict):
        return data
    data = dict(data)
    tables = dict(table)
    name = tables.pop("name", None)
    del data["strategy"]
    if name is not None:
        data["strategy"] = name
    for k, v in tables.items():
        if not isinstance(v, dict):
            raise ConfigError(f"strategy.{k}", "expected a table [strategy.NAME] of that strategy's options", path)
    if "strategy_tables" in data:
        raise ConfigError("strategy_tables", "set by [strategy.NAME] tables, not by its own key", path)
    data["strategy_tables"] = tables
    return data


def load_settings(
    flags: dict | None = None, config_file: Path | None = None, flag_names: dict[str, str] | None = None
) -> Settings:
    """flag_names: setting -> the command-line flag that sets it, for messages."""
    given = {k: v for k, v in (flags or {}).items() if v is not None}
    token = _config_file.set(config_file)
    try:
        s = Settings(**given)
    except ValidationError as e:
        err = e.errors()[0]
        raise _error(str(err["loc"][0]), problem_text(err), given, flag_names, config_file) from None
    finally:
        _config_file.reset(token)
    if not s.db:
        s.db = str(data_dir() / "sessions.db")
    s.strategy_tables = {n: {k: v for k, v in t.items() if k not in given} for n, t in s.strategy_tables.items()}
    return s


def _error(name: str, problem: str, given: dict, flag_names: dict | None, config_file: Path | None) -> ConfigError:
    """The problem named where the value came from: the flag, the variable, or the file and key."""
    if name in given:
        return ConfigError((flag_names or {}).get(name) or "--" + name.replace("_", "-"), problem)
    env = _extra(Settings.model_fields[name], "env")
    if env and os.environ.get(env):
        return ConfigError(env, problem)
    return ConfigError(name, problem, config_file or config_dir() / "config.toml")


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


def _check_sim_cache(value: str) -> None:
    p = Path(value)
    if p.is_dir():
        return  # a folder of recorded caches, searched by kernel version
    if not p.is_file():
        raise ValueError(f"{value}: no such file or folder")
    try:
        head = read_header(p)
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
        head = None
    if not isinstance(head, dict) or "tune_params_keys" not in head:
        raise ValueError(f"{value}: not a kernel_tuner cachefile")
