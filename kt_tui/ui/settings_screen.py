"""The running strategy's knobs, changed while a session runs: they apply from the next decision on.
Each is typed and checked; a bad value keeps the screen open with the reason under the fields."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Static, Switch

from ..gpu.protocol import SEARCHES

# name, help, type, lowest value allowed (None: any)
AUTONOMOUS = (("with_replanning", "ask for a new plan when the steps run out", bool, None),
              ("max_replanning", "new plans at most", int, 0),
              ("breakdown_steps", "let the LLM break a step into smaller ones", bool, None),
              ("max_breakdowns", "levels of breakdown", int, 0),
              ("threshold", "accept a kernel at least this fraction faster", float, 0))
SWEEP = (("search", "kt, brute_force or a kernel_tuner strategy", str, None),
         ("max_configs", "configurations per run at most (0: no budget)", int, 0),
         ("time_limit_s", "seconds per run at most (0: no budget)", float, 0),
         ("seeds", "measure the heuristic seed configurations first", bool, None))
CONFIG_SEARCH = (("rounds", "rounds of LLM-proposed batches at most", int, 1),
                 ("batch_size", "configurations the LLM proposes per round", int, 1),
                 ("plateau_rounds", "stop after this many rounds without a 1 % gain", int, 0),
                 ("space_edits", "let the LLM propose search-space edits on a plateau", bool, None))
KNOBS = {"sweep": SWEEP, "config-search": CONFIG_SEARCH, "autonomous": AUTONOMOUS,
         "explicit": AUTONOMOUS[-1:], "one-prompt": AUTONOMOUS[-1:]}


def knobs_for(strategy: str) -> tuple:
    return KNOBS.get(strategy, AUTONOMOUS)


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
    BINDINGS = [Binding("ctrl+s", "save", "Apply", id="settings.save", priority=True),
                Binding("escape", "cancel", "Cancel", id="settings.cancel")]

    def __init__(self, values: dict, strategy: str = "autonomous") -> None:
        super().__init__()
        self.values, self.strategy = values, strategy
        self.knobs = knobs_for(strategy)

    def compose(self) -> ComposeResult:
        with Vertical(classes="editor settings"):
            yield Static(Text.assemble((f"Settings of the {self.strategy} strategy", "bold"),
                                       ("  (ctrl+s applies them from the next decision on)", "dim")))
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
                out[name] = parse_knob(name, kind, low, self.query_one(f"#{name}").value)
            except ValueError as e:
                self.query_one("#settings-error", Static).update(Text(str(e), style="bold red"))
                self.query_one(f"#{name}").focus()
                return
        self.dismiss(out)

    def action_cancel(self) -> None:
        self.dismiss(None)
