"""The check measures itself (issue 35): the original's mutants (kernel/mutant.py) run in the check's
child beside the first measurements, at the spec's size and every check size, and the mutation score
says how many wrong variants the check catches. When some survive, the stronger inputs of
kernel/strengthen.py are tried on them; a case is kept when the original runs clean with it
(memcheck, gpu/checkrun.py), its outputs stay non-degenerate and it kills a survivor.

Which mutants count: one that does not compile is stillborn, one whose cubin (nvcc, the spec's
options, the baseline's defines) is byte for byte the original's is equivalent by construction
(trivial compiler equivalence); neither is counted. The child writes a record per mutant as it goes
(mutants.jsonl) and says which one it runs; a mutant that hangs is stopped after HANG_S, one that
takes the child down is recorded as killed by it, and a new child goes on with the rest."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..kernel.mutant import Mutant
from ..kernel.spec import Spec
from ..kernel.strengthen import case_spec
from ..kernel.text import compile_options
from .compile import DEFAULT_ARCH, find_nvcc
from .env import scrubbed_env

BUDGET_S = 5.0  # the mutants' runs at the spec's and check sizes, in the child, after the original's
STRENGTHEN_S = 3.0  # then the survivors' runs on stronger inputs
HANG_S = 5.0  # a mutant's run that takes longer is stopped: it hangs, which a check sees
MARK = "kt-tui: running"  # the child's line before each run: "<MARK> TOKEN mutant|case ID base|case LABEL"
SURVIVORS = "kt-tui: survivors"  # once the mutants ran at every size: "<SURVIVORS> TOKEN N"
RECORDS, CASES = "mutants.jsonl", "cases.jsonl"


# -- which mutants count -------------------------------------------------------------------------
def gpu_arch() -> str:
    """This host's first GPU's architecture (sm_90), nvcc's default for kt-tui where none answers."""
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
            env=scrubbed_env(),
        ).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return DEFAULT_ARCH
    return f"sm_{out[0].replace('.', '')}" if out and out[0].replace(".", "").isdigit() else DEFAULT_ARCH


def _cubin(nvcc: str, text: str, arch: str, options: list[str], timeout_s: float) -> bytes | str:
    """The cubin of one kernel string, or nvcc's first error line."""
    with tempfile.TemporaryDirectory(prefix="kt-mutant-") as tmp:
        Path(tmp, "kernel.cu").write_text(text)
        cmd = [nvcc, "-cubin", f"-arch={arch}", *options, "kernel.cu", "-o", "kernel.cubin"]
        try:
            done = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=timeout_s, env=scrubbed_env())
        except subprocess.TimeoutExpired:
            return f"nvcc did not finish within {timeout_s:g} s"
        out = Path(tmp, "kernel.cubin")
        if done.returncode != 0 or not out.exists():
            said = [ln for ln in (done.stderr or done.stdout).splitlines() if "error" in ln]
            return (said[0] if said else f"nvcc exit status {done.returncode}").replace(tmp + os.sep, "")[:300]
        return out.read_bytes()


def classify(
    source: str, spec: Spec, mutants: list[Mutant], arch: str | None = None, workers: int | None = None
) -> dict[str, tuple[str, str]]:
    """id -> ("live" | "equivalent" | "stillborn", why), each compiled as kernel_tuner would at the
    baseline and the spec's size, in parallel; {} without nvcc (then every mutant counts)."""
    from .ktsource import kernel_string  # here: kernel_tuner, loaded when a check is tested

    nvcc = find_nvcc()
    if nvcc is None or not mutants:
        return {}
    params = spec.baseline_params()
    options = compile_options([o for o in spec.compiler_options if o not in ("-lineinfo", "-G")])
    arch = arch or gpu_arch()
    texts = {"": kernel_string(spec, source, params)[1]}
    out: dict[str, tuple[str, str]] = {}
    for m in mutants:
        try:
            texts[m.id] = kernel_string(spec, m.source, params)[1]
        except Exception as e:  # noqa: BLE001 - kernel_tuner cannot even prepare it
            out[m.id] = ("stillborn", str(e)[:300])
    # half the cores: a session's first measurements compile ahead on the others meanwhile
    with ThreadPoolExecutor(workers or max(1, (os.cpu_count() or 2) // 2)) as pool:
        built = dict(zip(texts, pool.map(lambda t: _cubin(nvcc, t, arch, options, 120), texts.values())))
    original = built.pop("")
    if not isinstance(original, bytes):
        return {}  # the original does not compile here: nothing to compare with
    for mid, cubin in built.items():
        if isinstance(cubin, str):
            out[mid] = ("stillborn", cubin)
        elif cubin == original:
            out[mid] = ("equivalent", f"compiles to the same code as the original ({arch})")
        else:
            out[mid] = ("live", "")
    return out


def job_entry(m: Mutant) -> dict[str, Any]:
    return {"id": m.id, "kind": m.kind, "what": m.what, "source": m.source}


# -- in the check's child -------------------------------------------------------------------------
def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue  # a line cut short when its child was killed
    return out


def append(path: Path, record: dict[str, Any]) -> None:
    with path.open("a") as f:
        f.write(json.dumps(record) + "\n")


Run = Callable[[Spec, str, dict], dict]  # (spec at a case, source, params) -> every array after the run


def child_runs(spec: Spec, job: dict[str, Any], out: Path, run: Run, say: Callable[[str], None]) -> None:
    """The mutants at the spec's size, then at each check size while they pass, then the survivors on
    each stronger case the original handles; every outcome appended to out/mutants.jsonl as it is
    known, so a child that is stopped or dies leaves what it found to the next. Raises what a run
    raised when the GPU context may be lost (the parent starts another child)."""
    from ..compare import compare_all, failure_text  # numpy, in the child only
    from ..kernel import strength  # numpy, in the child only
    from ..kernel.inputs import make_args  # numpy, in the child only

    token = job.get("token", "")
    params = spec.baseline_params()
    tol = {a.name: a.tolerance() for a in spec.outputs()}
    base = [("", spec)] + [(e["label"], replace(spec, sizes=e["sizes"])) for e in job.get("sizes") or []]
    refs: dict[str, dict] = {}
    cases_by_label = {c["label"]: c for c in job.get("cases") or []}

    def expected(label: str, s: Spec) -> dict:
        if label not in refs:
            got = run(s, job["source"], params)
            refs[label] = {a.name: got[a.name] for a in s.outputs() if a.name in got}
        return refs[label]

    def judge(m: dict, label: str, s: Spec) -> tuple[bool, str]:
        phase = "case" if label in cases_by_label else "base"
        say(f"{MARK} {token} mutant {m['id']} {phase} {label or '-'}")
        want = expected(label, s)
        try:
            got = run(s, m["source"], params)
        except Exception as e:  # noqa: BLE001 - a failure is what a check would see: killed
            text = f"{type(e).__name__}: {e}".strip().splitlines()[0][:200]
            if any(w in text.lower() for w in ("compil", "nvrtc", "ptxas", "nvcc")):
                return True, f"stillborn: {text}"
            raise Killed(f"fails{' at ' + label if label else ''}: {text}") from e
        bad = failure_text(compare_all(want, got, tol), label or "the spec's size")
        return bool(bad), bad

    path = out / RECORDS
    recorded = {(r["id"], r.get("case")) for r in read_jsonl(path)}
    deadline = time.monotonic() + float(job.get("budget_s", BUDGET_S))
    for m in job.get("mutants") or []:
        if (m["id"], None) in recorded:
            continue
        if time.monotonic() > deadline:
            break
        killed, how, at = False, "", ""
        for label, s in base:
            try:
                killed, how = judge(m, label, s)
            except Killed as e:
                append(path, {"id": m["id"], "case": None, "killed": True, "how": str(e)})
                raise
            if killed:
                at = label
                break
        append(path, {"id": m["id"], "case": None, "killed": killed, "how": how, "at": at})
    records = read_jsonl(path)
    survivors = [m for m in job.get("mutants") or [] if any(r["id"] == m["id"] and r.get("case") is None
                 and not r["killed"] for r in records)]  # fmt: skip
    say(f"{SURVIVORS} {token} {len(survivors)}")
    if not survivors:
        return
    cases_path = out / CASES
    tried = {c["label"]: c for c in read_jsonl(cases_path)}
    deadline = max(deadline, time.monotonic()) + float(job.get("strengthen_s", STRENGTHEN_S))
    for case in job.get("cases") or []:
        label = case["label"]
        s = case_spec(spec, case)
        if label not in tried:
            if time.monotonic() > deadline:
                break
            say(f"{MARK} {token} case - case {label}")
            before = {a.name: v.copy() for a, v in zip(s.args, make_args(s, s.sizes)) if a.is_array}
            outs = expected(label, s)  # the original's run on these inputs (a failure: the parent says so)
            weak = strength.weak_outputs(outs, before, tol)
            tried[label] = {"label": label, "ok": not weak, "why": "; ".join(weak)}
            append(cases_path, tried[label])
        if not tried[label]["ok"]:
            continue
        for m in survivors:
            if (m["id"], label) in recorded or time.monotonic() > deadline:
                continue
            try:
                killed, how = judge(m, label, s)
            except Killed as e:
                append(path, {"id": m["id"], "case": label, "killed": True, "how": str(e)})
                raise
            append(path, {"id": m["id"], "case": label, "killed": killed, "how": how, "at": label})


class Killed(Exception):
    """A mutant's run failed: the check kills it, and the GPU context may be lost with it."""


# -- the score --------------------------------------------------------------------------------------
def score(
    mutants: list[dict[str, Any]],
    classes: dict[str, tuple[str, str]],
    records: list[dict[str, Any]],
    cases: list[dict[str, Any]],
    legal: dict[str, str],
) -> dict[str, Any]:
    """The mutation score from what the child found. `cases`: the child's verdict on each stronger
    case (outputs non-degenerate); `legal`: label -> "" when memcheck found it clean, else why not."""
    base = {r["id"]: r for r in records if r.get("case") is None}
    later: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        if r.get("case") is not None:
            later.setdefault(r["id"], []).append(r)
    equivalent = [m for m in mutants if classes.get(m["id"], ("live",))[0] == "equivalent"]
    stillborn = [
        m
        for m in mutants
        if classes.get(m["id"], ("live",))[0] == "stillborn"
        or str(base.get(m["id"], {}).get("how", "")).startswith("stillborn")
    ]
    left = {m["id"] for m in equivalent + stillborn}
    counted = [m for m in mutants if m["id"] not in left and m["id"] in base]
    not_run = [m for m in mutants if m["id"] not in left and m["id"] not in base]
    before = [m for m in counted if base[m["id"]]["killed"]]
    kept: list[str] = []
    tried = []
    usable = {c["label"] for c in cases if c.get("ok") and not legal.get(c["label"], "not tested under memcheck")}
    killed_by: dict[str, list[str]] = {}
    for m in counted:
        for r in later.get(m["id"], []):
            if r["killed"] and r["case"] in usable and not base[m["id"]]["killed"]:
                killed_by.setdefault(r["case"], []).append(m["id"])
    for c in cases:
        label = c["label"]
        why = legal.get(label, "not tested under memcheck")
        if not c.get("ok"):
            why = f"the original's outputs prove nothing with it: {c.get('why')}"
        elif not why:
            ids = killed_by.get(label, [])
            why = f"kills {', '.join(ids)}" if ids else "kills no survivor"
            if ids:
                kept.append(label)
        tried.append({"label": label, "kept": label in kept, "why": why})
    after = {m["id"] for m in before} | {i for label in kept for i in killed_by[label]}
    survivors = [m for m in counted if m["id"] not in after]
    return {
        "made": len(mutants),
        "counted": len(counted),
        "killed_before": len(before),
        "killed": len(after),
        "survivors": [{"id": m["id"], "kind": m["kind"], "what": m["what"]} for m in survivors],
        "killed_how": {m["id"]: base[m["id"]].get("how", "") for m in before},
        "killed_kinds": sorted({m["kind"] for m in counted if m["id"] in after}),
        "equivalent": [f"{m['what']}: {classes[m['id']][1]}" for m in equivalent],
        "stillborn": [
            f"{m['what']}: {classes.get(m['id'], ('', base.get(m['id'], {}).get('how', '')))[1]}" for m in stillborn
        ],
        "not_run": [m["what"] for m in not_run],
        "strengthening": tried,
        "kept": kept,
        "line": score_line(len(after), len(counted), survivors),
    }


def score_line(killed: int, counted: int, survivors: list[dict[str, Any]]) -> str:
    """ "the check catches 18 of 20 wrong variants; these 2 survive: ..." """
    if not counted:
        return "no wrong variant of the kernel could be run: the check's strength is not measured"
    head = f"the check catches {killed} of {counted} wrong variants"
    if not survivors:
        return head
    said = "; ".join(m["what"] for m in survivors[:3]) + (
        f"; and {len(survivors) - 3} more" if len(survivors) > 3 else ""
    )
    return f"{head}; {'this one survives' if len(survivors) == 1 else f'these {len(survivors)} survive'}: {said}"


def run_in_child(spec: Spec, job: dict, out: Path, run_arrays: Callable) -> None:
    """The mutants' runs, their kernels compiled ahead on every core but one (gpu/worker/prefetch.py)."""
    from .ktsource import kernel_string  # in the child only: kernel_tuner
    from .worker import prefetch  # in the child only: the worker's compile-ahead

    base = spec.baseline_params()
    texts = []
    for m in job["mutants"]:
        try:
            texts.append(kernel_string(spec, m["source"], base))
        except Exception:  # noqa: BLE001 - it fails where it runs, and is stillborn there
            continue
    texts += [kernel_string(spec, job["source"], base, e["sizes"]) for e in job.get("sizes") or []]
    early = None
    if job["backend"] in ("pycuda", "nvcuda") and prefetch.enabled():
        early = prefetch.Early.start_texts(job["backend"], list(spec.compiler_options or []), texts)

    def run(s: Spec, source: str, params: dict) -> dict:
        from ..kernel.inputs import make_args  # numpy, in the child only

        return run_arrays(s, source, params, None, job["backend"], make_args(s, s.sizes))

    def say(line: str) -> None:
        print(line, flush=True)

    try:
        with prefetch.Early.serving([early]) if early else nullcontext():
            child_runs(spec, job, out, run, say)
    finally:
        if early is not None:
            early.close()
