"""Nsight Compute on one configuration of a kernel: the child process (`python -m kt_tui.gpu.profile
JOB`, the scrubbed environment, the kernel run once at the spec's sizes, as the sanitizer's child
runs it) under `ncu` with the sections SpeedOfLight, Occupancy, WarpStateStats and
MemoryWorkloadAnalysis, one launch, a time limit. ncu prints its details page (CSV) when the child
has ended; with the stall reasons and the registers asked for by name (`--metrics`, collected by the
sections' own passes anyway) that one page holds the whole summary: SM and DRAM throughput (% of
peak), achieved and theoretical occupancy, the top stall reasons (cycles per issued instruction) and
ncu's rules. One ncu process, no report file read back. ncu absent, counters not permitted
(ERR_NVGPUCTRPERM), or the time up: a state and one line why, nothing else.

ncu's options beside the sections: `--target-processes application-only` (nvcc and its tools,
started by the child's compile, run without ncu's injection); `--clock-control none` (ncu locks the
GPU at its base clocks by default, 1.59 GHz where an H100 boosts to 1.98: the kernel runs at the
clocks kernel_tuner timed it at, its Duration comparable to kernel_tuner's time; the throughputs
are shares of the peak at the clock it ran, so they hardly move); the cache control stays ncu's
default (`all`: the caches flushed before each replay pass, so that every pass starts from the same
cold caches and the counters of different passes describe the same run).

Where a profile's seconds go is stored with it (`split`): ncu's start to the child's first line
(ncu, its injection, the interpreter), the child's imports (its compile starts first, in threads),
the inputs, the run (the CUDA context, the copies, the compile's rest and ncu's replay `passes`),
and from the child's end to ncu's (ncu's rules and its page)."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import sys
import tempfile
import time
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..kernel.spec import Spec, spec_from_plain
from ..kernel.text import compile_options
from .compile import find_cuda_tool
from .env import scrubbed_env
from .supervise import run_supervised
from .timeline import mark

SECTIONS = ("SpeedOfLight", "Occupancy", "WarpStateStats", "MemoryWorkloadAnalysis")
METRICS = (  # shown under "Command line profiler metrics" on the details page
    r"regex:^smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active\.ratio$",
    "launch__registers_per_thread",
    "dram__bytes.sum.per_second",
)
OPTIONS = ("--target-processes", "application-only", "--clock-control", "none")
TIMEOUT_S = 120.0
RAN = "kt-tui: the profiled kernel ran"
STAMP = "kt-tui: at"  # the child's "kt-tui: at SECONDS STEP" lines (time.monotonic: one clock for the machine)
STEPS = ("up", "imported", "inputs", "ran")
SPLIT = ("ncu_start", "imports", "inputs", "run", "ncu_end")  # the time from each step (and the start) to the next
STATES = ("done", "absent", "denied", "timeout", "failed", "no_gpu", "recorded")
ABSENT = "Nsight Compute (ncu) not found on PATH or under CUDA's bin: no profiles (KT_TUI_NCU=PATH names it)"
OFF = "profiling is off (KT_TUI_NCU=0)"
DENIED = (
    "Nsight Compute may not read the GPU's performance counters here (ERR_NVGPUCTRPERM): an administrator "
    "allows it with the nvidia driver option NVreg_RestrictProfilingToAdminUsers=0; no profiles"
)
MAX_RULES = 4
MAX_RULE_TEXT = 500
MAX_ROWS = 2000  # of the details page: four sections of one kernel are about 70
CMDLINE = "Command line profiler metrics"
_STALL = re.compile(r"smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio")
_PASSES = re.compile(r"==PROF== Profiling .* - (\d+) pass")
_STAMPED = re.compile(rf"^{STAMP} (\d+\.\d+) (\w+)$", re.M)
# metric asked for by name -> summary field
NAMED = {
    "launch__registers_per_thread": "registers_per_thread",
    "dram__bytes.sum.per_second": "dram_bytes_per_s",
}
# (section, metric) of the details page -> summary field
DETAILS = {
    ("GPU Speed Of Light Throughput", "Compute (SM) Throughput"): "sm_pct",
    ("GPU Speed Of Light Throughput", "DRAM Throughput"): "dram_pct",
    ("GPU Speed Of Light Throughput", "Memory Throughput"): "memory_pct",
    ("GPU Speed Of Light Throughput", "L2 Cache Throughput"): "l2_pct",
    ("Occupancy", "Achieved Occupancy"): "occupancy_achieved",
    ("Occupancy", "Theoretical Occupancy"): "occupancy_theoretical",
    ("Warp State Statistics", "Warp Cycles Per Issued Instruction"): "cycles_per_issue",
    ("Memory Workload Analysis", "Memory Throughput"): "dram_bytes_per_s",
}
_UNIT = {"byte/s": 1.0, "kbyte/s": 1e3, "mbyte/s": 1e6, "gbyte/s": 1e9, "tbyte/s": 1e12}


@dataclass
class ProfileReport:
    state: str  # one of STATES
    reason: str = ""
    summary: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    command: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def find_ncu() -> str | None:
    """ncu from KT_TUI_NCU (a path; 0 turns profiling off), on PATH or under CUDA's bin."""
    named = os.environ.get("KT_TUI_NCU", "")
    if named == "0":
        return None
    if named:
        return named if os.path.isfile(named) and os.access(named, os.X_OK) else None
    return find_cuda_tool("ncu")


def kernel_base(name: str) -> str:
    """The function's name as ncu's default kernel-name base shows it ("vector_add<float>" -> "vector_add")."""
    return re.split(r"[<(\s]", name.split("::")[-1], maxsplit=1)[0]


def profile(
    source: str, spec: Spec, params: dict, backend: str, timeout_s: float = TIMEOUT_S, device: str | None = None
) -> ProfileReport:
    """Profile one run of `source` at `params` and the spec's sizes (see the module's doc)."""
    if backend in (None, "sim", "none"):
        return ProfileReport("no_gpu", "no GPU in this session: Nsight Compute profiles a kernel run on a real GPU")
    exe = find_ncu()
    if exe is None:
        return ProfileReport("absent", OFF if os.environ.get("KT_TUI_NCU") == "0" else ABSENT)
    env = scrubbed_env(PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    if device is not None:
        env["CUDA_VISIBLE_DEVICES"] = device
    with tempfile.TemporaryDirectory(prefix="kt-profile-") as tmp:
        job = Path(tmp, "job.json")
        job.write_text(json.dumps({"source": source, "spec": spec.to_dict(), "params": params, "backend": backend}))
        command = [
            exe,
            *(a for s in SECTIONS for a in ("--section", s)),
            "--metrics",
            ",".join(METRICS),
            *OPTIONS,
            "--launch-count",
            "1",
            "--kernel-name",
            f"regex:{kernel_base(spec.kernel)}",
            "--csv",
            "--page",
            "details",
            "--print-units",
            "base",
            sys.executable,
            "-m",
            "kt_tui.gpu.profile",
            str(job),
        ]
        started = time.monotonic()
        try:  # the kernel's inputs may run user code: in a tree that is always killed
            code, out = run_supervised(command, timeout_s, env=env, cwd=tmp)
        except OSError as e:
            return ProfileReport("failed", f"cannot run {exe}: {e.strerror or e}")
    ended = time.monotonic()
    if "ERR_NVGPUCTRPERM" in out:
        return ProfileReport("denied", DENIED, seconds=ended - started, command=command)
    if code is None:
        return ProfileReport(
            "timeout", f"Nsight Compute did not finish within {timeout_s:g} s and was stopped", seconds=timeout_s
        )
    summary = summarize(out) if RAN in out else {}
    if not summary:
        said = " | ".join(ln.strip() for ln in out.splitlines() if ln.strip())[-400:]
        return ProfileReport("failed", f"ncu exit status {code}, no profile: {said}", command=command)
    summary |= split(out, started, ended)
    summary["seconds"] = round(ended - started, 2)
    return ProfileReport("done", summary=summary, seconds=summary["seconds"], command=command)


def split(out: str, started: float, ended: float) -> dict[str, Any]:
    """Where the seconds went, from the child's stamps and ncu's pass count (module doc); {} when the
    child stamped nothing."""
    at: dict[str, float] = {}
    for t, step in _STAMPED.findall(out):
        at.setdefault(step, float(t))
    marks = [("start", started), *((s, at[s]) for s in STEPS if s in at), ("end", ended)]
    if len(marks) == 2 or any(b[1] < a[1] for a, b in zip(marks, marks[1:])):
        return {}  # no stamps, or not from this machine's clock
    names = dict(zip((*STEPS, "end"), SPLIT))
    out_split = {names[b[0]]: round(b[1] - a[1], 2) for a, b in zip(marks, marks[1:])}
    passes = _PASSES.search(out)
    return {"split": out_split} | ({"passes": int(passes.group(1))} if passes else {})


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def _rows(text: str) -> list[dict[str, str]]:
    """The CSV rows of ncu's page, from its header on (what the child printed before it is dropped)."""
    start = text.rfind('"ID","')
    if start < 0:
        return []
    reader = csv.reader(io.StringIO(text[start:]))
    head = next(reader)
    rows = []
    for row in reader:
        rows.append(dict(zip(head, row)))
        if len(rows) > MAX_ROWS:
            break
    return rows


def summarize(page: str) -> dict[str, Any]:
    """The summary of one profiled kernel from ncu's details page (CSV); {} if it holds none."""
    out: dict[str, Any] = {}
    stalls = []
    rules: list[dict[str, Any]] = []
    for cell in _rows(page):
        section, metric, unit = cell.get("Section Name", ""), cell.get("Metric Name", ""), cell.get("Metric Unit", "")
        if cell.get("Kernel Name") and "kernel" not in out:
            out["kernel"] = cell["Kernel Name"][:100]
        v = _number(cell.get("Metric Value", ""))
        field_name = NAMED.get(metric) if section == CMDLINE else DETAILS.get((section, metric))
        if v is not None and field_name == "dram_bytes_per_s":
            v = v * _UNIT[unit.lower()] if unit.lower() in _UNIT else None
        if v is not None and field_name and (section == CMDLINE or field_name not in out):
            out[field_name] = v  # a metric asked for by name over a section's row of the same
        elif v is not None and section == CMDLINE and (m := _STALL.fullmatch(metric)) and m.group(1) != "selected":
            stalls.append((m.group(1).replace("_", " "), v))
        text = " ".join(cell.get("Rule Description", "").split())
        if not cell.get("Rule Name") or cell.get("Rule Type") not in ("OPT", "INF", "WRN") or not text:
            continue
        if "could not be found" in text:  # ncu on a metric it did not collect, not on the kernel
            continue
        speedup = _number(cell.get("Estimated Speedup", ""))
        rules.append(
            {"rule": cell["Rule Name"][:60], "type": cell["Rule Type"], "text": text[:MAX_RULE_TEXT]}
            | ({"speedup_pct": speedup} if speedup is not None else {})
        )
    if not any(k in out for k in DETAILS.values()):
        return {}
    stalls.sort(key=lambda s: -s[1])
    if stalls:
        out["stalls"] = [[n, round(v, 2)] for n, v in stalls[:3] if v > 0]
    rules.sort(key=lambda r: (r["type"] != "OPT", -(r.get("speedup_pct") or 0)))
    if rules:
        out["rules"] = rules[:MAX_RULES]
    return out


def _stamp(step: str) -> None:
    print(f"{STAMP} {time.monotonic():.3f} {step}", flush=True)


def main(argv: list[str]) -> int:
    """The child: run the job's kernel once (under ncu); its compile starts first, in threads, while
    the rest loads and the inputs are made (gpu/device/loaders.py Ahead)."""
    _stamp("up")
    mark("profile child: up")
    from ..kernel.inputs import allow_user_code, make_args  # in the profiled child process only
    from .device.loaders import Ahead  # in the profiled child process only: the CUDA driver

    job = json.loads(Path(argv[0]).read_text())
    spec, backend = spec_from_plain(job["spec"]), job["backend"]
    early = None
    if backend in ("pycuda", "nvcuda"):
        from .ktsource import kernel_string  # kernel_tuner's source modules

        try:
            named = [kernel_string(spec, job["source"], job["params"])]
        except Exception:  # noqa: BLE001 - it fails where it runs, as kernel_tuner says it
            named = []
        early = Ahead.start(backend, compile_options(spec.compiler_options), named)
    from .device.outputs import run_arrays  # numpy, kernel_tuner and the backend

    allow_user_code()  # the spec's inputs may be the user's functions, as in the GPU worker
    _stamp("imported")
    args = make_args(spec, spec.sizes)
    _stamp("inputs")
    try:
        with early.serving() if early is not None else nullcontext():
            run_arrays(spec, job["source"], job["params"], None, backend, args)
    finally:
        if early is not None:
            early.close()
    _stamp("ran")
    print(f"{RAN} with {job['params']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
