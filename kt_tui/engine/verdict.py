"""What a result's `verified` means, and the typed end of a run.

verified is three-state: True (checked against the reference and right), False (wrong), None
(nothing checked it: no reference, or a recording without a verdict). Only True counts, except for
the original kernel at its baseline configuration, whose outputs are the reference itself. Every
view (table, plot, prompts, summary, export) asks trusted() (kt_tui/records.py, the one rule),
never `verified` itself.

A fourth verdict belongs to the session, not the result: when its check proves nothing (an output
constant, equal to its initial contents or an input, or matched by a do-nothing kernel;
engine/strength.py), no result is called verified: verdict_text says "unchecked: ..."."""

from __future__ import annotations

from dataclasses import dataclass

from ..records import Result, trusted

__all__ = [
    "NOT_CHECKED",
    "NOT_MEASURED",
    "NOT_REACHED",
    "CUT",
    "NO_RECORDING",
    "NO_REFERENCE",
    "NO_VERDICT",
    "NO_VERDICT_SIM",
    "UNMEASURED",
    "Outcome",
    "trusted",
    "verdict_text",
    "waits_for_gpu",
]

NO_REFERENCE = "no reference: the original kernel's outputs could not be captured to check against"
NO_VERDICT_SIM = "not verified (recording has no verdict)"
NO_VERDICT = "not verified: nothing checked it against the reference"
NOT_MEASURED = "not measured"  # a run's state with no GPU (--backend none): resuming on a GPU runs it
NOT_CHECKED = "not checked: no GPU"
UNMEASURED = "unmeasured"  # a session's state after a run with no GPU: every gate done, it waits for one
NO_RECORDING = "no recorded cache for version {}: nothing to replay"  # a replay's run of a version never recorded
NOT_REACHED = "not run: its step ended before it (no GPU when it was made)"  # a run left "not measured", ended
CUT = ("stopped by ", "aborted by ")  # the start of the error of a run a signal cut: a resume goes on with it
VACUOUS_TEXT = "unchecked: the check proves nothing because {}"


def verdict_text(r: Result, simulated: bool, is_reference: bool = False, vacuous: str | None = None) -> str:
    """What a result is called; `vacuous`: why the session's check proves nothing (engine/strength.py)."""
    v = r.verified
    if vacuous and v is not False:  # the reference too: a check that proves nothing vouches for no row
        return VACUOUS_TEXT.format(vacuous)
    if is_reference and v is None:
        return "reference"
    if v is None:
        return NO_VERDICT_SIM if simulated else NO_VERDICT
    word = "verified" if v else "wrong"
    return f"{word} (recorded verdict)" if simulated or r.source == "recorded" else word


def waits_for_gpu(sid: str) -> str:
    """The last line of a session that waits for a GPU: how to go on."""
    return (
        f"session {sid} is unmeasured (no GPU here): copy the session database to a machine with a GPU "
        f"and run `kt-tui resume {sid} --backend pycuda`"
    )


@dataclass(frozen=True)
class Outcome:
    """How a run (or a verification) ended. state: finished | stopped | failed | nothing (ran, measured none)
    | not measured (no GPU here: nothing ran; NOT_MEASURED)."""

    state: str
    error: str | None = None
    measured: int = 0  # configurations timed successfully in this run
    result: Result | None = None  # verify(): the result at the version's first configuration
    replayed: bool = False  # ended before this process: read from the store, nothing ran now

    @property
    def failed(self) -> bool:
        return self.state in ("failed", "nothing")

    @property
    def unmeasured(self) -> bool:
        return self.state == NOT_MEASURED
