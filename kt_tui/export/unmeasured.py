"""Export of a session prepared without a GPU (`unmeasured`): what it has, with nothing measured — the
original kernel and its spec, every generated kernel with its spec, and a report of the plan and
every gate that says the session was not measured and how to measure it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..engine.markdown import md_fence, md_text
from ..engine.verdict import waits_for_gpu
from ..files import check_out_dir, refuse_existing, write_output
from ..kernel.spec import dump_spec
from ..store import SessionStore, Store
from .bundle import ExportError, spec_of
from .report import page_html, story_md


def export_unmeasured(store: Store, session: dict[str, Any], out_dir: str | Path, force: bool = False) -> dict:
    """Write the session's kernels, specs and report; returns {"session", "out", "files", "best": None,
    "state", "note"} (no best: nothing was measured)."""
    data = SessionStore(store, session["id"])
    versions = data.versions()
    name = spec_of(versions[0]).kernel
    out = check_out_dir(out_dir)
    kernels = {}
    for i, v in enumerate(versions):
        stem = name if i == 0 else f"{name}.{_slug(v.get('label') or '', v['id'])}"
        kernels[stem] = v
    planned = [out / f"{stem}{ext}" for stem in kernels for ext in (".cu", ".cu.toml")]
    planned += [out / "report.md", out / "report.html"]
    refuse_existing(planned, force)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ExportError(f"--out {out}: cannot write there ({e.strerror or e})") from None
    files = []
    for stem, v in kernels.items():
        files.append(write_output(out / f"{stem}.cu", v["source"].rstrip() + "\n"))
        files.append(write_output(out / f"{stem}.cu.toml", dump_spec(spec_of(v))))  # checked, never the stored text
    md = _report(session, data, name, kernels)
    files.append(write_output(out / "report.md", md))
    files.append(write_output(out / "report.html", page_html(f"{name}: kt-tui session {session['id']}", md)))
    return {
        "session": session["id"],
        "out": str(out),
        "files": [str(f) for f in files],
        "best": None,
        "state": session.get("state"),
        "note": waits_for_gpu(session["id"]),
    }


def _slug(label: str, vid: str) -> str:
    """ "step 2: Tile the loop" -> "step-2"; a version without a step label goes by its id."""
    head = label.split(":", 1)[0] if label.startswith("step ") else ""
    return re.sub(r"[^A-Za-z0-9]+", "-", head).strip("-") or vid


def _report(session: dict[str, Any], data: SessionStore, name: str, kernels: dict[str, dict]) -> str:
    lines = [
        f"# {md_text(name)}: kt-tui session {session['id']}",
        "",
        f"**Not measured:** this session was prepared without a GPU. {md_text(waits_for_gpu(session['id']))}.",
        "",
        f"Strategy {md_text(session['strategy'])}, state {md_text(session['state'])}, "
        f"started {session['created']}, last change {session['updated']}.",
        "",
        "## Kernels",
        "",
    ]
    lines += [
        f"- `{stem}.cu` ({md_text(v.get('label') or 'original')}, version {v['id']})" for stem, v in kernels.items()
    ]
    lines += ["", *story_md(data)]
    for stem, v in list(kernels.items())[1:]:
        lines += [f"## {md_text(v.get('label') or stem)}", "", md_fence(v["source"], "cuda"), ""]
    return "\n".join(lines)
