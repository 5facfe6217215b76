"""compute-sanitizer on one run of a candidate kernel: memcheck (out-of-bounds and misaligned
accesses, hardware exceptions) or racecheck (shared-memory races). The kernel runs once per size
(the spec's smallest check size unless told; `more` sizes run after it in the same process, so the
tool and CUDA start once) at the given configuration, in a child process (`python -m
kt_tui.gpu.sanitize JOB`) under the tool, with a time limit."""

from __future__ import annotations

import json
import math
import os
import re
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..kernel.spec import Spec, spec_from_plain
from ..words import counted
from .compile import find_cuda_tool
from .env import scrubbed_env
from .supervise import CANNOT_RUN, run_supervised
from .timeline import mark

TOOLS = ("memcheck", "racecheck")
MAX_LINES = 80
PADDING = 1 << 20  # bytes after each allocation under memcheck
RAN = "kt-tui: the kernel ran once"
NO_TOOL = "compute-sanitizer not found: it ships with the CUDA toolkit (CUDA_HOME/bin); put it on PATH or set CUDA_HOME"
NO_GPU = "no GPU in this session ({}): compute-sanitizer runs the kernel on a real GPU"


@dataclass
class SanitizeReport:
    tool: str
    ok: bool | None  # None: it could not run, see reason
    errors: int | None = None
    text: str = ""
    reason: str = ""
    sizes: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    command: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


def find_sanitizer() -> str | None:
    return find_cuda_tool("compute-sanitizer")


def smallest_sizes(spec: Spec) -> dict:
    """The sizes with the fewest elements in the problem: the spec's or one of its check sizes."""
    options = [spec.sizes] + [e["sizes"] for e in spec.extra_sizes()]
    return min(options, key=lambda s: math.prod(spec.problem_size_values(s)))


def sanitize(
    source: str,
    spec: Spec,
    params: dict,
    backend: str,
    tool: str = "memcheck",
    timeout_s: float = 180.0,
    sizes: dict | None = None,
    more: list[dict] | tuple[dict, ...] = (),
    device: str | None = None,
    cases: list[Spec] | tuple[Spec, ...] = (),
) -> SanitizeReport:
    """One run of `source` at `sizes`, then at each of `more`, then on each spec of `cases` (other
    inputs: gpu/mutants.py's stronger cases) at its own sizes, all under `tool` in one process."""
    if tool not in TOOLS:
        raise ValueError(f"unknown tool {tool!r} (use one of {', '.join(TOOLS)})")
    sizes = dict(sizes or smallest_sizes(spec))
    report = SanitizeReport(tool, None, sizes=sizes, params=dict(params))
    if backend in (None, "sim", "none"):
        report.reason = NO_GPU.format("a SIMULATED replay" if backend == "sim" else "no backend")
        return report
    exe = find_sanitizer()
    if exe is None:
        report.reason = NO_TOOL
        return report
    env = scrubbed_env(PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    if device is not None:  # the GPU it runs on, of several (gpu/tuner.py)
        env["CUDA_VISIBLE_DEVICES"] = device
    with tempfile.TemporaryDirectory(prefix="kt-sanitize-") as tmp:
        job = Path(tmp, "job.json")
        job.write_text(
            json.dumps(
                {
                    "source": source,
                    "spec": spec.to_dict(),
                    "params": params,
                    "sizes": [sizes, *map(dict, more)],
                    "cases": [c.to_dict() for c in cases],
                    "backend": backend,
                }
            )
        )
        # padding after every allocation: an access past an array lands there, and the finding names
        # that array's allocation, not the next one's
        padding = ["--padding", str(PADDING)] if tool == "memcheck" else []
        report.command = [
            exe,
            "--tool",
            tool,
            *padding,
            "--print-limit",
            "20",
            sys.executable,
            "-m",
            "kt_tui.gpu.sanitize",
            str(job),
        ]
        started = time.monotonic()
        try:  # the kernel's init code is user code: run in a tree that is always killed
            code, out = run_supervised(report.command, timeout_s, env=env, cwd=tmp)
        except OSError as e:
            report.reason = f"cannot run {exe}: {e.strerror or e}"
            return report
        if code == CANNOT_RUN and out.startswith("kt-tui: cannot run"):
            report.reason = out.strip().removeprefix("kt-tui: ")
            return report
        report.seconds = time.monotonic() - started
    return parse_output(report, out, code, code is None, timeout_s, runs=1 + len(more) + len(cases))


# the total; a second line, "N errors were not printed" (past --print-limit), is part of it
_ERRORS = re.compile(r"ERROR SUMMARY:\s*(\d+) errors?\b(?! were not printed)")
_API_ERROR = re.compile(r"Program hit (CUDA_ERROR_\w+[^\n]*? on CUDA API call to \w+)")
_LOADS = re.compile(r"on CUDA API call to cu(?:Module(?:Load|GetFunction)|Library(?:Load|GetKernel)|Link)\w*$")
_RACES = re.compile(r"RACECHECK SUMMARY:\s*(\d+) hazards? displayed\s*\((\d+) errors?,\s*(\d+) warnings?\)")
_NO_DEVICE = (
    "no cuda-capable device",
    "cuda_error_no_device",
    "cudaerrornodevice",
    "cuinit failed",
    "no nvidia gpu",
    "device not found",
    "driver not loaded",
    "cuda driver version is insufficient",
    "device not supported",
)


def parse_output(
    report: SanitizeReport,
    out: str,
    returncode: int | None,
    timed_out: bool = False,
    timeout_s: float = 0,
    runs: int = 1,
) -> SanitizeReport:
    """Fill `report` from what compute-sanitizer and the child printed (`runs`: the kernel runs the
    child was to make; each prints RAN when it completed)."""
    report.text = trim(out)
    low = out.lower()
    races = _RACES.findall(out)
    errors = _ERRORS.findall(out)
    if races:
        report.errors = sum(int(r[1]) for r in races)
        warnings = sum(int(r[2]) for r in races)
        if warnings:
            report.reason = counted(warnings, "warning")
    elif errors:
        report.errors = sum(int(e) for e in errors)
    if timed_out:
        report.ok = False if report.errors else None
        report.reason = f"compute-sanitizer did not finish within {timeout_s:g} s and was stopped"
        return report
    if any(s in low for s in _NO_DEVICE):
        report.ok, report.reason = None, NO_GPU.format("no usable GPU on this machine")
        return report
    if report.errors is None:
        report.ok = None
        report.reason = f"compute-sanitizer printed no summary (exit status {returncode})"
        return report
    report.ok = report.errors == 0
    api = _API_ERROR.findall(out)
    ran = out.count(RAN) >= runs
    loads = [a for a in api if _LOADS.search(a)]
    if report.errors and not races and len(api) >= report.errors:  # no access was wrong: CUDA calls failed
        if ran or loads:  # harmless calls, or the kernel's binary did not load
            report.ok = True if ran else None
            report.reason = f"not a memory error: {(api if ran else loads)[0].strip()}" + (
                "" if ran else " (the kernel's binary did not load: its compile for this backend likely failed)"
            )
        else:  # it loaded, and its launch or its run failed (an assert, a trap)
            report.ok = False
            report.reason = f"the kernel did not complete under the sanitizer: {api[-1].strip()} (not a memory error)"
        return report
    if not ran:
        report.ok = False
        report.reason = "the kernel did not complete under the sanitizer" + (
            f"; {report.reason}" if report.reason else ""
        )
    return report


def trim(out: str, max_lines: int = MAX_LINES) -> str:
    """The sanitizer's report (its ========= lines) and the end of what the kernel run printed."""
    lines = out.splitlines()
    tool = [ln for ln in lines if ln.startswith("=========")]
    other = [ln for ln in lines if not ln.startswith("=========") and ln.strip()]
    if len(tool) > max_lines:
        tool = tool[: max_lines - 2] + [f"... {counted(len(tool) - max_lines + 1, 'more line')}", tool[-1]]
    return "\n".join(tool + (["", *other[-12:]] if other else []))


def main(argv: list[str]) -> int:
    """The child: run the job's kernel once (under compute-sanitizer)."""
    mark("sanitize child: up")
    from ..kernel.inputs import allow_user_code  # in the sanitizer's child process only
    from .device.outputs import run_outputs  # in the sanitizer's child process only

    allow_user_code()

    mark("sanitize child: imports done")
    job = json.loads(Path(argv[0]).read_text())
    spec = spec_from_plain(job["spec"])
    spec.compiler_options = [*spec.compiler_options, "-lineinfo"]
    each = job["sizes"] if isinstance(job["sizes"], list) else [job["sizes"]]
    for sizes in each:  # in order: the first that fails ends the process (its context is lost)
        run_outputs(spec, job["source"], job["params"], sizes, job["backend"])
        print(f"{RAN} at {sizes} with {job['params']}", flush=True)
        mark("sanitize child: ran a size")
    for plain in job.get("cases") or []:
        case = spec_from_plain(plain)
        case.compiler_options = [*case.compiler_options, "-lineinfo"]
        run_outputs(case, job["source"], job["params"], None, job["backend"])
        print(f"{RAN} on other inputs at {case.sizes}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
