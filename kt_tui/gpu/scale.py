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


def wanted(settings) -> bool:
    """True when the settings ask for more than today's one local GPU worker."""
    return bool(settings.ray_address) or parse_gpus(settings.gpus) not in (None, 1)


def check_settings(settings) -> None:
    """Before a session starts: a clear message (exit 2) for a bad --gpus, or --ray without Ray."""
    parse_gpus(settings.gpus)
    if settings.ray_address:
        try:
            import ray  # noqa: F401
        except ImportError:
            raise ScaleError(f"--ray needs Ray, which is not installed: {INSTALL}") from None
