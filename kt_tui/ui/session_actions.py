"""The session screen's keys: which apply now (the footer, the palette and the help show only
those), and the ones that open a modal or a box: edit, strategy, settings, help, filter, export."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.binding import Binding
from textual.widgets import TabbedContent

from ..errors import UserError
from .keys import CHOICE_IDS, HelpScreen, help_text
from .status import FILTER_HINT, FilterInput

if TYPE_CHECKING:
    from ..engine.gates import Gate

# Imported where used: the engine's gates and their views (gate_view.py), loaded with the first gate,
# after the first frame; the modals, loaded where they open.


ENDED = ("finished", "stopped", "failed", "unmeasured", "error")  # the engine runs no more (w may start it again)


def answers(gate: Gate) -> dict[str, str]:
    from .gate_view import answers as gate_answers  # here: a gate is open, so the engine has loaded its views

    return gate_answers(gate)


def open_choices(screen) -> dict[str, str]:
    """The open gate's answers while it waits and nothing is held, else none."""
    gate = screen.gate
    return answers(gate) if (gate is not None and screen.bridge.waiting and screen.held is None) else {}


def applies(screen, action: str) -> bool:
    """Whether a key applies now: False hides it from the footer, the palette and the help."""
    if action == "undo":
        return screen.held is not None
    choices = open_choices(screen)
    wanted = {"start": "approve", "edit": "edit", "skip": "skip", "retry": "retry"}.get(action)
    if wanted:
        return wanted in choices
    if action == "stop":
        return bool(choices) or (screen.state == "running" and screen.held is None and not screen.stopping)
    if action == "pause":
        return screen.state == "running" and screen.run_info.get("kind") == "tune" and not screen.bridge.waiting
    if action == "switch_strategy":
        return bool(choices) or screen.state == "finished"
    if action == "approve_all":  # on, it turns autopilot off; never offered once the engine has ended
        waits = screen.bridge.waiting or screen.state == "running"
        return screen.autopilot or (screen.state not in ENDED and screen.held is None and waits)
    if action in ("sanitize", "racecheck"):  # a sanitizer needs a GPU: never in a simulated session
        if screen.gate is None:
            return False
        from ..engine.gates import KernelGate

        return (
            isinstance(screen.gate, KernelGate)
            and screen.bridge.waiting
            and not (screen.choice and screen.choice.simulated)
        )
    return True


def footer_labels(screen) -> dict[str, str]:
    """action -> its name now: the gate's own ("Accept", "Reject"), and "Autopilot off" while it is on."""
    labels = {"approve_all": "Autopilot off"} if screen.autopilot else {}
    for c, label in open_choices(screen).items():
        labels[CHOICE_IDS[c]] = label[:1].upper() + label[1:]
    return labels


def edit(screen) -> None:
    from . import deciding

    gate = screen.gate
    if not gate or "edit" not in gate.choices:
        return
    from .gate_view import view_for

    editor = view_for(gate).editor
    if editor is None:
        return

    def done(value: Any) -> None:
        if value is not None and screen.gate is gate:
            deciding.decide(screen, "edit", value)

    screen.app.push_screen(editor(gate), done)


def switch_strategy(screen) -> None:
    from . import deciding

    gate = screen.gate

    def chosen(name: str | None) -> None:
        if name and gate is None and screen.state == "finished" and screen.engine is not None:  # go on, finished
            screen.engine.switch_finished(name)
            screen.state, screen.strategy, screen.activity = "starting", name, None
            screen.engine_thread()
        elif name and screen.gate is gate:
            deciding.decide(screen, "switch", name)

    from .strategy_picker import StrategyPicker  # here: a modal the first frame does without

    screen.app.push_screen(StrategyPicker(screen.data.session()["strategy"]), chosen)


def settings(screen) -> None:
    def apply(values: dict | None) -> None:
        if values:
            if screen.engine is not None:
                screen.engine.change_options(values)
            screen.notify("Settings applied from the next decision on.")

    from .settings_screen import SettingsScreen  # here: a modal the first frame does without

    values = dict(screen.engine.options) if screen.engine is not None else _options(screen)
    screen.app.push_screen(SettingsScreen(values, screen.strategy), apply)


def _options(screen) -> dict:
    """Before the engine runs: the options the strategy will start with (config file and flags)."""
    from ..engine.registry import strategy_options  # here: it loads pydantic models of the strategies

    s = screen.settings
    try:
        return strategy_options(
            screen.strategy, s.table_for(screen.strategy), defaults=s.strategy_defaults, given=s.strategy_flags
        )
    except UserError:  # refused before the session opened; here only the defaults are shown
        return {}


def show_help(screen) -> None:
    """The help of what is in front of the user: the open gate's keys, the keys that apply now, and
    those of the widget that has the focus (the gate panel, a table, a log)."""
    gate = screen.gate if screen.bridge.waiting else None
    keymap = screen.settings.keys or {}
    shown = [b for b in screen.BINDINGS if isinstance(b, Binding) and applies(screen, b.action.split("(")[0])]
    focused = screen.focused
    screen.app.push_screen(
        HelpScreen(
            help_text(
                shown,
                keymap,
                gate,
                answers(gate) if gate else None,
                here=(focused.HELP_NAME, focused.BINDINGS) if focused and hasattr(focused, "HELP_NAME") else None,
                panel_at="top right"
                if screen.query_one("#left").display
                else "top",  # the source pane beside it or not
            )
        )
    )


async def open_filter(screen) -> None:
    """The filter box, made the first time it opens: the first frame does without it."""
    boxes = screen.query("#filter")
    box = boxes.first() if boxes else FilterInput(placeholder=FILTER_HINT, id="filter")
    if not boxes:
        await screen.query_one("#tab-results").mount(box, before=screen.table)
    box.add_class("-shown")
    screen.query_one(TabbedContent).active = "tab-results"
    box.focus()


def export(screen) -> None:
    if screen.sid is None:
        screen.notify("nothing to export yet: the session has not started", severity="warning")
        return
    from .export_screen import ExportScreen  # here: the exporter loads with its modal

    screen.app.push_screen(ExportScreen(screen.store, screen.sid))
