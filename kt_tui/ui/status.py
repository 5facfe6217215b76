"""The session screen's status bar: what the session is doing (running, paused, stopping, waiting
for you), how far the run is (measured of planned, with its budget), the table's sort and filter.
One line, always shown, cut from the right only in its least useful parts."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Footer, Input, Static
from textual.widgets._footer import FooterKey

STATE_STYLE = {
    "RUNNING": "bold black on green",
    "PAUSED": "bold black on yellow",
    "STOPPING": "bold white on red",
    "WAITING FOR YOU": "bold black on cyan",
    "ERROR": "bold white on red",
    "UNDO?": "bold black on yellow",
    "UNMEASURED": "bold black on yellow",
}


class StatusBar(Static):
    pass


def state_word(screen) -> str:
    if screen.state == "error":
        return "ERROR"
    if screen.held is not None:
        return "UNDO?"
    if screen.stopping:
        return "STOPPING"
    if screen.paused:
        return "PAUSED"
    if screen.bridge.waiting and screen.gate is not None:
        return "WAITING FOR YOU"
    if screen.state == "running":
        return "RUNNING"
    return (screen.state or "starting").upper()


def run_progress(screen) -> str:
    """'original: 80 of 767, budget 80' while a run lasts and after it."""
    run = screen.run_info
    if not run.get("total"):
        return ""
    label = screen.table.labels.get(run.get("version"), "this run")
    if run.get("state") == "not measured":
        return f"{label} {run.get('kind') or 'run'}: not measured (no GPU), {run['total']} configurations"
    text = f"{label} {run.get('kind') or 'run'}: {run['done']} of {run['total']} configurations"
    if run.get("known"):
        text += f" ({run['known']} measured before)"
    if run.get("budget"):
        text += f", budget {run['budget']}"
    return text


def status_text(screen) -> Text:
    word = state_word(screen)
    keys = screen.keys
    text = Text.assemble((f" {word} ", STATE_STYLE.get(word, "bold reverse")))
    hint = {
        "PAUSED": f"{keys['pause']} resumes",
        "UNDO?": f"{keys['undo']} undoes",
        "RUNNING": f"{keys['pause']} pauses, {keys['stop']} stops",
    }.get(word)
    parts = [p for p in (hint, "autopilot" if screen.autopilot else "", run_progress(screen)) if p]
    table = screen.table
    parts.append(f"sort {table.sort_label}" if table.sort_label else "fastest first")
    if table.filter_text:
        parts.append(f"filter “{table.filter_text}”: {len(table.rows)} rows")
    text.append(" " + " · ".join(parts))
    return text


FILTER_HINT = "filter: rows holding every word (enter keeps it, escape clears)"


class FilterInput(Input):
    """`/` in the session: the results table shows the rows holding every word typed (a parameter's
    value as name=value, a status, a version). Enter goes back to the table with the filter kept;
    escape clears it."""

    BINDINGS = [Binding("escape", "clear_filter", "Clear the filter", id="filter.clear")]

    def action_clear_filter(self) -> None:
        self.value = ""
        self.remove_class("-shown")
        self.screen.query_one("#results").focus()


class FitFooter(Footer):
    """The footer in one line at any width: descriptions shorten to their first word, then the
    keys past the decisions lose theirs, Help and Quit last (? lists every key and what it does)."""

    KEEP = 6  # the first keys (the gate's decisions) keep a word to the end
    SHORT = {"Approve all": "All", "Pause/resume": "Pause"}

    def compose(self):
        keys = list(super().compose())
        found = [k for k in keys if isinstance(k, FooterKey)]
        labels = self.screen.footer_labels() if hasattr(self.screen, "footer_labels") else {}
        for k in found:  # the gate's own names: Accept and Reject at an accept gate
            k.description = labels.get(k.action, k.description)
        room = self.app.size.width

        def width() -> int:
            return sum(len(k.key_display) + (len(k.description) + 1 if k.description else 0) + 2 for k in found)

        if width() > room:
            for k in found:
                k.description = self.SHORT.get(k.description) or k.description.split(" ")[0]
        for k in sorted(found[self.KEEP :], key=lambda k: k.description in ("Help", "Quit")):
            if width() <= room:
                break
            k.description = ""
        yield from keys
