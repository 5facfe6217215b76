"""The session's check state (issue 21): from the first baseline of the original kernel on, whether
its check can fail (gpu/checkrun.py), tested beside the first measurements: out of bounds or a
parameter that changes the outputs without a reference per configuration refuses the session; a
vacuous check is stored, said in every gate, note, summary and export, and no result of the session
is called verified. Results timed while the test shared the GPU are measured again (engine/runs.py)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

from ..errors import UserError
from ..gpu.timeline import mark
from ..words import counted
from .verdict import VACUOUS_TEXT


class SessionRow(Protocol):
    """What these functions read of a session's store: its row (a SessionStore has it)."""

    def session(self) -> dict[str, Any] | None: ...


class CheckRefused(UserError):
    """The original kernel cannot be checked as the spec stands (out of bounds, a parameter that
    changes the outputs); the message says what to fix."""


def unchecked(why: str) -> dict[str, Any]:
    return {"state": "unchecked", "why": why, "fixes": []}


def check_state(data: SessionRow) -> dict[str, Any] | None:
    return state_of(data.session() or {})


def state_of(s: dict[str, Any]) -> dict[str, Any] | None:
    """The check state stored in a session row, or None (not tested yet, or unreadable)."""
    try:
        state = json.loads(s.get("check_state") or "null")
    except ValueError:
        return None
    return state if isinstance(state, dict) else None


def vacuous_why(data: SessionRow) -> str | None:
    """Why the session's check proves nothing, or None (it may, or it was not tested)."""
    return why_nothing_checked(check_state(data))


def why_nothing_checked(state: dict[str, Any] | None) -> str | None:
    """Why no result may be called verified under this check state: a vacuous check, or an original
    that was refused after it ran beside the first measurements (out of bounds, ...)."""
    if not state:
        return None
    if state.get("state") == "vacuous":
        return str(state.get("why") or "of the spec's inputs")
    if state.get("refused"):
        return "the original kernel was refused: " + str(state["refused"])[:300]
    return None


def result_params(data: SessionRow) -> list[str]:
    """The tuned parameters found to change the original's outputs (their reference is taken per
    configuration from the [reference] kernel; without one the session was refused)."""
    return list((check_state(data) or {}).get("result_params") or {})


def score_line(state: dict[str, Any] | None) -> str | None:
    """The check's mutation score, with the stronger inputs it kept (gpu/mutants.py), and why it ran
    too few of its wrong variants where it did (gpu/unrun.py), or None."""
    score = (state or {}).get("mutants")
    if not isinstance(score, dict) or not score.get("line"):
        return None
    kept = [c.get("label") for c in (state or {}).get("cases") or [] if isinstance(c, dict)]
    line = str(score["line"]) + (f" (with stronger inputs: {'; '.join(map(str, kept))})" if kept else "")
    line += f"; TOO FEW RUN: {said}" if (said := too_few_run(state)) else ""
    return line + (f"; NOT MEASURED: {said}" if (said := not_measured(state)) else "")


def not_measured(state: dict[str, Any] | None) -> str | None:
    """Why the check measured nothing of its strength (gpu/mutation_score.py unmeasured): no wrong
    variant of a mutation site made, or every one equivalent or stillborn; None where one ran."""
    score = (state or {}).get("mutants")
    said = score.get("unmeasured") if isinstance(score, dict) else None
    return str(said) if said else None


def too_few_run(state: dict[str, Any] | None) -> str | None:
    """Why the check ran too few of its wrong variants to say it catches them (more than a third of
    them unrun), with the numbers; None where it ran enough (a few unrun: the score's count says so)."""
    score = (state or {}).get("mutants")
    flag = score.get("unrun") if isinstance(score, dict) else None
    if not isinstance(flag, dict) or not flag.get("over"):
        return None
    return str(
        flag.get("text") or f"{flag.get('not_run')} of {counted(flag.get('made') or 0, 'wrong variant')} not run"
    )


def survivor_text(m: dict[str, Any]) -> str:
    """What a mutant the check passes means: a kernel that makes this mistake would pass it."""
    return f"a kernel with {m.get('what')} would pass this check"


def tried_text(t: dict[str, Any]) -> str:
    """One strengthening step: a stronger input, the survivors at another block size, or memcheck."""
    said = (
        t["label"] if str(t["label"]).startswith(("the survivors ", "memcheck ")) else f"stronger inputs {t['label']}"
    )
    return f"{said}: {'kept, ' if t['kept'] else ''}{t['why']}"


SURVIVORS_ALLOWED = "--allow-survivors (or allow_survivors = true) lets --auto accept it"


def survivors_why(state: dict[str, Any] | None, on_gpu: bool = False) -> str | None:
    """Why --auto accepts no generated kernel on this check: wrong variants it passes, that no stronger
    input killed, too many it did not run (unknown, not killed: gpu/unrun.py), none that measures it
    (not_measured), or, `on_gpu`, a test of the check that did not end (unchecked: it timed out or
    failed); None when every counted one is caught and enough ran. --allow-survivors lifts them all:
    each is a check not shown to catch some wrong kernel, which one switch accepts."""
    if on_gpu and (state or {}).get("state") == "unchecked":
        return (
            f"check not tested: {(state or {}).get('why')}; nothing shows that it catches a wrong kernel, and one "
            f"whose mistake the spec's inputs miss would be kept; {SURVIVORS_ALLOWED}"
        )
    score = (state or {}).get("mutants")
    if not isinstance(score, dict):
        return None
    why = [f"{score['line']}: a kernel with such a mistake would be kept"] if score.get("survivors") else []
    if said := too_few_run(state):
        why.append(f"{said}; a kernel with the mistake of one not run would be kept unseen")
    if said := not_measured(state):
        why.append(f"NOT MEASURED: {said}; no wrong variant tells whether the check catches a kernel's mistake")
    return "; ".join(why + [SURVIVORS_ALLOWED]) if why else None


def kept_cases(data: SessionRow) -> list[dict[str, Any]]:
    """The stronger inputs the check kept: every later check of a generated kernel runs them too, as
    checks at other sizes (engine/checks.py)."""
    cases = (check_state(data) or {}).get("cases") or []
    return [c for c in cases if isinstance(c, dict) and c.get("label") and isinstance(c.get("sizes"), dict)]


def check_line(state: dict[str, Any] | None) -> str | None:
    """One line for gates and `run`: the vacuous reason, or what was left unchecked."""
    if not state:
        return None
    if state.get("state") == "vacuous":
        return "VACUOUS CHECK: " + VACUOUS_TEXT.format(state.get("why"))
    if state.get("state") == "unchecked":
        return f"check not tested: {state.get('why')}"
    return None


class CheckInFlight:
    """The check's test (seconds of compute-sanitizer and child runs) going on beside the first
    measurements; the engine's thread applies its state (engine.settle_check) and measures again
    what it timed while the test shared the GPU."""

    MARGIN_S = 1.0  # a result that arrives this soon after the test left the GPU was timed while it ran
    CLOCK_MARGIN_S = 0.1  # one measured on this host that ended this soon after the test left the GPU

    def __init__(self, test: Callable[..., dict[str, Any]], *args: Any, gpu: str | None = None) -> None:
        self.state: dict[str, Any] | None = None
        self.ended: float | None = None
        # when the test left the GPU (its child may still judge its arrays): by the monotonic clock,
        # and by the wall clock (results carry that)
        self.freed: float | None = None
        self.freed_at: float | None = None
        self.lock = threading.Lock()
        self.gpu = gpu  # the worker whose GPU the test runs on, of several; None: any (one GPU, or not known)
        self.thread = threading.Thread(target=self._run, args=(test, *args), daemon=True, name="kt-check")
        self.thread.start()

    def _run(self, test: Callable[..., dict[str, Any]], *args: Any) -> None:
        mark("main: check test started")
        try:
            self.state = test(*args, gpu_free=self._free)
        except Exception as e:  # noqa: BLE001 - said as not tested, never as passed
            self.state = unchecked(f"testing it failed: {type(e).__name__}: {e}")
        finally:
            self._free()
            self.ended = time.monotonic()
            mark("main: check test ended")

    def _free(self) -> None:
        with self.lock:
            if self.freed is None:
                self.freed, self.freed_at = time.monotonic(), time.time()

    def done(self) -> bool:
        return self.ended is not None

    def shared_gpu(self, now: float, worker: str | None = None, measured: str | None = None) -> bool:
        """Whether a result that arrived at `now` from `worker` may have been timed while the test
        ran on its GPU (results of the other GPUs of a pool were not). `measured`, the result's own
        timestamp, decides for a worker of this host (one GPU, or the test's GPU of a local pool):
        the GPU that starts after the test measured nothing beside it."""
        if self.gpu is not None and worker is not None and worker != self.gpu:
            return False
        with self.lock:
            freed, freed_at = self.freed, self.freed_at
        if freed is None or freed_at is None:
            return True
        at = _epoch(measured) if worker is None or worker == self.gpu else None
        if at is not None:
            return at < freed_at + self.CLOCK_MARGIN_S
        return now - freed < self.MARGIN_S

    def result(self) -> dict[str, Any]:
        self.thread.join()
        return self.state or unchecked("the test ended without a state")


_EARLY: dict[str, CheckInFlight] = {}  # started while the kernel is compile-checked, by its key


def check_timeout(timeout_s: float | None, spec: Any) -> float:
    return max(timeout_s or spec.timeout_s or 0, 300)


def _early_key(source: str, spec: Any, backend: str, gpu: str | None) -> str:
    return json.dumps([source, spec.to_dict(), backend, gpu], sort_keys=True, default=str)


def start_early(gpu: Any, source: str, spec: Any, backend: str, timeout_s: float | None) -> None:
    """Start the check's test of a new session's original as soon as its backend is picked, while
    nvcc still compile-checks it (front/session.py): it holds the GPU it runs on for seconds, and
    the session's start_check takes it over when it is for the same kernel, spec, backend and GPU."""
    test = getattr(gpu, "test_check", None)
    if test is None:
        return
    label = getattr(gpu, "check_gpu", lambda: None)()
    _EARLY.clear()
    key = _early_key(source, spec, backend, label)
    _EARLY[key] = CheckInFlight(test, source, spec.to_dict(), backend, check_timeout(timeout_s, spec), gpu=label)


def start_check(engine: Any) -> None:
    """Test the original's check once per session (stored): on a GPU the test starts beside the
    baseline and the first measurements; without one its static part is stored at once."""
    if engine.check_in_flight is not None:
        return
    state = check_state(engine.data)
    if state is not None and state.get("no_gpu") and not engine.choice.unmeasured:
        state = None  # stored without a GPU (--backend none): tested now that there is one
    if state is not None:
        if state.get("refused"):
            raise CheckRefused(state["refused"])
        return
    from ..gpu.checkrun import NO_GPU, static_state  # here: numpy, at the first baseline only

    source, spec = engine.version(engine.original)
    if engine.choice.simulated or engine.choice.unmeasured:
        state = static_state(spec, NO_GPU.format("a SIMULATED replay" if engine.choice.simulated else "no GPU backend"))
        state["no_gpu"] = engine.choice.unmeasured
        apply_state(engine, state)
        return
    test = getattr(engine.gpu, "test_check", None)  # a stand-in worker may have none
    if test is None:
        apply_state(engine, unchecked("this GPU worker (a stand-in) cannot test it"))
        return
    engine.emit(
        "note",
        keep=False,
        text="testing the check beside the first measurements: the original kernel under compute-sanitizer "
        "at the spec's size and every check size, and its do-nothing mutant",
    )
    gpu = getattr(engine.gpu, "check_gpu", lambda: None)()  # a pool tests it on its last GPU
    early = _EARLY.pop(_early_key(source, spec, engine.choice.backend, gpu), None)
    _EARLY.clear()
    engine.check_in_flight = early or CheckInFlight(
        test, source, spec.to_dict(), engine.choice.backend, check_timeout(engine.timeout_s, spec), gpu=gpu
    )


def settle_check(engine: Any, wait: bool = True) -> dict[str, Any] | None:
    """The check's state once its test ended (waited for when `wait`), applied on the engine's
    thread; None while it runs. Raises CheckRefused when the original cannot be checked."""
    flight = engine.check_in_flight
    if flight is None:
        state = check_state(engine.data)
        if state and state.get("refused"):
            raise CheckRefused(state["refused"])
        return state
    if not wait and not flight.done():
        return None
    engine.check_in_flight = None
    return apply_state(engine, flight.result())


def apply_state(engine: Any, state: dict[str, Any]) -> dict[str, Any]:
    from ..gpu.checkrun import refusal  # here: numpy, once a check state is known

    _, spec = engine.version(engine.original)
    refused = state.get("refused") or refusal(spec, state.get("result_params") or {})
    if refused:
        state["refused"] = refused
    engine.data.update_session(check_state=json.dumps(state))
    engine.emit("session", keep=False, check_state=state)
    for fix in state.get("fixes") or []:
        engine.emit("note", text=f"outputs: {fix}")
    if refused:
        engine.refresh_best()  # nothing timed beside it is trusted: the session row keeps no best
        raise CheckRefused(refused)
    if line := check_line(state):
        engine.emit("note", text=line)
    if line := score_line(state):
        engine.emit("note", text=f"check: {line}")
    for tried in (state.get("mutants") or {}).get("strengthening") or []:
        engine.emit("note", text=f"check: {tried_text(tried)}")
    for note in state.get("notes") or []:
        engine.emit("note", text=f"check: {note}")
    return state


def summary(data: SessionRow) -> dict[str, Any] | None:
    """The `check` field of `--json`: state, why, fixes, changed arguments, result parameters."""
    state = check_state(data)
    if state is None:
        return None
    keep = ("state", "why", "fixes", "changed", "result_params", "notes", "blame", "mutants")
    out = {k: state[k] for k in keep if k in state}
    if "cases" in state:
        out["cases"] = [c.get("label") for c in state["cases"] if isinstance(c, dict)]
    return out


def _epoch(timestamp: str | None) -> float | None:
    """kernel_tuner's timestamp of a result (UTC, ISO 8601) as seconds since the epoch, or None."""
    if not timestamp:
        return None
    try:
        moment = datetime.fromisoformat(timestamp)
    except (TypeError, ValueError):
        return None
    return moment.timestamp() if moment.tzinfo is not None else None


def measure_again(engine: Any, measure: bool = True) -> None:
    """Wait for the check's test, then time again what was timed while it shared the GPU (not
    after the user stopped: the next run's end, or the session's, does it)."""
    settle_check(engine)
    while measure and engine.disturbed:
        vid, keys = engine.disturbed.popitem()
        known = engine.known(vid)
        again = [dict(r.params) for k in sorted(keys) if (r := known.get(k)) and r.time_ms is not None]
        if not again:
            continue
        run_id = f"again:{vid}:{len(engine.data.runs())}"
        engine._run_job(vid, run_id, "remeasure", configs=again, one_worker=True, timing_only=True)
        base = engine.known(vid).get(engine.reference_key()) if vid == engine.original else None
        if base is not None and base.time_ms is not None:
            engine.data.update_session(baseline_ms=base.time_ms)
            engine.emit("session", keep=False, baseline_ms=base.time_ms)
        engine.refresh_best()
        engine.emit(
            "note",
            text=f"{counted(len(again), 'configuration')} of {vid} timed while the check was tested beside them "
            "(compute-sanitizer on the same GPU): measured again",
        )
