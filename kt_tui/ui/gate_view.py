"""How a gate looks: its question, what is proposed, the keys that answer it, the tab it shows and
its editor. One registration per gate kind (engine/gates.py): `view_for` finds it by the gate's class."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual.screen import ModalScreen
from textual.widgets import DataTable, RichLog

from ..engine import gates as g
from ..engine.gates import Gate
from ..words import counted
from .confirm import MOVE_KEYS, SCROLL_KEYS
from .keys import CHOICE_IDS, choice_key

DEFAULT_KEYS = {"start": "s", "edit": "e", "skip": "n", "stop": "x", "retry": "t", "approve_all": "A"}
STEP_STYLE = {
    "accepted": "bold green",
    "verified": "green",
    "unchecked": "yellow",
    "not measured": "yellow",
    "failed": "red",
    "rejected": "yellow",
    "skipped": "dim",
    "running": "bold cyan",
    "approved": "cyan",
    "edited": "cyan",
    "proposed": "",
}
Render = Callable[[Gate, Text, dict, bool], None]  # (gate, text to append to, keys, simulated)


@dataclass
class GateView:
    render: Render
    tab: str | None = None  # the tab the session screen shows with this gate
    labels: dict[str, str] = field(default_factory=dict)  # a choice's name at this gate
    editor: Callable[[Gate], ModalScreen] | None = None  # the screen whose value is the "edit" decision
    kernel_view: Callable[[Gate], RenderableType] | None = None  # what the Kernel tab shows
    candidate: Callable[[Gate], tuple] | None = None  # (version, params): the results row it asks about
    reopen_editor: Callable[[Gate], bool] = lambda gate: False  # open the editor at once (the user's text failed)


VIEWS: dict[type[Gate], GateView] = {}


def view(cls: type[Gate], **kw):
    """Register the decorated function as the renderer of gate class `cls`."""

    def register(render: Render) -> Render:
        if cls in VIEWS:
            raise ValueError(f"gate kind {cls.kind!r} has two views")
        VIEWS[cls] = GateView(render, **kw)
        return render

    return register


def view_for(gate: Gate) -> GateView:
    """The gate's view; a subclass (a plug-in's gate) gets its base's, an unknown kind a plain one."""
    for cls in type(gate).__mro__:
        if cls in VIEWS:
            return VIEWS[cls]
    return FALLBACK


def answers(gate: Gate) -> dict[str, str]:
    """choice -> its name at this gate, for the choices a key gives here: the panel, the footer and
    the help all read this (edit only where an editor knows the gate's value)."""
    v = view_for(gate)
    return {c: v.labels.get(c, c) for c in gate.choices if c in CHOICE_IDS and (c != "edit" or v.editor is not None)}


def keys_line(gate: Gate, keys: dict[str, str] | None = None) -> Text:
    """The keys that answer gate, as the keymap has them (keys: binding id -> key)."""
    keys = {**DEFAULT_KEYS, **(keys or {})}
    parts = [f"[{choice_key(keys, c)}] {label}" for c, label in answers(gate).items()]
    return Text("  ".join(parts + [f"[{keys['approve_all']}] approve all"]), style="bold")


def render_gate(gate: Gate, keys: dict[str, str] | None = None, simulated: bool = False) -> Text:
    """The question, the keys that answer it (above the fold at any height), then what it is about."""
    keys = {**DEFAULT_KEYS, **(keys or {})}
    text = Text.assemble(("Decide: ", "bold"), gate.title, "\n")
    text.append_text(keys_line(gate, keys))
    text.append("\n")
    view_for(gate).render(gate, text, keys, simulated)
    text.rstrip()
    return text


def _unverified(gate: Gate, text: Text) -> None:
    if gate.unverified:
        text.append(gate.unverified + "\n", style="bold red")
    if gate.expected:
        text.append(gate.expected + "\n", style="bold")
    if gate.check:  # the mutation score (engine/strength.py score_line)
        weak = " survive" in gate.check or "TOO FEW RUN" in gate.check or "NOT MEASURED" in gate.check
        text.append(f"Check: {gate.check}\n", style="yellow" if weak else "green")
    if gate.survivors:
        text.append(
            "--auto accepts no generated kernel on this check (--allow-survivors lets it)\n", style="bold yellow"
        )


def _fallback(gate: Gate, text: Text, keys: dict, simulated: bool) -> None:
    _unverified(gate, text)
    text.append(f"(a {gate.kind!r} gate: this version of kt-tui does not know how to show it)\n", style="yellow")
    for k, v in gate.body.items():
        text.append(f"  {k}: {json.dumps(v, default=str)[:300]}\n", style="dim")


FALLBACK = GateView(_fallback)


def _edit_sweep(gate: g.SweepGate) -> ModalScreen:
    from .editors import TextEditScreen, search_problem  # here: the editors load when one opens

    return TextEditScreen(
        "Search settings for this run",
        gate.text,
        "search: kt, brute_force or a kernel_tuner "
        "strategy; max_configs / time_limit_s: the budget (0: none); seeds: heuristic seeds first.",
        language="toml",
        check=search_problem,
    )


@view(g.SweepGate, tab="tab-results", editor=_edit_sweep)
def _sweep(gate: g.SweepGate, text: Text, keys: dict, simulated: bool) -> None:
    _unverified(gate, text)
    if gate.sizes is not None:  # the sweep's gate: counted after restrictions (engine/strategies/sweep.py space_counts)
        # how the count is known (search/lazy.py's FEWER, ABOUT; not imported: it loads numpy)
        about = next((f"{how} " for how in ("fewer than about", "about") if gate.sizes.startswith(f"{how} ")), "")
        if re.search(r"^\S+ configurations? before restrictions$", gate.sizes):  # not counted after them
            which = " (before restrictions)"
        else:
            which = f" ({gate.total_before} before restrictions)"
        text.append(f"{gate.done} of {about}{counted(gate.total, 'configuration')}{which} measured so far.\n")
    else:  # a strategy's start gate: the product of the parameters' values
        text.append(f"{gate.done} of {counted(gate.total, 'configuration')} (before restrictions) measured so far.\n")
    budget = [
        counted(gate.max_configs, "configuration") if gate.max_configs else "",
        f"{gate.time_limit_s:g} s" if gate.time_limit_s else "",
    ]
    text.append(
        f"Search: {gate.search or 'kt'}"
        + (", heuristic seeds first" if gate.seeds is not False else "")
        + f"; budget: {' and '.join(x for x in budget if x) or 'none (the whole space)'}.\n"
    )


def _edit_step(gate: g.StepGate) -> ModalScreen:
    from .editors import TextEditScreen  # here: the editors load when one opens

    if gate.prompt:
        return TextEditScreen(
            "Edit the step's prompt",
            gate.prompt,
            "What the LLM is asked for this step; {kernel_string} stands for the current best kernel.",
        )
    return TextEditScreen(
        "Edit the step",
        f"{gate.title.split(': ', 1)[-1]}\n{gate.description}",
        "First line: the title; then the description.",
    )


@view(g.StepGate, tab="tab-plan", editor=_edit_step)
def _step(gate: g.StepGate, text: Text, keys: dict, simulated: bool) -> None:
    _unverified(gate, text)
    if gate.description:
        text.append(gate.description[:600] + "\n")
    if gate.tune_params:
        text.append("suggested parameters: " + json.dumps(gate.tune_params) + "\n", style="dim")
    verdict = gate.verdict
    if verdict:
        style = "green" if verdict["valid"] else "bold yellow"
        yes, no = ("worth doing", "NOT worth it") if gate.prompt else ("a kernel change", "NOT a kernel change")
        text.append(f"LLM verdict: {yes if verdict['valid'] else no} - {verdict['reason']}\n", style=style)
        if not verdict["valid"]:
            text.append(f"[{keys['start']}] approves it anyway (overrules the LLM), [{keys['skip']}] skips it.\n")
    if gate.note:
        text.append(gate.note + "\n", style="dim")


def _edit_plan(gate: g.PlanGate) -> ModalScreen:
    from .editors import TextEditScreen  # here: the editors load when one opens

    return TextEditScreen(
        "Edit the plan",
        gate.text,
        "One step per numbered line, its description indented below. Delete, reorder, reword or add steps. "
        "Below the --- line: what every prompt is told of performance (edit it there).",
    )


@view(g.PlanGate, tab="tab-plan", editor=_edit_plan)
def _plan(gate: g.PlanGate, text: Text, keys: dict, simulated: bool) -> None:
    _unverified(gate, text)
    text.append(gate.text[:3200])  # the plan, then the performance block (at most 1,500)
    if gate.manual:
        text.append(gate.manual + "\n", style="bold yellow")


def _edit_kernel(gate: g.KernelGate) -> ModalScreen:
    from .editors import KernelEditScreen  # here: the editors load when one opens

    return KernelEditScreen(gate.code, gate.tune_params, gate.restrictions)


@view(g.KernelGate, tab="tab-kernel", editor=_edit_kernel, kernel_view=lambda gate: render_kernel(gate.body))
def _kernel(gate: g.KernelGate, text: Text, keys: dict, simulated: bool) -> None:
    if simulated:
        text.append(
            f"SIMULATED session: an edited kernel ([{keys['edit']}]) cannot be measured here, only the "
            "recorded one can. Sanitizers need a GPU too.\n",
            style="bold yellow",
        )
    _unverified(gate, text)
    if gate.manual:
        text.append(gate.manual + "\n", style="bold yellow")
    flags = gate.flags
    text.append(
        f"{counted(len(flags), 'safety flag')}. " if flags else "No safety flags. ",
        style="bold red" if flags else "green",
    )
    comp = gate.compile
    ok = comp.get("ok")
    said = {True: "Compiles", False: "Does NOT compile", None: "Not compile-checked (no compiler)"}[ok]
    if comp.get("deferred"):
        said = "Not compiled yet: flagged code is compiled after you approve it"
    elif ok is not None and comp.get("arch"):
        said += f" ({comp['arch']})"
    text.append(said + ". ", style={True: "green", False: "bold red", None: "yellow"}[ok])
    text.append("  The diff is in the Kernel tab.\n")
    for line in gate.profile:  # the kernel it changes: its % of the peak and profile (Profile tab: all)
        text.append(line[:300] + "\n", style="dim")


@view(
    g.AcceptGate,
    tab="tab-results",
    labels={"approve": "accept", "skip": "reject"},
    candidate=lambda gate: (gate.version, gate.params),
)
def _accept(gate: g.AcceptGate, text: Text, keys: dict, simulated: bool) -> None:
    if gate.new_ms is not None:  # first: what is compared (the table's row shows it too)
        over = f", {gate.baseline_ms / gate.new_ms:.2f}x over the baseline" if gate.baseline_ms and gate.new_ms else ""
        params = ", ".join(f"{k}={v}" for k, v in (gate.params or {}).items())
        text.append(f"Candidate step {gate.step}: {gate.new_ms:.4f} ms{over}\n", style="bold")
        if gate.current_ms is not None:
            best = f"{gate.best}, " if gate.best else ""
            text.append(f"Best now: {best}{gate.current_ms:.4f} ms\n", style="bold")
        if params:
            text.append(f"The candidate's configuration: {params}\n")
    _unverified(gate, text)
    style = "green" if gate.recommend else "yellow"
    if gate.unmeasured:
        text.append("NOT MEASURED: no GPU here, no time to compare.\n", style="bold yellow")
    else:
        text.append(
            f"The {gate.threshold:.0%} threshold says: {'accept' if gate.recommend else 'reject'}\n", style=style
        )
    if gate.effect:
        text.append(
            gate.effect[0].upper() + gate.effect[1:] + ".\n", style="bold yellow" if "slower" in gate.effect else ""
        )
    if gate.vacuous:
        text.append(
            f"VACUOUS CHECK: the check proves nothing because {gate.vacuous}: --auto does not accept this kernel.\n",
            style="bold red",
        )
    if gate.verified:
        text.append(
            f"At the spec's size: {gate.verified}.\n",
            style="yellow"
            if gate.verified.startswith(("unchecked", "not checked"))
            else "green"
            if "recorded" not in gate.verified
            else "cyan",
        )
    text.append_text(checks_text(gate.verdicts, gate.checks))
    for line in gate.limits:
        text.append(line[:300] + "\n", style="dim")


def _edit_configs(gate: g.ConfigsGate) -> ModalScreen:
    from .editors import TextEditScreen  # here: the editors load when one opens

    return TextEditScreen(
        "Configurations to benchmark",
        gate.text,
        "One JSON object per line; each is checked against the space again.",
        language="json",
    )


@view(g.ConfigsGate, tab="tab-results", editor=_edit_configs)
def _configs(gate: g.ConfigsGate, text: Text, keys: dict, simulated: bool) -> None:
    _unverified(gate, text)
    if gate.reasoning:
        text.append(f"LLM: {gate.reasoning[:400]}\n", style="italic")
    for c in gate.configs[:12]:
        text.append("  " + ", ".join(f"{k}={v}" for k, v in c.items()) + "\n")
    for bad in gate.invalid[:8]:
        text.append(f"  dropped {bad['config']}: {bad['why']}\n", style="yellow")


@view(g.SpaceGate, tab="tab-results")
def _space(gate: g.SpaceGate, text: Text, keys: dict, simulated: bool) -> None:
    _unverified(gate, text)
    text.append(f"{gate.reason}\n", style="italic")
    for name in sorted(set(gate.before) | set(gate.after)):
        old, new = gate.before.get(name), gate.after.get(name)
        if old != new:
            text.append(f"  {name}: {old if old is not None else '(new)'} -> {new if new is not None else '(gone)'}\n")
    text.append(f"Space: {gate.size_before} -> {counted(gate.size_after, 'configuration')}.\n", style="bold")
    for p in gate.problems:
        text.append(f"  not applied: {p}\n", style="yellow")


def _edit_answer(gate: g.LlmFailedGate) -> ModalScreen:
    from .editors import TextEditScreen  # here: the editors load when one opens

    problems = "".join(f"\n- {p}" for p in gate.problems)
    return TextEditScreen(
        "Write the answer yourself",
        gate.text or gate.example or "",
        "JSON in the shape of the example" + (f". Problems with this text:{problems}" if problems else ""),
        language="json",
    )


def _llm(gate: g.LlmFailedGate, text: Text, keys: dict, simulated: bool) -> None:
    _unverified(gate, text)
    text.append("Retry, write the answer yourself (manual), skip this call, or stop.\n", style="yellow")
    if gate.text:
        text.append(gate.text[:600] + "\n", style="dim")


view(g.LlmFailedGate, labels={"edit": "write it yourself"}, editor=_edit_answer)(_llm)
view(g.LlmReplyGate, labels={"edit": "fix the reply"}, editor=_edit_answer, reopen_editor=lambda gate: gate.by_user)(
    _llm
)


def render_kernel(body: dict):
    parts: list[RenderableType] = []
    if body.get("explanation"):
        parts.append(Text(body["explanation"], style="italic"))
    for f in body.get("flags") or []:
        parts.append(
            Text(
                f"FLAG {f['kind']}" + (f" (line {f['line']})" if f["line"] else "") + f": {f['message']}",
                style="bold red",
            )
        )
    for fix in body.get("fixes") or []:
        parts.append(Text(f"fixed: {fix}", style="cyan"))
    for name in body.get("unresolved") or []:
        parts.append(Text(f"{name} is used by the code but no parameter defines it", style="bold yellow"))
    comp = body.get("compile") or {}
    if comp.get("ok") is False:
        parts.append(Text("compile errors:\n" + comp.get("errors", ""), style="red"))
    elif comp.get("ok") is None and comp.get("reason"):
        parts.append(Text(comp["reason"], style="yellow"))
    res = comp.get("resources") or {}
    if res:
        t = Table(
            "kernel", "registers", "shared bytes", "spill st/ld", "stack", title="resource use", title_justify="left"
        )
        for name, r in res.items():
            t.add_row(
                name,
                str(r.get("registers")),
                str(r.get("shared_bytes")),
                f"{r.get('spill_stores')}/{r.get('spill_loads')}",
                str(r.get("stack_bytes")),
            )
        parts.append(t)
    if body.get("tolerances"):
        parts.append(tolerance_table(body["tolerances"], body.get("verify_sizes")))
    parts.append(Text("tunable parameters: " + json.dumps(body.get("tune_params", {})), style="bold"))
    if body.get("restrictions"):
        parts.append(Text("restrictions: " + "; ".join(body["restrictions"])))
    parts.append(Syntax(body.get("diff") or "(no change)", "diff", theme="ansi_dark", word_wrap=True))
    return Group(*parts)


def tolerance_table(tolerances: list[dict], sizes: list[str] | None = None) -> Table:
    """Each output's atol / rtol, marked (spec) or (default for its dtype)."""
    t = Table("output", "type", "atol", "rtol", title="verification", title_justify="left")
    for tol in tolerances:
        t.add_row(
            tol["output"], tol["type"], f"{tol['atol']:g} ({tol['atol_from']})", f"{tol['rtol']:g} ({tol['rtol_from']})"
        )
    if sizes is not None:
        t.caption = (
            ("also checked at " + "; ".join(sizes)) if sizes else "no other sizes are checked (verify_sizes = [])"
        )
        t.caption_justify = "left"
    return t


def verdict_table(verdicts: list[dict], title: str) -> Table:
    """Per output: ok or not, max abs / rel error, mismatches, first failing index, and an excerpt."""
    t = Table(
        "output",
        "ok",
        "max abs err",
        "max rel err",
        "mismatches",
        "first bad",
        "got vs expected",
        title=title,
        title_justify="left",
    )
    for v in verdicts:
        excerpt = "\n".join(f"[{i}] {got} vs {want}" for i, got, want in v.get("excerpt") or [])
        t.add_row(
            v["output"],
            Text("yes" if v["ok"] else "NO", style="green" if v["ok"] else "bold red"),
            _num(v.get("max_abs_err")),
            _num(v.get("max_rel_err")),
            str(v.get("mismatches", "")),
            "" if v.get("first_bad") is None else str(v["first_bad"]),
            excerpt or v.get("reason", ""),
        )
    return t


def _num(x) -> str:
    return "-" if x is None else f"{x:.3g}"


def checks_text(verdicts: list[dict], checks: list[dict]) -> Text:
    text = Text()
    if verdicts:
        bad = [v for v in verdicts if not v["ok"]]
        worst = max((v.get("max_abs_err") or 0.0) for v in verdicts)
        text.append(
            f"At the spec's size: {'WRONG' if bad else 'right'} (max abs err {worst:.3g}).\n",
            style="bold red" if bad else "green",
        )
    for c in checks:
        style = {"ok": "green", "not_checked": "yellow"}.get(c["status"], "bold red")
        text.append(f"At {c['label']}: " + ("right" if c["status"] == "ok" else c["reason"]) + "\n", style=style)
    return text


def render_verification(data: dict):
    """A failed verification: why, then each output's errors at the size it failed."""
    parts: list[RenderableType] = [Text(data.get("reason") or "verification failed", style="bold red")]
    if data.get("verdicts"):
        parts.append(verdict_table(data["verdicts"], f"outputs at {data.get('where') or 'the spec size'}"))
    return Group(*parts)


class LlmLog(RichLog):
    """The LLM tab: every call's messages and reply, streamed."""

    BINDINGS = SCROLL_KEYS


class PlanView(DataTable):
    BINDINGS = MOVE_KEYS
    HELP_NAME = "the plan"

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        # selecting a step does nothing here: leave enter to whatever the keymap gives it
        return False if action == "select_cursor" else True

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.steps: list[dict] = []
        self.add_columns("step", "title", "state", "why / result")

    def show(self, steps: list[dict]) -> None:
        """The steps, each whole: the title and the why wrap in columns sized to the width (at 80
        columns a step's reason would otherwise sit past the right edge)."""
        self.steps, row = steps, self.cursor_row
        self.clear(columns=True)
        room = (self.size.width or self.app.size.width) - 2  # the scroll bar
        ids = max([4, *(len(s["id"]) for s in steps)])
        states = max([5, *(len(s["state"] or "") for s in steps)])
        left = max(room - ids - states - 8, 24)  # each column's padding: one cell either side
        longest = max([5, *(len(s["title"] or "") for s in steps)])
        why = max([12, *(len((s["reason"] or "")[:300]) for s in steps)])
        title = min(longest, max(12, left * 2 // 5, left - why))  # the room the whys leave, at least 2/5
        self.add_column("step")
        self.add_column("title", width=title)
        self.add_column("state")
        self.add_column("why / result", width=left - title)
        for s in steps:
            self.add_row(
                s["id"],
                Text(s["title"] or ""),
                Text(s["state"] or "", style=STEP_STYLE.get(s["state"], "")),
                Text((s["reason"] or "")[:300]),
                key=s["id"],
                height=None,
            )
        if steps:
            self.move_cursor(row=min(row, len(steps) - 1), animate=False)

    def on_resize(self) -> None:
        if self.steps:
            self.show(self.steps)
