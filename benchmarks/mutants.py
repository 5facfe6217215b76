"""How many wrong variants of each corpus kernel does its check catch? (issue 35)

For every kernel of tests/corpus/ with its hand spec (tests/corpus/specs/), kt-tui's mutants
(kernel/mutant.py) are made and sorted by nvcc (gpu/mutants_child.py: stillborn, equivalent, live). With
--gpu the check's test runs as `spec --check` runs it (gpu/checkrun.py check_strength: memcheck, the
original's runs, the mutants at the spec's size and every check size, stronger inputs for the
survivors, the survivors again at another block size) and the table gives, per kernel: mutants made,
equivalent (`pat`: of them, equivalent by construction, kernel/equivalent.py, each listed with its
reason), stillborn, counted, killed before and after strengthening, not run within the budget, the
mutants killed by hanging (each stopped after 20x the original's run at that size, 1 to 5 s, then a
new child: about 2 s more each), the
stronger inputs tried and kept, the seconds the test took, and each survivor ("a kernel with ...
would pass this check", with why such a mutant may survive); then where the test's
seconds went (KT_TUI_TRACE marks, gpu/timeline.py), from its start: memcheck of the original at every
size (in the app, beside the child), the child's start (python, kernel_tuner, the GPU), the original's
runs, the mutants at every size (of which the seconds they waited on nvcc), the memcheck of the
stronger cases and the survivors' runs on them. With --cli it also times the whole `kt-tui spec
KERNEL.cu --spec SPEC --check` per kernel (a fresh process: probe, compile check, test). Target
(issue 35): >= 90 % of the counted mutants killed after strengthening for every kernel with >= 10 of
them, `spec --check` <= 10 s.

Without --gpu (no GPU needed, nvcc only) it only makes and compiles the mutants.

usage: python benchmarks/mutants.py [--gpu [--backend B] [--cli]] [--out FILE] [--jobs N] [NAME ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
sys.path.insert(0, str(ROOT))

from kt_tui.engine.backend import BackendError, probe_order  # noqa: E402
from kt_tui.engine.strength import tried_text  # noqa: E402
from kt_tui.gpu import checkrun, timeline  # noqa: E402 - the checkout's kt_tui, whatever is installed
from kt_tui.gpu.compiles import CompilePool  # noqa: E402
from kt_tui.gpu.device.loaders import Ahead  # noqa: E402
from kt_tui.gpu.mutants_child import Kernels  # noqa: E402
from kt_tui.kernel.mutant import NoMutant, mutants  # noqa: E402
from kt_tui.kernel.spec import Spec, load_spec  # noqa: E402
from kt_tui.kernel.text import compile_options  # noqa: E402


def kernels(names: list[str]) -> list[tuple[str, Path, Path]]:
    out = []
    for spec in sorted((CORPUS / "specs").glob("*.cu.toml")):
        name = spec.name.removesuffix(".cu.toml")
        if not names or name in names:
            out.append((name, CORPUS / f"{name}.cu", spec))
    return out


def compile_only(name: str, kernel: Path, spec_path: Path, jobs: int | None) -> dict:
    spec = load_spec(spec_path)
    source = kernel.read_text()
    started = time.monotonic()
    try:
        made = mutants(source, spec.kernel, spec=spec)
    except NoMutant as e:
        return {"kernel": name, "error": str(e)}
    classes = sort_by_code(source, spec, made, jobs)
    kinds = sorted({m.kind for m in made})
    count = {k: sum(1 for c, _ in classes.values() if c == k) for k in ("live", "equivalent", "stillborn")}
    count["pattern"] = sum(1 for m in made if m.equivalent)  # never run by the check: not counted either
    return {
        "kernel": name,
        "made": len(made),
        **count,
        "kinds": len(kinds),
        "seconds": round(time.monotonic() - started, 1),
        "equivalent_list": [m.what for m in made if classes.get(m.id, ("",))[0] == "equivalent"],
        "pattern_list": [f"{m.what}: {m.equivalent}" for m in made if m.equivalent],
    }


def sort_by_code(source: str, spec: Spec, made: list, jobs: int | None) -> dict[str, tuple[str, str]]:
    """id -> ("live" | "equivalent" | "stillborn", why), each mutant compiled as the check's child
    compiles it (gpu/mutants_child.py Kernels, each kernel alone), here by nvcc for an sm_90."""
    pool = CompilePool("pycuda", "90", compile_options(spec.compiler_options), size=jobs, window=1 << 20, batch=1)
    compiled = Kernels(spec, Ahead(pool))
    try:
        for text in [source, *(m.source for m in made)]:
            compiled.compile_at(spec, text)
        sort = compiled.sorter(spec, source)
        return {m.id: sort(m.source) if compiled.text(m.source) else ("stillborn", "no kernel string") for m in made}
    finally:
        compiled.close()


def kernel_backend(backend: str, source: str, spec: Spec) -> str:
    """`backend`, or the product's first choice for a kernel `backend` cannot compile or pass arguments
    to (pycuda with cuda_fp16.h included: kt-tui refuses it there, and --backend auto never takes it)."""
    try:
        return probe_order(backend, source, spec.kernel, spec.compiler_options)[0]
    except BackendError:
        return probe_order("auto", source, spec.kernel, spec.compiler_options)[0]


def on_gpu(name: str, kernel: Path, spec_path: Path, backend: str, cli: bool) -> dict:
    spec = load_spec(spec_path)
    source = kernel.read_text()
    fd, trace = tempfile.mkstemp(prefix="kt-mutants-trace-")
    os.close(fd)
    os.environ["KT_TUI_TRACE"] = trace  # the check's child inherits it
    backend = kernel_backend(backend, source, spec)
    t0 = time.time()
    started = time.monotonic()
    try:
        state = checkrun.check_strength(source, spec, backend)
    except checkrun.OutOfBounds as e:
        return {"kernel": name, "error": f"out of bounds: {e}"}
    finally:
        del os.environ["KT_TUI_TRACE"]
    row = {
        "kernel": name,
        "backend": backend,
        "state": state.get("state"),
        "check_s": round(time.monotonic() - started, 1),
    }
    row["split"] = split(timeline.read(trace), t0)
    os.unlink(trace)
    if state.get("blame"):
        row["error"] = f"blamed: {state['blame']}"
    score = state.get("mutants") or {}
    row.update(
        made=score.get("made", 0),
        equivalent=len(score.get("equivalent") or []),
        pattern=[e for e in score.get("equivalent") or [] if SAME_CODE not in e],
        stillborn=len(score.get("stillborn") or []),
        counted=score.get("counted", 0),
        before=score.get("killed_before", 0),
        after=score.get("killed", 0),
        not_run=len(score.get("not_run") or []),
        hangs=len(score.get("hangs") or []),
        kept=[c["label"] for c in state.get("cases") or []],
        survivors=[[m["what"], m.get("why", "")] for m in score.get("survivors") or []],
        tried=score.get("strengthening") or [],
    )
    if cli:
        t = time.monotonic()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "kt_tui",
                "spec",
                str(kernel),
                "--spec",
                str(spec_path),
                "--check",
                "--backend",
                backend,
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        row["cli_s"] = round(time.monotonic() - t, 1)
        row["cli_exit"] = done.returncode
    return row


SAME_CODE = "compiles to the same code"  # gpu/mutants.py: an equivalent found by nvcc, not by its pattern
PARTS = ("memcheck", "child", "original", "mutants", "nvcc", "cases mc", "stronger", "surv mc")


def split(marks: list[tuple[float, int, str]], t0: float) -> dict[str, float]:
    """Where the check's seconds went, from the trace's marks (s from the test's start; parts overlap:
    memcheck runs in the app beside the child, and nvcc is the part of the mutants' seconds spent
    waiting on their compiles)."""

    def at(step: str, last: bool = False) -> float | None:
        hits = [t for t, _, s in marks if s.startswith(step)]
        return (hits[-1] if last else hits[0]) - t0 if hits else None

    def span(a: float | None, b: float | None) -> float:
        return round(b - a, 1) if a is not None and b is not None else 0.0

    imports, ran = at("check child: imports done"), at("check child: ran ", last=True)
    mutants, stronger = at("check child: mutants done", last=True), at("check child: strengthening done", last=True)
    cases = at("main: check memcheck of", last=True)  # the cases that killed: from the check sizes' runs' end
    small = at("check child: stronger inputs at the check sizes done", last=True) or mutants
    waited = sum(float(s.split()[3]) for _, _, s in marks if s.startswith("check child: waited"))
    return {
        "memcheck": span(0.0, at("main: check memcheck done")),
        "child": span(0.0, imports),
        "original": span(imports, ran),
        "mutants": span(ran, mutants),
        "nvcc": round(waited, 1),
        "cases mc": span(max(filter(None, (at("main: check memcheck done"), small)), default=None), cases),
        "stronger": span(mutants, stronger),
        "surv mc": span(stronger or mutants, at("main: memcheck of", last=True)),  # once the child's runs ended
    }


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.0f}%" if b else "-"


def table(rows: list[dict], gpu: bool) -> list[str]:
    if not gpu:
        head = f"{'kernel':<20} {'mutants':>7} {'live':>5} {'equiv':>5} {'pat':>3} {'stillb':>6} {'kinds':>5} {'nvcc s':>7}"
        lines = [head, "-" * len(head)]
        for r in rows:
            if "error" in r:
                lines.append(f"{r['kernel']:<20} {r['error']}")
                continue
            lines.append(
                f"{r['kernel']:<20} {r['made']:>7} {r['live']:>5} {r['equivalent']:>5} {r['pattern']:>3} "
                f"{r['stillborn']:>6} {r['kinds']:>5} {r['seconds']:>7}"
            )
            lines += [f"{'':<22}equivalent by construction: {e}" for e in r["pattern_list"]]
        made = sum(r.get("made", 0) for r in rows)
        equiv = sum(r.get("equivalent", 0) for r in rows)
        still = sum(r.get("stillborn", 0) for r in rows)
        pattern = sum(r.get("pattern", 0) for r in rows)
        lines += [
            "",
            f"{len(rows)} kernels, {made} mutants: {equiv} equivalent ({pattern} by pattern), {still} stillborn",
        ]
        return lines
    head = (
        f"{'kernel':<20} {'made':>4} {'eq':>3} {'pat':>3} {'sb':>3} {'count':>5} {'before':>7} {'after':>7} {'norun':>5} {'hangs':>5} "
        f"{'check s':>7}" + (f" {'cli s':>6}" if any("cli_s" in r for r in rows) else "")
    )
    lines = [head, "-" * len(head)]
    short = []
    for r in rows:
        if "error" in r and not r.get("counted"):
            lines.append(f"{r['kernel']:<20} {r['error'][:200]}")
            continue
        line = (
            f"{r['kernel']:<20} {r['made']:>4} {r['equivalent']:>3} {len(r['pattern']):>3} {r['stillborn']:>3} {r['counted']:>5} "
            f"{pct(r['before'], r['counted']):>7} {pct(r['after'], r['counted']):>7} {r['not_run']:>5} {r.get('hangs', 0):>5} "
            f"{r['check_s']:>7}"
        )
        if "cli_s" in r:
            line += f" {r['cli_s']:>6}" + ("" if r["cli_exit"] == 0 else f" (exit {r['cli_exit']})")
        lines.append(line)
        if r.get("split"):
            said = ", ".join(f"{k} {r['split'][k]}" for k in PARTS)
            lines.append(f"{'':<22}seconds in: {said} (backend {r['backend']})")
        lines += [f"{'':<22}equivalent by construction: {e}" for e in r["pattern"]]
        for t in r["tried"]:
            lines.append(f"{'':<22}{tried_text(t)}")
        for what, why in r["survivors"]:
            lines.append(f"{'':<22}survives: a kernel with {what} would pass this check ({why})")
        if r["counted"] >= 10 and r["after"] < 0.9 * r["counted"]:
            short.append(r["kernel"])
    scored = [r for r in rows if r.get("counted", 0) >= 10]
    slow = [r["kernel"] for r in rows if max(r.get("check_s", 0), r.get("cli_s", 0)) > 10]
    lines += [
        "",
        f"{len(scored)} kernels with >= 10 counted mutants; {len(short)} below 90 % after strengthening: "
        f"{', '.join(short) or 'none'}",
        f"over 10 s: {', '.join(slow) or 'none'}",
    ]
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="corpus kernels (default: all with a hand spec)")
    ap.add_argument("--gpu", action="store_true", help="run the check's test on this machine's GPU")
    ap.add_argument("--backend", default="pycuda", help="the GPU backend (default pycuda)")
    ap.add_argument("--cli", action="store_true", help="also time `kt-tui spec --check` in a fresh process")
    ap.add_argument("--jobs", type=int, default=None, help="nvcc processes at once (default: every core but one)")
    ap.add_argument("--out", type=Path, help="also write the table (and FILE.json with every row) here")
    args = ap.parse_args()
    rows = []
    for name, kernel, spec in kernels(args.names):
        row = (
            on_gpu(name, kernel, spec, args.backend, args.cli)
            if args.gpu
            else compile_only(name, kernel, spec, args.jobs)
        )
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    lines = table(rows, args.gpu)
    print("\n".join(lines))
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")
        args.out.with_suffix(".json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
