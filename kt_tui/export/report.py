"""report.md and a self-contained report.html: the session's story, its best kernel and a plot."""

from __future__ import annotations

import html
import json
from pathlib import Path

from ..engine.gates import gate_from
from ..engine.limits import LAUNCH_SAID, facts_text, limits, work_of
from ..engine.markdown import md_fence, md_ms, md_text
from ..engine.profiles import advice, profile_line, session_profiles
from ..engine.strength import check_line, score_line, state_of, survivor_text, tried_text
from ..engine.verdict import verdict_text
from ..files import write_output
from ..records import Result, StoredGate, config_key, trusted
from ..redact import for_terminal
from ..store import SessionStore
from ..words import counted
from .bundle import Bundle, metrics, spec_of
from .plot import plot_svg
from .roofline import Point, roofline_svg
from .tables import CSV, Points

# Imported where used: markdown-it, which only writing a report needs (the UI imports export/ when it
# starts).

PLOT = "report-times.svg"
TOP = 20  # rows of the report's table of the fastest configurations (every one is in results.csv)
_PLOT_MARK = "KT-TUI-PLOT-HERE"
_ROOF_MARK = "KT-TUI-ROOFLINE-HERE"
ROOFLINE = "report-roofline.svg"


def write_report(b: Bundle, out: Path, store=None, points: Points | None = None) -> list[Path]:
    """points: what the plot draws, when write_tables gathered it (else it is read from the store)."""
    # text from an LLM or a database is written without escape sequences or control characters
    svg = for_terminal(plot_svg(b, points=None if points is None else (points.series, points.times)))
    roof = _roofline(b)
    roof = for_terminal(roof) if roof else roof
    md = for_terminal(report_markdown(b, store))
    write_output(out / PLOT, svg)
    said = f"![the roofline]({ROOFLINE})" if roof else "(No roofline: the device's measured peaks are not recorded.)"
    write_output(
        out / "report.md",
        md.replace(_PLOT_MARK, f"![every measured configuration]({PLOT})").replace(_ROOF_MARK, said),
    )
    if roof:
        write_output(out / ROOFLINE, roof)
    write_output(out / "report.html", for_terminal(report_html(b, md, svg, roof)))
    return [out / "report.md", out / PLOT, *([out / ROOFLINE] if roof else []), out / "report.html"]


# -- markdown ------------------------------------------------------------------------------
def _cell(value) -> str:
    text = "-" if value is None else " ".join(str(value).split())
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;")


_text, _fence, _ms = md_text, md_fence, md_ms  # engine/markdown.py: the gates' summary_md() writes with them too


def report_markdown(b: Bundle, store=None) -> str:
    s, r = b.session, b.best
    launch = b.launch()
    sim = " (SIMULATED: replayed from a cache recorded on a real GPU)" if s["simulated"] else ""
    lines = [
        f"# {_text(b.name)}: kt-tui session {b.sid}",
        "",
        "| | |",
        "|---|---|",
        f"| kernel | {_cell(s['kernel_path'])} |",
        f"| strategy | {_cell(s['strategy'])} |",
        f"| state | {_cell(s['state'])} |",
        f"| GPU | {_cell(s['gpu'])}{' ' + _cell(sim) if sim else ''} |",
        f"| backend | {_cell(s['backend'])} |",
        f"| started / last change | {s['created']} / {s['updated']} |",
        f"| configurations measured | {b.count} |",
        "",
    ]
    if s.get("note"):
        lines += [_text(s["note"]), ""]
    if s.get("error"):
        lines += [f"**Error:** {_text(s['error'])}", ""]
    speed = f"{b.speedup:.2f}x" if b.speedup else "-"
    lines += [
        "## Best kernel",
        "",
        "| | |",
        "|---|---|",
        f"| time | {_ms(r.time_ms)} |",
        f"| original, default parameters | {_ms(s['baseline_ms'])} |",
        f"| speedup | {speed} |",
        f"| parameters | {_cell(json.dumps(dict(r.params)))} |",
        f"| kernel version | {_cell(r.version)} ({_cell(b.version['label'])}) |",
        f"| launch | grid {tuple(launch['grid'])}, block {tuple(launch['block'])} |",
        f"| verified | {_cell(_verdict(b, r))} |",
        "",
    ]
    checks = [c for c in b.checks if c.version == r.version and c.key == r.key]
    if checks:
        lines += (
            ["Checked at other sizes:", ""]
            + [
                f"- {_text(c.label)}: {'passed' if c.ok else 'FAILED' if c.ok is False else 'not checked'}"
                + (f" ({_text(c.reason)})" if c.reason else "")
                for c in checks
            ]
            + [""]
        )
    lines += _check_md(b) + _limits_md(b) + ["## Every measured configuration", "", _PLOT_MARK, ""]
    lines += _fastest_md(b)
    lines += story_md(b.data) if store is not None else []
    lines += ["## Best kernel source", "", _fence(b.version["source"], "cuda"), ""]
    return "\n".join(lines)


def _fastest_md(b: Bundle) -> list[str]:
    """The fastest configurations not found wrong, and where every result is."""
    rows = b.data.fastest(TOP)
    out = [
        f"## Fastest {min(TOP, len(rows))} of {counted(b.count, 'configuration')}",
        "",
        f"Every result, failed ones included: [{CSV}]({CSV}).",
        "",
    ]
    if not rows:
        return out
    out += ["| # | time | parameters | version | verified |", "|---|---|---|---|---|"]
    out += [
        f"| {i} | {_ms(r.time_ms)} | {_cell(json.dumps(dict(r.params)))} | {_cell(r.version)} | {_cell(_verdict(b, r))} |"
        for i, r in enumerate(rows, 1)
    ]
    return out + [""]


def _is_reference(b: Bundle, r: Result) -> bool:
    base = b.original_spec.baseline_params()
    return r.version == b.original["id"] and r.key == config_key(list(b.original_spec.tune_params), base)


def _verdict(b: Bundle, r: Result) -> str:
    state = state_of(b.session) or {}
    vacuous = state.get("why") if state.get("state") == "vacuous" else None
    return verdict_text(r, bool(b.session["simulated"]), _is_reference(b, r) and r.verified is None, vacuous)


def _check_md(b: Bundle) -> list[str]:
    """What the session's check can prove (engine/strength.py)."""
    state = state_of(b.session)
    if state is None:
        return ["## The check", "", "Not tested (a session from before the check was tested).", ""]
    said = check_line(state) or (
        "The check can fail: the original ran clean under compute-sanitizer, its "
        "outputs change and a do-nothing kernel fails it."
    )
    out = ["## The check", "", _text(said), ""]
    if line := score_line(state):
        out += [f"Mutation score: {_text(line)}.", ""]
        score = state.get("mutants") or {}
        out += [f"- survives: {_text(survivor_text(m))}" for m in score.get("survivors") or []]
        out += [f"- {_text(tried_text(t))}" for t in score.get("strengthening") or []]
        out += [f"- equivalent (not counted): {_text(e)}" for e in score.get("equivalent") or []]
        out += [f"- stillborn, does not compile (not counted): {_text(e)}" for e in score.get("stillborn") or []]
        out += [f"- not run within the time budget: {_text(e)}" for e in score.get("not_run") or []]
    out += [f"- outputs: {_text(f)}" for f in state.get("fixes") or []]
    out += [f"- note: {_text(n)}" for n in state.get("notes") or []]
    return out + ([""] if len(out) > 4 else [])


def _limits_md(b: Bundle) -> list[str]:
    """How far the baseline and the best are from the GPU's limit, the roofline, the profiles."""
    facts = b.facts
    out = ["## Distance to the GPU's limit", ""]
    out += [
        f"- {_text(line)}"
        for line in facts_text(facts, b.session["gpu"] or "", bool(b.session["simulated"])).splitlines()
    ]
    out += ["", "| | time | GB/s | GFLOP/s | % of the measured peak |", "|---|---|---|---|---|"]
    for label, r in _roofline_results(b):
        lim = limits(work_of(_spec(b, r.version)), r.time_ms, facts) or {}
        pct = f"{lim['pct']:.1f} % ({lim['bound']})" if "pct" in lim else "-"
        if lim.get("launch_pct", 0) >= LAUNCH_SAID:
            pct += f", {lim['launch_pct']:.0f} % of the time the launch"
        gbps = f"{lim['gbps']:.0f}" if "gbps" in lim else "-"
        gflops = f"{lim['gflops']:.0f}" if "gflops" in lim else "-"
        out.append(f"| {_cell(label)} | {_ms(r.time_ms)} | {gbps} | {gflops} | {pct} |")
    work = work_of(b.spec)
    if work.estimated:
        out += [
            "",
            "Bytes estimated from the spec's arrays (every input read once, every output written once): "
            "give `[metrics] bytes` for the exact count.",
        ]
    for m in metrics(b.spec, b.best.time_ms, facts):
        if "error" in m:
            out.append(f"- {m['metric']}: cannot evaluate ({_text(m['error'])})")
    out += ["", _ROOF_MARK, ""]
    profiles = [p for p in session_profiles(b.data)]
    if profiles:
        labels = {v["id"]: v["label"] or v["id"] for v in b.versions}
        out += ["### Nsight Compute profiles", ""]
        for p in profiles:
            head = f"{labels.get(p['version'], p['version'])} {p['key']}"
            if p["state"] not in ("done", "recorded"):
                out.append(f"- {_text(head)}: no profile ({p['state']}): {_text(p['summary'].get('reason', ''))}")
                continue
            out.append(f"- {_text(head)} ({p['state']}): {_text(profile_line(p['summary']))}")
            out += [f"  - {_text(a)}" for a in advice(p["summary"], 4, 500)]
        out.append("")
    return out


def _spec(b: Bundle, vid: str | None):
    return next((spec_of(v) for v in b.versions if v["id"] == vid), b.spec)


def _roofline_results(b: Bundle) -> list[tuple[str, Result]]:
    """The original's baseline configuration and each version's fastest trusted result."""
    base_spec = b.original_spec
    base = b.data.result(b.original["id"], config_key(list(base_spec.tune_params), base_spec.baseline_params()))
    out = [("baseline", base)] if base is not None and base.time_ms else []
    for v in b.tuned():
        best = next((r for r in b.data.by_time(v["id"]) if trusted(r)), None)  # as the table ranks them
        if best is not None and (best.version, best.key) != (b.original["id"], base.key if base else None):
            out.append(((v["label"] or v["id"]).split(":")[0] + " best", best))
    return out


def _roofline(b: Bundle) -> str | None:
    points = []
    for label, r in _roofline_results(b):
        work = work_of(_spec(b, r.version))
        points.append(Point(label, work.bytes, work.flops, r.time_ms or 0.0))
    return roofline_svg(points, b.facts)


def story_md(data: SessionStore) -> list[str]:
    """The plan, the LLM's calls, every gate with its decision and the tuning runs."""
    out = []
    steps = data.steps()
    if steps:
        out += ["## Plan", "", "| # | step | state | reason | version |", "|---|---|---|---|---|"]
        out += [
            f"| {p['seq'] + 1} | {_cell(p['title'])} | {_cell(p['state'])} | {_cell(p['reason'])} | "
            f"{_cell(p['version'])} |"
            for p in steps
        ] + [""]
    calls = data.llm_calls()
    if calls:
        models = ", ".join(sorted({str(c["model"]) for c in calls if c["model"]}))
        tokens = [sum(c[k] or 0 for c in calls) for k in ("tokens_in", "tokens_out")]
        failed = sum(1 for c in calls if c["error"])
        out += [
            f"LLM: {counted(len(calls), 'call')} ({failed} failed) to {_text(models or 'unknown model')}, "
            f"{counted(tokens[0], 'token')} in, {tokens[1]} out.",
            "",
        ]
    gates = data.gates()
    if gates:
        out += ["## Steps and decisions", ""]
        for i, g in enumerate(gates, 1):
            out += _gate_md(i, g)
    runs = data.runs()
    if runs:
        out += [
            "## Tuning runs",
            "",
            "| run | version | kind | search | state | configurations | started | ended |",
            "|---|---|---|---|---|---|---|---|",
        ]
        out += [
            f"| {_cell(x.id)} | {_cell(x.version)} | {_cell(x.kind)} | {_cell(x.strategy)} | "
            f"{_cell(x.state)} | {_cell(x.total)} | {_cell(x.started)} | {_cell(x.ended)} |"
            for x in runs
        ] + [""]
    return out


def _gate_md(i: int, g: StoredGate) -> list[str]:
    d = g.decision or {}
    by = d.get("by") or "-"
    who = {"policy": "policy (headless)", "user": "you", "autopilot": "autopilot"}.get(by, by)
    body = g.body if isinstance(g.body, dict) else {}
    gate = gate_from(g.kind, g.key or "", g.title, body)
    choice = d.get("as") or (gate.choice_name(str(d["choice"])) if d.get("choice") else "pending")
    out = [
        f"### {i}. {_text(g.title)}",
        "",
        f"{_text(g.kind)} gate, opened {g.created}; decision: **{_text(choice)}** "
        f"by {_text(who)}"
        + (f" at {g.decided}" if g.decided else "")
        + (f": {_text(d['why'])}" if d.get("why") else ""),
        "",
    ]
    return out + gate.summary_md(dict(d))  # each gate kind says what it shows


# -- html ----------------------------------------------------------------------------------
CSS = """body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left}
pre{background:#f5f5f5;padding:.6rem;overflow-x:auto;font-size:.85rem}svg{max-width:100%;height:auto}"""


def report_html(b: Bundle, md: str, svg: str, roof: str | None = None) -> str:
    return page_html(f"{b.name}: kt-tui session {b.sid}", md, svg, roof)


def page_html(title: str, md: str, svg: str = "", roof: str | None = None) -> str:
    """A self-contained HTML page of the report's markdown (the plot and the roofline inlined where
    they are marked)."""
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(md)
    inline = svg[svg.find("<svg") :]
    body = body.replace(f"<p>{_PLOT_MARK}</p>", f'<figure class="plot">{inline}</figure>')
    body = body.replace(
        f"<p>{_ROOF_MARK}</p>",
        f'<figure class="roofline">{roof}</figure>'
        if roof
        else "<p>(No roofline: the device's measured peaks are not recorded.)</p>",
    )
    title = html.escape(title)
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{CSS}</style></head><body>\n{body}</body></html>\n"
    )
