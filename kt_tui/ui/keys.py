"""The session screen's keys as the user has them: defaults remapped by config.toml [keys],
the `?` help built from them, and the command palette's entries."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from .confirm import Scroll

CHOICE_IDS = {"approve": "start", "edit": "edit", "skip": "skip", "stop": "stop", "retry": "retry"}
TABS = (
    ("results", "Results", "1"),
    ("plan", "Plan", "2"),
    ("kernel", "Kernel", "3"),
    ("llm", "LLM", "4"),
    ("profile", "Profile", "5"),
)

GATES = {
    "sweep": "tune the original kernel: approve, edit the search settings and budget, skip or stop",
    "plan": "the LLM's plan of steps: approve, edit the text or stop",
    "step": "one step of the plan, before the LLM writes its kernel",
    "kernel": "a generated kernel with its diff (Kernel tab), safety flags and compile check; "
    "edit changes the code and its parameters",
    "accept": "the tuned new kernel against the best so far: accept keeps it in the plan as accepted and makes it "
    "the best when it is faster (a slower one leaves the best as it is, the gate says so); reject drops it",
    "configs": "a batch of configurations the LLM proposes to measure next",
    "space": "the LLM's change to the search space, before and after",
    "llm failed": "the LLM call failed: retry, write the answer yourself, skip or stop",
    "llm reply": "the LLM's reply does not fit what was asked: fix it by hand, retry, skip or stop",
}
# what each answer does, said once: the help's "this gate" part reads it with the gate's own names
MEANING = {
    "approve": "go ahead with what the panel proposes",
    "edit": "change it first: an editor opens with it",
    "skip": "leave it out and go on with the next thing",
    "retry": "ask the LLM again",
    "stop": "end the session here; kt-tui resume comes back to this very question",
}
MEANING_AT = {
    ("accept", "approve"): "keep the new kernel as the best",
    ("accept", "skip"): "drop the new kernel",
    ("llm_failed", "edit"): "write the answer yourself",
    ("llm_reply", "edit"): "fix the reply by hand",
}
# the palette's and help's words for the screen's other keys (a binding's own description is its name)
DOES = {
    "approve_all": "decide this gate and every later one as `kt-tui run --auto` would",
    "settings": "the strategy's knobs: search, budget, threshold, replanning",
    "switch_strategy": "go on from the best kernel with another strategy",
    "sort": "sort the results by the next column",
    "reverse": "reverse the results' order",
    "filter": "show only the results rows holding every word typed",
    "quit": "leave this session (kept; kt-tui resume reopens it)",
    "sanitize": "run the kernel under compute-sanitizer memcheck",
    "racecheck": "run compute-sanitizer racecheck",
    "export": "write the best kernel, spec, script, caches and report to a folder",
    "toggle_source": "show the best or the original kernel",
    "toggle_pane": "fold or show the source pane",
    "pause": "hold the run after the current configuration, or let it go on",
    "undo": "take back a skip or stop before it is sent",
    "help": "this page, for the gate that is open",
}


def key_for(keymap: dict, binding: Binding) -> str:
    """The key that triggers binding: its [keys] remap if any, else its default (first of a list)."""
    keys = keymap.get(binding.id, binding.key) if binding.id else binding.key
    key = keys.split(",")[0].strip()
    return {"question_mark": "?", "escape": "esc", "slash": "/"}.get(key, key)


def keys_by_id(bindings, keymap: dict) -> dict[str, str]:
    return {b.id: key_for(keymap, b) for b in bindings if b.id}


def choice_key(keys: dict[str, str], choice: str) -> str:
    return keys.get(CHOICE_IDS.get(choice, ""), "?")


def help_text(
    bindings,
    keymap: dict,
    gate=None,
    answers: dict[str, str] | None = None,
    here=None,
    session: bool = True,
    panel_at: str = "top right",
) -> Text:
    """The help page of one view: with a gate open it starts with that gate's keys (answers: choice
    -> the name the panel and footer give it, gate_view.answers), then the keys of the widget that
    has the focus (here: its name and bindings), then `bindings`: the view's keys that apply now.
    panel_at: where the gate's panel is as the screen is laid out now."""
    text = Text()
    if gate is not None:
        text.append(f"This gate: {gate.title}\n", "bold")
        text.append(GATES.get(gate.kind.replace("_", " "), "") + "\n")
        for choice, label in (answers or {}).items():
            text.append(f"  {choice_key(keys_by_id(bindings, keymap), choice):<8}", "bold")
            text.append(f"{label}: {MEANING_AT.get((gate.kind, choice), MEANING[choice])}\n")
        text.append("\n")
    if session:  # what the session screen's gates are
        text.append_text(
            Text.assemble(
                ("How a session goes\n", "bold"),
                "The engine stops at gates: it proposes, you decide. Nothing runs on the GPU and no "
                f"kernel is kept until you approve. The panel at the {panel_at} says what is proposed "
                "and which keys answer it.\n\n",
                ("Gates\n", "bold"),
            )
        )
        for kind, what in GATES.items():
            text.append(f"  {kind:<11}", "bold")
            text.append(what + "\n")
    if here is not None:
        name, moves = here
        text.append(f"\nIn {name}\n", "bold")
        for b in moves:
            text.append(f"  {b.key.replace(',', '/'):<10}", "bold")
            text.append(f"{b.description}\n")
    text.append("\nKeys that apply now", "bold")
    text.append(" (remapped by [keys] in config.toml; the command palette, ctrl+p, lists them too)\n", "dim")
    for b in bindings:
        text.append(f"  {key_for(keymap, b):<8}", "bold")
        text.append(f"{b.description}" + (f": {DOES[b.id]}" if b.id in DOES else "") + "\n")
    return text


class HelpScreen(ModalScreen[None]):
    CSS_PATH = "modal.tcss"
    BINDINGS = [Binding("escape", "close", "Close", id="help.close")]

    def __init__(self, text: Text) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Scroll(classes="editor"):
            yield Static(self.text, id="help-text")
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)


def palette_commands(screen, keymap: dict):
    """The session screen's actions that apply now, and a jump to each tab."""
    for b in screen.BINDINGS:
        if not b.id or b.id.startswith("tab_") or b.id == "quit":  # the app's own Quit is there already
            continue
        action = b.action.split("(")[0]
        if screen.check_action(action, ()) is False:
            continue
        does = DOES.get(b.id) or MEANING.get({v: k for k, v in CHOICE_IDS.items()}.get(b.id, ""))
        yield SystemCommand(f"{b.description} ({key_for(keymap, b)})", does or b.description, _runner(screen, b.action))
    for tab, label, _ in TABS:
        yield SystemCommand(f"Show the {label} tab", f"switch to the {label} tab", _runner(screen, f"tab('{tab}')"))


def _runner(screen, action: str):
    async def run() -> None:
        await screen.run_action(action)

    return run
