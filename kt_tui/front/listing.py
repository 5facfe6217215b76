"""`kt-tui sessions`: the stored sessions as a table or JSON. Kept apart from commands.py so that
listing loads no engine, numpy, sqlite-utils, pydantic or Rich: it is given the database's path
(paths.session_db), and prints its table as plain aligned columns, for a pipe or a file."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from ..files import file_in_the_way
from ..store import Store
from ..store.problems import db_problem

if TYPE_CHECKING:
    from ..config import Settings

COLUMNS = ("id", "kernel", "created", "state", "gpu", "baseline ms", "best ms")


class StoreError(UserError):
    pass


def open_db(path: str) -> Store:
    """The store at `path`; a machine's problem (a folder it cannot be made in, a full disk) is an
    EnvironmentProblem (exit 3), any other failure a StoreError (exit 2)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None  # made below, or SQLite says why it cannot be
    if mode is not None and not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a pipe, device or socket"
        raise StoreError(f"the session database {path} is {kind}, not a file: pass a file with --db")
    if mode is None and (blocker := file_in_the_way(path)):
        raise StoreError(
            f"the session database {path} cannot be made: {blocker} is a file, not a folder; pass another --db"
        )
    try:
        return Store(path)
    except (sqlite3.Error, OSError) as e:
        raise db_problem(e, path) or StoreError(f"cannot open the session database {path}: {e}") from None


def open_store(settings: Settings) -> Store:
    return open_db(settings.db)


def _ms(v) -> str:
    return f"{v:.4f}" if v is not None else "-"


def _text(v) -> str:
    """A cell on one line: a character that would move the cursor or end the line shows as '?'."""
    return "".join(c if c.isprintable() else "?" for c in str(v or ""))


def list_sessions(db: str, as_json: bool) -> int:
    from ..engine.summary import session_row  # here: open_store (the TUI's) loads no engine

    if not os.path.lexists(db) and not file_in_the_way(db):  # listing makes nothing: a mistyped --db leaves nothing
        print("[]" if as_json else f"no sessions yet in {db} (no such file)")
        return 0
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
            str(r["created"] or "")[:16],  # to the minute
            r["state"],
            ("SIMULATED " if r["simulated"] else "") + (r["gpu"] or ""),
            _ms(r["baseline_ms"]),
            _ms(r["best_time_ms"]),
        )
        for r in rows
    ]
    table = _fit([[_text(v) for v in row] for row in table], _pipe_width())
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = [f"kt-tui sessions in {store.path}"]
    for row in table:
        cells = [v.rjust(w) if name.endswith(" ms") else v.ljust(w) for v, w, name in zip(row, widths, table[0])]
        lines.append("  ".join(cells).rstrip())
    print("\n".join(lines))
    return 0


# Where a line is too long for the terminal a pipe ends in: these columns are cut (… marks a cut),
# down to these widths, in this order; the baseline column goes first when that is not enough.
LEAST = {"kernel": 8, "gpu": 16}


def _pipe_width() -> int | None:
    """The width of the terminal a pipe (`kt-tui sessions | less`) is read in: $COLUMNS, else the
    terminal of stderr or stdin, else 80; None (no limit) when stdout is a file."""
    try:
        if not stat.S_ISFIFO(os.fstat(sys.stdout.fileno()).st_mode):
            return None
    except (OSError, ValueError):
        return None
    if os.environ.get("COLUMNS", "").isdigit():
        return max(40, int(os.environ["COLUMNS"]))
    for fd in (2, 0):
        try:
            return os.get_terminal_size(fd).columns
        except OSError:
            continue
    return 80


def _fit(table: list[list[str]], width: int | None) -> list[list[str]]:
    """Rows (the header first) whose aligned lines fit `width`: no line wraps."""

    def line_width(t: list[list[str]]) -> int:
        return sum(max(len(row[i]) for row in t) for i in range(len(t[0]))) + 2 * (len(t[0]) - 1)

    if width is None or line_width(table) <= width:
        return table
    spare = sum(max(len(row[i]) for row in table) - LEAST[c] for i, c in enumerate(table[0]) if c in LEAST)
    if line_width(table) - width > spare:
        drop = table[0].index("baseline ms")
        table = [row[:drop] + row[drop + 1 :] for row in table]
    for name, least in LEAST.items():
        over = line_width(table) - width
        if over <= 0:
            break
        i = table[0].index(name)
        room = max(least, max(len(row[i]) for row in table) - over)
        for row in table[1:]:
            row[i] = row[i] if len(row[i]) <= room else row[i][: room - 1] + "…"
    return table
