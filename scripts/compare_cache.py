"""Compare a session's results with a recorded cache, configuration by configuration: the same
statuses, and times within a tolerance (a sanity check for changes to the measuring path).

usage: python scripts/compare_cache.py SESSIONS.db RECORDED.json
"""

import json
import sys

sys.path.insert(0, __file__.rsplit("/scripts/", 1)[0])
from kt_tui.store import Store  # noqa: E402


def main(db: str, cache: str) -> None:
    recorded = json.load(open(cache))["cache"]
    store = Store(db)
    sid = store.sessions()[0]["id"]
    same = differ = 0
    ratios = []
    for r in store.results(sid):
        c = recorded.get(r["key"])
        if c is None:
            continue
        was = "wrong_result" if c.get("kt_correct") == 0 else ("ok" if isinstance(c.get("time"), float) else "failed")
        now = r["status"] if r["status"] in ("ok", "wrong_result") else "failed"
        same, differ = (same + 1, differ) if was == now else (same, differ + 1)
        if was == now == "ok":
            ratios.append(r["time_ms"] / c["time"])
    ratios.sort()
    med = ratios[len(ratios) // 2] if ratios else float("nan")
    print(f"{same} configurations with the recorded status, {differ} different; time now / recorded: median {med:.3f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
