"""The check measures itself (issue 35): the original's mutants (kernel/mutant.py) run in the check's
child beside the first measurements, at the spec's size and every check size, and the mutation score
says how many wrong variants the check catches. When some survive, the stronger inputs of
kernel/strengthen.py are tried on them, at the check sizes first, then at the spec's size on those no
case killed; a case is kept when it kills a survivor, its outputs stay non-degenerate and the original
runs clean with it (memcheck, gpu/memcheck.py: only the cases that kill are memchecked).

Which mutants count: one that does not compile is stillborn, one whose machine code (the spec's
options, the baseline's defines) is the original's is equivalent by construction (trivial compiler
equivalence); neither is counted. The child compiles every kernel it runs once, from its start, on
every core but one (gpu/mutants_child.py Kernels): the cubins it runs are the ones compared, so an
equivalent mutant is never run. Its runs are guarded (kernel/guards.py: a zone of poison or canaries after every array) on inputs
made once per size, the cheapest size first; a mutant stops at the first size where it differs, and
the next size's kernel of one that passes compiles while the others run. The child writes a record
per mutant as it goes (mutants.jsonl) and says which one it runs, and for how long it may: a mutant
that hangs is stopped after HANG_FACTOR times the original's own run at that size (at least
HANG_FLOOR_S, at most HANG_S), one that takes the child down is recorded as killed by it, and a new
child goes on with the rest, within the deadlines the first child set (deadlines.json): a child
started again gets no fresh budget, only its own start-up and runs of the original on top (a budget
is seconds of mutants' runs: without that, a kernel whose mutants crash spent it on restarts and left
two thirds of its mutants unrun, on an H100 in session 10). Nor do the seconds a hanging mutant ran
before it was stopped count, up to HANG_CREDIT_S in all: one hang at HANG_S took the whole budget and
left 23 of sgns_pair_warp's 30 mutants unrun (H100, session 14)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..kernel.expr import ExprError, evaluate
from ..kernel.mutant import Mutant
from ..kernel.spec import Spec
from ..kernel.strengthen import case_spec
from .elf import elf_sections
from .timeline import mark

BUDGET_S = 5.0  # the mutants' runs at the spec's and check sizes, in the child, after the original's
STRENGTHEN_S = 3.0  # then the survivors' runs on stronger inputs
GEOMETRY_S = 2.0  # then the survivors at another block size
HANG_S = 5.0  # a mutant's run that takes longer is stopped: it hangs, which a check sees
# A mutant's run (its kernel compiled) that takes HANG_FACTOR times the original's whole run at that
# size (inputs made, copied, run, copied back) is stopped as hanging: a kernel that slow is never
# accepted by a session, whose steps must be faster. The floor keeps host jitter from killing one.
HANG_FACTOR, HANG_FLOOR_S = 20.0, 1.0
MARK = "kt-tui: running"  # before each run: "<MARK> TOKEN LIMIT_S original|mutant|case ID base|case LABEL"
# once the mutants ran at every size and the survivors on the stronger inputs at the check sizes:
# "<SURVIVORS> TOKEN N", N the survivors no case killed (those the spec's size's cases run on)
SURVIVORS = "kt-tui: survivors"
RECORDS, CASES, DEADLINES = "mutants.jsonl", "cases.jsonl", "deadlines.json"
# the parent's memcheck of the cases that killed at the check sizes: {"refused": [labels]} (gpu/memcheck.py);
# a child whose job has "verdict" waits for it up to VERDICT_S, to run the survivors those kills leave;
# past that, each survivor it would have run gets a record of case UNRETRIED (the score says how many)
VERDICT, VERDICT_S = "verdict.json", 30.0
UNRETRIED = "not retried: no verdict"
ORIGINALS = "originals.jsonl"  # the original's run at each size the mutants run at (gpu/unrun.py)
HANGS = "hangs: stopped after"  # how a run stopped by its parent is recorded
HANG_CREDIT_S = 2 * HANG_S  # hangs' seconds added to the deadlines, at most


def job_entry(m: Mutant) -> dict[str, Any]:
    return {"id": m.id, "kind": m.kind, "what": m.what, "source": m.source, "equivalent": m.equivalent}


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


def all_records(out: Path) -> list[dict[str, Any]]:
    """The mutants' records, then the original's runs (original_record)."""
    return read_jsonl(out / RECORDS) + read_jsonl(out / ORIGINALS)


def append(path: Path, record: dict[str, Any]) -> None:
    with path.open("a") as f:
        f.write(json.dumps(record) + "\n")


Run = Callable[[Spec, str, dict], dict]  # (spec at a case, source, params) -> every array after the run


def sizes_in_order(spec: Spec, job: dict[str, Any]) -> list[tuple[str, Spec]]:
    """The spec's size and the check sizes, the cheapest first (the fewest array elements): most
    mutants die at the first, so most runs are small."""
    base = [("", spec)] + [(e["label"], replace(spec, sizes=e["sizes"])) for e in job.get("sizes") or []]
    return sorted(base, key=lambda ls: _elements(ls[1]))


def _elements(s: Spec) -> int:
    total = 0
    for a in s.args:
        if a.is_array:
            try:
                total += int(evaluate(a.size, s.sizes)) * a.lanes
            except (ExprError, TypeError, ValueError):
                continue  # a file's array: the same at every size
    return total


def child_runs(
    spec: Spec,
    job: dict[str, Any],
    out: Path,
    run: Run,
    say: Callable[[str], None],
    sort: Callable[[str], tuple[str, str]] = lambda source: ("live", ""),
    compile_at: Callable[..., None] = lambda s, source, params=None: None,
    ready: Callable[..., bool] = lambda s, source, params: False,
) -> None:
    """The mutants at each size, the cheapest first, each until the first size where it differs; then
    the survivors on each stronger case the original handles: every survivor on each case at a check
    size (small, cheap), then at the spec's size only those no case killed. Every outcome appended to
    out/mutants.jsonl as it is known, so a child that is stopped or dies leaves what it found to the
    next. `sort(source)`: ("live" | "equivalent" | "stillborn", why) from the mutant's compile at the
    first size; only a live one runs. `compile_at(spec, source, params=None)`: one that passed a size runs
    at this next (or at these parameters: the survivors at another block size). `ready(spec, source,
    params)`: whether that kernel is compiled (waited for): only then is a mutant's run held to the
    original's time (hang_limit), else to HANG_S.
    Raises what a run raised when the GPU context may be lost (the parent starts another child)."""
    from ..compare import compare_all, failure_text  # numpy, in the child only
    from ..kernel import strength  # numpy, in the child only
    from ..kernel.guards import PastTheEnd  # numpy, in the child only
    from ..kernel.inputs import make_args  # numpy, in the child only

    token = job.get("token", "")
    baseline = spec.baseline_params()
    tol = {a.name: a.tolerance() for a in spec.outputs()}
    base = sizes_in_order(spec, job)
    refs: dict[tuple[str, str], dict | None] = {}
    took: dict[tuple[str, str], float] = {}  # the original's run, in seconds
    cases_by_label = {c["label"]: c for c in job.get("cases") or []}

    path = out / RECORDS
    credit = [min(HANG_CREDIT_S, sum(hung_seconds(r) for r in read_jsonl(path)))]  # for the mutants' phase only

    def over(deadline: float) -> bool:
        """Past a phase's deadline, not counting this child's runs of the original (its inputs made
        with them) nor the hangs stopped before it: a budget is for the mutants' runs, which a child
        started again must not lose."""
        return time.monotonic() > deadline + sum(took.values()) + credit[0]

    def expected(label: str, s: Spec, params: dict) -> dict | None:
        key = (label, repr(sorted(params.items())))
        if key not in refs:
            said = f"case - case {label}" if label in cases_by_label else f"original - base {label or '-'}"
            say(f"{MARK} {token} {HANG_S:g} {said}")
            t0 = time.monotonic()
            try:
                got = run(s, job["source"], params)
            except PastTheEnd as e:  # memcheck names it: the spec is refused, nothing is judged here
                print(f"kt-tui: the original kernel {e} at {label or 'the spec size'}", flush=True)
                refs[key] = None
                return None
            took[key] = time.monotonic() - t0
            refs[key] = {a.name: got[a.name] for a in s.outputs() if a.name in got}
            if label not in cases_by_label and params == baseline:  # what a check too slow to finish is told
                append(out / ORIGINALS, original_record(label, s, took[key]))
        return refs[key]

    def judge(m: dict, label: str, s: Spec, params: dict = baseline) -> tuple[bool, str]:
        phase = "case" if label in cases_by_label else "base"
        want = expected(label, s, params)
        if want is None:
            return False, ""
        key = (label, repr(sorted(params.items())))
        limit = hang_limit(took[key]) if ready(s, m["source"], params) else HANG_S
        say(f"{MARK} {token} {limit:.3g} mutant {m['id']} {phase} {label or '-'}")
        try:
            got = run(s, m["source"], params)
        except PastTheEnd as e:
            return True, f"{e}{' at ' + label if label else ''}"
        except Exception as e:  # noqa: BLE001 - a failure is what a check would see: killed
            text = f"{type(e).__name__}: {e}".strip().splitlines()[0][:200]
            if any(w in text.lower() for w in ("compil", "nvrtc", "ptxas", "nvcc")):
                return True, f"stillborn: {text}"
            raise Killed(f"fails{' at ' + label if label else ''}: {text}") from e
        bad = failure_text(compare_all(want, got, tol), label or "the spec's size")
        return bool(bad), bad

    def judged(m: dict, label: str, s: Spec, case: str | None, params: dict = baseline) -> tuple[bool, str]:
        try:
            return judge(m, label, s, params)
        except Killed as e:
            moved = {"geometry": True} if params != baseline else {}
            append(path, {"id": m["id"], "case": case, "killed": True, "how": str(e), **moved})
            raise

    recorded = {(r["id"], r.get("case")) for r in read_jsonl(path)}
    deadline = phase_deadline(out, "mutants", float(job.get("budget_s", BUDGET_S)), started=job.get("child_up"))
    alive = [m for m in job.get("mutants") or [] if (m["id"], None) not in recorded]
    for k, (label, s) in enumerate(base):
        following = base[k + 1][1] if k + 1 < len(base) else None
        passed = []
        for m in alive:
            if over(deadline):
                break
            if k == 0 and m.get("equivalent"):  # by construction (kernel/mutant.py): never run
                append(
                    path, {"id": m["id"], "case": None, "killed": False, "how": m["equivalent"], "class": "equivalent"}
                )
                continue
            if k == 0 and (sorted_ := sort(m["source"]))[0] != "live":
                append(path, {"id": m["id"], "case": None, "killed": False, "how": sorted_[1], "class": sorted_[0]})
                continue
            killed, how = judged(m, label, s, None)
            if killed:
                append(path, {"id": m["id"], "case": None, "killed": True, "how": how, "at": label})
                continue
            passed.append(m)
            if following is not None:
                compile_at(following, m["source"])
        alive = passed
    if not over(deadline):  # else those left were not run at every size
        for m in alive:
            append(path, {"id": m["id"], "case": None, "killed": False, "how": "", "at": ""})
    mark("check child: mutants done")
    credit[0] = 0.0  # the later phases' deadlines start from now: the hangs were counted once
    records = read_jsonl(path)
    survivors = [m for m in job.get("mutants") or [] if any(r["id"] == m["id"] and r.get("case") is None
                 and not r["killed"] and not r.get("class") for r in records)]  # fmt: skip
    if survivors and job.get("geometry"):  # a session verifies every block size: so does the check, for these
        geometry, label = job["geometry"], geometry_label(job["geometry"], baseline)
        for _, s in base:  # every kernel they may run, compiled at once
            for source in [job["source"], *(m["source"] for m in survivors)]:
                compile_at(s, source, geometry)
        moved = phase_deadline(out, "geometry", GEOMETRY_S, after=deadline, started=job.get("child_up"))
        for size, s in base:
            for m in survivors:
                if (m["id"], label) not in recorded and not over(moved):
                    killed, how = judged(m, size, s, label, geometry)
                    if killed:
                        append(
                            path,
                            {"id": m["id"], "case": label, "killed": True, "how": how, "at": size, "geometry": True},
                        )
                        recorded.add((m["id"], label))
        survivors = [m for m in survivors if (m["id"], label) not in recorded]
        mark("check child: survivors at another block size done")
    if not survivors:
        say(f"{SURVIVORS} {token} 0")
        return
    cases = job.get("cases") or []
    small = [c for c in cases if c.get("small")]  # at a check size (kernel/strengthen.py cheap_first)
    for case in small:  # those after the first compile while it runs
        for source in [job["source"], *(m["source"] for m in survivors)]:
            compile_at(case_spec(spec, case), source)
    cases_path = out / CASES
    tried = {c["label"]: c for c in read_jsonl(cases_path)}
    deadline = phase_deadline(
        out, "stronger", float(job.get("strengthen_s", STRENGTHEN_S)), after=deadline, started=job.get("child_up")
    )

    def on_case(case: dict[str, Any], targets: list[dict[str, Any]]) -> None:
        label = case["label"]
        s = case_spec(spec, case)
        targets = [m for m in targets if (m["id"], label) not in recorded]
        if label not in tried:
            if over(deadline) or not targets:
                return
            before = {a.name: v.copy() for a, v in zip(s.args, make_args(s, s.sizes)) if a.is_array}
            outs = expected(label, s, baseline)  # the original's run on these inputs (a failure: the parent says so)
            weak = strength.weak_outputs(outs, before, tol) if outs is not None else ["the original writes past an end"]
            tried[label] = {"label": label, "ok": not weak, "why": "; ".join(weak)}
            append(cases_path, tried[label])
        for m in targets if tried[label]["ok"] else []:
            if over(deadline):
                return
            killed, how = judged(m, label, s, label)
            append(path, {"id": m["id"], "case": label, "killed": killed, "how": how, "at": label})
            recorded.add((m["id"], label))

    def uncaught(refused: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
        dead = {r["id"] for r in read_jsonl(path) if r.get("case") in cases_by_label and r["killed"]
                and r["case"] not in refused}  # fmt: skip
        return [m for m in survivors if m["id"] not in dead]

    for case in small:  # every survivor meets every case here: a kill by a case memcheck refuses is not the only one
        on_case(case, survivors)
    mark("check child: stronger inputs at the check sizes done")
    left = uncaught()
    caught = [m for m in survivors if m not in left]  # by a case at a check size, which memcheck may yet refuse
    say(f"{SURVIVORS} {token} {len(left)}")  # the parent memchecks the cases that killed, beside what follows
    rest = [c for c in cases if not c.get("small")]
    for case in rest if left else []:
        for source in [job["source"], *(m["source"] for m in left)]:
            compile_at(case_spec(spec, case), source)
    for case in rest:  # at the spec's size (or a case's own sizes): only on the survivors no case killed
        if left := uncaught():
            on_case(case, left)
    if rest and job.get("verdict") and caught:
        say(f"{MARK} {token} {VERDICT_S + HANG_S:g} original - verdict -")  # no mutant: the hang watch records none
        refused = wait_verdict(out)
        if refused is None:  # memcheck had not finished: a kill it later refuses leaves a survivor not retried
            late = f"not retried at the spec's size: memcheck had not finished in {VERDICT_S:g} s"
            for m in caught:
                append(path, {"id": m["id"], "case": UNRETRIED, "killed": False, "how": late, "at": ""})
        elif again := uncaught(refused):  # like any survivor: a kill memcheck discounts is none
            deadline = phase_deadline(
                out, "again", float(job.get("strengthen_s", STRENGTHEN_S)), started=job.get("child_up")
            )
            for case in rest:
                if left := uncaught(refused):
                    on_case(case, left)
            mark(f"check child: {len(again)} survivors of refused cases at the spec's size done")
    mark("check child: strengthening done")


def wait_verdict(out: Path, seconds: float | None = None) -> frozenset[str] | None:
    """The labels of the stronger cases memcheck refused, once the parent wrote them (out/VERDICT);
    None after `seconds` (VERDICT_S) without it."""
    path, until = out / VERDICT, time.monotonic() + (VERDICT_S if seconds is None else seconds)
    while not path.exists() and time.monotonic() < until:
        time.sleep(0.05)
    if not path.exists():
        return None
    try:
        return frozenset(json.loads(path.read_text()).get("refused") or [])
    except (OSError, ValueError, AttributeError):
        return frozenset()


def write_verdict(out: Path, legal: dict[str, str]) -> None:
    """For the child (wait_verdict): the cases memcheck refused, of `legal` (label -> "" or why not)."""
    part = out / (VERDICT + ".part")
    part.write_text(json.dumps({"refused": sorted(label for label, why in legal.items() if why)}))
    part.replace(out / VERDICT)


def original_record(label: str, s: Spec, seconds: float) -> dict[str, Any]:
    """The original's run at a size of the mutants' phase: how long it took (its inputs made, copied,
    run and copied back), the sizes it ran with and the bytes of its arrays (gpu/unrun.py reads it)."""
    sizes = dict(s.sizes)
    return {"original": label, "seconds": round(seconds, 6), "sizes": sizes, "bytes": _bytes(s)}


def _bytes(s: Spec) -> int:
    import numpy as np  # in the child only

    total = 0
    for a in s.args:
        if a.is_array:
            try:
                total += int(evaluate(a.size, s.sizes)) * a.lanes * np.dtype(a.dtype).itemsize
            except (ExprError, TypeError, ValueError):
                continue  # a file's array, or a struct's bytes: left out
    return total


def hung_seconds(record: dict[str, Any]) -> float:
    """How long a mutant ran before its parent stopped it as hanging (0 for any other record)."""
    how = str(record.get("how", ""))
    if not how.startswith(HANGS):
        return 0.0
    try:
        return min(HANG_S, max(0.0, float(how[len(HANGS) :].split()[0])))
    except (IndexError, ValueError):
        return 0.0


def hang_limit(original_s: float) -> float:
    """How long a mutant's run may take where the original's took `original_s`."""
    return min(HANG_S, max(HANG_FLOOR_S, HANG_FACTOR * original_s))


def phase_deadline(
    out: Path, phase: str, seconds: float, after: float | None = None, started: float | None = None
) -> float:
    """A phase's deadline (on time.monotonic()): `seconds` from now, or from `after` where that is
    later, set by the first child that reaches the phase and kept in out/deadlines.json, so that a
    child started again after a mutant hung or crashed goes on within it. `started`: when this child
    started (time.monotonic()); a child started again gets its own start-up on top (python, kernel_tuner,
    a CUDA context: the budget is for mutants' runs)."""
    path = out / DEADLINES
    known = json.loads(path.read_text()) if path.exists() else {}
    now, wall = time.monotonic(), time.time()
    if phase not in known:
        known[phase] = wall + max(after if after is not None else now, now) - now + seconds
        path.write_text(json.dumps(known))
        return now + float(known[phase]) - wall
    return now + float(known[phase]) - wall + (max(0.0, now - started) if started is not None else 0.0)


def geometry_label(params: dict[str, Any], baseline: dict[str, Any]) -> str:
    """ "at block_size_x=64, block_size_y=2 (another block size)" """
    changed = ", ".join(f"{k}={v}" for k, v in params.items() if baseline.get(k) != v)
    return f"at {changed} (another block size)"


class Killed(Exception):
    """A mutant's run failed: the check kills it, and the GPU context may be lost with it."""


MACHINE = (".text.", ".nv.constant", ".nv.shared.", ".nv.global", ".nv.info")  # a cubin's code and data, no debug


def machine_code(cubin: bytes) -> bytes:
    """What of a cubin the GPU runs: its code and data sections by name (line tables and notes, which
    name the compile's folder under -lineinfo, left out)."""
    named = sorted((n, b) for n, b in elf_sections(cubin).items() if n.startswith(MACHINE))
    return b"".join(n.encode() + b"\0" + len(b).to_bytes(8, "little") + b for n, b in named)
