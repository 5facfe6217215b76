"""How a gate looks: its question, what is proposed, and the keys that answer it."""

from __future__ import annotations

import json

from rich.console import Group
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual.widgets import DataTable

from ..engine.events import Gate
from .keys import CHOICE_IDS, choice_key

DEFAULT_KEYS = {"start": "s", "edit": "e", "skip": "k", "stop": "x", "retry": "t", "approve_all": "A"}
LABELS = {"accept": {"approve": "accept", "skip": "reject"}, "llm_failed": {"edit": "write it yourself"},
          "llm_reply": {"edit": "fix the reply"}}
STEP_STYLE = {"accepted": "bold green", "verified": "green", "failed": "red", "rejected": "yellow",
              "skipped": "dim", "running": "bold cyan", "approved": "cyan", "edited": "cyan", "proposed": ""}


def keys_line(gate: Gate, keys: dict[str, str] | None = None) -> Text:
    """The keys that answer gate, as the keymap has them (keys: binding id -> key)."""
    keys = {**DEFAULT_KEYS, **(keys or {})}
    labels = LABELS.get(gate.kind, {})
    parts = [f"[{choice_key(keys, c)}] {labels.get(c, c)}" for c in gate.choices if c in CHOICE_IDS]
    return Text("   ".join(parts + [f"[{keys['approve_all']}] approve all remaining"]), style="bold")


def render_gate(gate: Gate, keys: dict[str, str] | None = None, simulated: bool = False) -> Text:
    b = gate.body
    keys = {**DEFAULT_KEYS, **(keys or {})}
    text = Text.assemble(("Decide: ", "bold"), gate.title, "\n")
    if simulated and gate.kind == "kernel":
        text.append(f"SIMULATED session: an edited kernel ([{keys['edit']}]) cannot be measured here, only the "
                    "recorded one can. Sanitizers need a GPU too.\n", style="bold yellow")
    if b.get("unverified"):
        text.append(b["unverified"] + "\n", style="bold red")
    if b.get("expected"):
        text.append(b["expected"] + "\n", style="bold")
    if gate.kind == "sweep":
        if "sizes" in b:  # the sweep's gate: counted after restrictions (engine/strategies/sweep.py space_counts)
            sizes = str(b["sizes"])
            about = "about " if sizes.startswith("about ") else ""
            if sizes.endswith("configurations before restrictions"):  # not counted after them
                which = " (before restrictions)"
            else:
                which = f" ({b.get('total_before')} before restrictions)"
            text.append(f"{b.get('done', 0)} of {about}{b.get('total')} configurations{which} measured so far.\n")
        else:  # the autonomous start gate: the product of the parameters' values
            text.append(f"{b.get('done', 0)} of {b.get('total')} configurations (before restrictions) measured so far.\n")
        budget = [f"{b['max_configs']} configurations" if b.get("max_configs") else "",
                  f"{b['time_limit_s']:g} s" if b.get("time_limit_s") else ""]
        text.append(f"Search: {b.get('search', 'kt')}" + (", heuristic seeds first" if b.get("seeds", True) else "")
                    + f"; budget: {' and '.join(x for x in budget if x) or 'none (the whole space)'}.\n")
    elif gate.kind == "step":
        if b.get("description"):
            text.append(b["description"][:600] + "\n")
        if b.get("tune_params"):
            text.append("suggested parameters: " + json.dumps(b["tune_params"]) + "\n", style="dim")
        verdict = b.get("verdict")
        if verdict:
            style = "green" if verdict["valid"] else "bold yellow"
            yes, no = ("worth doing", "NOT worth it") if b.get("prompt") else ("a kernel change", "NOT a kernel change")
            text.append(f"LLM verdict: {yes if verdict['valid'] else no} - {verdict['reason']}\n", style=style)
            if not verdict["valid"]:
                text.append(f"[{keys['start']}] approves it anyway (overrules the LLM), [{keys['skip']}] skips it.\n")
        if b.get("note"):
            text.append(b["note"] + "\n", style="dim")
    elif gate.kind == "plan":
        text.append(b.get("text", "")[:1500])
        if b.get("manual"):
            text.append(b["manual"] + "\n", style="bold yellow")
    elif gate.kind == "kernel":
        if b.get("manual"):
            text.append(b["manual"] + "\n", style="bold yellow")
        flags = b.get("flags") or []
        text.append(f"{len(flags)} safety flag(s). " if flags else "No safety flags. ",
                    style="bold red" if flags else "green")
        comp = b.get("compile") or {}
        ok = comp.get("ok")
        said = {True: "Compiles", False: "Does NOT compile", None: "Not compile-checked (no compiler)"}[ok]
        if comp.get("deferred"):
            said = "Not compiled yet: flagged code is compiled after you approve it"
        elif ok is not None and comp.get("arch"):
            said += f" ({comp['arch']})"
        text.append(said + ". ", style={True: "green", False: "bold red", None: "yellow"}[ok])
        text.append("  The diff is in the Kernel tab.\n")
    elif gate.kind == "accept":
        style = "green" if b.get("recommend") else "yellow"
        text.append(f"The {b.get('threshold', 0):.0%} threshold says: {'accept' if b.get('recommend') else 'reject'}\n",
                    style=style)
        if b.get("verified"):
            text.append(f"At the spec's size: {b['verified']}.\n", style="green" if "recorded" not in b["verified"]
                        else "cyan")
        text.append_text(checks_text(b.get("verdicts") or [], b.get("checks") or []))
    elif gate.kind == "configs":
        if b.get("reasoning"):
            text.append(f"LLM: {b['reasoning'][:400]}\n", style="italic")
        for c in b.get("configs", [])[:12]:
            text.append("  " + ", ".join(f"{k}={v}" for k, v in c.items()) + "\n")
        for bad in b.get("invalid", [])[:8]:
            text.append(f"  dropped {bad['config']}: {bad['why']}\n", style="yellow")
    elif gate.kind == "space":
        text.append(f"{b.get('reason', '')}\n", style="italic")
        for name in sorted(set(b["before"]) | set(b["after"])):
            old, new = b["before"].get(name), b["after"].get(name)
            if old != new:
                text.append(f"  {name}: {old if old is not None else '(new)'} -> {new if new is not None else '(gone)'}\n")
        text.append(f"Space: {b['size_before']} -> {b['size_after']} configurations.\n", style="bold")
        for p in b.get("problems", []):
            text.append(f"  not applied: {p}\n", style="yellow")
    elif gate.kind in ("llm_failed", "llm_reply"):
        text.append("Retry, write the answer yourself (manual), skip this call, or stop.\n", style="yellow")
        if b.get("text"):
            text.append(b["text"][:600] + "\n", style="dim")
    text.append_text(keys_line(gate, keys))
    return text


def render_kernel(body: dict):
    parts = []
    if body.get("explanation"):
        parts.append(Text(body["explanation"], style="italic"))
    for f in body.get("flags") or []:
        parts.append(Text(f"FLAG {f['kind']}" + (f" (line {f['line']})" if f["line"] else "") + f": {f['message']}",
                          style="bold red"))
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
        t = Table("kernel", "registers", "shared bytes", "spill st/ld", "stack", title="resource use", title_justify="left")
        for name, r in res.items():
            t.add_row(name, str(r.get("registers")), str(r.get("shared_bytes")),
                      f"{r.get('spill_stores')}/{r.get('spill_loads')}", str(r.get("stack_bytes")))
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
        t.add_row(tol["output"], tol["type"], f"{tol['atol']:g} ({tol['atol_from']})",
                  f"{tol['rtol']:g} ({tol['rtol_from']})")
    if sizes is not None:
        t.caption = ("also checked at " + "; ".join(sizes)) if sizes else "no other sizes are checked (verify_sizes = [])"
        t.caption_justify = "left"
    return t


def verdict_table(verdicts: list[dict], title: str) -> Table:
    """Per output: ok or not, max abs / rel error, mismatches, first failing index, and an excerpt."""
    t = Table("output", "ok", "max abs err", "max rel err", "mismatches", "first bad", "got vs expected",
              title=title, title_justify="left")
    for v in verdicts:
        excerpt = "\n".join(f"[{i}] {got} vs {want}" for i, got, want in v.get("excerpt") or [])
        t.add_row(v["output"], Text("yes" if v["ok"] else "NO", style="green" if v["ok"] else "bold red"),
                  _num(v.get("max_abs_err")), _num(v.get("max_rel_err")), str(v.get("mismatches", "")),
                  "" if v.get("first_bad") is None else str(v["first_bad"]), excerpt or v.get("reason", ""))
    return t


def _num(x) -> str:
    return "-" if x is None else f"{x:.3g}"


def checks_text(verdicts: list[dict], checks: list[dict]) -> Text:
    text = Text()
    if verdicts:
        bad = [v for v in verdicts if not v["ok"]]
        worst = max((v.get("max_abs_err") or 0.0) for v in verdicts)
        text.append(f"At the spec's size: {'WRONG' if bad else 'right'} (max abs err {worst:.3g}).\n",
                    style="bold red" if bad else "green")
    for c in checks:
        style = {"ok": "green", "not_checked": "yellow"}.get(c["status"], "bold red")
        text.append(f"At {c['label']}: " + ("right" if c["status"] == "ok" else c["reason"]) + "\n", style=style)
    return text


def render_verification(data: dict):
    """A failed verification: why, then each output's errors at the size it failed."""
    parts = [Text(data.get("reason") or "verification failed", style="bold red")]
    if data.get("verdicts"):
        parts.append(verdict_table(data["verdicts"], f"outputs at {data.get('where') or 'the spec size'}"))
    return Group(*parts)


class PlanView(DataTable):
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        # selecting a step does nothing here: leave enter to whatever the keymap gives it
        return False if action == "select_cursor" else True

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.add_columns("step", "title", "state", "why / result")

    def show(self, steps: list[dict]) -> None:
        self.clear()
        for s in steps:
            self.add_row(s["id"], Text(s["title"] or ""), Text(s["state"] or "", style=STEP_STYLE.get(s["state"], "")),
                         Text((s["reason"] or "")[:100]), key=s["id"])
