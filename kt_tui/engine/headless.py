"""`kt-tui run --auto`: the same engine with every gate decided by a policy, no screen."""

from __future__ import annotations

import signal
import sys

from .core import Engine
from .events import Decision, Event, Gate
from .strategies import get_strategy


def auto_policy(gate: Gate) -> Decision:
    """Approve what is proposed; after the user stopped a run (Ctrl-C), do not start it again."""
    if gate.body.get("after_stop"):
        return Decision("stop", by="policy")
    return Decision("approve", by="policy")


def progress_printer(stream=None):
    counts = {"n": 0}

    def on_event(e: Event) -> None:
        out = stream or sys.stderr
        if e.kind == "result":
            counts["n"] += 1
            r = e.data["result"]
            t = f"{r['time_ms']:.4f} ms" if r["time_ms"] is not None else "-"
            mark = "  best" if e.data["best"] else ""
            print(f"[{counts['n']}] {r['key']:>16}  {t:>14}  {r['status']}{mark}", file=out, flush=True)
        elif e.kind == "run":
            print(f"run {e.data['run']}: {e.data['total']} configurations on {e.data['backend']}", file=out, flush=True)
        elif e.kind in ("note", "run_end") and (e.data.get("text") or e.data.get("error")):
            print(e.data.get("text") or f"run {e.data['run']} {e.data['state']}: {e.data['error']}", file=out, flush=True)
    return on_event


def run_headless(engine: Engine, strategy_name: str) -> str:
    strategy = get_strategy(strategy_name)
    previous = signal.getsignal(signal.SIGINT)

    def on_sigint(signum, frame):
        print("stopping after the current configuration (Ctrl-C again to abort)", file=sys.stderr, flush=True)
        engine.request_stop()
        signal.signal(signal.SIGINT, previous)

    signal.signal(signal.SIGINT, on_sigint)
    try:
        return engine.run(strategy)
    finally:
        signal.signal(signal.SIGINT, previous)
