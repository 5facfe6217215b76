"""The Profile tab: the device's facts and measured peaks, and the Nsight Compute profile of the
baseline and of each new best (engine/profiles.py), read from the store when a profile is stored;
and the results table's "% peak" cell (engine/limits.py). Loaded after the first frame, with the
engine's modules it reads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.widgets import Static

from ..engine.limits import facts_text, limits, pct_cell, stored_facts, work_of
from ..engine.profiles import advice, profile_line, session_profiles
from ..errors import UserError
from ..kernel.spec import spec_from_plain
from ..records import Result
from ..store import SessionStore
from .confirm import Scroll


def profile_text(data: SessionStore, simulated: bool, measured: bool) -> Text:
    """`measured`: this session measures here (not a session prepared without a GPU)."""
    s = data.session()
    text = Text()
    text.append("Device\n", style="bold")
    text.append(facts_text(stored_facts(s), s.get("gpu") or "", simulated) + "\n\n")
    labels = {v["id"]: v["label"] or v["id"] for v in data.versions()}
    profiles = session_profiles(data)
    if not profiles:
        text.append(_no_profile(simulated, measured) + "\n")
    for p in profiles:
        head = f"{labels.get(p['version'], p['version'])} {p['key']}"
        summary = p["summary"]
        if p["state"] not in ("done", "recorded"):
            text.append(f"{head}: no profile ({p['state']}): {summary.get('reason', '')}\n", style="yellow")
            continue
        took = f", {summary['seconds']:.1f} s" if summary.get("seconds") else ""
        text.append(f"{head} ({'recorded' if p['state'] == 'recorded' else 'Nsight Compute'}{took})\n", style="bold")
        text.append("  " + profile_line(summary) + "\n")
        for line in advice(summary, 4, 400):
            text.append("  " + line + "\n", style="dim")
    return text


def _no_profile(simulated: bool, measured: bool) -> str:
    if not measured:
        return (
            "No profiles: nothing is measured here; the baseline and each new best are profiled once the "
            "session is resumed on a GPU."
        )
    if simulated:
        return "No profiles: a replay runs nothing; only profiles recorded in its cache show here, after the run."
    return "No profiles yet: the baseline and each new best are profiled with Nsight Compute after a run."


class ProfileView(Scroll):
    def compose(self):
        yield Static("", id="profile-text")

    def show(self, data: SessionStore, simulated: bool, measured: bool) -> None:
        self.query_one("#profile-text", Static).update(profile_text(data, simulated, measured))


def peak_cells(data: SessionStore) -> Callable[[Result], str] | None:
    """A result's "% peak" cell: its share of the device's measured peak (the bound nearest); None
    when the session has no device facts (nothing to show a share of)."""
    facts = stored_facts(data.session())
    if not facts:
        return None
    works: dict[str | None, Any] = {}

    def cell(r: Result) -> str:
        if r.version not in works:
            v = data.version(r.version) if r.version else None
            try:
                works[r.version] = work_of(spec_from_plain(v["spec_json"])) if v else None
            except UserError:  # a tampered stored spec: the screen says so where it reads it (session_screen)
                works[r.version] = None
        work = works[r.version]
        return pct_cell(limits(work, r.time_ms, facts)) if work is not None and r.ok else "-"

    return cell
