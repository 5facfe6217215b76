"""The running strategy's knobs, changed while a session runs: they apply from the next decision on.
Each is typed and checked; a bad value keeps the screen open with the reason under the fields."""

from __future__ import annotations

from pydantic import BaseModel
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Static, Switch

from ..engine.registry import UnknownStrategy, options_model
from ..engine.strategies import autonomous, config_search
from ..engine.strategies.common import SearchOptions
from ..gpu.protocol import SEARCHES


def _knobs(model: type[BaseModel], *names: str) -> tuple:
    """(name, help, type, lowest value allowed or None) of options, read from a strategy's Options
    model (all its plain fields when no names are given)."""
    fields = model.model_fields
    out = []
    for name in names or [n for n, f in fields.items() if f.annotation in (bool, int, float, str)]:
        f = fields[name]
        low = next((m.ge for m in f.metadata if getattr(m, "ge", None) is not None), None)
        out.append((name, f.description, f.annotation, low))
    return tuple(out)


AUTONOMOUS = _knobs(
    autonomous.Options, "with_replanning", "max_replanning", "breakdown_steps", "max_breakdowns", "threshold"
)
SWEEP = _knobs(SearchOptions, "search", "max_configs", "time_limit_s", "seeds")
CONFIG_SEARCH = _knobs(config_search.Options, "rounds", "batch_size", "plateau_rounds", "space_edits")
KNOBS = {
    "sweep": SWEEP,
    "config-search": CONFIG_SEARCH,
    "autonomous": AUTONOMOUS,
    "explicit": AUTONOMOUS[-1:],
    "one-prompt": AUTONOMOUS[-1:],
}


def knobs_for(strategy: str) -> tuple:
    """The built-in strategies' chosen knobs; a plug-in's are the plain fields of its Options."""
    if strategy in KNOBS:
        return KNOBS[strategy]
    try:
        model = options_model(strategy)
    except UnknownStrategy:
        model = None
    return _knobs(model) if model is not None else ()


def parse_knob(name: str, kind: type, low, raw) -> object:
    """The typed value of one field; ValueError says what is wrong, naming the field."""
    if kind is bool:
        return bool(raw)
    text = str(raw).strip()
    if kind is str:
        if name == "search" and text not in SEARCHES:
            raise ValueError(f"{name}: unknown {text!r} (known: {', '.join(SEARCHES)})")
        return text
    try:
        value = kind(text)
    except ValueError:
        raise ValueError(f"{name}: expected {'an integer' if kind is int else 'a number'}, not {text!r}") from None
    if low is not None and value < low:
        raise ValueError(f"{name}: must be at least {low}, not {text}")
    return value


class SettingsScreen(ModalScreen[dict | None]):
    CSS_PATH = "modal.tcss"
    BINDINGS = [
        Binding("ctrl+s", "save", "Apply", id="settings.save", priority=True),
        Binding("escape", "cancel", "Cancel", id="settings.cancel"),
    ]

    def __init__(self, values: dict, strategy: str = "autonomous") -> None:
        super().__init__()
        self.values, self.strategy = values, strategy
        self.knobs = knobs_for(strategy)

    def compose(self) -> ComposeResult:
        with Vertical(classes="editor settings"):
            yield Static(
                Text.assemble(
                    (f"Settings of the {self.strategy} strategy", "bold"),
                    ("  (ctrl+s applies them from the next decision on)", "dim"),
                )
            )
            with Grid(id="knobs"):
                for name, help_text, kind, _ in self.knobs:
                    yield Label(Text.assemble(name, "\n", (help_text, "dim")))
                    value = self.values.get(name)
                    yield Switch(bool(value), id=name) if kind is bool else Input(str(value), id=name)
            yield Static(id="settings-error")
        yield Footer()

    def action_save(self) -> None:
        out = {}
        for name, _, kind, low in self.knobs:
            try:
                box = self.query_one(f"#{name}", Switch) if kind is bool else self.query_one(f"#{name}", Input)
                out[name] = parse_knob(name, kind, low, box.value)
            except ValueError as e:
                self.query_one("#settings-error", Static).update(Text(str(e), style="bold red"))
                self.query_one(f"#{name}").focus()
                return
        self.dismiss(out)

    def action_cancel(self) -> None:
        self.dismiss(None)
