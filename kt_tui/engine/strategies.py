"""The strategy registry: built-in strategies by name."""

from __future__ import annotations

from ..errors import UserError
from .autonomous import autonomous
from .sweep import sweep

BUILTIN = {"sweep": sweep, "autonomous": autonomous}
NAMES = ("sweep", "autonomous", "explicit", "one-prompt", "config-search")


class UnknownStrategy(UserError):
    pass


def get_strategy(name: str):
    if name in BUILTIN:
        return BUILTIN[name]
    if name in NAMES:
        raise UnknownStrategy(f"strategy {name!r} is not available in this version yet; use --strategy sweep")
    raise UnknownStrategy(f"unknown strategy {name!r} (known: {', '.join(NAMES)})")
