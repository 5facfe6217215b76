"""Nsight Compute on one configuration of a kernel: the child process (`python -m kt_tui.gpu.profile
JOB`, the scrubbed environment, the kernel run once at the spec's sizes, as the sanitizer's child
runs it) under `ncu` with the sections SpeedOfLight, Occupancy, WarpStateStats and
MemoryWorkloadAnalysis, one launch, a time limit; the report it wrote is read back twice (`--import`:
the raw page for the numbers, the details page for ncu's own rule advice) into a small summary: SM
and DRAM throughput (% of peak), achieved and theoretical occupancy, the top stall reasons (cycles
per issued instruction) and the rules. ncu absent, counters not permitted (ERR_NVGPUCTRPERM), or the
time up: a state and one line why, nothing else."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..kernel.spec import Spec, spec_from_plain
from .compile import find_cuda_tool
from .env import scrubbed_env
from .supervise import run_supervised
from .timeline import mark

SECTIONS = ("SpeedOfLight", "Occupancy", "WarpStateStats", "MemoryWorkloadAnalysis")
TIMEOUT_S = 120.0
IMPORT_TIMEOUT_S = 60.0
RAN = "kt-tui: the profiled kernel ran"
STATES = ("done", "absent", "denied", "timeout", "failed", "no_gpu", "recorded")
ABSENT = "Nsight Compute (ncu) not found on PATH or under CUDA's bin: no profiles (KT_TUI_NCU=PATH names it)"
OFF = "profiling is off (KT_TUI_NCU=0)"
DENIED = (
    "Nsight Compute may not read the GPU's performance counters here (ERR_NVGPUCTRPERM): an administrator "
    "allows it with the nvidia driver option NVreg_RestrictProfilingToAdminUsers=0; no profiles"
)
MAX_RULES = 4
MAX_RULE_TEXT = 500
MAX_ROWS = 2000  # of the details page: a few sections of one kernel are about 60
_STALL = re.compile(r"smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio")
# raw-page metric -> summary field
RAW = {
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "sm_pct",
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed": "dram_pct",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": "memory_pct",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed": "l2_pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "occupancy_achieved",
    "sm__maximum_warps_per_active_cycle_pct": "occupancy_theoretical",
    "smsp__average_warp_latency_per_inst_issued.ratio": "cycles_per_issue",
    "launch__registers_per_thread": "registers_per_thread",
    "dram__bytes.sum.per_second": "dram_bytes_per_s",
}
# details-page (section, metric) -> summary field, where the raw page lacks one
DETAILS = {
    ("GPU Speed Of Light Throughput", "Compute (SM) Throughput"): "sm_pct",
    ("GPU Speed Of Light Throughput", "DRAM Throughput"): "dram_pct",
    ("GPU Speed Of Light Throughput", "Memory Throughput"): "memory_pct",
    ("Occupancy", "Achieved Occupancy"): "occupancy_achieved",
    ("Occupancy", "Theoretical Occupancy"): "occupancy_theoretical",
    ("Warp State Statistics", "Warp Cycles Per Issued Instruction"): "cycles_per_issue",
}
_UNIT = {"": 1.0, "byte/s": 1.0, "kbyte/s": 1e3, "mbyte/s": 1e6, "gbyte/s": 1e9, "tbyte/s": 1e12}


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
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="kt-profile-") as tmp:
        job = Path(tmp, "job.json")
        job.write_text(json.dumps({"source": source, "spec": spec.to_dict(), "params": params, "backend": backend}))
        report = ProfileReport("failed")
        report.command = [
            exe,
            *(a for s in SECTIONS for a in ("--section", s)),
            "--launch-count",
            "1",
            "--kernel-name",
            f"regex:{kernel_base(spec.kernel)}",
            "--export",
            str(Path(tmp, "profile")),
            "--force-overwrite",
            sys.executable,
            "-m",
            "kt_tui.gpu.profile",
            str(job),
        ]
        try:  # the kernel's inputs may run user code: in a tree that is always killed
            code, out = run_supervised(report.command, timeout_s, env=env, cwd=tmp)
        except OSError as e:
            return ProfileReport("failed", f"cannot run {exe}: {e.strerror or e}")
        rep = Path(tmp, "profile.ncu-rep")
        if "ERR_NVGPUCTRPERM" in out:
            return ProfileReport("denied", DENIED, seconds=time.monotonic() - started, command=report.command)
        if code is None:
            return ProfileReport(
                "timeout", f"Nsight Compute did not finish within {timeout_s:g} s and was stopped", seconds=timeout_s
            )
        if not rep.is_file() or RAN not in out:
            said = " | ".join(ln.strip() for ln in out.splitlines() if ln.strip())[-400:]
            return ProfileReport("failed", f"ncu exit status {code}, no profile: {said}", command=report.command)
        pages = {}
        for page in ("raw", "details"):
            args = [
                exe,
                "--import",
                str(rep),
                "--csv",
                "--page",
                page,
                *(["--print-rule-details"] * (page == "details")),
            ]
            code, text = run_supervised(args, IMPORT_TIMEOUT_S, env=env, cwd=tmp)
            pages[page] = text if code == 0 else ""
    summary = summarize(pages["raw"], pages["details"])
    if not summary:
        return ProfileReport("failed", "ncu's report held none of the expected metrics", command=report.command)
    report.state, report.summary = "done", summary
    report.seconds = summary["seconds"] = round(time.monotonic() - started, 2)
    return report


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def _rows(text: str) -> list[list[str]]:
    """The CSV rows of an ncu page; the ==PROF== lines and anything before the header are dropped."""
    start = text.find('"ID"')
    if start < 0:
        return []
    rows = []
    for row in csv.reader(io.StringIO(text[start:])):
        rows.append(row)
        if len(rows) > MAX_ROWS:
            break
    return rows


def summarize(raw: str, details: str) -> dict[str, Any]:
    """The summary of one profiled kernel from ncu's raw and details pages (CSV); {} if neither has it."""
    out: dict[str, Any] = {}
    rows = _rows(raw)
    if len(rows) >= 3:
        head, units, values = rows[0], rows[1], rows[2]
        stalls = []
        for name, unit, value in zip(head, units, values):
            v = _number(value)
            if name == "Kernel Name" and value:
                out["kernel"] = value[:100]
            if v is None:
                continue
            if name in RAW:
                out[RAW[name]] = v * (_UNIT.get(unit.lower(), 1.0) if name.startswith("dram__bytes") else 1.0)
            elif (m := _STALL.fullmatch(name)) and m.group(1) != "selected":
                stalls.append((m.group(1).replace("_", " "), v))
        stalls.sort(key=lambda s: -s[1])
        if stalls:
            out["stalls"] = [[n, round(v, 2)] for n, v in stalls[:3] if v > 0]
    rules: list[dict[str, Any]] = []
    drows = _rows(details)
    for row in drows[1:]:
        cell = dict(zip(drows[0], row))
        key = (cell.get("Section Name", ""), cell.get("Metric Name", ""))
        if key in DETAILS and DETAILS[key] not in out and (v := _number(cell.get("Metric Value", ""))) is not None:
            out[DETAILS[key]] = v
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
    rules.sort(key=lambda r: (r["type"] != "OPT", -(r.get("speedup_pct") or 0)))
    if rules:
        out["rules"] = rules[:MAX_RULES]
    return out


def main(argv: list[str]) -> int:
    """The child: run the job's kernel once (under ncu)."""
    mark("profile child: up")
    from .worker.outputs import run_outputs  # in the profiled child process only

    job = json.loads(Path(argv[0]).read_text())
    spec = spec_from_plain(job["spec"])
    run_outputs(spec, job["source"], job["params"], None, job["backend"])
    print(f"{RAN} with {job['params']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
