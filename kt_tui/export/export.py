"""Write a session's results to a folder: the best kernel standalone, its spec, a JSON summary, the
inputs, a kernel_tuner script, every result (CSV, kernel_tuner caches, T4) and a report."""

from __future__ import annotations

import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from ..files import check_out_dir, refuse_existing, write_output
from ..kernel.spec import dump_spec
from ..store import Store
from . import tables
from .bundle import Bundle, ExportError, NotMeasured, load_bundle, metrics
from .inputs import write_arrays
from .plot import reference_of
from .report import PLOT, write_report
from .script import write_script
from .unmeasured import export_unmeasured


def export_session(store: Store, sid: str, out_dir: str | Path, force: bool = False) -> dict:
    """Write every file; returns {"session", "out", "files": [paths], "best": {...}} (of a session that
    waits for a GPU: what it has, "best" None, export/unmeasured.py). Refuses the root
    folder, an empty path, and (unless `force`) a folder holding any file it would write."""
    try:
        b = load_bundle(store, sid)
    except NotMeasured:
        return export_unmeasured(store, store.session(sid) or {}, out_dir, force)
    out = check_out_dir(out_dir)
    refuse_existing(planned_files(b, out), force)
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".kt-tui-write-test-", dir=out)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise ExportError(f"--out {out}: cannot write there ({e.strerror or e})") from None
    name = b.name
    points = tables.Points(reference_of(b), [v["id"] for v in b.versions])
    with ThreadPoolExecutor(1) as pool:  # numpy makes the inputs and the disk takes them outside the GIL
        inputs = pool.submit(write_arrays, b.spec, b.data.reference(b.original["id"]), out / f"{name}.inputs.npz")
        files = [
            _write(out / f"{name}.best.cu", best_source(b)),
            _write(out / f"{name}.best.cu.toml", dump_spec(replace(b.spec, defaults=dict(b.best.params)))),
            _write(out / f"{name}.best.json", json.dumps(best_summary(b), indent=2) + "\n"),
            write_script(b, out / f"tune_{name}.py", f"{name}.inputs.npz"),
            *tables.write_tables(b, out, points),
            *write_report(b, out, store, points),
        ]
        files.insert(3, inputs.result())
    return {"session": b.sid, "out": str(out), "files": [str(f) for f in files], "best": best_summary(b)}


def planned_files(b: Bundle, out: Path) -> list[Path]:
    name = b.name
    return [
        out / f"{name}.best.cu",
        out / f"{name}.best.cu.toml",
        out / f"{name}.best.json",
        out / f"{name}.inputs.npz",
        out / f"tune_{name}.py",
        out / "report.md",
        out / PLOT,
        out / "report.html",
        *tables.planned(b, out),
    ]


def _write(path: Path, text: str) -> Path:
    return write_output(path, text)


def best_summary(b: Bundle) -> dict:
    r, s = b.best, b.session
    checks = [
        {"label": c.label, "ok": c.ok, "status": c.status, "reason": c.reason}
        for c in b.checks
        if c.version == r.version and c.key == r.key
    ]
    return {
        "session": b.sid,
        "kernel": b.name,
        "params": dict(r.params),
        "time_ms": r.time_ms,
        "baseline_ms": s["baseline_ms"],
        "speedup": b.speedup,
        "gpu": s["gpu"],
        "backend": s["backend"],
        "simulated": bool(s["simulated"]),
        "kernel_version": r.version,
        "verified": r.verified,
        "max_abs_err": r.max_abs_err,
        "verdicts": None if r.verdicts is None else [dict(v) for v in r.verdicts],
        "checks": checks,
        **b.launch(),
        "metrics": metrics(b.spec, r.time_ms),
    }


def best_source(b: Bundle) -> str:
    """The best version with its parameters as #defines (guarded, so kernel_tuner's own still win)."""
    launch = b.launch()
    speed = f"{b.speedup:.2f}x over the original" if b.speedup else "speedup unknown"
    sim = " (SIMULATED: replayed from a recorded cache)" if b.session["simulated"] else ""
    lines = [
        f"// {b.name}: best kernel of kt-tui session {b.sid}",
        f"// GPU: {_one_line(b.session['gpu'])}{sim}, backend {b.session['backend']}",
        f"// time: {b.best.time_ms:.4f} ms, {speed}; kernel version {b.best.version}",
        f"// launch: grid {tuple(launch['grid'])}, block {tuple(launch['block'])} at sizes "
        + ", ".join(f"{k}={v}" for k, v in b.spec.sizes.items()),
        f"// parameters: {json.dumps(dict(b.best.params))}",
        "",
    ]
    for k, v in b.best.params.items():
        lines += [f"#ifndef {k}", f"#define {k} {_c_value(v)}", "#endif"]
    return "\n".join(lines) + "\n\n" + b.version["source"].rstrip() + "\n"


def _one_line(text) -> str:
    return " ".join(str(text or "unknown").split())


def _c_value(v) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, (int, float)):
        return repr(v)
    return json.dumps(str(v))
