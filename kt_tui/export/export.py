"""Write a session's results to a folder: the best kernel standalone, its spec, a JSON summary, the
inputs, a kernel_tuner script, kernel_tuner caches and a report."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..files import check_out_dir, open_output, refuse_existing, write_output
from ..kernel.inputs import make_args
from ..kernel.spec import dump_spec
from ..store import Store
from .bundle import Bundle, ExportError, load_bundle, metrics, spec_of
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
        _write(out / f"{name}.best.cu.toml", dump_spec(replace(b.spec, defaults=dict(b.best["params"])))),
        _write(out / f"{name}.best.json", json.dumps(best_summary(b), indent=2) + "\n"),
        write_inputs(store, b, out / f"{name}.inputs.npz"),
        write_script(b, out / f"tune_{name}.py", f"{name}.inputs.npz"),
        *write_caches(b, store, out / "cache"),
        *write_report(b, out, store),
    ]
    return {"session": b.sid, "out": str(out), "files": [str(f) for f in files], "best": best_summary(b)}


def planned_files(b: Bundle, out: Path) -> list[Path]:
    name, tuned = b.name, {r["version"] for r in b.results}
    return [out / f"{name}.best.cu", out / f"{name}.best.cu.toml", out / f"{name}.best.json",
            out / f"{name}.inputs.npz", out / f"tune_{name}.py", out / "report.md", out / PLOT, out / "report.html",
            *(out / "cache" / f"{name}-{v['id']}.json" for v in b.versions if v["id"] in tuned),
            out / "cache" / f"{name}-{b.best['version']}.t4.json"]


def _write(path: Path, text: str) -> Path:
    return write_output(path, text)


def best_summary(b: Bundle) -> dict:
    r, s = b.best, b.session
    checks = [{"label": c["label"], "ok": c["ok"], "status": c["status"], "reason": c["reason"]}
              for c in b.checks if c["version"] == r["version"] and c["key"] == r["key"]]
    return {"session": b.sid, "kernel": b.name, "params": r["params"], "time_ms": r["time_ms"],
            "baseline_ms": s["baseline_ms"], "speedup": b.speedup, "gpu": s["gpu"], "backend": s["backend"],
            "simulated": bool(s["simulated"]), "kernel_version": r["version"], "verified": r["verified"],
            "max_abs_err": r["max_abs_err"], "verdicts": r["verdicts"], "checks": checks, **b.launch(),
            "metrics": metrics(b.spec, r["time_ms"])}


def best_source(b: Bundle) -> str:
    """The best version with its parameters as #defines (guarded, so kernel_tuner's own still win)."""
    launch = b.launch()
    speed = f"{b.speedup:.2f}x over the original" if b.speedup else "speedup unknown"
    sim = " (SIMULATED: replayed from a recorded cache)" if b.session["simulated"] else ""
    lines = [f"// {b.name}: best kernel of kt-tui session {b.sid}",
             f"// GPU: {_one_line(b.session['gpu'])}{sim}, backend {b.session['backend']}",
             f"// time: {b.best['time_ms']:.4f} ms, {speed}; kernel version {b.best['version']}",
             f"// launch: grid {tuple(launch['grid'])}, block {tuple(launch['block'])} at sizes "
             + ", ".join(f"{k}={v}" for k, v in b.spec.sizes.items()),
             f"// parameters: {json.dumps(b.best['params'])}", ""]
    for k, v in b.best["params"].items():
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


def write_inputs(store: Store, b: Bundle, path: Path) -> Path:
    """The arguments at the spec's sizes (the same seeds kt-tui used) and, when stored, the
    original kernel's reference outputs."""
    arrays = {f"arg{i}": np.asarray(a) for i, a in enumerate(make_args(b.spec))}
    ref = store.reference(b.sid, b.original["id"])
    for i, a in enumerate(b.spec.args):
        if a.output and ref and a.name in ref:
            arrays[f"answer{i}"] = np.asarray(ref[a.name])
    with open_output(path, binary=True) as f:
        np.savez(f, **arrays)
    return path


def write_caches(b: Bundle, store: Store, folder: Path) -> list[Path]:
    """One kernel_tuner cachefile per version tuned (copied when it is on disk, else rebuilt from
    the stored results), and kernel_tuner's T4 results file of the best version."""
    folder.mkdir(exist_ok=True)
    written = []
    runs = store.runs(b.sid)
    for v in b.versions:
        rows = [r for r in b.results if r["version"] == v["id"]]
        if not rows:
            continue
        path = folder / f"{b.name}-{v['id']}.json"
        on_disk = [Path(r["cachefile"]) for r in runs if r["version"] == v["id"] and r.get("cachefile")]
        src = next((p for p in on_disk if p.is_file()), None)
        if src is not None and _is_cache(src):
            write_output(path, src.read_bytes())
        else:
            _write(path, json.dumps(_cache_json(b, v, rows), indent=1))
        written.append(path)
    from ..gpu.ktimport import load  # here: the UI imports export; kernel_tuner loads on use
    load()
    from kernel_tuner.file_utils import store_output_file  # after load(): kernel_tuner without torch
    best_rows = [r for r in b.results if r["version"] == b.best["version"] and r["status"] == "ok"]
    t4 = folder / f"{b.name}-{b.best['version']}.t4.json"
    store_output_file(str(t4), [_kt_result(r) for r in best_rows], b.spec.tune_params)
    return written + [t4]


def _is_cache(path: Path) -> bool:
    try:
        return isinstance(json.loads(path.read_text(encoding="utf-8")).get("cache"), dict)
    except (OSError, ValueError, AttributeError):
        return False


def _kt_result(r: dict) -> dict:
    return {**r["params"], "time": r["time_ms"], "times": r["times"] or [], "compile_time": r["compile_ms"] or 0,
            "benchmark_time": 0, "framework_time": 0, "strategy_time": 0, "verification_time": 0,
            "timestamp": r["created"]}


def _cache_json(b: Bundle, v: dict, rows: list[dict]) -> dict:
    spec = spec_of(v)
    cache = {}
    for r in rows:
        entry = _kt_result(r)
        if r["status"] != "ok" or r["time_ms"] is None:
            entry["time"] = {"compile_error": "CompilationFailedConfig", "invalid": "InvalidConfig"}.get(
                r["status"], "RuntimeFailedConfig")
        cache[r["key"]] = entry
    return {"device_name": b.session["gpu"], "kernel_name": spec.kernel, "problem_size": spec.problem_size_values(),
            "tune_params_keys": list(spec.tune_params), "tune_params": spec.tune_params, "objective": "time",
            "kt_tui": {"session": b.sid, "kernel_version": v["id"], "backend": b.session["backend"]},
            "cache": cache}
