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
from ..words import counted

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


def progress_printer(stream=None, said_last: str | None = None):
    """Prints the run's progress on stderr; `said_last`: a note left out (the summary ends with it)."""
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
                print(f"run {e.run}: {counted(e.total, 'configuration')} on {e.backend}", file=out, flush=True)
            case events.StepChanged(state="failed" | "accepted" | "rejected" | "skipped"):
                said = f"step {e.id}: {e.state}" + (f" ({e.reason})" if e.reason else "")
                print(for_terminal(said), file=out, flush=True)
            case events.LlmDone():
                print(for_terminal(f"LLM answered {e.key}"), file=out, flush=True)
            case events.Profiled(state="done" | "recorded"):
                said = f"profile of {e.version} {e.key} ({e.state}" + (f", {e.seconds:.1f} s" if e.seconds else "")
                print(for_terminal(f"{said}): {e.line}"), file=out, flush=True)
            case events.Note(text=text) if text and text != said_last:
                print(for_terminal(text), file=out, flush=True)
            case events.RunEnded(error=error) if error:
                print(for_terminal(f"run {e.run} {e.state}: {error}"), file=out, flush=True)

    return on_event


SIGNALS = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM"}
EXIT_CODES = {"Ctrl-C": 130, "SIGTERM": 143}  # 128 + the signal, as a shell reports a process it ended


def run_headless(engine: Engine, strategy_name: str) -> str:
    """The session under the policy. One Ctrl-C or SIGTERM stops it (engine.interrupt: the run it cut
    stays "stopped" and a resume measures the rest); a second aborts at once (engine.abort)."""
    strategy = get_strategy(strategy_name)
    previous = {s: signal.getsignal(s) for s in SIGNALS}

    def on_signal(signum, frame):
        why = SIGNALS[signum]
        if engine.interrupted:
            raise KeyboardInterrupt(why)  # the second: out of whatever runs now, to abort below
        print(
            f"stopping ({why}): an LLM call in flight is cancelled, a tuning run ends after the current "
            f"configuration and the session is left to resume ({why} again aborts at once)",
            file=sys.stderr,
            flush=True,
        )
        engine.interrupt(why)

    for s in SIGNALS:
        signal.signal(s, on_signal)
    try:
        try:
            return engine.run(strategy)
        except KeyboardInterrupt as e:
            return engine.abort(f"a second {e.args[0] if e.args else 'Ctrl-C'}")
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
