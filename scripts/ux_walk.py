"""The Python half of scripts/ux_walk.sh: the scripted replies of each scenario, and where a
session stands (its open gate, or its state) read from its database. tests/ui/test_ux_walk.py calls
both, so a moved test module or a renamed gate breaks the suite, not the walk.

usage: python scripts/ux_walk.py replies OUT_DIR | where DB
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ("autonomous", "explicit", "config-search", "llm-failed", "llm-reply")


def replies(out: Path) -> list[Path]:
    """OUT/SCENARIO.json for each scenario: scripted replies (written by us, not a model's)."""
    sys.path.insert(0, str(ROOT))
    from tests.engine.test_config_search import SCRIPT

    scripted = ROOT / "tests" / "scripted"
    vector_add = json.loads((scripted / "vector_add.json").read_text())["replies"]
    scenarios = {
        "autonomous": json.loads((scripted / "matmul.json").read_text())["replies"],
        "explicit": json.loads((scripted / "vector_add-explicit.json").read_text())["replies"],
        "config-search": list(SCRIPT),
        "llm-failed": [{"status": 500, "message": "scripted outage"}] * 3 + vector_add,
        "llm-reply": ["no JSON here, sorry"] * 3 + vector_add,
    }
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in SCENARIOS:
        path = out / f"{name}.json"
        path.write_text(json.dumps({"scripted": True, "replies": scenarios[name]}))
        written.append(path)
    return written


def where(db: str) -> str:
    """'gate KIND KEY AUTO' for the open gate (AUTO: what `run --auto` would answer), else
    'state STATE' of the session ('state none' before there is one)."""
    from kt_tui.engine.gates import gate_from

    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            gate = con.execute(
                "SELECT kind, key, title, body FROM gates WHERE state = 'pending' ORDER BY rowid DESC LIMIT 1"
            ).fetchone()
            state = con.execute("SELECT state FROM sessions ORDER BY rowid DESC LIMIT 1").fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return "state none"
    if gate:
        auto = gate_from(gate[0], gate[1], gate[2], json.loads(gate[3] or "{}")).auto()[0]
        return f"gate {gate[0]} {gate[1]} {auto}"
    return f"state {state[0] if state else 'none'}"


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "replies":
        replies(Path(sys.argv[2]))
    elif len(sys.argv) == 3 and sys.argv[1] == "where":
        print(where(sys.argv[2]))
    else:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        raise SystemExit(2)
