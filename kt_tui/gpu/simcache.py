"""kernel_tuner cachefiles recorded on a real GPU: naming, metadata, and lookup by kernel version.

A recorded cache stays a valid kernel_tuner cachefile (kernel_tuner's own simulation mode opens
it); kt-tui adds a "kt_tui" header entry saying which kernel version, GPU, backend and date it
came from.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path


def read_cache(path: str | Path) -> dict:
    """A cachefile as JSON, one that kernel_tuner left open (no closing brackets) closed as
    kernel_tuner's own reader closes it; the file is not changed. kernel_tuner is not needed."""
    text = Path(path).read_text().strip()
    if text and text[-3:] not in ("}\n}", "}}}"):
        text = (text[:-1] if text[-1] == "," else text) + "}\n}"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(
            f'{path}: not a kernel_tuner cachefile as kernel_tuner reads it (JSON whose last entry is "cache"): {e}'
        ) from None
    except RecursionError:  # arrays or objects nested deeper than Python's stack
        raise ValueError(f"{path}: not a kernel_tuner cachefile (nested too deep to read)") from None
    if not isinstance(data, dict) or not isinstance(data.get("cache"), dict):
        raise ValueError(f"{path}: not a kernel_tuner cachefile")
    return data


def read_header(path: str | Path) -> dict:
    """The cache's header fields (everything but the entries)."""
    data = read_cache(path)
    data.pop("cache", None)
    return data


def gpu_label(head: dict) -> str:
    """The GPU and date a cache was recorded on, from its header: "date unknown" where it names none
    (a plain kernel_tuner cache) or one that is no date up to tomorrow (a hand-edited header)."""
    meta = head.get("kt_tui", {})
    when = meta.get("recorded") if isinstance(meta, dict) else None
    try:
        day = datetime.date.fromisoformat(when[:10]) if isinstance(when, str) else None
    except ValueError:
        day = None
    if day is not None and day > datetime.date.today() + datetime.timedelta(days=1):
        day = None
    return f"{head.get('device_name', 'unknown GPU')}" + (f" (recorded {day})" if day else " (recorded: date unknown)")


def find_cache(where: str | Path, kernel: str, version: str | list[str]) -> Path | None:
    """`where` is a cachefile (used as is) or a folder searched for this kernel version (any of
    its ids: a version's current id, then the legacy one its caches may have been recorded under)."""
    p = Path(where)
    if p.is_file():
        return p
    if not p.is_dir():
        return None
    ids = [version] if isinstance(version, str) else list(version)
    for vid in ids:
        named = sorted(f for f in p.glob(f"{kernel}-{vid}*.json") if f.is_file())  # never a FIFO or device
        if named:
            return named[0]
    for f in sorted(f for f in p.glob("*.json") if f.is_file()):
        try:
            if read_header(f).get("kt_tui", {}).get("kernel_version") in ids:
                return f
        except (ValueError, KeyError, OSError):
            continue
    return None


def finalize_cache(path: str | Path, meta: dict, tune_params: dict | None = None) -> None:
    """Close a cachefile kernel_tuner left open and stamp kt-tui's metadata into its header."""
    data = read_cache(path)
    for entry in data["cache"].values():
        entry.pop("__error__", None)
    data["kt_tui"] = {**data.get("kt_tui", {}), **meta}
    if tune_params:
        data["tune_params"] = tune_params
    cache = data.pop("cache")
    text = (
        json.dumps(data, indent="")[:-2]
        + ',\n"cache": {'
        + ",".join("\n" + json.dumps({k: v})[1:-1] for k, v in cache.items())
        + "\n}\n}"
    )
    Path(path).write_text(text)


def recorded_checks(path: str | Path, key: str) -> list[dict]:
    """The checks at other sizes a real run stamped into the cache for this configuration."""
    try:
        checks = read_header(path).get("kt_tui", {}).get("checks") or {}
    except (ValueError, KeyError, OSError):
        return []
    return [c for c in checks.get(key, []) if isinstance(c, dict) and "label" in c]
