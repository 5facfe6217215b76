"""What `--gpus` and `--ray` ask for, read without loading the pool or the Ray code (the UI reads it)."""

from __future__ import annotations

from ..errors import UserError

INSTALL = "pip install 'kt-tui[ray]' (Ray 2.9 or newer)"


class ScaleError(UserError):
    pass


def parse_gpus(value: object) -> int | str | None:
    """`--gpus` / config `gpus`: a positive number, "all", or unset (None)."""
    if value in (None, "", 0):
        return None
    text = str(value).strip().lower()
    if text == "all":
        return "all"
    if text.isdigit() and int(text) > 0:
        return int(text)
    raise ScaleError(f"--gpus: expected a number of GPUs or 'all', got {value!r}")
