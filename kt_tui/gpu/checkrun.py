"""Whether a spec's check can fail, found by running the original kernel (issue 21):

1. compute-sanitizer memcheck on the original at the spec's size and at every check size: an access
   out of bounds is named (the argument when its allocation's size tells it, the size, the index);
2. one run each, in a child process (`python -m kt_tui.gpu.checkrun JOB DIR`), of the original, of its
   do-nothing mutant (kernel/mutant.py) and of the original at another value of each tuned
   parameter that is not launch geometry, every array argument kept before and after;
3. the arrays judged there, by kernel/strength.py (only the state comes back): outputs that prove
   nothing, arguments changed but not declared outputs (or the reverse), parameters that change
   the outputs.
"""

from __future__ import annotations

import functools
import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..kernel import refkernel, strength
from ..kernel.inputs import allow_user_code, load_named, make_args
from ..kernel.mutant import NoMutant, do_nothing
from ..kernel.spec import Spec, spec_from_plain
from .compile import _kill
from .env import scrubbed_env
from .sanitize import SanitizeReport, sanitize
from .timeline import mark

NO_GPU = "no GPU here ({}): the check's strength (sanitizer, do-nothing kernel, changed arguments) was not tested"
GEOMETRY = ("block_size_x", "block_size_y", "block_size_z")


class OutOfBounds(Exception):
    """The original kernel reads or writes outside an argument at the spec's sizes."""


# -- which tuned parameters may change the outputs ---------------------------------------------
def result_param_candidates(spec: Spec, source: str) -> dict[str, object]:
    """Tuned parameters that are not launch geometry (block sizes, grid divisors, launch math only)
    and have another value: name -> that value (the first other one the restrictions allow)."""
    geometry = set(spec.block_size_names or GEOMETRY)
    for div in (spec.grid_div_x, spec.grid_div_y, spec.grid_div_z):
        for expr in div or []:
            geometry |= set(re.findall(r"[A-Za-z_]\w*", str(expr)))
    words = set(re.findall(r"[A-Za-z_]\w*", source))
    base = spec.baseline_params()
    out = {}
    for name, values in spec.tune_params.items():
        if name in geometry or name.startswith("loop_unroll_factor_") or name not in words:
            continue
        other = next((v for v in values if v != base[name] and spec.allows({**base, name: v})), None)
        if other is not None:
            out[name] = other
    return out


def refusal(spec: Spec, changing: dict[str, str]) -> str:
    """Why one reference cannot check this space ("" when a [reference] kernel takes each configuration's)."""
    if not changing or refkernel.is_kernel(spec.reference) or spec.verify != "elementwise":
        # verify = "none" compares nothing: the session is said UNVERIFIED, not refused; a verify
        # function of the user's ("module:function", e.g. a sum of per-block partial results) judges
        # each configuration's outputs as it sees fit
        return ""
    said = "; ".join(f"`{n}`: {why}" for n, why in changing.items())
    return (
        f"the tuned parameter(s) {', '.join(changing)} change the original's outputs ({said}): the "
        "baseline's outputs cannot check other values of them. Add a [reference] kernel that reads them "
        "(its outputs are then taken per configuration), or keep one value of each in [tune_params]"
    )


# -- compute-sanitizer at every size -----------------------------------------------------------
_FINDING = re.compile(
    r"=+\s*(Invalid __\w+__ (?:read|write|atomic)[^\n]*|Out-of-range[^\n]*|"
    r"Misaligned[^\n]*|Program hit [^\n]*)"
)
_AT = re.compile(r"=+\s+at (?:0x[0-9a-f]+ in )?([^\n]+)")
_ADDRESS = re.compile(r"Address (0x[0-9a-fA-F]+)")
_NEAREST = re.compile(
    r"is ([\d,]+) bytes? (after|before) the nearest allocation at (0x[0-9a-fA-F]+) of size "
    r"([\d,]+) bytes?"
)


def _int(text: str) -> int:
    return int(text.replace(",", ""))


def oob_text(report: SanitizeReport, spec: Spec, sizes: dict, label: str) -> str:
    """One line: which argument (when its allocation's size tells it), at which size, which index;
    otherwise the sanitizer's first finding."""
    text = report.text
    m = _FINDING.search(text)
    where = f"at {label}" if label else "at the spec's size"
    oob = "out of bounds" in text or "Invalid __" in text
    if report.errors == 0 and not oob:  # no finding: the run itself failed; say why, never "memcheck"
        said = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("=========")]
        why = said[-1][:400] if said else (report.reason or "no message")
        return f"the original kernel did not run under compute-sanitizer {where} (no memory error found): {why}"
    head = (
        f"the original kernel {'accesses memory out of bounds' if oob else 'fails compute-sanitizer memcheck'} "
        f"{where} ({report.errors} error(s) under memcheck)"
    )
    if not m:
        first = next(
            (
                ln.strip("= ").strip()
                for ln in text.splitlines()
                if ln.startswith("=========") and "COMPUTE-SANITIZER" not in ln and ln.strip("= ").strip()
            ),
            "",
        )
        return f"{head}: {first}" if first else head
    what = m.group(1).strip()
    rest = text[m.end() : m.end() + 1200]
    at = _AT.search(rest)
    near = _NEAREST.search(rest)
    address = _ADDRESS.search(rest)
    detail = what + (f" at {at.group(1).strip()}" if at else "")
    if near:
        size = _int(near.group(4))
        names = _args_of_bytes(spec, sizes, size)
        start = int(near.group(3), 16)
        if names:  # the offset from the allocation's start: the address, or the distance the sanitizer gives
            gap = _int(near.group(1))
            offset = int(address.group(1), 16) - start if address else size + gap if near.group(2) == "after" else -gap
            arg = " or ".join(f"`{n}`[{offset // item}] ({size // item} elements long)" for n, item in names)
            return f"{head}: {arg} is read or written ({detail}; the address {near.group(0)})"
        return f"{head}: {detail}; {near.group(0)}"
    return f"{head}: {detail}" + (f", address {address.group(1)}" if address else "")


def _args_of_bytes(spec: Spec, sizes: dict, nbytes: int) -> list[tuple[str, int]]:
    try:
        values = make_args(spec, sizes)
    except Exception:  # noqa: BLE001 - the finding is said without the argument's name
        return []
    return [(a.name, v.itemsize) for a, v in zip(spec.args, values) if a.is_array and v.nbytes == nbytes]


def sanitize_sizes(
    source: str, spec: Spec, backend: str, run: Callable = sanitize, timeout_s: float = 300.0
) -> tuple[str, list[str]]:
    """memcheck on the original at its baseline, at the spec's size and every check size:
    ("" or the first out-of-bounds finding, notes on sizes that could not be checked). All sizes run
    in one process under the tool; only when that finds something is each size run on its own, to
    say which size it was."""
    params = spec.baseline_params()
    notes: list[str] = []
    every = [("", spec.sizes)] + [(e["label"], e["sizes"]) for e in spec.extra_sizes()]
    if len(every) > 1:
        report = run(
            source, spec, params, backend, tool="memcheck", timeout_s=timeout_s, sizes=spec.sizes,
            more=[sizes for _, sizes in every[1:]],
        )  # fmt: skip
        if report.ok:
            return "", notes
        if report.ok is None and ("not found" in report.reason or "no GPU" in report.reason):
            return "", [f"memcheck at every size: not run: {report.reason}"]
    for label, sizes in every:
        report = run(source, spec, params, backend, tool="memcheck", timeout_s=timeout_s, sizes=sizes)
        if report.ok is False:
            return oob_text(report, spec, sizes, label), notes
        if report.ok is None:
            notes.append(f"memcheck {'at ' + label if label else 'at the spec size'}: not run: {report.reason}")
            if "not found" in report.reason or "no GPU" in report.reason:
                break  # the same at every size
    return "", notes


# -- one run each of the original, its mutant and other parameter values -------------------------
def child_runs(source: str, spec: Spec) -> tuple[list[dict], str]:
    """The runs the child makes, and why the mutant is missing ("" when it is there)."""
    base = spec.baseline_params()
    runs: list[dict[str, Any]] = [{"name": "original", "source": source, "params": base}]
    why = ""
    try:
        runs.append({"name": "mutant", "source": do_nothing(source, spec.kernel), "params": base})
    except NoMutant as e:
        why = str(e)
    for name, value in result_param_candidates(spec, source).items():
        runs.append(
            {"name": f"param:{name}", "param": name, "value": value, "source": source, "params": {**base, name: value}}
        )
    return runs, why


GPU_DONE = "kt-tui: the check runs left the GPU"  # the child's line once its runs ended, before it judges
# (followed by the job's token: a kernel's printf, which reaches the same stdout, cannot say it)


def run_child(
    job: dict, out: Path, timeout_s: float, device: str | None = None, gpu_done: Callable[[], None] | None = None
) -> str:
    """Run the child on `job` (on GPU `device` of this host's, where given); "" or what went wrong.
    It judges its arrays itself and writes the state to `out`/state.json; `gpu_done` is called
    once its runs have ended (it still judges), or once it has exited."""
    token = secrets.token_hex(8)
    Path(out, "job.json").write_text(json.dumps({**job, "token": token}))
    env = scrubbed_env(PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    if device is not None:
        env["CUDA_VISIBLE_DEVICES"] = device
    cmd = [sys.executable, "-m", "kt_tui.gpu.checkrun", str(Path(out, "job.json")), str(out)]
    done = gpu_done or (lambda: None)
    try:
        proc = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            env=env,
            cwd=out,
            start_new_session=True,
        )
    except OSError as e:
        done()
        return f"cannot run {sys.executable}: {e.strerror or e}"
    lines: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.rstrip("\n") == f"{GPU_DONE} {token}":
                done()
            elif len(lines) < 2000:
                lines.append(line)

    reader = threading.Thread(target=read, daemon=True, name="kt-check-child")
    reader.start()
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill(proc)
        proc.wait()
        return f"the check runs did not finish within {timeout_s:g} s"
    finally:
        reader.join(timeout=5)
        done()
    if proc.returncode != 0:
        last = [ln for ln in lines if ln.strip()][-3:]
        return f"the check runs failed (exit status {proc.returncode}): {' | '.join(ln.strip() for ln in last)}"
    return ""


def judge(spec: Spec, arrays: dict[str, dict], runs: list[dict], notes: list[str]) -> dict:
    """The check's state from the saved arrays: "before", and each run's arrays after it ran."""
    before, original = arrays.get("before"), arrays.get("original")
    if before is None or original is None:
        return strength.unchecked("the original kernel's run was not captured", notes=notes)
    tol = {a.name: a.tolerance() for a in spec.outputs()}
    outs = {a.name: original[a.name] for a in spec.outputs() if a.name in original}
    changed = strength.changed(before, original)
    fixes = strength.output_fixes([a.name for a in spec.outputs()], list(before), changed)
    reasons = strength.weak_outputs(outs, before, tol)
    if "mutant" in arrays:
        said = {r.split("`")[1] for r in reasons}
        reasons += [r for r in strength.mutant_matches(outs, arrays["mutant"], tol) if r.split("`")[1] not in said]
    changing = {}
    for run in runs:
        got = arrays.get(run["name"])
        if run.get("param") and got is not None:
            differ = [n for n in outs if n in got and not strength.same(got[n], outs[n], tol[n])]
            if differ:
                changing[run["param"]] = f"at {run['param']}={run['value']} `{differ[0]}` differs from the baseline's"
    return strength.verdict(reasons, fixes, changed=changed, notes=notes, result_params=changing)


def check_strength(
    source: str,
    spec: Spec,
    backend: str | None,
    timeout_s: float = 300.0,
    sanitizer: Callable = sanitize,
    child: Callable = run_child,
    gpu_free: Callable[[], None] | None = None,
) -> dict:
    """The check's state: vacuous / ok / unchecked (no GPU) with why, the fixes to [outputs], the
    parameters that change the outputs; raises OutOfBounds when the original leaves its arrays.
    `gpu_free` is called once nothing of the test runs on the GPU any more (the child may still
    be judging its arrays)."""
    if backend in (None, "sim", "none"):
        return static_state(spec, NO_GPU.format("a SIMULATED replay" if backend == "sim" else "no GPU backend"))
    started = time.monotonic()
    runs, why = child_runs(source, spec)
    child_off = threading.Event()
    with tempfile.TemporaryDirectory(prefix="kt-checkrun-") as tmp:
        # the runs need no sanitizer: they go on beside it (another process, another context)
        said: dict[str, str] = {}
        job = {"spec": spec.to_dict(), "backend": backend, "runs": runs}

        def runs_beside() -> None:
            try:
                said["error"] = child(job, Path(tmp), timeout_s, gpu_done=child_off.set)
            finally:
                child_off.set()

        beside = threading.Thread(target=runs_beside, daemon=True)
        beside.start()
        try:
            oob, notes = sanitize_sizes(source, spec, backend, sanitizer, timeout_s)
            mark(f"main: check memcheck done ({len(spec.extra_sizes()) + 1} sizes)")
            child_off.wait()
        finally:
            if gpu_free is not None:
                gpu_free()
        mark("main: check left the GPU")
        beside.join()
        mark("main: check runs done")
        if oob:
            raise OutOfBounds(oob)
        judged = Path(tmp, "state.json")  # the child judged its arrays (main below)
        child_state = json.loads(judged.read_text()) if judged.exists() else None
    error = said.get("error", "the check runs did not report")
    if why:
        notes.append(f"no do-nothing kernel: {why}")
    if child_state is None:
        why_not = error or "the check runs wrote no state"
        return strength.unchecked(f"the original kernel could not be run to test the check: {why_not}", notes=notes)
    if error:
        notes.append(error)
    state = {**child_state, "notes": notes + list(child_state.get("notes") or [])}
    state["seconds"] = round(time.monotonic() - started, 2)
    return state


def test_check(
    source: str,
    spec: dict,
    backend: str,
    timeout_s: float,
    device: str | None = None,
    gpu_free: Callable[[], None] | None = None,
) -> dict:
    """The check's state, tested from this process on this host's GPU (on `device` of several,
    where given; its children run beside the GPU workers); out of bounds is a refused state.
    `gpu_free`: called once the test has left the GPU (check_strength)."""
    sanitizer, child = (
        (sanitize, run_child)
        if device is None
        else (
            functools.partial(sanitize, device=device),
            functools.partial(run_child, device=device),
        )
    )
    try:
        return check_strength(source, spec_from_plain(spec), backend, timeout_s, sanitizer, child, gpu_free)
    except OutOfBounds as e:
        return {"state": "unsafe", "why": str(e), "refused": str(e), "fixes": []}


def static_state(spec: Spec, why: str) -> dict:
    """Without a GPU: the array tests on what needs no run (a reference file's outputs against the
    inputs); the sanitizer, the mutant and the changed arguments are said to be unchecked."""
    if isinstance(spec.reference, str) and spec.reference.endswith(".npz") and not _made_by_functions(spec):
        refs = load_named(spec, spec.reference, "reference") or {}
        before = {a.name: v for a, v in zip(spec.args, make_args(spec, spec.sizes)) if a.is_array}
        outs = {a.name: refs[a.name] for a in spec.outputs() if a.name in refs}
        reasons = strength.weak_outputs(outs, before, {a.name: a.tolerance() for a in spec.outputs()})
        if reasons:
            return strength.verdict(reasons, notes=[why])
    return strength.unchecked(why)


def _made_by_functions(spec: Spec) -> bool:
    """Inputs from the user's Python, which only the GPU worker runs (kernel/inputs.py user_function)."""
    return any(a.init == "function" for a in spec.args)


def main(argv: list[str]) -> int:
    """The child: each run on fresh inputs, every array argument kept before the first and after
    each, then judged here (state.json): a big session's arrays never cross to the app's process."""
    mark("check child: up")
    from .worker.outputs import run_arrays  # in this child process only: it loads kernel_tuner

    allow_user_code()

    mark("check child: imports done")
    job = json.loads(Path(argv[0]).read_text())
    out = Path(argv[1])
    spec = spec_from_plain(job["spec"])
    arrays: dict[str, dict] = {}
    for i, run in enumerate(job["runs"]):
        args = make_args(spec, spec.sizes)
        if i == 0:
            arrays["before"] = {a.name: v.copy() for a, v in zip(spec.args, args) if a.is_array}
        try:
            arrays[run["name"]] = run_arrays(spec, run["source"], run["params"], None, job["backend"], args)
        except Exception as e:  # noqa: BLE001 - the original's failure is the answer; another run's is a note
            print(f"kt-tui: {run['name']}: {type(e).__name__}: {str(e)[:300]}", flush=True)
            if i == 0:
                return 1
        mark(f"check child: ran {run['name']}")
    print(GPU_DONE, job.get("token", ""), flush=True)
    (out / "state.json").write_text(json.dumps(judge(spec, arrays, job["runs"], [])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
