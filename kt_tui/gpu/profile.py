"""Nsight Compute on configurations of a kernel, all of a tune run's targets in one ncu process: the
child process (`python -m kt_tui.gpu.profile JOB`, the scrubbed environment) loads each target's
binary from the session's compile pool (gpu/compiling.py binaries: a tuned configuration's is in
its cache; one it has not is compiled in the child by kernel_tuner), makes each input set (once per
spec) and runs each kernel once at the spec's sizes, as the sanitizer's child runs it, under `ncu`
with the sections SpeedOfLight, Occupancy, WarpStateStats and MemoryWorkloadAnalysis, one launch
per target (`--launch-count`, the kernels' names as the filter), a time limit per target. ncu prints
its details page (CSV) when the child has ended, one result ID per profiled launch, in launch order: the k-th result belongs to the k-th
target the child says ran. With the stall reasons and the registers asked for by name (`--metrics`,
collected by the sections' own passes anyway) that page holds each whole summary: SM and DRAM
throughput (% of peak), achieved and theoretical occupancy, the top stall reasons (cycles per issued
instruction) and ncu's rules. No report file read back. A target that fails in the child is that
target's failure only; targets the child never reached (it died) get one more ncu process of their
own. ncu absent, counters not permitted (ERR_NVGPUCTRPERM), or the time up: every target a state
and one line why, nothing else.

ncu's options beside the sections: `--target-processes application-only` (nvcc and its tools,
started by a compile in the child, run without ncu's injection); `--clock-control none` (ncu locks the
GPU at its base clocks by default, 1.59 GHz where an H100 boosts to 1.98: the kernel runs at the
clocks kernel_tuner timed it at, its Duration comparable to kernel_tuner's time; the throughputs
are shares of the peak at the clock it ran, so they hardly move); the cache control stays ncu's
default (`all`: the caches flushed before each replay pass, so that every pass starts from the same
cold caches and the counters of different passes describe the same run).

Where a profile's seconds go is stored with it (`split`): ncu's start to the child's first line
(ncu, its injection, the interpreter), the child's imports, the inputs, the run (the CUDA context,
the copies, a compile where the pool gave no binary, and ncu's replay `passes`),
and from the child's last target to ncu's end (ncu's rules and its page). The parts before the first
target and after the last are shared: each of the process's `targets` profiles holds its equal share
of them, and its own inputs and run; its `seconds` is the sum, so that the profiles of one process
add up to its wall time."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..kernel.spec import Spec, spec_from_plain
from ..words import counted
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
RAN = "kt-tui: the profiled kernel ran"  # "RAN (target I) with PARAMS"
FAILED = "kt-tui: the profiled kernel failed"  # "FAILED (target I): WHY"
STAMP = "kt-tui: at"  # the child's "kt-tui: at SECONDS STEP [TARGET]" lines (time.monotonic: one clock for the machine)
STEPS = ("up", "imported", "inputs", "ran")  # inputs and ran once per target; "failed" ends a target too
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
MAX_ROWS = 2000  # of the details page: four sections of one kernel are about 70 rows
CMDLINE = "Command line profiler metrics"
_STALL = re.compile(r"smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio")
_PASSES = re.compile(r"==PROF== Profiling .* - (\d+) pass")
_STAMPED = re.compile(rf"^{STAMP} (\d+\.\d+) (\w+)(?: (\d+))?$", re.M)
_ENDED = re.compile(rf"^(?:{RAN}|{FAILED}) \(target (\d+)\)(?: with .*|: (.*))$", re.M)
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


@dataclass
class Target:
    """One configuration to profile: the kernel's source and spec, and its parameters."""

    source: str
    spec: Spec
    params: dict

    def job(self) -> dict[str, Any]:
        return {"source": self.source, "spec": self.spec.to_dict(), "params": self.params}


def profile(
    source: str, spec: Spec, params: dict, backend: str, timeout_s: float = TIMEOUT_S, device: str | None = None
) -> ProfileReport:
    """Profile one run of `source` at `params` and the spec's sizes (see the module's doc)."""
    return profile_all([Target(source, spec, params)], backend, timeout_s, device)[0]


def profile_all(
    targets: list[Target],
    backend: str,
    timeout_s: float = TIMEOUT_S,
    device: str | None = None,
    binaries: Callable[[], list] = list,
) -> list[ProfileReport]:
    """Profile each target once, all in one ncu process (the module's doc), `timeout_s` per target;
    one report per target, in order. Targets of the same configuration share one profile.
    `binaries()`: (options, kernel string, binary, symbol) from the session's compile pool
    (gpu/compiling.py), which the child loads; asked for once ncu is found."""
    keys = [json.dumps(t.job(), sort_keys=True) for t in targets]
    distinct = list(dict.fromkeys(keys))
    reports = _profile_distinct(
        [targets[keys.index(k)] for k in distinct], backend, timeout_s, device, again=True, binaries=binaries
    )
    by_job = dict(zip(distinct, reports))
    return [by_job[k] for k in keys]


def _profile_distinct(
    targets: list[Target], backend: str, timeout_s: float, device: str | None, again: bool, binaries: Callable[[], list]
) -> list[ProfileReport]:
    n = len(targets)
    if not n:
        return []
    if backend in (None, "sim", "none"):
        return [
            ProfileReport("no_gpu", "no GPU in this session: Nsight Compute profiles a kernel run on a real GPU")
        ] * n
    exe = find_ncu()
    if exe is None:
        return [ProfileReport("absent", OFF if os.environ.get("KT_TUI_NCU") == "0" else ABSENT)] * n
    env = scrubbed_env(PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    if device is not None:
        env["CUDA_VISIBLE_DEVICES"] = device
    limit = timeout_s * n
    names = "|".join(dict.fromkeys(kernel_base(t.spec.kernel) for t in targets))
    with tempfile.TemporaryDirectory(prefix="kt-profile-") as tmp:
        job = Path(tmp, "job.json")
        given = []
        for i, (options, text, binary, symbol) in enumerate(binaries()):
            Path(tmp, f"{i}.bin").write_bytes(binary)
            given.append([options, text, f"{i}.bin", symbol])
        job.write_text(json.dumps({"backend": backend, "targets": [t.job() for t in targets], "binaries": given}))
        command = [
            exe,
            *(a for s in SECTIONS for a in ("--section", s)),
            "--metrics",
            ",".join(METRICS),
            *OPTIONS,
            "--launch-count",
            str(n),
            "--kernel-name",
            f"regex:{names}",
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
            code, out = run_supervised(command, limit, env=env, cwd=tmp)
        except OSError as e:
            return [ProfileReport("failed", f"cannot run {exe}: {e.strerror or e}")] * n
    ended = time.monotonic()
    if "ERR_NVGPUCTRPERM" in out:
        return [ProfileReport("denied", DENIED, seconds=(ended - started) / n, command=command)] * n
    if code is None:
        return [
            ProfileReport(
                "timeout",
                f"Nsight Compute did not finish within {limit:g} s ({counted(n, 'target')}) and was stopped",
                seconds=limit / n,
            )
        ] * n
    ran, failed = [], {}
    for i, why in _ENDED.findall(out):
        if int(i) < n and int(i) not in failed and int(i) not in ran:
            if why:
                failed[int(i)] = why
            else:
                ran.append(int(i))
    kernels = _kernels(out, MAX_ROWS * n)
    told_apart = len(kernels) == len(ran) and all(
        kernel_base(targets[i].spec.kernel) in rows[0].get("Kernel Name", "") for i, rows in zip(ran, kernels)
    )
    shares = split(out, started, ended, n)
    said = " | ".join(ln.strip() for ln in out.splitlines() if ln.strip())[-400:]
    reports: list[ProfileReport | None] = [None] * n
    for i in range(n):
        if i in failed:
            reports[i] = ProfileReport(
                "failed", f"the kernel failed under Nsight Compute: {failed[i]}", command=command
            )
            continue
        summary = summarize_rows(kernels[ran.index(i)]) if i in ran and told_apart else {}
        if not summary:
            why = (
                f"ncu's page holds {counted(len(kernels), 'kernel')} for the {len(ran)} that ran: not told apart"
                if i in ran and not told_apart and kernels
                else f"ncu exit status {code}, no profile: {said}"
            )
            reports[i] = ProfileReport("failed", why, command=command)
            continue
        summary |= shares.get(i, {})
        summary["targets"] = n
        summary["seconds"] = round(sum(summary["split"].values()) if "split" in summary else (ended - started) / n, 2)
        reports[i] = ProfileReport("done", summary=summary, seconds=summary["seconds"], command=command)
    unreached = [i for i in range(n) if i not in ran and i not in failed]
    if again and unreached and len(unreached) < n:  # the child died on the way: the rest in a process of their own
        for i, r in zip(
            unreached, _profile_distinct([targets[i] for i in unreached], backend, timeout_s, device, False, binaries)
        ):
            reports[i] = r
    return [r for r in reports if r is not None]


def split(out: str, started: float, ended: float, n: int = 1) -> dict[int, dict[str, Any]]:
    """Where each target's seconds went, from the child's stamps and ncu's pass counts (module doc),
    by target; a target without both of its stamps has none, nor has any when the stamps are not
    from this machine's clock."""
    marks: list[tuple[float, str, int | None]] = [(started, "start", None)]
    for t, step, i in _STAMPED.findall(out):
        marks.append((float(t), step, int(i) if i else None))
    marks.append((ended, "end", None))
    if any(b[0] < a[0] for a, b in zip(marks, marks[1:])):
        return {}
    first = {step: t for t, step, i in marks if i is None}
    if "up" not in first or "imported" not in first:
        return {}
    last = max((t for t, step, i in marks if i is not None), default=None)
    if last is None:
        return {}
    shared = {
        "ncu_start": (first["up"] - started) / n,
        "imports": (first["imported"] - first["up"]) / n,
        "ncu_end": (ended - last) / n,
    }
    passes = _passes(out)
    out_split: dict[int, dict[str, Any]] = {}
    for k, (t, step, i) in enumerate(marks):
        if step != "inputs" or i is None:
            continue
        done = next((m for m in marks[k + 1 :] if m[2] == i and m[1] in ("ran", "failed")), None)
        if done is None or done[1] != "ran":
            continue
        own = {"inputs": t - marks[k - 1][0], "run": done[0] - t}
        parts = {name: round((own | shared)[name], 2) for name in SPLIT}
        out_split[i] = {"split": parts} | ({"passes": passes[i]} if i in passes else {})
    return out_split


def _passes(out: str) -> dict[int, int]:
    """ncu's replay passes of each target's kernel: the pass count ncu prints while the child runs it."""
    found: dict[int, int] = {}
    current = None
    for line in out.splitlines():
        stamped = _STAMPED.match(line)
        if stamped and stamped.group(2) == "inputs" and stamped.group(3):
            current = int(stamped.group(3))
        elif current is not None and (m := _PASSES.search(line)):
            found.setdefault(current, int(m.group(1)))
    return found


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def _rows(text: str, limit: int = MAX_ROWS) -> list[dict[str, str]]:
    """The CSV rows of ncu's page, from its header on (what the child printed before it is dropped)."""
    start = text.rfind('"ID","')
    if start < 0:
        return []
    reader = csv.reader(io.StringIO(text[start:]))
    head = next(reader)
    rows = []
    for row in reader:
        rows.append(dict(zip(head, row)))
        if len(rows) > limit:
            break
    return rows


def _kernels(text: str, limit: int = MAX_ROWS) -> list[list[dict[str, str]]]:
    """The page's rows by profiled kernel (ncu's result ID), in the order ncu profiled them."""
    by_id: dict[int, list[dict[str, str]]] = {}
    for row in _rows(text, limit):
        try:
            by_id.setdefault(int(row.get("ID", "")), []).append(row)
        except ValueError:
            continue
    return [by_id[i] for i in sorted(by_id)]


def summarize_rows(rows: list[dict[str, str]]) -> dict[str, Any]:
    """The summary of one profiled kernel from its rows of ncu's details page; {} if they hold none."""
    out: dict[str, Any] = {}
    stalls = []
    rules: list[dict[str, Any]] = []
    for cell in rows:
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


def _stamp(step: str, target: int | None = None) -> None:
    print(f"{STAMP} {time.monotonic():.3f} {step}" + (f" {target}" if target is not None else ""), flush=True)


def main(argv: list[str]) -> int:
    """The child: run each target's kernel once (under ncu), in order, its binary from the job's
    folder where the session's compile pool gave one. A target that fails is said and the next one
    runs; after an error that leaves the CUDA context unusable the child ends (the parent runs the
    rest in a fresh process)."""
    _stamp("up")
    mark("profile child: up")
    from ..kernel.inputs import allow_user_code, make_args  # in the profiled child process only
    from .device.session import STICKY  # in the profiled child process only: the CUDA driver

    job = json.loads(Path(argv[0]).read_text())
    backend = job["backend"]
    targets = [(spec_from_plain(t["spec"]), t["source"], t["params"]) for t in job["targets"]]
    from .device.loaders import Given  # in the profiled child process only
    from .device.outputs import loading, run_arrays  # numpy, kernel_tuner and the backend

    given = Given((o, t, Path(argv[0]).with_name(f).read_bytes(), s) for o, t, f, s in job.get("binaries", []))

    allow_user_code()  # the spec's inputs may be the user's functions, as in the GPU worker
    _stamp("imported")
    inputs: dict[str, list] = {}  # by spec: kernel_tuner copies them to the GPU and leaves them as they are
    with loading(given):
        for i, (spec, source, params) in enumerate(targets):
            try:
                made = json.dumps(job["targets"][i]["spec"], sort_keys=True)
                if made not in inputs:
                    inputs[made] = make_args(spec, spec.sizes)
                _stamp("inputs", i)
                run_arrays(spec, source, params, None, backend, inputs[made])
            except Exception as e:  # noqa: BLE001 - this target's failure, said to the parent
                _stamp("failed", i)
                why = " ".join(f"{type(e).__name__}: {e}".split())[:300]
                print(f"{FAILED} (target {i}): {why}", flush=True)
                if any(s in why.lower() for s in STICKY):
                    return 1
                continue
            _stamp("ran", i)
            mark(f"profile child: ran target {i}")
            print(f"{RAN} (target {i}) with {params}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
