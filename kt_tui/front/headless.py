"""`kt-tui run --auto`: the same engine with every gate decided by a policy, no screen."""

from __future__ import annotations

import signal
import sys

from ..engine.core import Engine
from ..engine.events import Decision, Event, Gate
from ..engine.registry import get_strategy


def make_policy(allow_flagged: bool = False):
    """How `--auto` decides: approve what is proposed, follow the LLM's verdict on steps and the
    threshold on acceptance, refuse flagged code unless allowed, stop on a failed LLM call and
    where manual mode needs someone to write the plan or the kernel."""

    def policy(gate: Gate) -> Decision:
        body = gate.body
        if gate.kind in ("llm_failed", "llm_reply"):
            return Decision("stop", by="policy")
        if body.get("manual"):
            print("manual mode (no LLM): --auto cannot write a plan or a kernel; `kt-tui resume` opens the "
                  "session in the app", file=sys.stderr, flush=True)
            return Decision("stop", by="policy")
        if body.get("after_stop"):
            return Decision("stop", by="policy")
        if gate.kind == "step" and body.get("verdict") and not body["verdict"]["valid"]:
            return Decision("skip", by="policy")
        if gate.kind == "kernel" and body.get("flags") and not allow_flagged:
            kinds = ", ".join(sorted({f["kind"] for f in body["flags"]}))
            print(f"refusing flagged code for step {body.get('step')} ({kinds}); --allow-flagged lets it run",
                  file=sys.stderr, flush=True)
            return Decision("skip", by="policy")
        if gate.kind == "accept":
            return Decision("approve" if body.get("recommend") else "skip", by="policy")
        return Decision("approve", by="policy")
    return policy


auto_policy = make_policy()


def progress_printer(stream=None):
    counts = {"n": 0, "header": False}

    def on_event(e: Event) -> None:
        out = stream or sys.stderr
        if e.kind == "result":
            counts["n"] += 1
            if not counts["header"]:
                counts["header"] = True
                print(f"{'#':<3} {'configuration':>16}  {'time':>14}  status", file=out, flush=True)
            r = e.data["result"]
            t = f"{r['time_ms']:.4f} ms" if r["time_ms"] is not None else "-"
            mark = "  best" if e.data["best"] else ""
            where = f"  ({r['worker']})" if r.get("worker") else ""
            print(f"[{counts['n']}] {r['key']:>16}  {t:>14}  {r['status']}{mark}{where}", file=out, flush=True)
        elif e.kind == "run":
            print(f"run {e.data['run']}: {e.data['total']} configurations on {e.data['backend']}", file=out, flush=True)
        elif e.kind == "step" and e.data.get("state") in ("failed", "accepted", "rejected", "skipped"):
            print(f"step {e.data['id']}: {e.data['state']}" + (f" ({e.data['reason']})" if e.data.get("reason") else ""),
                  file=out, flush=True)
        elif e.kind == "llm_done":
            print(f"LLM answered {e.data['key']}", file=out, flush=True)
        elif e.kind in ("note", "run_end") and (e.data.get("text") or e.data.get("error")):
            print(e.data.get("text") or f"run {e.data['run']} {e.data['state']}: {e.data['error']}", file=out, flush=True)
    return on_event


def run_headless(engine: Engine, strategy_name: str) -> str:
    strategy = get_strategy(strategy_name)
    previous = signal.getsignal(signal.SIGINT)

    def on_sigint(signum, frame):
        print("stopping: an LLM call in flight is cancelled, a tuning run ends after the current configuration "
              "(Ctrl-C again to abort)", file=sys.stderr, flush=True)
        engine.request_stop()
        signal.signal(signal.SIGINT, previous)

    signal.signal(signal.SIGINT, on_sigint)
    try:
        return engine.run(strategy)
    finally:
        signal.signal(signal.SIGINT, previous)
