"""Export of a session prepared without a GPU (`unmeasured`): what it has, with nothing measured — the
original kernel and its spec, every generated kernel with its spec, and a report of the plan and
every gate that says the session was not measured and how to measure it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..engine.markdown import md_fence, md_text
from ..engine.verdict import waits_for_gpu
from ..files import file_stem, write_output
from ..kernel.spec import dump_spec
from ..redact import for_terminal
from ..store import SessionStore, Store
from .bundle import spec_of
from .report import page_html, story_md


class Unmeasured:
    """What an unmeasured session exports: the original kernel and each generated one with its spec
    (`matmul.step-2.cu`), and the report; export.py writes them as it writes a measured session's."""

    def __init__(self, store: Store, session: dict[str, Any]) -> None:
        self.session = session
        self.data = SessionStore(store, session["id"])
        versions = self.data.versions()
        self.name = spec_of(versions[0]).kernel
        stem = file_stem(self.name)
        self.kernels: dict[str, dict] = {}
        for i, v in enumerate(versions):
            self.kernels[stem if i == 0 else f"{stem}.{_slug(v.get('label') or '', v['id'])}"] = v

    def names(self) -> list[str]:
        return [f"{stem}{ext}" for stem in self.kernels for ext in (".cu", ".cu.toml")] + ["report.md", "report.html"]

    def write(self, out: Path) -> list[Path]:
        files = []
        for stem, v in self.kernels.items():
            files.append(write_output(out / f"{stem}.cu", v["source"].rstrip() + "\n"))
            files.append(write_output(out / f"{stem}.cu.toml", dump_spec(spec_of(v))))  # checked, never the stored text
        # text from an LLM or a database is written without escape sequences or control characters
        md = for_terminal(_report(self.session, self.data, self.name, self.kernels))
        files.append(write_output(out / "report.md", md))
        title = f"{self.name}: kt-tui session {self.session['id']}"
        files.append(write_output(out / "report.html", for_terminal(page_html(title, md))))
        return files

    def summary(self) -> dict[str, Any]:
        """No best: nothing was measured."""
        return {"best": None, "state": self.session.get("state"), "note": waits_for_gpu(self.session["id"])}


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
