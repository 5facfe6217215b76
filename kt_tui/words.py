"""A count and its noun as the user reads them, in every message of the CLI, the app, the report and
the export: 1 step, 2 steps, 0 steps."""

from __future__ import annotations

IRREGULAR = {"guess": "guesses", "batch": "batches", "failure": "failures", "was": "were", "is": "are"}


def plural(n: object, noun: str, many: str | None = None) -> str:
    """noun as it goes with n: itself for exactly one, else its plural (many, or the usual one)."""
    if n == 1:
        return noun
    return many or IRREGULAR.get(noun) or noun + "s"


def counted(n: object, noun: str, many: str | None = None) -> str:
    """'1 step', '3 steps'; n as it prints (ints plain, with no thousands separator)."""
    return f"{n} {plural(n, noun, many)}"
