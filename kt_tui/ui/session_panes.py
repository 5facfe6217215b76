"""The session screen's panes beside the gate: the tabs (the hidden ones filled after the first frame,
the one shown, where the focus goes), the source pane (the best kernel or the original; shown, hidden
or as the width has it) and the Profile tab with the table's %peak column."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static, TabbedContent, TabPane

from . import prefs
from .confirm import Scroll
from .widgets import GatePanel, ResultsTable, SourceView

LLM_TAB = (
    "Each LLM call of this session shows here as it is made: what was asked, the reply as it streams in, and why "
    "an attempt failed. A strategy that asks the LLM nothing (sweep) or a session with no LLM connected leaves it "
    "at this line."
)

# Imported where used: the LLM log (Textual's RichLog), the plan's and the profile's views, which the
# first frame does without.


async def fill_tabs(screen) -> None:
    """The hidden tabs' contents: the plan (shown as read from the store), the generated kernel
    and the LLM log."""
    from .gate_view import LlmLog, PlanView  # here: RichLog loads rich.pretty, which the first frame does without
    from .profile_tab import ProfileView

    panes = [screen.query_one(f"#tab-{name}", TabPane) for name in ("plan", "kernel", "llm", "profile")]
    if not all(p.is_attached for p in panes):
        return  # the app is leaving already (quit at its first frame): nothing to fill
    await panes[0].mount(PlanView(id="plan"))
    await panes[1].mount(
        Scroll(
            Static(
                "A generated kernel shows here while its gate is open (the Plan tab lists each step's version).",
                id="kernel-view",
            )
        )
    )
    log = LlmLog(id="llm-log", wrap=True, markup=False)
    await panes[2].mount(log)
    log.write(Text(LLM_TAB, style="dim"))
    await panes[3].mount(ProfileView(id="profile"))
    show_profile(screen)
    if screen.steps:
        screen.query_one(PlanView).show(screen.steps)


def show_profile(screen) -> None:
    """The Profile tab and the table's %peak column, from the store (a profile or the facts changed)."""
    from .profile_tab import ProfileView, peak_cells

    if screen.sid and screen.query(ProfileView):
        choice = screen.choice
        measured = choice is None or not (choice.unmeasured or choice.read_only)
        screen.query_one(ProfileView).show(screen.data, bool(choice and choice.simulated), measured)
        screen.query_one(ResultsTable).set_peak(peak_cells(screen.data))


def show_tab(screen, tab: str) -> None:
    """Shows a tab; a focus left in the tab that hides goes to what shows (j moves there)."""
    tabs = screen.query_one(TabbedContent)
    if tabs.active == tab:
        return
    focused = screen.focused
    tabs.active = tab
    if focused is None or tabs in focused.ancestors:  # it was in the pane that hid
        screen.call_after_refresh(focus_visible, screen)


def focus_visible(screen) -> None:
    """The focus on the visible tab's table or view (the gate panel when it has none)."""
    tabs = screen.query_one(TabbedContent)
    pane = tabs.get_pane(tabs.active) if tabs.active else None
    target: Widget | None = next((w for w in (pane.query("*") if pane else []) if w.can_focus), None)
    (target or screen.query_one(GatePanel)).focus()


def show_kernel_view(screen, renderable: RenderableType) -> None:
    screen.query_one("#kernel-view", Static).update(renderable)


def show_source(screen) -> None:
    """The current best kernel, labelled; the original one key away."""
    table = screen.table
    best = screen.best_version if screen.best_version not in (None, table.original) else None
    vid = None if screen.show_original or best is None else best
    if (vid, screen.show_original) == screen.shown_source:
        return
    screen.shown_source = (vid, screen.show_original)
    key = screen.keys["toggle_source"]
    version = screen.data.version(vid) if vid is not None else None
    if vid is None or version is None:
        source, label = screen.source, "original kernel" + (f"  ([{key}] shows the best)" if best else "")
    else:
        source = version["source"]
        label = f"best kernel: {table.labels.get(vid, vid[:8])}  ([{key}] shows the original)"
    screen.query_one("#source-label", Static).update(label)
    screen.query_one(SourceView).show(source)


def set_pane(screen, shown: bool | None) -> None:
    """The source pane: shown, hidden, or (None) as the width has it."""
    screen.set_class(shown is True, "-source-shown")
    screen.set_class(shown is False, "-source-hidden")


def toggle_pane(screen) -> None:
    """The source pane hidden if it shows, else shown; kept for the next start (ui/prefs.py)."""
    shown = screen.query_one("#left").display
    set_pane(screen, not shown)
    prefs.save(source_pane=not shown)
