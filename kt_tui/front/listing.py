"""`kt-tui sessions`: the stored sessions as a table or JSON. Kept apart from commands.py so that
listing loads no engine, numpy or sqlite-utils."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ..config import Settings
from ..engine.summary import session_row
from ..errors import UserError
from ..store import Store


class StoreError(UserError):
    pass


def open_store(settings: Settings) -> Store:
    try:
        return Store(settings.db)
    except (sqlite3.Error, OSError) as e:
        raise StoreError(f"cannot open the session database {settings.db}: {e}") from None


def _ms(v) -> str:
    return f"{v:.4f}" if v is not None else "-"


def list_sessions(settings: Settings, as_json: bool) -> int:
    store = open_store(settings)
    rows = [session_row(s) for s in store.sessions()]
    if as_json:
        print(json.dumps(rows, indent=2))
        return 0
    table = Table(title=f"kt-tui sessions in {store.path}", title_justify="left")
    for col in ("id", "kernel", "created", "state", "gpu", "baseline ms", "best ms"):
        table.add_column(col, justify="right" if col.endswith("ms") else "left")
    for r in rows:
        gpu = (r["gpu"] or "") + (" (SIMULATED)" if r["simulated"] else "")
        table.add_row(r["id"], Path(r["kernel"]).name, r["created"], r["state"], gpu,
                      _ms(r["baseline_ms"]), _ms(r["best_time_ms"]))
    Console().print(table if rows else f"no sessions yet in {store.path}")
    return 0
