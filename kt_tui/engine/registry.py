"""The strategy registry. A strategy is a callable `strategy(engine)` that returns a generator of
gates (README: "Custom strategies"). Every strategy is an entry point in the group
`kt_tui.strategies`, the built-in ones included (pyproject.toml declares them); where kt-tui's own
package metadata is missing, as in a bare source tree, the BUILTIN table stands in for it."""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import UserError
from ..tomlfile import problem_text

GROUP = "kt_tui.strategies"
BUILTIN = {
    "sweep": "kt_tui.engine.strategies.sweep:sweep",
    "autonomous": "kt_tui.engine.strategies.autonomous:autonomous",
    "explicit": "kt_tui.engine.strategies.explicit:explicit",
    "one-prompt": "kt_tui.engine.strategies.one_prompt:one_prompt",
    "config-search": "kt_tui.engine.strategies.config_search:config_search",
}
PLANNED: tuple[str, ...] = ()  # named but not written yet


class UnknownStrategy(UserError):
    pass


def registered() -> dict[str, EntryPoint]:
    """Every strategy by name. A plugin cannot take a built-in name."""
    found: dict[str, EntryPoint] = {}
    for ep in entry_points(group=GROUP):
        own = ep.dist is not None and ep.dist.name.replace("_", "-").lower() == "kt-tui"
        if ep.name not in BUILTIN or own:
            found.setdefault(ep.name, ep)
    builtin = {name: found.get(name) or EntryPoint(name, value, GROUP) for name, value in BUILTIN.items()}
    return {**builtin, **found}


def get_strategy(name: str) -> Any:
    # a built-in name is always kt-tui's own: no need to read every installed package's entry points
    eps = {name: EntryPoint(name, BUILTIN[name], GROUP)} if name in BUILTIN else registered()
    if name not in eps:
        if name in PLANNED:
            raise UnknownStrategy(
                f"strategy {name!r} is not available in this version yet; use one of {', '.join(eps)}"
            )
        raise UnknownStrategy(f"unknown strategy {name!r} (known: {', '.join([*eps, *PLANNED])})")
    try:
        strategy = eps[name].load()
    except Exception as e:  # noqa: BLE001 - a broken plugin is the user's to fix, with a clear message
        raise UnknownStrategy(
            f"strategy {name!r} ({eps[name].value}) cannot be loaded: {type(e).__name__}: {e}"
        ) from None
    if not callable(strategy):
        raise UnknownStrategy(f"strategy {name!r} ({eps[name].value}) is not callable")
    return strategy


def describe(name: str) -> str:
    strategy = get_strategy(name)
    doc = (getattr(strategy, "DESCRIPTION", None) or strategy.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else ""


def options_model(name: str) -> type[BaseModel] | None:
    """The strategy's own pydantic `Options` (an attribute of the strategy callable), or None."""
    model = getattr(get_strategy(name), "Options", None)
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


Given = dict[str, tuple[str, Any]]  # option -> (the flag that gave it, its value)


def strategy_options(
    name: str,
    table: dict[str, Any] | None = None,
    *,
    defaults: dict[str, Any] | None = None,
    stored: dict[str, Any] | None = None,
    given: Given | None = None,
    defaults_from: str = "config.toml",
) -> dict[str, Any]:
    """The options a session of `name` runs with, validated by the strategy's `Options`: what the
    session stored (resume), under the flat keys of an older config file (those the strategy has),
    under its table [strategy.NAME] of config.toml, under the flags given now. A flag the strategy has
    no option for, or a bad or unknown key, is a UserError naming the flag or `strategy.NAME.KEY`."""
    table, given = dict(table or {}), dict(given or {})
    model = options_model(name)
    if model is None:
        if table:
            raise UserError(f"strategy.{name}: the strategy {name!r} takes no options (got {', '.join(table)})")
        if given:
            flag = next(iter(given.values()))[0]
            raise UserError(f"{flag}: the strategy {name!r} has no such option (it takes none)")
        return {}
    for option, (flag, _) in given.items():
        if option not in model.model_fields:
            raise UserError(
                f"{flag}: the strategy {name!r} has no such option (known: {', '.join(model.model_fields)})"
            )
    kept = {k: v for k, v in (stored or {}).items() if k in model.model_fields and _valid(model, k, v)}
    flat = {k: v for k, v in (defaults or {}).items() if k in model.model_fields}
    flags = {k: v for k, (_, v) in given.items()}
    try:
        valid = model.model_validate({**kept, **flat, **table, **flags})
    except ValidationError as e:
        err = e.errors()[0]
        key = str(err["loc"][0]) if err["loc"] else ""
        where = ".".join(str(x) for x in err["loc"])
        if err["type"] == "extra_forbidden":
            known_names = ", ".join(model.model_fields)
            raise UserError(f"strategy.{name}.{where}: unknown option (known: {known_names})") from None
        if key in flags:
            where = given[key][0]
        elif key not in table and key in flat:
            where = f"{defaults_from}: {where}"
        else:
            where = f"strategy.{name}.{where}"
        raise UserError(f"{where}: {problem_text(dict(err))}") from None
    return valid.model_dump()


def _valid(model: type[BaseModel], key: str, value: Any) -> bool:
    """One stored option checked alone (the database is untrusted input): a bad one is dropped."""
    try:
        model.model_validate({key: value})
    except ValidationError:
        return False
    return True


def check_strategy(name: str, options: dict[str, Any]) -> None:
    """Before a session starts: the strategy exists, and its optional `check(options)` passes (the
    explicit strategy reads its steps file there); `options` come from strategy_options."""
    check = getattr(get_strategy(name), "check", None)
    if check is not None:
        check(options)
