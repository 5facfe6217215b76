"""`kt-tui run --auto`: the same engine with every gate decided by a policy, no screen. Every line
that may hold text from a model or a compiler goes through for_terminal (no escape sequences)."""

from __future__ import annotations

import signal
import sys
from typing import TYPE_CHECKING

from ..engine import events
from ..engine.events import Event
from ..engine.gates import Decision, Gate
from ..engine.registry import get_strategy
from ..redact import for_terminal

if TYPE_CHECKING:
    from ..engine.core import Engine


def make_policy(allow_flagged: bool = False):
    """How `--auto` decides: each gate says (engine/gates.py `auto`): approve what is proposed,
    follow the LLM's verdict on steps and the threshold on acceptance, refuse flagged code unless
    allowed, stop on a failed LLM call and where manual mode needs someone to write the plan or the kernel."""

    def policy(gate: Gate) -> Decision:
        choice, why = gate.auto(allow_flagged)
        if why:
            print(for_terminal(why), file=sys.stderr, flush=True)
        return Decision(choice, by="policy", why=why)

    policy.by = "policy"  # type: ignore[attr-defined]  # the engine: no person reads the gates (engine/core.py at_gate)
    return policy


auto_policy = make_policy()


def progress_printer(stream=None):
    counts = {"n": 0, "header": False}

    def on_event(e: Event) -> None:
        out = stream or sys.stderr
        match e:
            case events.Result(result=r, best=best):
                counts["n"] += 1
                if not counts["header"]:
                    counts["header"] = True
                    print(f"{'#':<3} {'configuration':>16}  {'time':>14}  status", file=out, flush=True)
                t = f"{r.time_ms:.4f} ms" if r.time_ms is not None else "-"
                mark = "  best" if best else ""
                where = f"  ({r.worker})" if r.worker else ""
                line = f"[{counts['n']}] {r.key:>16}  {t:>14}  {r.status}{mark}{where}"
                print(for_terminal(line), file=out, flush=True)
            case events.RunStarted():
                print(f"run {e.run}: {e.total} configurations on {e.backend}", file=out, flush=True)
            case events.StepChanged(state="failed" | "accepted" | "rejected" | "skipped"):
                said = f"step {e.id}: {e.state}" + (f" ({e.reason})" if e.reason else "")
                print(for_terminal(said), file=out, flush=True)
            case events.LlmDone():
                print(for_terminal(f"LLM answered {e.key}"), file=out, flush=True)
            case events.Profiled(state="done" | "recorded"):
                said = f"profile of {e.version} {e.key} ({e.state}" + (f", {e.seconds:.1f} s" if e.seconds else "")
                print(for_terminal(f"{said}): {e.line}"), file=out, flush=True)
            case events.Note(text=text) if text:
                print(for_terminal(text), file=out, flush=True)
            case events.RunEnded(error=error) if error:
                print(for_terminal(f"run {e.run} {e.state}: {error}"), file=out, flush=True)

    return on_event


def run_headless(engine: Engine, strategy_name: str) -> str:
    strategy = get_strategy(strategy_name)
    previous = signal.getsignal(signal.SIGINT)

    def on_sigint(signum, frame):
        print(
            "stopping: an LLM call in flight is cancelled, a tuning run ends after the current configuration "
            "(Ctrl-C again to abort)",
            file=sys.stderr,
            flush=True,
        )
        engine.request_stop()
        signal.signal(signal.SIGINT, previous)

    signal.signal(signal.SIGINT, on_sigint)
    try:
        return engine.run(strategy)
    finally:
        signal.signal(signal.SIGINT, previous)
