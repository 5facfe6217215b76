"""The session screen's keys as the user has them: defaults remapped by config.toml [keys],
the `?` help built from them, and the command palette's entries."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

CHOICE_IDS = {"approve": "start", "edit": "edit", "skip": "skip", "stop": "stop", "retry": "retry"}
TABS = (("results", "Results", "1"), ("plan", "Plan", "2"), ("kernel", "Kernel", "3"), ("llm", "LLM", "4"))

GATES = (
    ("sweep", "tune the original kernel: approve, edit the search settings and budget, skip or stop"),
    ("plan", "the LLM's plan of steps: approve, edit the text, skip or stop"),
    ("step", "one step of the plan, before the LLM writes its kernel"),
    ("kernel", "a generated kernel with its diff (Kernel tab), safety flags and compile check; "
               "edit changes the code and its parameters"),
    ("accept", "the tuned new kernel against the best so far: accept keeps it in the plan as accepted and makes it "
               "the best when it is faster (a slower one leaves the best as it is, the gate says so); reject drops it"),
    ("configs", "a batch of configurations the LLM proposes to measure next"),
    ("space", "the LLM's change to the search space, before and after"),
    ("llm failed", "the LLM call failed or its reply did not parse: retry, write the answer yourself, skip or stop"),
)


def key_for(keymap: dict, binding: Binding) -> str:
    """The key that triggers binding: its [keys] remap if any, else its default (first of a list)."""
    keys = keymap.get(binding.id, binding.key) if binding.id else binding.key
    key = keys.split(",")[0].strip()
    return {"question_mark": "?", "escape": "esc"}.get(key, key)


def keys_by_id(bindings, keymap: dict) -> dict[str, str]:
    return {b.id: key_for(keymap, b) for b in bindings if b.id}


def choice_key(keys: dict[str, str], choice: str) -> str:
    return keys.get(CHOICE_IDS.get(choice, ""), "?")


def help_text(bindings, keymap: dict) -> Text:
    text = Text.assemble(("How a session goes\n", "bold"),
                         "The engine stops at gates: it proposes, you decide. Nothing runs on the GPU and no "
                         "kernel is kept until you approve. The panel at the top right says what is proposed "
                         "and which keys answer it.\n\n", ("Gates\n", "bold"))
    for kind, what in GATES:
        text.append(f"  {kind:<11}", "bold")
        text.append(what + "\n")
    text.append("\nKeys", "bold")
    text.append(" (remapped by [keys] in config.toml; the command palette, ctrl+p, lists them too)\n", "dim")
    for b in bindings:
        text.append(f"  {key_for(keymap, b):<8}", "bold")
        text.append(f"{b.description}\n")
    return text


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "close", "Close", id="help.close")]

    def __init__(self, text: Text) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="editor"):
            yield Static(self.text, id="help-text")
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)


def palette_commands(screen, keymap: dict):
    """Every action the session screen binds, and a jump to each tab."""
    for b in screen.BINDINGS:
        if b.id:
            yield SystemCommand(f"{b.description} ({key_for(keymap, b)})", f"session: {b.description.lower()}",
                                _runner(screen, b.action))
    for tab, label, _ in TABS:
        yield SystemCommand(f"Show the {label} tab", f"switch to the {label} tab", _runner(screen, f"tab('{tab}')"))


def _runner(screen, action: str):
    async def run() -> None:
        await screen.run_action(action)
    return run
