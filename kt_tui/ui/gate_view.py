"""How a gate looks: its question, what is proposed, and the keys that answer it."""

from __future__ import annotations

import json

from rich.console import Group
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual.widgets import DataTable

from ..engine.events import Gate

CHOICE_KEYS = {"approve": "s", "edit": "e", "skip": "k", "stop": "x", "retry": "t"}
LABELS = {"accept": {"approve": "accept", "skip": "reject"}, "llm_failed": {"edit": "write it yourself"},
          "llm_reply": {"edit": "fix the reply"}}
STEP_STYLE = {"accepted": "bold green", "verified": "green", "failed": "red", "rejected": "yellow",
              "skipped": "dim", "running": "bold cyan", "approved": "cyan", "edited": "cyan", "proposed": ""}


def keys_line(gate: Gate) -> Text:
    labels = LABELS.get(gate.kind, {})
    parts = [f"[{CHOICE_KEYS[c]}] {labels.get(c, c)}" for c in gate.choices if c in CHOICE_KEYS]
    return Text("   ".join(parts + ["[A] approve all remaining"]), style="bold")


def render_gate(gate: Gate) -> Text:
    b = gate.body
    text = Text.assemble(("Decide: ", "bold"), gate.title, "\n")
    if gate.kind == "sweep":
        text.append(f"{b.get('done', 0)} of {b.get('total')} configurations measured so far.\n")
    elif gate.kind == "step":
        if b.get("description"):
            text.append(b["description"][:600] + "\n")
        verdict = b.get("verdict")
        if verdict:
            style = "green" if verdict["valid"] else "bold yellow"
            text.append(f"LLM verdict: {'a kernel change' if verdict['valid'] else 'NOT a kernel change'}"
                        f" - {verdict['reason']}\n", style=style)
    elif gate.kind == "plan":
        text.append(b.get("text", "")[:1500])
    elif gate.kind == "kernel":
        flags = b.get("flags") or []
        text.append(f"{len(flags)} safety flag(s). " if flags else "No safety flags. ",
                    style="bold red" if flags else "green")
        ok = (b.get("compile") or {}).get("ok")
        text.append({True: "Compiles. ", False: "Does NOT compile. ", None: "Not compile-checked (no compiler). "}[ok],
                    style={True: "green", False: "bold red", None: "yellow"}[ok])
        text.append("  The diff is in the Kernel tab.\n")
    elif gate.kind == "accept":
        style = "green" if b.get("recommend") else "yellow"
        text.append(f"The {b.get('threshold', 0):.0%} threshold says: {'accept' if b.get('recommend') else 'reject'}\n",
                    style=style)
    elif gate.kind in ("llm_failed", "llm_reply"):
        text.append("Retry, write the answer yourself (manual), skip this call, or stop.\n", style="yellow")
        if b.get("text"):
            text.append(b["text"][:600] + "\n", style="dim")
    text.append_text(keys_line(gate))
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
    parts.append(Text("tunable parameters: " + json.dumps(body.get("tune_params", {})), style="bold"))
    if body.get("restrictions"):
        parts.append(Text("restrictions: " + "; ".join(body["restrictions"])))
    parts.append(Syntax(body.get("diff") or "(no change)", "diff", theme="ansi_dark", word_wrap=True))
    return Group(*parts)


class PlanView(DataTable):
    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.add_columns("step", "title", "state", "why / result")

    def show(self, steps: list[dict]) -> None:
        self.clear()
        for s in steps:
            self.add_row(s["id"], Text(s["title"] or ""), Text(s["state"] or "", style=STEP_STYLE.get(s["state"], "")),
                         Text((s["reason"] or "")[:100]), key=s["id"])
