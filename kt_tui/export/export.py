"""Write a session's results to a folder: the best kernel standalone, its spec, a JSON summary, the
inputs, a kernel_tuner script, every result (CSV, kernel_tuner caches, T4) and a report."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from ..engine.limits import limits, work_of
from ..files import check_out_dir, refuse_existing, write_output
from ..kernel.spec import dump_spec
from ..redact import for_terminal
from ..store import Store
from . import tables
from .bundle import Bundle, ExportError, NotMeasured, load_bundle, metrics
from .inputs import not_made, write_arrays
from .plot import reference_of
from .report import PLOT, write_report
from .script import write_script
from .unmeasured import Unmeasured

MANIFEST = ".kt-tui-export.json"  # the session and files of the export a folder holds


def export_session(store: Store, sid: str, out_dir: str | Path, force: bool = False) -> dict:
    """Write every file; returns {"session", "out", "files": [paths], "not_written": [why], "best":
    {...}} (of a session that waits for a GPU: what it has, "best" None, export/unmeasured.py).
    Refuses the root folder, an empty path, and (unless `force`) a folder holding any file it
    would write. Everything is written into a folder of its own inside `out` first and moved in only
    once all of it was written, under a lock on `out`: a failed export leaves `out` as it was, and
    two exports into one folder never mix their files (the files of the export it replaces go)."""
    try:
        b = load_bundle(store, sid)
    except NotMeasured:
        u = Unmeasured(store, store.session(sid) or {})
        out = check_out_dir(out_dir)
        files = _staged(out, [out / n for n in u.names()], force, u.write, sid)
        return {"session": sid, "out": str(out), "files": [str(f) for f in files], "not_written": [], **u.summary()}
    out = check_out_dir(out_dir)
    files = _staged(out, planned_files(b, out), force, lambda staging: _write_all(b, store, staging), b.sid)
    not_written = [f"{why}: made by the user's Python, which export does not run" for why in not_made(b.spec).values()]
    return {
        "session": b.sid,
        "out": str(out),
        "files": [str(f) for f in files],
        "not_written": not_written,
        "best": best_summary(b),
    }


def _staged(out: Path, planned: list[Path], force: bool, write: Callable[[Path], list[Path]], sid: str) -> list[Path]:
    """`write` into a folder of its own inside `out`, then its files moved in under the folder's lock."""
    refuse_existing(planned, force)
    made = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".kt-tui-export-", dir=out))
    except OSError as e:
        raise ExportError(f"--out {out}: cannot write there ({e.strerror or e})") from None
    try:
        written = write(staging)
        with _folder_lock(out):
            refuse_existing(planned, force)  # another export may have come meanwhile
            return _move_in(staging, out, written, sid)
    except OSError as e:
        raise ExportError(f"--out {out}: nothing was exported ({e.strerror or e})") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if made and not any(out.iterdir()):
            out.rmdir()


def _write_all(b: Bundle, store: Store, out: Path) -> list[Path]:
    name = b.stem
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
    return files


@contextmanager
def _folder_lock(out: Path) -> Iterator[None]:
    fd = os.open(out / ".kt-tui-export.lock", os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _move_in(staging: Path, out: Path, written: list[Path], sid: str) -> list[Path]:
    """The staged files moved into `out`, after the files of the export `out` held before (its
    manifest lists them) were removed; a new manifest."""
    names = [str(p.relative_to(staging)) for p in written]
    try:
        before = json.loads((out / MANIFEST).read_text()).get("files", [])
    except (OSError, ValueError, AttributeError):
        before = []
    for name in set(before) - set(names) if isinstance(before, list) else ():
        old = out / str(name)
        if out.resolve() in old.resolve().parents and old.is_file() and not old.is_symlink():
            old.unlink()
    moved = []
    for name in names:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        os.replace(staging / name, out / name)
        moved.append(out / name)
    write_output(out / MANIFEST, json.dumps({"session": sid, "files": names}) + "\n")
    return moved


def planned_files(b: Bundle, out: Path) -> list[Path]:
    name = b.stem
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
        "metrics": metrics(b.spec, r.time_ms, b.facts),
        "device": b.facts,
        "limits": limits(work_of(b.spec), r.time_ms, b.facts),
        "profile": b.profile_of(r),
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
    lines = [for_terminal(line) for line in lines]  # the session's words, from a database
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
