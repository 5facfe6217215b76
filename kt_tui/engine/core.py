"""The engine: drives a strategy (a generator of gates), measures on the GPU worker, stores
everything before going on, and replays stored decisions and results on resume.

No Textual here: the UI and the headless runner both pass a `decide(gate) -> Decision` and an
`on_event(event)` listener. `decide` may block (the UI resolves a Future); returning None means
the user left at this gate, which stays pending in the store.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..gpu.tuner import Tuner
from ..kernel.spec import Spec, dump_spec, spec_from_plain, version_hash, version_ids
from ..kernel.text import kernel_text
from ..llm.errors import LlmUnavailable
from ..records import Result
from ..search.space import config_key
from ..store import SessionStore, Store
from ..words import counted
from . import asking, kernel_step
from .backend import BackendChoice
from .checks import SizeChecks
from .context import Gates, M
from .edits import decision_record
from .events import Event, event_from
from .gates import BY, Decision, Gate
from .registry import get_strategy
from .runs import Interrupted, Runs, Stopped
from .strength import (
    CheckInFlight,
    check_state,
    measure_again,
    score_line,
    settle_check,
    start_check,
    survivors_why,
    vacuous_why,
)
from .summary import best_result, expected_from, fastest_trusted, unverified_reason
from .verdict import CUT, NOT_REACHED, UNMEASURED, trusted, waits_for_gpu

Strategy = Callable[["Engine"], Generator[Gate, Decision, None]]


class Engine(Runs):
    def __init__(
        self,
        store: Store,
        sid: str,
        gpu: Tuner,
        choice: BackendChoice,
        decide: Callable[[Gate], Decision | None],
        on_event: Callable[[Event], None] | None = None,
        cache_dir: str | Path | None = None,
        timeout_s: float | None = None,
        make_llm: Callable[..., Any] | None = None,
        options: dict[str, Any] | None = None,
        allow_survivors: bool = False,
    ):
        self.store, self.sid, self.gpu, self.choice = store, sid, gpu, choice
        self.data = SessionStore(store, sid)  # what the engine reads and writes of its session
        self.decide = decide
        self.on_event = on_event or (lambda e: None)
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self.timeout_s = timeout_s  # per-configuration watchdog; the spec's timeout_s when None
        self.make_llm = make_llm  # make_llm(on_call) -> LLM client; raises LlmUnavailable in manual mode
        self.options = options or {}
        self.allow_survivors = allow_survivors  # --auto may accept kernels on a check that wrong variants pass
        self.error: str | None = None  # set by a strategy when the session as a whole failed
        self.stop_requested = threading.Event()
        self.interrupted: str | None = None  # the signal that stopped the session ("Ctrl-C", "SIGTERM", "SIGHUP")
        self.aborting: str | None = None  # a second signal, taken on another thread (abort_soon)
        self.stop_line: str | None = None  # how a stop left the session and how to go on (_left_stopped)
        self.llm_cancel = threading.Event()  # set: the LLM call in flight ends now (cleared as each call starts)
        self.labels: dict[str, str] = {}  # config key -> where it came from (a seed rule, the LLM)
        self._reference_key: tuple[str | None, str] = (None, "")  # (the original's spec_json, its key)
        s = self._session()
        self.kernel_name = s["kernel_name"]
        self.original = store.versions(sid)[0]["id"]
        self.best_ms, self.best_key = s.get("best_ms"), s.get("best_key")
        self.accepted = {self.original} | {st["version"] for st in store.steps(sid) if st["state"] == "accepted"}
        self.checks = SizeChecks(self)
        self.check_in_flight: CheckInFlight | None = None  # the check's test beside the first runs
        self.disturbed: dict[str, set[str]] = {}  # version -> keys timed while that test shared the GPU
        self._changes = threading.Lock()  # guards the two below: the UI thread asks, the engine applies
        self._pending: dict[str, Any] = {}  # option changes waiting for the next gate
        self._waiting = False  # the engine is parked in decide(): between two gates

    # -- events and gates ----------------------------------------------------------------
    def emit(self, name: str, keep: bool = True, **data: Any) -> None:
        if keep:
            self.data.add_event(name, data)
        self.on_event(event_from(name, data))

    def set_state(self, state: str, **fields: Any) -> None:
        self.data.update_session(state=state, **fields)
        self.emit("session", keep=False, state=state, **fields)

    def at_gate(self, gate: Gate) -> Decision:
        """Store `gate`, wait for its decision (or replay the stored one) and store that."""
        stored = self.data.gate(gate.key)
        # a stored "stop" ended the session; resuming it means asking that question again
        if stored and stored.state == "decided" and stored.decision and stored.decision["choice"] != "stop":
            d = stored.decision  # replayed as it was taken, by whom it was taken: a step's reason says the same again
            by = str(d.get("by")) if d.get("by") in BY else "replay"
            return Decision(d["choice"], d.get("value"), by=by, why=d.get("why"))
        if self.interrupted:  # a signal stops the session here: the gate is asked on resume, not by policy now
            raise Stopped(gate.key)
        if self.check_in_flight is not None:  # said at the gate a person reads, and where --auto's choice needs it
            settle_check(self, wait=gate.kind == "accept" or getattr(self.decide, "by", None) != "policy")
        if reason := unverified_reason(self.store, self.sid):
            gate.unverified = gate.unverified or reason
        gate.vacuous = vacuous_why(self.data)
        state = check_state(self.data)
        gate.check = score_line(state)
        on_gpu = not (self.choice.simulated or self.choice.unmeasured)
        gate.survivors = None if self.allow_survivors else survivors_why(state, on_gpu)
        if expected := expected_from(self.store, self.sid):
            gate.expected = gate.expected or expected
        if not stored or stored.state == "decided":
            self.data.open_gate(gate.key, gate.kind, gate.title, gate.body)
        self.set_state("waiting")
        self.emit("gate", keep=False, gate=gate.to_dict())
        self._between_gates(True)
        try:
            decision = self.decide(gate)
        finally:
            self._between_gates(False)
        if decision is None:  # the UI went away: left waiting here, or stopped by a signal
            raise Stopped(gate.key) if self.interrupted else Interrupted(gate.key)
        if decision.choice == "switch":  # not stored: the gate stays open for the strategy that asked it
            return decision
        if decision.choice not in gate.choices:
            raise ValueError(f"{decision.choice!r} is not a choice at gate {gate.key} ({', '.join(gate.choices)})")
        self.data.decide_gate(gate.key, record := decision_record(gate, decision.to_dict()))
        self.emit("decided", key=gate.key, decision=record)
        self.set_state("running")
        return decision

    # -- changes from the UI thread, applied between gates ----------------------------------
    def change_options(self, values: dict[str, Any]) -> bool:
        """Strategy options changed from another thread (the settings screen): applied now when the
        engine waits at a gate, else when it reaches the next one, so a strategy never sees them
        change mid-step. True: applied now."""
        with self._changes:
            if self._waiting:
                self.options.update(values)
                return True
            self._pending.update(values)
            return False

    def switch_finished(self, name: str) -> None:
        """A finished session goes on with strategy `name` (the next run of the engine starts it)."""
        self.data.update_session(strategy=name, state="stopped")
        self.data.add_event("switched", {"strategy": name, "after": "finished"})

    def _between_gates(self, waiting: bool) -> None:
        with self._changes:
            self.options.update(self._pending)
            self._pending.clear()
            self._waiting = waiting

    # -- versions ------------------------------------------------------------------------
    def _session(self) -> dict[str, Any]:
        s = self.data.session()
        if s is None:
            raise UserError(f"session {self.sid} is not in the store")
        return s

    def version(self, vid: str) -> tuple[str, Spec]:
        v = self.data.version(vid)
        if v is None:
            raise UserError(f"kernel version {vid} is not in session {self.sid}")
        return kernel_text(v["source"], "the stored kernel"), spec_from_plain(v["spec_json"])

    def sim_cache(self, vid: str) -> Path | None:
        """The recorded cache of a version, found by its id or the legacy id of its source and spec."""
        return self.choice.sim_cache_for(self.kernel_name, [vid, *version_ids(*self.version(vid))])

    def new_version(self, source: str, spec: Spec, parent: str, label: str) -> str:
        vid = version_hash(source, spec)
        if self.data.version(vid) is None:
            self.data.add_version(vid, source, dump_spec(spec), spec.to_dict(), parent=parent, label=label)
        return vid

    def update_space(self, vid: str, spec: Spec) -> None:
        """A new search space for a version: its tune_params change, its code and launch do not."""
        self.data.update_version(vid, dump_spec(spec), spec.to_dict())
        self.emit("space_changed", version=vid, tune_params=spec.tune_params)

    def best_of(self, vid: str) -> Result | None:
        return fastest_trusted(self.data.by_time, [vid], self.original, self.reference_key())

    def refresh_best(self) -> None:
        """The session's best as summary.best_result has it (every reader's), after a result was
        found wrong or the check refused the original (then none)."""
        best = best_result(self.store, self.sid)
        fields: dict[str, Any] = {
            "best_ms": best.time_ms if best else None,
            "best_key": best.key if best else None,
            "best_version": best.version if best else None,
        }
        if (self.best_ms, self.best_key) == (fields["best_ms"], fields["best_key"]):
            return
        self.best_ms, self.best_key = fields["best_ms"], fields["best_key"]
        self.data.update_session(**fields)
        self.emit("session", keep=False, **fields)

    def trusted(self, vid: str, r: Result) -> bool:
        """Measured and verified (engine/verdict.py): what may become best, be confirmed or pass a step."""
        return trusted(r, vid == self.original and r.key == self.reference_key())

    def reference_key(self) -> str:
        """The original's baseline configuration: its outputs are the reference. Asked per result:
        worked out again only when the original's spec changes (update_space)."""
        original = self.data.version(self.original)
        if original is None:
            raise UserError(f"the original kernel is not in session {self.sid}")
        spec_json = original["spec_json"]
        if self._reference_key[0] != spec_json:
            spec = spec_from_plain(spec_json)
            params = spec.baseline_params()
            self._reference_key = (spec_json, config_key(spec, params))
        return self._reference_key[1]

    def accept(self, vid: str) -> None:
        """`vid` becomes part of what the session offers as its best."""
        self.accepted.add(vid)
        best = self.best_of(vid)
        if best and best.time_ms is not None and (self.best_ms is None or best.time_ms < self.best_ms):
            self.best_ms, self.best_key = best.time_ms, best.key
            self.data.update_session(best_ms=best.time_ms, best_key=best.key, best_version=vid)
            self.emit("session", keep=False, best_ms=best.time_ms, best_key=best.key, best_version=vid)

    def llm_client(self, key: str) -> Any:
        if self.make_llm is None:
            raise LlmUnavailable(
                "no LLM configured (manual mode): pass --base-url URL --model NAME, "
                "or set OPENAI_BASE_URL and KT_TUI_MODEL"
            )
        client = self.make_llm(lambda record: self.data.add_llm_call(key, record))
        if hasattr(client, "cancel"):
            client.cancel = self.llm_cancel
        return client

    def set_step(self, step_id: str, **fields: Any) -> None:
        self.data.put_step(step_id, **fields)
        self.emit("step", keep=False, id=step_id, **fields)

    # -- what only strategies call (engine/context.py: StrategyContext) -------------------------
    @property
    def manual(self) -> bool:
        return self.make_llm is None

    def ask(
        self,
        key: str,
        template: str,
        model_cls: type[M],
        without_llm: Callable[[], M | None] | None = None,
        **kw: Any,
    ) -> Generator[Gate, Decision, M | None]:
        return asking.ask(self, key, template, model_cls, without_llm, **kw)

    def kept(self, key: str) -> tuple[Any, str] | None:
        stored = self.data.llm_result(key)
        return None if stored is None else (stored["value"], stored["text"])

    def keep(self, key: str, value: Any, text: str, by: str) -> None:
        self.data.put_llm_result(key, value, text, by=by)

    def steps(self) -> list[dict[str, Any]]:
        return self.data.steps()

    def results(self, vid: str) -> list[Any]:
        return self.data.results(vid)

    def start_check(self) -> None:
        start_check(self)

    def prompt_context(self) -> dict[str, Any]:
        return kernel_step.prompt_context(self)

    def run_rewrite(self, step_id: str, title: str, rewrite: Any, suggested: dict[str, Any] | None = None) -> Gates:
        return kernel_step.run_rewrite(self, step_id, title, rewrite, suggested)

    def current_best(self) -> str:
        """The accepted version that holds the session's best result (the original before any)."""
        vid = self._session().get("best_version") or self.original
        return vid if vid in self.accepted else self.original

    # -- driving a strategy --------------------------------------------------------------
    def switch(self, gen: Gates, name: str) -> Gates:
        """Leave the running strategy at its open gate and start `name`, which goes on from the
        current best kernel; steps left unfinished are marked skipped. Resume runs `name`."""
        strategy: Strategy = get_strategy(name)
        gen.close()
        for s in self.data.steps():
            if s["state"] in ("proposed", "approved", "edited", "running"):
                self.set_step(s["id"], state="skipped", reason=f"the strategy was switched to {name}")
        self.data.update_session(strategy=name)
        self.emit("switched", strategy=name)
        self.emit("note", keep=False, text=f"strategy {name}: going on from the current best kernel")
        self.set_state("running")
        return strategy(self)

    def run(self, strategy: Strategy) -> str:
        """Run `strategy` to its end; returns the session's state afterwards. A finished session
        stays as it is (nothing replays, nothing runs) until the user switches strategy."""
        if self._session()["state"] == "finished":
            self.emit("finished", keep=False, state="finished", error=None)
            return "finished"
        if self.choice.read_only:  # prepared without a GPU, opened where none is (front/prepared.py)
            state = str(self._session()["state"])
            self.emit("note", keep=False, text=self.choice.note)
            self.emit("finished", keep=False, state=state, error=None)
            return state
        self.set_state("running", error=None)
        gen = strategy(self)
        try:
            gate = next(gen)
            while True:
                decision = self.at_gate(gate)
                if decision.choice == "switch":
                    gen = self.switch(gen, str(decision.value))
                    gate = next(gen)
                    continue
                if decision.choice == "stop":
                    gen.close()
                    # a policy's stop at a failed LLM call fails; where only a human can go on, it waits
                    why = gate.stop_error() if decision.by == "policy" else None
                    state = ("waiting" if getattr(gate, "manual", None) else "failed") if why else "stopped"
                    self.set_state(state, error=why)
                    self.emit("finished", state=state, error=why)
                    return state
                gate = gen.send(decision)
        except StopIteration:
            try:  # the check's test, when it still runs, ends the session too
                measure_again(self, measure=not self.stop_requested.is_set() and not self.interrupted)
            except Interrupted as e:
                return self._interrupted(e)
            except Stopped:
                return self._stopped()
            except UserError as e:
                self.error = self.error or str(e)
            left = self.unmeasured_runs()
            if left and not self.choice.unmeasured:  # resumed on a GPU: what is left, its step never reached
                for run_id in left:
                    self._end_run(run_id, "stopped", NOT_REACHED)
                left = []
            error = self.error or self._why_failed()
            state = "failed" if error else UNMEASURED if left else "finished"
            self.set_state(state, error=error)
            self.emit("finished", state=state, error=error)
            if state == UNMEASURED:
                self.emit("note", keep=False, text=waits_for_gpu(self.sid))
            return state
        except Interrupted as e:
            return self._interrupted(e)
        except Stopped:
            return self._stopped()
        except Exception as e:  # noqa: BLE001 - the session records what went wrong
            self.set_state("failed", error=str(e) if isinstance(e, UserError) else f"{type(e).__name__}: {e}")
            self.emit("finished", state="failed", error=str(e))
            raise

    # -- signals (front/headless.py) ------------------------------------------------------
    def interrupt(self, why: str) -> None:
        """A signal asks the session to stop: an LLM call in flight is cancelled, a run ends after
        the configuration it is running and stays "stopped", and no gate is asked after it."""
        self.interrupted = why
        self.request_stop()

    def _stopped(self) -> str:
        cut = next(
            (r for r in reversed(self.data.runs()) if r.state == "stopped" and (r.error or "").startswith(CUT)), None
        )
        said = ""
        if cut is not None and cut.version:
            done = self.data.count_results(cut.version, run=cut.id)
            said = f" after {done} of {counted(cut.total, 'configuration')} of run {cut.id} (the rest are measured on resume)"
        return self._left_stopped(f"stopped by {self.interrupted}{said}")

    def abort(self, why: str) -> str:
        """Stop at once (a second signal): the worker is killed, the configuration in flight is lost
        (measured again on resume), and the session is left stopped, never "running"."""
        self.interrupted = self.interrupted or why
        self.gpu.shutdown()
        for r in self.data.runs():
            if r.state == "running":
                self._end_run(r.id, "stopped", f"aborted by {why}")
        return self._left_stopped(f"aborted by {why}: the configuration in flight was not recorded")

    def _left_stopped(self, what: str) -> str:
        self.set_state("stopped", error=None)
        self.emit("finished", state="stopped", error=None)
        again = f"kt-tui resume {self.sid}" + (" --auto" if getattr(self.decide, "by", None) == "policy" else "")
        self.stop_line = f"session {self.sid} {what}; `{again}` goes on from where it stopped"
        self.emit("note", text=self.stop_line)
        return "stopped"

    def abort_soon(self, why: str) -> None:
        """abort() for a session whose engine runs on another thread (the app's): the GPU worker is
        killed now, and the engine thread, unwound by it, leaves the session as abort() does."""
        self.aborting = why
        self.gpu.shutdown()

    def _interrupted(self, e: Interrupted) -> str:
        if self.aborting:  # the worker killed under the run by abort_soon
            return self.abort(self.aborting)
        at_gate = self.data.gate(str(e)) is not None
        state = "waiting" if at_gate else "interrupted"
        self.set_state(state)
        self.emit("note", keep=False, text=f"session {self.sid} {state}; `kt-tui resume {self.sid}` goes on from here")
        return state
