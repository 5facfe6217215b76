"""Settings: command-line flags > environment (OPENAI_*, KT_TUI_*) > config.toml in the XDG config dir.

_FIELDS is the one list of settings: the config file's keys, the flags the CLI passes on and what a
session stores are all read from it; each value is checked by its pydantic-core schema."""

from __future__ import annotations

import copy
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from pydantic_core import SchemaValidator, ValidationError
from pydantic_core import core_schema as cs

from .files import CONFIG_MAX, FileRefused, read_text_file
from .gpu.simcache import read_header
from .paths import config_dir, data_dir  # noqa: F401 - the names other modules import from here
from .redact import mask_url, register_url
from .theme_files import theme_names
from .tomlfile import TomlError, load_toml, problem_text

ConfigError = TomlError  # one error class for every TOML file and setting


# the strategy options older config files set as flat keys (now [strategy.NAME] tables)
FLAT_STRATEGY_KEYS = (
    "steps",
    "with_replanning",
    "max_replanning",
    "breakdown_steps",
    "max_breakdowns",
    "threshold",
    "search",
    "max_configs",
    "time_limit_s",
    "seeds",
    "search_options",
    "rounds",
    "batch_size",
    "plateau_rounds",
    "hybrid",
    "space_edits",
)
NOT_IN_FILE = ("api_key", "strategy_tables", "strategy_defaults", "strategy_flags")
_noted: set[Path] = set()


def _url(v: str | None) -> str | None:
    register_url(v)
    url = urlparse(v or "")
    if v and (url.scheme not in ("http", "https") or not url.netloc):
        raise ValueError(f"must be an http:// or https:// URL, not {mask_url(v)!r}")
    return v


def _theme(v: str) -> str:
    names = theme_names(config_dir() / "themes")
    if v != "kt-dark" and v not in names:
        raise ValueError(f"{v}: no such theme (have: {', '.join(sorted(names))})")
    return v


def _sim_cache(v: str | None) -> str | None:
    if v:
        _check_sim_cache(v)
    return v


@dataclass(frozen=True)
class Setting:
    """One setting: its default, what it is, the pydantic-core schema its value must pass and the
    environment variable that sets it. secret: never shown, stored or dumped (the API key)."""

    default: Any
    description: str
    schema: cs.CoreSchema
    env: str | None = None
    secret: bool = False


_STR = cs.str_schema(strict=True)
_OPT_STR = cs.nullable_schema(_STR)
_ANY_TABLE = cs.dict_schema(cs.str_schema(), cs.any_schema())
_FIELDS: dict[str, Setting] = {
    "db": Setting("", "session database", _STR, env="KT_TUI_DB"),
    "backend": Setting("auto", "where numbers come from", _STR, env="KT_TUI_BACKEND"),
    "sim_cache": Setting(
        None,
        "recorded kernel_tuner cachefile or folder",
        cs.no_info_after_validator_function(_sim_cache, _OPT_STR),
        env="KT_TUI_SIM_CACHE",
    ),
    "strategy": Setting("sweep", "the session strategy", _STR),
    # [strategy.NAME] tables of config.toml: each strategy's own options, validated by its `Options`
    # (engine/registry.py strategy_options); a flag given for a key wins over the table
    "strategy_tables": Setting(
        {}, "per-strategy options from config.toml", cs.dict_schema(cs.str_schema(), _ANY_TABLE)
    ),
    # flat strategy keys of an older config.toml (`threshold = 0.05`): each strategy that has the option
    # takes it, under its own table (engine/registry.py strategy_options)
    "strategy_defaults": Setting({}, "flat strategy keys of an older config.toml", _ANY_TABLE),
    # strategy options given by flags: option -> (the flag, its value); the chosen strategy's Options
    # checks them, and a flag it has no option for is refused naming the flag
    "strategy_flags": Setting(
        {},
        "strategy options given by flags",
        cs.dict_schema(cs.str_schema(), cs.tuple_schema([cs.str_schema(), cs.any_schema()])),
    ),
    "llm": Setting("auto", "none: manual mode, no LLM calls", _STR, env="KT_TUI_LLM"),
    "base_url": Setting(
        None, "OpenAI-compatible endpoint", cs.no_info_after_validator_function(_url, _OPT_STR), env="OPENAI_BASE_URL"
    ),
    "model": Setting(None, "LLM model name", _OPT_STR, env="KT_TUI_MODEL"),
    "api_key": Setting(None, "", cs.nullable_schema(cs.str_schema()), env="OPENAI_API_KEY", secret=True),
    "theme": Setting("kt-dark", "theme name", cs.no_info_after_validator_function(_theme, _STR), env="KT_TUI_THEME"),
    "timeout_s": Setting(
        None,
        "watchdog per configuration; the spec's timeout_s when unset",
        cs.nullable_schema(cs.float_schema(strict=True, gt=0, allow_inf_nan=False)),
    ),
    "gpus": Setting(
        "",
        'N or "all": measure on that many GPUs at once (through Ray)',
        cs.union_schema([cs.int_schema(strict=True), _STR]),
    ),
    "ray_address": Setting("", "a running Ray cluster to measure on", _STR, env="RAY_ADDRESS"),
    "allow_mixed": Setting(False, "let workers of different GPU models tune together", cs.bool_schema(strict=True)),
    "allow_survivors": Setting(
        False,
        "let --auto accept generated kernels on a check that wrong variants of the kernel pass",
        cs.bool_schema(strict=True),
    ),
    "keys": Setting({}, "binding id -> key, remaps the defaults", cs.dict_schema(_STR, _STR, strict=True)),
    "llm_timeout_s": Setting(
        120.0, "total deadline of each attempt of an LLM call", cs.float_schema(strict=True, gt=0, lt=1e9)
    ),
    "llm_retries": Setting(3, "attempts per LLM call, in all", cs.int_schema(strict=True, ge=1)),
    "llm_max_tokens": Setting(4096, "max_tokens sent with every LLM request", cs.int_schema(strict=True, ge=1)),
}
_checker: list[SchemaValidator] = []  # made at the first load_settings


def _check(values: dict[str, Any]) -> dict[str, Any]:
    """values through their settings' schemas (pydantic-core, without pydantic's model layer: it cost
    ~270 M instructions, ~50 ms, before the TUI's first frame); a problem raises ValidationError."""
    if not _checker:
        fields = {name: cs.typed_dict_field(f.schema, required=False) for name, f in _FIELDS.items()}
        _checker.append(SchemaValidator(cs.typed_dict_schema(fields, extra_behavior="forbid")))
    checked: dict[str, Any] = _checker[0].validate_python(values)
    return checked


class Settings:
    """Made by load_settings, which merges its sources (file < environment < flags) and checks them.
    The settings are its attributes, one per _FIELDS entry; model_fields_set and model_dump are
    named as pydantic's, whose model it was."""

    db: str
    backend: str
    sim_cache: str | None
    strategy: str
    strategy_tables: dict[str, dict[str, Any]]
    strategy_defaults: dict[str, Any]
    strategy_flags: dict[str, tuple[str, Any]]
    llm: str
    base_url: str | None
    model: str | None
    api_key: str | None
    theme: str
    timeout_s: float | None
    gpus: int | str
    ray_address: str
    allow_mixed: bool
    allow_survivors: bool
    keys: dict[str, str]
    llm_timeout_s: float
    llm_retries: int
    llm_max_tokens: int

    def __init__(self, **values: Any) -> None:
        """values: checked ones (load_settings); the others take their defaults."""
        for name, f in _FIELDS.items():
            setattr(self, name, values[name] if name in values else copy.deepcopy(f.default))
        self.model_fields_set = set(values)
        self._config_path: Path | None = None

    def __repr__(self) -> str:
        return f"Settings({', '.join(f'{k}={v!r}' for k, v in self.model_dump().items())})"

    def model_dump(self, exclude: set[str] | frozenset[str] = frozenset()) -> dict[str, Any]:
        """The settings as a dict, the secret ones left out."""
        return {name: getattr(self, name) for name, f in _FIELDS.items() if not f.secret and name not in exclude}

    def model_dump_json(self) -> str:
        return json.dumps(self.model_dump(), default=str)

    @property
    def config_path(self) -> Path:
        """The config file these settings read (strategy_defaults name it in messages)."""
        return self._config_path or config_dir() / "config.toml"

    def table_for(self, strategy: str) -> dict[str, Any]:
        return dict(self.strategy_tables.get(strategy) or {})

    def public(self) -> dict:
        """What may be written to the session store: everything but secrets."""
        public = self.model_dump(exclude={"api_key", "keys", "strategy_defaults", "strategy_flags"})
        public["base_url"] = mask_url(public["base_url"]) if public.get("base_url") else public.get("base_url")
        return public

    @property
    def data_dir(self) -> Path:
        return data_dir()


def setting_fields() -> dict[str, Setting]:
    return dict(_FIELDS)


def _environment() -> dict[str, Any]:
    """The variables named on the fields (KT_TUI_DB, OPENAI_API_KEY, ...); an empty one is unset."""
    out = {}
    for name, f in _FIELDS.items():
        env = f.env
        value = (os.environ.get(env) or None) if env else None
        if value is not None:
            out[name] = value
    return out


def _config_file(path: Path) -> dict[str, Any]:
    """config.toml in the config dir (or the file load_settings is given), read under the size cap."""
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
        if k in NOT_IN_FILE[2:]:
            raise ConfigError(k, "not a setting of the file: strategy options go in [strategy.NAME]", path)
        if k not in _FIELDS and k not in FLAT_STRATEGY_KEYS:
            known = ", ".join(sorted(set(_FIELDS) - set(NOT_IN_FILE)))
            raise ConfigError(k, f"unknown setting (known: {known})", path)
    return _flat_strategy_keys(data, path)


def _merged(low: dict[str, Any], high: dict[str, Any]) -> dict[str, Any]:
    """high over low; tables (dicts) in both are merged key by key, as pydantic-settings merged its sources."""
    out = dict(low)
    for k, v in high.items():
        out[k] = _merged(out[k], v) if isinstance(out.get(k), dict) and isinstance(v, dict) else v
    return out


def _flat_strategy_keys(data: dict, path: Path) -> dict:
    """An older file's flat strategy keys (`threshold = 0.05`) were read by whichever strategy ran and
    had that option: they still are, as strategy_defaults under every [strategy.NAME] table, with a
    note once per file saying where they go now."""
    flat = {k: data[k] for k in FLAT_STRATEGY_KEYS if k in data}
    if not flat:
        return data
    if path not in _noted:
        _noted.add(path)
        print(
            f"kt-tui: {path}: {', '.join(flat)}: strategy options now go under [strategy.NAME] "
            "(read for every strategy that has them until moved)",
            file=sys.stderr,
        )
    return {**{k: v for k, v in data.items() if k not in flat}, "strategy_defaults": flat}


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
    options = {k: given.pop(k) for k in FLAT_STRATEGY_KEYS if k in given}
    if options:  # the chosen strategy's Options checks them (engine/registry.py strategy_options)
        names = flag_names or {}
        flagged = {k: (names.get(k) or "--" + k.replace("_", "-"), v) for k, v in options.items()}
        given["strategy_flags"] = {**given.get("strategy_flags", {}), **flagged}
    values = _merged(_merged(_config_file(config_file or config_dir() / "config.toml"), _environment()), given)
    try:
        s = Settings(**_check(values))
    except ValidationError as e:
        err = e.errors()[0]
        raise _error(str(err["loc"][0]), problem_text(err), given, flag_names, config_file) from None
    if not s.db:
        s.db = str(data_dir() / "sessions.db")
    s._config_path = config_file
    return s


def _error(name: str, problem: str, given: dict, flag_names: dict | None, config_file: Path | None) -> ConfigError:
    """The problem named where the value came from: the flag, the variable, or the file and key."""
    if name in given:
        return ConfigError((flag_names or {}).get(name) or "--" + name.replace("_", "-"), problem)
    env = _FIELDS[name].env
    if env and os.environ.get(env):
        return ConfigError(env, problem)
    return ConfigError(name, problem, config_file or config_dir() / "config.toml")


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
