"""Settings: command-line flags > environment (OPENAI_*, KT_TUI_*) > config.toml in the XDG config dir.

The Settings model (pydantic-settings) is the one list of settings: the config file's keys, the flags
the CLI passes on and what a session stores are all read from its fields. Its sources are the flags
(init), the variables named on the fields, and config.toml with its sections: `[keys]` and one
`[strategy.NAME]` table per strategy, merged key by key with what the flags give (pydantic-settings'
deep merge of its sources)."""

from __future__ import annotations

import os
import sys
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlparse

from pydantic import AfterValidator, Field, PrivateAttr, StrictBool, StrictInt, StrictStr, ValidationError
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from .files import CONFIG_MAX, FileRefused, read_text_file
from .gpu.env import SECRETS_LOCK
from .gpu.simcache import read_header
from .paths import CONTROL, config_dir, data_dir  # noqa: F401 - the names other modules import from here
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
TEXT_MAX = 4096  # characters of any setting's text: a path, a URL, a key binding
MODEL_MAX = 256  # a model's name: OpenAI's are under 64, a Hugging Face path well under 200
_noted: set[Path] = set()


def _plain(v: str) -> str:
    """No control characters: a CR/LF in a URL or a name would end up in a request's headers."""
    if m := CONTROL.search(v):
        raise ValueError(f"must not hold control characters (found {m.group()!r})")
    return v


def _url(v: str | None) -> str | None:
    register_url(v)
    url = urlparse(v or "")
    if v and (url.scheme not in ("http", "https") or not url.netloc):
        raise ValueError(f"must be an http:// or https:// URL, not {mask_url(v)!r}")
    return v


def _theme(v: str) -> str:
    unread: list[str] = []
    names = theme_names(config_dir() / "themes", unread)
    if v != "kt-dark" and v not in names:
        left_out = f"; left out: {'; '.join(unread)}" if unread else ""
        raise ValueError(f"{v}: no such theme (have: {', '.join(sorted(names))}){left_out}")
    return v


def _sim_cache(v: str | None) -> str | None:
    if v:
        _check_sim_cache(v)
    return v


Text = Annotated[StrictStr, Field(max_length=TEXT_MAX), AfterValidator(_plain)]
ModelName = Annotated[StrictStr, Field(max_length=MODEL_MAX), AfterValidator(_plain)]
_Table = dict[StrictStr, Any]


def _f(default: Any, description: str, env: str | None = None, **kw: Any) -> Any:
    """A setting: its default, what it does, and the one variable that sets it (when one does)."""
    extra: dict[str, Any] | None = {"env": env} if env else None
    if isinstance(default, dict):
        return Field(default_factory=dict, description=description, json_schema_extra=extra, **kw)
    return Field(default, description=description, json_schema_extra=extra, **kw)


class Settings(BaseSettings):
    """Made by load_settings from its sources (file < environment < flags), each value checked."""

    model_config = SettingsConfigDict(extra="forbid", validate_default=False, strict=True)

    db: Text = _f("", "session database", env="KT_TUI_DB")
    backend: Text = _f("auto", "where numbers come from", env="KT_TUI_BACKEND")
    sim_cache: Annotated[Text | None, AfterValidator(_sim_cache)] = _f(
        None, "recorded kernel_tuner cachefile or folder", env="KT_TUI_SIM_CACHE"
    )
    strategy: Text = _f("sweep", "the session strategy")
    # [strategy.NAME] sections of config.toml: each strategy's own options, validated by its `Options`
    # (engine/registry.py strategy_options); a flag given for a key wins over the section
    strategy_tables: dict[StrictStr, _Table] = _f({}, "per-strategy options from config.toml")
    # flat strategy keys of an older config.toml (`threshold = 0.05`): each strategy that has the option
    # takes it, under its own section (engine/registry.py strategy_options)
    strategy_defaults: _Table = _f({}, "flat strategy keys of an older config.toml")
    # strategy options given by flags: option -> (the flag, its value); the chosen strategy's Options
    # checks them, and a flag it has no option for is refused naming the flag
    strategy_flags: dict[StrictStr, tuple[StrictStr, Any]] = _f({}, "strategy options given by flags")
    llm: Text = _f("auto", "none: manual mode, no LLM calls", env="KT_TUI_LLM")
    base_url: Annotated[Text | None, AfterValidator(_url)] = _f(
        None, "OpenAI-compatible endpoint", env="OPENAI_BASE_URL"
    )
    model: ModelName | None = _f(None, "LLM model name", env="KT_TUI_MODEL")
    api_key: Text | None = Field(None, exclude=True, repr=False, json_schema_extra={"env": "OPENAI_API_KEY"})
    theme: Annotated[Text, AfterValidator(_theme)] = _f("kt-dark", "theme name", env="KT_TUI_THEME")
    timeout_s: float | None = _f(
        None, "watchdog per configuration; the spec's timeout_s when unset", gt=0, allow_inf_nan=False
    )
    gpus: StrictInt | Text = _f("", 'N or "all": measure on that many GPUs at once (through Ray)')
    ray_address: Text = _f("", "a running Ray cluster to measure on", env="RAY_ADDRESS")
    allow_mixed: StrictBool = _f(False, "let workers of different GPU models tune together")
    allow_survivors: StrictBool = _f(
        False, "let --auto accept generated kernels on a check not shown to catch wrong variants of the kernel"
    )
    keys: dict[Text, Text] = _f({}, "binding id -> key, remaps the defaults (the [keys] section)", max_length=1000)
    llm_timeout_s: float = _f(120.0, "total deadline of each attempt of an LLM call", gt=0, lt=1e9)
    llm_retries: StrictInt = _f(3, "attempts per LLM call, in all", ge=1, le=10)
    llm_max_tokens: StrictInt = _f(4096, "max_tokens sent with every LLM request", ge=1, le=1_000_000)
    _config_path: Path | None = PrivateAttr(None)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Flags (init) over the variables named on the fields over config.toml: no .env file, no
        other variable (KT_TUI_ROUNDS is not read)."""
        return init_settings, _Environment(settings_cls), _ConfigFile(settings_cls)

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


def setting_fields() -> dict[str, FieldInfo]:
    return dict(Settings.model_fields)


def env_name(field: FieldInfo) -> str | None:
    extra = field.json_schema_extra
    env = extra.get("env") if isinstance(extra, dict) else None
    return env if isinstance(env, str) else None


def environ_value(name: str) -> str | None:
    """The variable's value, read while no NVRTC process is starting (gpu/env.py SECRETS_LOCK: secrets are
    out of os.environ then)."""
    with SECRETS_LOCK:
        return os.environ.get(name)


class _Environment(PydanticBaseSettingsSource):
    """The variables named on the fields (KT_TUI_DB, OPENAI_API_KEY, ...); an empty one is unset."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        env = env_name(field)
        return (environ_value(env) or None) if env else None, field_name, False

    def __call__(self) -> dict[str, Any]:
        out = {}
        for name, f in self.settings_cls.model_fields.items():
            value = self.get_field_value(f, name)[0]
            if value is not None:
                out[name] = value
        return out


_reading: ContextVar[Path | None] = ContextVar("config_file", default=None)  # load_settings' file, while it loads


def _config_file_path() -> Path:
    return _reading.get() or config_dir() / "config.toml"


class _ConfigFile(PydanticBaseSettingsSource):
    """config.toml in the config dir (or the file load_settings is given), read under the size cap.
    A FIFO, a device, a folder or a link to one is refused (one line), never skipped or read for ever."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        path = _config_file_path()
        if not os.path.lexists(path):
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
            if k not in Settings.model_fields and k not in FLAT_STRATEGY_KEYS:
                known = ", ".join(sorted(set(Settings.model_fields) - set(NOT_IN_FILE)))
                raise ConfigError(k, f"unknown setting (known: {known})", path)
        return _flat_strategy_keys(data, path)


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
    token = _reading.set(config_file)
    try:
        s = Settings(**given)
    except ValidationError as e:
        err = e.errors(include_url=False)[0]
        loc = [str(part) for part in err["loc"]]
        shown = ".".join(loc[:2]) if loc[0] == "keys" else loc[0]  # the binding id of a [keys] entry
        raise _error(loc[0], problem_text(err), given, flag_names, shown) from None
    finally:
        _reading.reset(token)
    s._config_path = config_file
    if not s.db:
        s.db = str(data_dir() / "sessions.db")
    return s


def _error(name: str, problem: str, given: dict, flag_names: dict | None, shown: str | None = None) -> ConfigError:
    """The problem named where the value came from: the flag, the variable, or the file and key
    (`shown`: the key as the file has it, `keys.start`, when not the setting's name)."""
    if name in given:
        return ConfigError((flag_names or {}).get(name) or "--" + name.replace("_", "-"), problem)
    env = env_name(Settings.model_fields[name]) if name in Settings.model_fields else None
    if env and environ_value(env):
        return ConfigError(env, problem)
    return ConfigError(shown or name, problem, _config_file_path())  # load_settings' file is still set here


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
