"""The session's check state (issue 21): before the first baseline of the original kernel, whether
its check can fail (gpu/checkrun.py): out of bounds or a parameter that changes the outputs without
a reference per configuration refuses the session; a vacuous check is stored, said in every gate,
note, summary and export, and no result of the session is called verified."""

from __future__ import annotations

import json
from typing import Any, Protocol

from ..errors import UserError
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
    state = check_state(data)
    return str(state.get("why") or "of the spec's inputs") if state and state.get("state") == "vacuous" else None


def result_params(data: SessionRow) -> list[str]:
    """The tuned parameters found to change the original's outputs (their reference is taken per
    configuration from the [reference] kernel; without one the session was refused)."""
    return list((check_state(data) or {}).get("result_params") or {})


def check_line(state: dict[str, Any] | None) -> str | None:
    """One line for gates and `run`: the vacuous reason, or what was left unchecked."""
    if not state:
        return None
    if state.get("state") == "vacuous":
        return "VACUOUS CHECK: " + VACUOUS_TEXT.format(state.get("why"))
    if state.get("state") == "unchecked":
        return f"check not tested: {state.get('why')}"
    return None


def first_baseline(engine: Any) -> dict[str, Any] | None:
    """Test the original's check once per session (stored); raises CheckRefused when it cannot be checked."""
    state = check_state(engine.data)
    if state is not None and state.get("no_gpu") and not engine.choice.unmeasured:
        state = None  # stored without a GPU (--backend none): tested now that there is one
    if state is not None:
        if state.get("refused"):
            raise CheckRefused(state["refused"])
        return state
    from ..gpu.checkrun import NO_GPU, refusal, static_state  # here: numpy, at the first baseline only

    source, spec = engine.version(engine.original)
    if engine.choice.simulated or engine.choice.unmeasured:
        state = static_state(spec, NO_GPU.format("a SIMULATED replay" if engine.choice.simulated else "no GPU backend"))
        state["no_gpu"] = engine.choice.unmeasured
    else:
        engine.emit(
            "note",
            keep=False,
            text="testing the check: the original kernel under compute-sanitizer at the "
            "spec's size and every check size, then its do-nothing mutant",
        )
        test = getattr(engine.gpu, "test_check", None)  # a pool of Ray workers has none
        timeout = max(engine.timeout_s or spec.timeout_s or 0, 300)
        try:
            state = (
                test(source, spec.to_dict(), engine.choice.backend, timeout) if test is not None else None
            ) or unchecked("this GPU worker (a Ray pool, or a stand-in) cannot test it")
        except Exception as e:  # noqa: BLE001 - said as not tested, never as passed
            state = unchecked(f"testing it failed: {type(e).__name__}: {e}")
    refused = state.get("refused") or refusal(spec, state.get("result_params") or {})
    if refused:
        state["refused"] = refused
    engine.data.update_session(check_state=json.dumps(state))
    engine.emit("session", keep=False, check_state=state)
    for fix in state.get("fixes") or []:
        engine.emit("note", text=f"outputs: {fix}")
    if refused:
        raise CheckRefused(refused)
    if line := check_line(state):
        engine.emit("note", text=line)
    for note in state.get("notes") or []:
        engine.emit("note", text=f"check: {note}")
    return state


def summary(data: SessionRow) -> dict[str, Any] | None:
    """The `check` field of `--json`: state, why, fixes, changed arguments, result parameters."""
    state = check_state(data)
    if state is None:
        return None
    keep = ("state", "why", "fixes", "changed", "result_params", "notes")
    return {k: state[k] for k in keep if k in state}
