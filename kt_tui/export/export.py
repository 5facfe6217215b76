"""Write a session's results to a folder: the best kernel standalone, its spec, a JSON summary, the
inputs, a kernel_tuner script, kernel_tuner caches and a report."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import replace
from pathlib import Path

from ..files import check_out_dir, open_output, refuse_existing, write_output
from ..kernel.spec import dump_spec
from ..records import Result
from ..store import Store
from .bundle import Bundle, ExportError, load_bundle, metrics, spec_of
from .inputs import write_inputs
from .report import PLOT, write_report
from .script import write_script


def export_session(store: Store, sid: str, out_dir: str | Path, force: bool = False) -> dict:
    """Write every file; returns {"session", "out", "files": [paths], "best": {...}}. Refuses the root
    folder, an empty path, and (unless `force`) a folder holding any file it would write."""
    b = load_bundle(store, sid)
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
    files = [
        _write(out / f"{name}.best.cu", best_source(b)),
        _write(out / f"{name}.best.cu.toml", dump_spec(replace(b.spec, defaults=dict(b.best.params)))),
        _write(out / f"{name}.best.json", json.dumps(best_summary(b), indent=2) + "\n"),
        write_inputs(b, out / f"{name}.inputs.npz"),
        write_script(b, out / f"tune_{name}.py", f"{name}.inputs.npz"),
        *write_caches(b, store, out / "cache"),
        *write_report(b, out, store),
    ]
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
        *(out / "cache" / f"{name}-{v['id']}.json" for v in b.tuned()),
        out / "cache" / f"{name}-{b.best.version}.t4.json",
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


def write_caches(b: Bundle, store: Store, folder: Path) -> list[Path]:
    """One kernel_tuner cachefile per version tuned (copied when it is on disk, else rebuilt from
    the stored results), and kernel_tuner's T4 results file of the best version."""
    folder.mkdir(exist_ok=True)
    written = []
    runs = b.data.runs()
    t4 = folder / f"{b.name}-{b.best.version}.t4.json"
    with T4File(t4, b.spec.tune_params) as best_rows:
        for v in b.tuned():
            path = folder / f"{b.name}-{v['id']}.json"
            rows = b.results(v["id"])
            if v["id"] == b.best.version:  # one pass over the best version's rows writes both files
                rows = _tap(rows, best_rows)
            on_disk = [Path(r.cachefile) for r in runs if r.version == v["id"] and r.cachefile]
            src = next((p for p in on_disk if p.is_file()), None)
            if src is not None and _is_cache(src):
                with open(src, "rb") as fin, open_output(path, binary=True) as fout:
                    while chunk := fin.read(1 << 22):
                        fout.write(chunk)
                for _ in rows:
                    pass
            else:
                write_cache(path, _cache_header(b, v), _cache_entries(rows))
            written.append(path)
    return written + [t4]


def write_cache(path: Path, header: dict, entries) -> None:
    """A kernel_tuner cachefile as kernel_tuner writes one: the header, then one entry a line."""
    with open_output(path) as f:
        f.write(json.dumps(header, indent="")[:-2] + ',\n"cache": {')
        for i, (key, entry) in enumerate(entries):
            f.write(("," if i else "") + "\n" + json.dumps({key: entry})[1:-1])
        f.write("\n}\n}\n")


class T4File:
    """kernel_tuner's T4 results file, built by its own get_t4_results a chunk at a time (its
    store_output_file needs every result in memory and encodes them with Python's slow encoder)."""

    def __init__(self, path: Path, tune_params: dict, chunk: int = 5000):
        from ..gpu.ktimport import load  # here: the UI imports export; kernel_tuner loads on use

        load()
        from kernel_tuner.file_utils import get_t4_results  # after load(): kernel_tuner without torch
        from kernel_tuner.util import NpEncoder  # after load(), as above

        self.t4, self.encoder = get_t4_results, NpEncoder
        self.path, self.tune_params, self.chunk = path, tune_params, chunk
        self.part: list = []
        self.first = True

    def __enter__(self) -> T4File:
        self.f = open_output(self.path)
        self.f.write('{"results": [')
        return self

    def add(self, result: dict) -> None:
        self.part.append(result)
        if len(self.part) >= self.chunk:
            self._flush()

    def _flush(self) -> None:
        if self.part:
            body = json.dumps(self.t4(self.part, self.tune_params, "time")["results"], cls=self.encoder)[1:-1]
            self.f.write(("" if self.first else ", ") + body)
            self.first, self.part = False, []

    def __exit__(self, *exc) -> None:
        try:
            if exc[0] is None:
                self._flush()
                head = self.t4([], self.tune_params, "time")
                self.f.write(
                    "], " + json.dumps({k: v for k, v in head.items() if k != "results"}, cls=self.encoder)[1:] + "\n"
                )
        finally:
            self.f.close()


def _tap(rows, t4: T4File):
    """The rows, each measured one also added to the T4 file on its way."""
    for r in rows:
        if r.ok:
            t4.add(_kt_result(r))
        yield r


def _is_cache(path: Path) -> bool:
    try:
        return isinstance(json.loads(path.read_text(encoding="utf-8")).get("cache"), dict)
    except (OSError, ValueError, AttributeError):
        return False


def _kt_result(r: Result) -> dict:
    return {
        **r.params,
        "time": r.time_ms,
        "times": list(r.times or []),
        "compile_time": r.compile_ms or 0,
        "benchmark_time": 0,
        "framework_time": 0,
        "strategy_time": 0,
        "verification_time": 0,
        "timestamp": r.timestamp,
    }


def _cache_header(b: Bundle, v: dict) -> dict:
    spec = spec_of(v)
    return {
        "device_name": b.session["gpu"],
        "kernel_name": spec.kernel,
        "problem_size": spec.problem_size_values(),
        "tune_params_keys": list(spec.tune_params),
        "tune_params": spec.tune_params,
        "objective": "time",
        "kt_tui": {"session": b.sid, "kernel_version": v["id"], "backend": b.session["backend"]},
    }


def _cache_entries(rows):
    for r in rows:
        entry = _kt_result(r)
        if not r.ok:
            entry["time"] = {"compile_error": "CompilationFailedConfig", "invalid": "InvalidConfig"}.get(
                r.status, "RuntimeFailedConfig"
            )
        yield r.key, entry
