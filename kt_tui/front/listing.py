"""`kt-tui sessions`: the stored sessions as a table or JSON. Kept apart from commands.py so that
listing loads no engine, numpy, sqlite-utils, pydantic or Rich: it is given the database's path
(paths.session_db), and prints its table as plain aligned columns, for a pipe or a file."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from ..store import Store

if TYPE_CHECKING:
    from ..config import Settings

COLUMNS = ("id", "kernel", "created", "state", "gpu", "baseline ms", "best ms")


class StoreError(UserError):
    pass


def open_db(path: str) -> Store:
    try:
        return Store(path)
    except (sqlite3.Error, OSError) as e:
        raise StoreError(f"cannot open the session database {path}: {e}") from None


def open_store(settings: Settings) -> Store:
    return open_db(settings.db)


def _ms(v) -> str:
    return f"{v:.4f}" if v is not None else "-"


def _text(v) -> str:
    """A cell on one line: a character that would move the cursor or end the line shows as '?'."""
    return "".join(c if c.isprintable() else "?" for c in str(v or ""))


def list_sessions(db: str, as_json: bool) -> int:
    from ..engine.summary import session_row  # here: open_store (the TUI's) loads no engine

    store = open_db(db)
    rows = [session_row(s) for s in store.sessions()]
    if as_json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print(f"no sessions yet in {store.path}")
        return 0
    table = [COLUMNS] + [
        (
            r["id"],
            Path(r["kernel"] or "").name,
            r["created"],
            r["state"],
            (r["gpu"] or "") + (" (SIMULATED)" if r["simulated"] else ""),
            _ms(r["baseline_ms"]),
            _ms(r["best_time_ms"]),
        )
        for r in rows
    ]
    table = [[_text(v) for v in row] for row in table]
    widths = [max(len(row[i]) for row in table) for i in range(len(COLUMNS))]
    lines = [f"kt-tui sessions in {store.path}"]
    for row in table:
        cells = [v.rjust(w) if name.endswith(" ms") else v.ljust(w) for v, w, name in zip(row, widths, COLUMNS)]
        lines.append("  ".join(cells).rstrip())
    print("\n".join(lines))
    return 0
