"""Sessions prepared without a GPU (`--backend none`): every gate done, nothing measured, waiting for a
GPU. A resume never turns "not measured for want of a GPU" into "failed": without a GPU such a
session stays as it is (headless: exit 2 saying what to do; the app shows it read-only) unless a
replay is asked for by name (`--backend sim`), and one that an earlier replay damaged (its runs
failed for want of a recording) is repaired when it is resumed where it can be measured."""

from __future__ import annotations

from ..engine.verdict import NO_RECORDING, NOT_MEASURED, NOT_REACHED, UNMEASURED
from ..errors import UserError
from ..store import SessionStore, Store

_NO_RECORDING = NO_RECORDING.split("{}")[0]  # the start of every such run's error


class NeedsGpu(UserError):
    """A prepared session resumed where nothing can be measured, with no backend named."""


def made_without_gpu(data: SessionStore) -> bool:
    return (data.session() or {}).get("backend_request") == "none"


def replay_damaged(store: Store, sid: str) -> bool:
    """Made without a GPU, then replayed where versions had no recording: runs failed for that alone."""
    data = SessionStore(store, sid)
    return made_without_gpu(data) and any(r.state == "failed" and _lost(r.state, r.error) for r in data.runs())


def prepared(store: Store, sid: str) -> bool:
    """Waits for a GPU: it ended unmeasured, holds a run not measured, or was damaged by a replay."""
    data = SessionStore(store, sid)
    s = data.session() or {}
    return (
        s.get("state") == UNMEASURED or any(r.state == NOT_MEASURED for r in data.runs()) or replay_damaged(store, sid)
    )


def waits_here(sid: str, why: str) -> str:
    """What a prepared session resumed without a GPU says (one line): what it is and what to do."""
    return (
        f"session {sid} is prepared and waits for a GPU: {why}, so nothing would be measured and it is left as it "
        f"is. Copy the session database to a machine with a GPU and run `kt-tui resume {sid} --backend pycuda` "
        "there, or replay recorded caches here by name: `--backend sim` (a version with no recording then fails)"
    )


def repair_replay(store: Store, sid: str) -> int:
    """Runs that failed only for want of a recording, and the steps that failed with them, wait for a
    GPU again (not measured), so this resume measures them; returns how many runs."""
    data = SessionStore(store, sid)
    runs = [r for r in data.runs() if _lost(r.state, r.error)]
    if not runs:
        return 0
    for r in runs:
        data.put_run(r.id, state=NOT_MEASURED, error="no GPU here: nothing was measured")
    for step in data.steps():
        if step["state"] == "failed" and _lost("failed", step.get("reason")):
            data.put_step(step["id"], state=NOT_MEASURED, reason="kept: asked again with times when resumed on a GPU")
    if (data.session() or {}).get("state") in ("finished", "failed"):
        data.update_session(state=UNMEASURED, error=None)
    data.add_event("repaired", {"runs": [r.id for r in runs], "why": "failed for want of a recording"})
    return len(runs)


def _lost(state: str | None, error: str | None) -> bool:
    """Failed for want of a recording, or never reached because a step before it failed so."""
    return (state == "failed" and (error or "").startswith(_NO_RECORDING)) or (
        state == "stopped" and error == NOT_REACHED
    )
