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
from ..kernel.mutant import NoMutant, blocks_reversed, do_nothing, mutants
from ..kernel.spec import Spec, spec_from_plain
from ..kernel.strengthen import candidates, cheap_first, check_entry, kept_as_given
from ..kernel.strengthen_shapes import block_for_survivors
from . import mutants as mutation
from . import mutants_child
from .env import scrubbed_env
from .memcheck import memcheck_for_score, sanitize_sizes
from .mutation_score import score as mutation_score
from .sanitize import sanitize
from .supervise import kill_group
from .timeline import mark

NO_GPU = (
    "no GPU here ({}): the check's strength (sanitizer, mutants, changed arguments, the spec's launch) was not tested"
)
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
        f"tuning {', '.join(changing)} changes the original's outputs ({said}): the baseline's outputs cannot "
        "check other values. Add a [reference] kernel that reads the tuned parameters (its outputs are then taken "
        "per configuration), or keep one value of each in [tune_params]"
    )


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
    if spec.verify == "elementwise":  # a verify function or "none" judges outputs its own way (as refusal())
        # the second run with the blocks in another order: a race between blocks that comes out the
        # same way twice in one order gets another winner; a correct kernel computes the same outputs
        reordered = blocks_reversed(source)
        runs.append({"name": "again", "source": reordered or source, "params": base, "reversed": bool(reordered)})
        if (other := other_geometry(spec)) is not None:
            runs.append({"name": "geometry", "source": source, "params": other})
    return runs, why


def other_geometry(spec: Spec) -> dict | None:
    """The baseline at another block size the space allows (the first block size name with one)."""
    base = spec.baseline_params()
    for name in spec.block_size_names or GEOMETRY:
        for value in spec.tune_params.get(name, []):
            if value != base[name] and spec.allows({**base, name: value}):
                return {**base, name: value}
    return None


def survivor_geometry(spec: Spec) -> dict | None:
    """The baseline with every block size name that has another value the space allows at its next
    one: a term of threadIdx.y dropped is zero at block_size_y = 1, one of threadIdx.x at one warp per
    block. The survivors run there (gpu/mutants.py), as a session verifies every block size."""
    base = spec.baseline_params()
    now = dict(base)
    for name in spec.block_size_names or GEOMETRY:
        values = spec.tune_params.get(name, [])
        after = values[values.index(now[name]) + 1 :] if now.get(name) in values else []
        for value in after + values:  # the next larger first
            if value != now[name] and spec.allows({**now, name: value}):
                now[name] = value
                break
    return now if now != base else None


BLAME_RUNS = {"again": "the race check", "geometry": "the block size check"}  # the runs blame() reads


def _params_text(params: dict, names: list[str]) -> str:
    return ", ".join(f"{n}={params[n]}" for n in names) or "its baseline"


def blame(spec: Spec, original: dict, runs: list[dict], arrays: dict[str, dict]) -> str:
    """Why the spec's launch or the original is the likely cause of wrong results to come: two runs
    of the baseline that differ (a race), or outputs that depend on the block size; "" when neither."""
    from ..compare import compare_all  # numpy: in the child

    tol = {a.name: a.tolerance() for a in spec.outputs()}
    base = spec.baseline_params()
    geometry = [n for n in spec.block_size_names or GEOMETRY if n in base]
    for run in runs:
        got = arrays.get(run["name"])
        if run["name"] not in ("again", "geometry") or got is None:
            continue
        bad = [v for v in compare_all(original, got, tol) if not v["ok"]]
        if not bad:
            continue
        v = bad[0]
        n = original[v["output"]].size
        numbers = (
            f"`{v['output']}` differs in {v['mismatches']} of {n} elements"
            + (f" (largest difference {v['max_abs_err']:.4g}" if v.get("max_abs_err") is not None else " (")
            + f", first at {v['output']}[{v['first_bad']}])"
        )
        if run["name"] == "again":
            runs_said = (
                "the original kernel's outputs depend on the order its blocks run in: run again at its baseline "
                f"({_params_text(base, geometry)}) with its blocks in reverse order (the block started first doing "
                "the last one's work), "
                if run.get("reversed")
                else f"two runs of the original kernel at its baseline ({_params_text(base, geometry)}) give "
                "different outputs: "
            )
            return (
                f"{runs_said}{numbers}. A race in the original, or a launch (grid, stride, sizes) that makes threads "
                "or arrays overlap: the spec's launch or the original is the likely cause, not a generated kernel. "
                "Fix it before tuning"
            )
        changed = [n for n in geometry if run["params"][n] != base[n]]
        return (
            f"the original kernel's outputs depend on its block size: at {_params_text(run['params'], changed)} "
            f"{numbers} from its baseline's ({_params_text(base, changed)}). The spec's launch (grid divisors, "
            "stride, sizes) or the original is the likely cause (e.g. one block per row with the default grid "
            "divisor leaves rows uncomputed), not a generated kernel. Fix it before tuning"
        )
    return ""


GPU_DONE = "kt-tui: the check runs left the GPU"  # the child's line once its runs ended, before it judges
# (followed by the job's token: a kernel's printf, which reaches the same stdout, cannot say it)


MAX_CHILDREN = 32  # children started for one test: one, and one more after each mutant that hung or crashed
STANDBY = "--standby"  # a child started so: imports done, it waits for "go" on its stdin (or exits at its end)


def run_child(
    job: dict,
    out: Path,
    timeout_s: float,
    device: str | None = None,
    gpu_done: Callable[[], None] | None = None,
    on_survivors: Callable[[int], object] | None = None,
) -> str:
    """Run the child on `job` (on GPU `device` of this host's, where given); "" or what went wrong.
    It judges its arrays itself and writes the state to `out`/state.json; `gpu_done` is called
    once its runs have ended (it still judges), or once it has exited. A mutant's run that hangs
    (past the limit the child's line gives it, gpu/mutants.py hang_limit) or takes the child down is
    recorded as killed, and another child goes on with the rest: one started in standby once the
    mutants' runs begin (its interpreter and imports, about a second and a half, not waited for
    after a crash; one more process while they run); `on_survivors` hears how many mutants survived
    every size and the stronger inputs at the check sizes, once those ran."""
    token = secrets.token_hex(8)
    Path(out, "job.json").write_text(json.dumps({**job, "token": token}))
    env = scrubbed_env(PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    if device is not None:
        env["CUDA_VISIBLE_DEVICES"] = device
    cmd = [sys.executable, "-m", "kt_tui.gpu.checkrun", str(Path(out, "job.json")), str(out)]
    done = gpu_done or (lambda: None)
    deadline = time.monotonic() + timeout_s
    spare: list[subprocess.Popen] = []

    def standby() -> None:
        if not spare and job.get("mutants"):
            started = _start(cmd + [STANDBY], env, out)
            if not isinstance(started, str):
                spare.append(started)

    try:
        error = ""
        for _ in range(MAX_CHILDREN):
            while spare and spare[0].poll() is not None:  # a standby that died before it was needed
                spare.pop().wait()
            proc = _go(spare.pop()) if spare else _start(cmd, env, out)
            if isinstance(proc, str):
                return proc
            error, running = _one_child(proc, token, deadline, timeout_s, done, on_survivors or (lambda n: 0), standby)
            if not error or running is None:
                return error
            _record_lost(out, running, error)
        return error
    finally:
        for proc in spare:
            kill_group(proc)
            proc.wait()
        done()


def _start(cmd: list[str], env: dict, out: Path) -> subprocess.Popen | str:
    try:
        return subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE if STANDBY in cmd else None,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            env=env,
            cwd=out,
            start_new_session=True,
        )
    except OSError as e:
        return f"cannot run {sys.executable}: {e.strerror or e}"


def _go(proc: subprocess.Popen) -> subprocess.Popen:
    """A standby child told to go on (one that died meanwhile is seen dead as any other)."""
    try:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.close()
    except (OSError, ValueError):
        pass
    return proc


def _one_child(
    proc: subprocess.Popen,
    token: str,
    deadline: float,
    timeout_s: float,
    done: Callable[[], None],
    on_survivors: Callable[[int], object],
    on_mutants: Callable[[], None] = lambda: None,
) -> tuple[str, list[str] | None]:
    """One child: "" or what went wrong, and the mutant or case it was running when it hung or died.
    `on_mutants` is called when its first mutant's run starts."""
    lines: list[str] = []
    running: dict[str, Any] = {"what": None, "since": 0.0, "limit": mutation.HANG_S}

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            text = line.rstrip("\n")
            for said in (f"{mutation.MARK} {token} ", f"{mutation.SURVIVORS} {token} ", f"{GPU_DONE} {token}"):
                if (k := text.find(said)) > 0:  # after a kernel's printf that ended with no newline
                    text = text[k:]
            if text == f"{GPU_DONE} {token}":
                done()
            elif text.startswith(f"{mutation.MARK} {token} "):
                parts = text.split(" ", 7)
                running["what"], running["since"] = parts[4:], time.monotonic()
                running["limit"] = _seconds(parts[3])
                if parts[4] == "mutant":
                    on_mutants()
            elif text.startswith(f"{mutation.SURVIVORS} {token} "):
                on_survivors(int(text.rsplit(" ", 1)[-1]))
            elif len(lines) < 2000:
                lines.append(line)

    reader = threading.Thread(target=read, daemon=True, name="kt-check-child")
    reader.start()
    try:
        while True:
            try:
                proc.wait(timeout=0.2)
                break
            except subprocess.TimeoutExpired:
                pass
            now = time.monotonic()
            what, limit = running["what"], running["limit"]
            if now > deadline or (what is not None and now - running["since"] > limit):
                kill_group(proc)
                proc.wait()
                if what is not None and now <= deadline:
                    return f"{mutation.HANGS} {limit:g} s", what
                return f"the check runs did not finish within {timeout_s:g} s", None
    finally:
        reader.join(timeout=5)
    if proc.returncode != 0:
        last = [ln for ln in lines if ln.strip()][-3:]
        said = " | ".join(ln.strip() for ln in last)
        return f"the check runs failed (exit status {proc.returncode}): {said}", running["what"]
    return "", None


def _seconds(text: str) -> float:
    """A run's limit from the child's line: at most HANG_S, whatever a kernel's printf says."""
    try:
        return min(mutation.HANG_S, max(mutation.HANG_FLOOR_S, float(text)))
    except ValueError:
        return mutation.HANG_S


def _record_lost(out: Path, running: list[str], error: str) -> None:
    """What a child was running when it hung or died: a mutant killed by it, or stronger inputs the
    original cannot take (the original's own run at a check size kills nothing)."""
    kind, mid, phase, label = (running + ["", "", "", ""])[:4]
    case = label if phase == "case" else None
    if kind == "original":
        return
    if kind == "case":
        mutation.append(Path(out, mutation.CASES), {"label": case, "ok": False, "why": f"the original {error}"})
    elif not any(r["id"] == mid and r.get("case") == case for r in mutation.read_jsonl(Path(out, mutation.RECORDS))):
        mutation.append(Path(out, mutation.RECORDS), {"id": mid, "case": case, "killed": True, "how": error})


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
    state = strength.verdict(reasons, fixes, changed=changed, notes=notes, result_params=changing)
    if why := blame(spec, outs, runs, arrays):
        state["blame"] = state["refused"] = why
    return state


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
    parameters that change the outputs, what blames the spec, the mutation score and the stronger
    cases kept; raises OutOfBounds when the original leaves its arrays. `gpu_free` is called once
    nothing of the test runs on the GPU any more (the child may still be judging its arrays)."""
    if backend in (None, "sim", "none"):
        return static_state(spec, NO_GPU.format("a SIMULATED replay" if backend == "sim" else "no GPU backend"))
    started = time.monotonic()
    runs, why = child_runs(source, spec)
    try:
        wrong = mutants(source, spec.kernel, spec=spec) if spec.verify == "elementwise" else []
    except NoMutant:
        wrong = []
    cases = cheap_first(spec, candidates(spec, source)) if wrong else []
    child_off, survived = threading.Event(), threading.Event()
    records: list[dict] = []
    tried: list[dict] = []
    unsafe: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="kt-checkrun-") as tmp:
        # the runs need no sanitizer: they go on beside it (another process, another context)
        said: dict[str, str] = {}
        entries = [mutation.job_entry(m) for m in wrong]
        job = {
            "spec": spec.to_dict(),
            "backend": backend,
            "runs": runs,
            "source": source,
            "mutants": entries,
            "sizes": spec.extra_sizes(),
            "cases": cases,
            "geometry": block_for_survivors(spec, source) or survivor_geometry(spec),
            "budget_s": mutation.BUDGET_S,
            "strengthen_s": mutation.STRENGTHEN_S,
            "verdict": True,  # memcheck_for_score's on the cases that killed, or none (below)
        }

        def off() -> None:  # the child's runs ended: it said its survivors before, if any
            child_off.set()
            survived.set()

        def runs_beside() -> None:
            try:
                said["error"] = child(job, Path(tmp), timeout_s, gpu_done=off, on_survivors=lambda n: survived.set())
            finally:
                child_off.set()
                survived.set()

        beside = threading.Thread(target=runs_beside, daemon=True)
        beside.start()
        legal: dict[str, str] = {}
        try:
            oob, notes = sanitize_sizes(source, spec, backend, sanitizer, timeout_s)
            mark(f"main: check memcheck done ({len(spec.extra_sizes()) + 1} sizes)")
            survived.wait()  # the stronger inputs at the check sizes ran, or the child's runs ended

            def scored() -> bool:  # the mutants' records are whole: the child's runs ended
                child_off.wait()
                return not _blamed_or_unjudged(Path(tmp, "state.json"))

            if wrong and not oob:
                legal, unsafe = memcheck_for_score(
                    source, spec, backend, entries, cases, Path(tmp), scored, sanitizer, timeout_s
                )
            else:
                mutation.write_verdict(Path(tmp), {})
            child_off.wait()
            records = mutation.all_records(Path(tmp))
            tried = mutation.read_jsonl(Path(tmp, mutation.CASES))
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
    if not state.get("blame") and (wrong or why and spec.verify == "elementwise"):  # why: no mutant could be made
        score = mutation_score(entries, records, tried, legal, unsafe, original=(source, spec), unmade=why)
        if score["survivors"] and (given := kept_as_given(spec, cases)):
            score["line"] += f" ({given})"
        state["mutants"] = {k: v for k, v in score.items() if k != "kept"}
        state["cases"] = [check_entry(spec, c) for c in cases if c["label"] in score["kept"]]
    state["seconds"] = round(time.monotonic() - started, 2)
    return state


def _blamed_or_unjudged(judged: Path) -> bool:
    """Whether the child wrote no state, or one blaming the spec: its mutants are not scored."""
    try:
        return bool(json.loads(judged.read_text()).get("blame"))
    except (OSError, ValueError, AttributeError):
        return True


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
    """Inputs from the user's Python, which only the GPU worker runs (kernel/inputs.py user_function),
    rounded or not."""
    return any(a.init in ("function", "rounded") for a in spec.args)


def main(argv: list[str]) -> int:
    """The child: each run on fresh inputs, every array argument kept before the first and after
    each, then judged here (state.json): a big session's arrays never cross to the app's process.
    Then the mutants (gpu/mutants.py), unless the original is blamed; a child started again after a
    mutant hung or crashed finds state.json and goes on with the mutants left."""
    up = time.monotonic()
    mark("check child: up")
    from .device.outputs import run_arrays  # in this child process only: it loads kernel_tuner

    allow_user_code()

    mark("check child: imports done")
    if STANDBY in argv[2:]:
        if sys.stdin.readline().strip() != "go":  # the test ended without needing it
            return 0
        up = time.monotonic()
        mark("check child: went on from standby")
    job = json.loads(Path(argv[0]).read_text()) | {"child_up": up}
    spec = spec_from_plain(job["spec"])
    out = Path(argv[1])
    with mutants_child.compiled_ahead(spec, job, out) as kernels:  # every kernel it runs, compiled from the start
        return _runs(spec, job, out, run_arrays, kernels)


def _runs(spec: Spec, job: dict, out: Path, run_arrays: Callable, kernels: Any) -> int:
    judged = out / "state.json"
    if not judged.exists():
        arrays: dict[str, dict] = {}
        notes = []
        args = make_args(spec, spec.sizes)  # once: kernel_tuner copies them to the GPU, never back
        for i, run in enumerate(job["runs"]):
            if i == 0:
                arrays["before"] = {a.name: v.copy() for a, v in zip(spec.args, args) if a.is_array}
            try:
                arrays[run["name"]] = run_arrays(spec, run["source"], run["params"], None, job["backend"], args)
            except Exception as e:  # noqa: BLE001 - the original's failure is the answer; another run's is a note
                print(f"kt-tui: {run['name']}: {type(e).__name__}: {str(e)[:300]}", flush=True)
                if i == 0:
                    return 1
                if run["name"] in BLAME_RUNS:
                    said = f"{type(e).__name__}: {str(e)[:200]}"
                    notes.append(
                        f"{BLAME_RUNS[run['name']]} did not run: the original's run `{run['name']}` failed ({said})"
                    )
            mark(f"check child: ran {run['name']}")
        judged.write_text(json.dumps(judge(spec, arrays, job["runs"], notes)))
        del arrays
    if job.get("mutants") and not json.loads(judged.read_text()).get("blame"):
        mutants_child.run_in_child(spec, job, out, run_arrays, kernels)
    print(GPU_DONE, job.get("token", ""), flush=True)
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(code)  # not waiting at exit for a compile ahead still running: the parent waits for this exit
