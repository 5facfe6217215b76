"""One generated kernel, from the LLM's rewrite to accepted or rejected: fix its tunable
parameters, review and compile it, show it at a gate, then verify, tune and compare."""

from __future__ import annotations

import difflib
from collections.abc import Generator
from dataclasses import replace
from typing import Any

from ..compare import failure_text
from ..gpu import compile as gpu_compile  # looked up at each call: tests replace them
from ..gpu.compile import format_errors
from ..kernel.expr import ExprError, check_names
from ..kernel.params import apply_renames, check_params
from ..kernel.parsed import ParsedKernel
from ..kernel.review import review
from ..kernel.spec import Spec, spec_from_plain
from ..kernel.values import clean_tune_params
from ..records import Result
from .checks import first_failure
from .gates import AcceptGate, Decision, Gate, KernelGate
from .manual import KERNEL_NOTE, is_manual
from .profiles import engine_block, result_lines
from .strength import kept_cases, vacuous_why
from .verdict import NOT_CHECKED, NOT_MEASURED, verdict_text

GRID_NAMES = ("block_size_x", "block_size_y", "block_size_z")


Gates = Generator[Gate, Decision, None]


def spec_text(spec: Spec) -> str:
    return (
        f"problem_size = {spec.problem_size} with {spec.sizes}; grid divisors x={spec.grid_div_x} y={spec.grid_div_y}"
    )


def prompt_context(engine: Any) -> dict[str, Any]:
    """The current best kernel and its numbers: the values every prompt template can use."""
    vid = engine.current_best()
    source, spec = engine.version(vid)
    best = engine.best_of(vid)
    return {
        "kernel_string": source,
        "kernel_name": spec.kernel,
        "tune_params": spec.tune_params,
        "restrictions": spec.restrictions,
        "problem_size": spec_text(spec),
        "gpu": engine.choice.gpu,
        "results": f"best {best.time_ms:.4f} ms with {dict(best.params)}" if best else "not measured yet",
        "performance": engine_block(engine),
    }


def prepare(
    engine: Any,
    code: str,
    tune_params: dict[str, Any],
    restrictions: list[str],
    base_spec: Spec,
    grid: dict[str, Any] | None = None,
    suggested: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Fix parameter names, drop unused ones, and check the code: what the kernel gate shows.
    `suggested`: a step's candidate values (explicit strategy), for the names the code uses but
    the rewrite left out of its tune_params; they go after the rewrite's own (results are keyed
    in tune_params order), and names the code does not use are not added."""
    # a bad name or value (it would be written into the source as #define) is left out and flagged
    tune, dropped = clean_tune_params(tune_params)
    suggested, more = clean_tune_params(suggested or {}, "suggested")
    dropped += more
    fixes = []
    parsed = ParsedKernel(code)  # read once here; the checks below and the review all use it
    for name, values in suggested.items():
        if name not in tune and name in parsed.identifiers:
            tune[name] = list(values)
            fixes.append(f"{name} is used but was not declared: took the step's suggested values")
    names = list(base_spec.block_size_names or GRID_NAMES)
    report = check_params(parsed, tune, names)
    if report.renames:
        code = apply_renames(parsed, report.renames)
        parsed = ParsedKernel(code)
        fixes += [f"renamed {a} to {b} in the code" for a, b in report.renames.items()]
        report = check_params(parsed, tune, names)
    for name in report.used_undeclared:
        if name in base_spec.tune_params:
            tune[name] = list(base_spec.tune_params[name])
            fixes.append(f"{name} is used but was not declared: took its values from the current kernel")
    for name in GRID_NAMES:
        if name in base_spec.tune_params and name not in tune:
            tune[name] = list(base_spec.tune_params[name])
    report = check_params(parsed, tune, names)
    grid = grid or {}
    keep = set(names) | {
        n
        for k in ("grid_div_x", "grid_div_y", "grid_div_z")
        for e in (grid.get(k) or getattr(base_spec, k) or [])
        for n in tune
        if n in str(e)
    }
    for name in report.declared_unused:
        if name not in keep:
            tune.pop(name, None)
            fixes.append(f"dropped {name}: declared but not used by the code")
    restrictions, grid, rejected = checked_expressions(restrictions, grid, tune)
    spec = replace(
        base_spec,
        tune_params=tune,
        restrictions=restrictions,
        defaults={
            k: base_spec.defaults[k] for k in tune if k in base_spec.defaults and base_spec.defaults[k] in tune[k]
        },
        **{k: v for k, v in grid.items() if v},
    )
    unresolved = [n for n in check_params(parsed, tune, names).used_undeclared]
    rejected += [{"kind": "expression", "line": None, "message": f"rejected, not used: {m}"} for m in dropped]
    flags = rejected + [
        {"kind": f.kind, "line": f.line, "message": f.message}
        for f in review(engine.version(engine.original)[0], parsed, base_spec.kernel)
    ]
    # flagged code (an #include of a path, a host call) is compiled only once the user approved it
    compiled = DEFERRED if flags else compile_for_gate(engine, code, spec)
    return {"code": code, "spec": spec, "fixes": fixes, "unresolved": unresolved, "flags": flags, "compile": compiled}


DEFERRED: dict[str, Any] = {
    "ok": None,
    "deferred": True,
    "errors": "",
    "resources": {},
    "reason": "not compiled yet: flagged code is compiled only after you approve it",
}


def compile_for_gate(engine: Any, code: str, spec: Spec) -> dict[str, Any]:
    """The offline compile check at the spec's first configuration, for the GPU the session uses."""
    arch, said = engine.choice.compile_arch()
    compiled = gpu_compile.compile_check(
        code, spec.baseline_params(), arch=arch, compiler_options=spec.compiler_options or None, spec=spec
    )
    return {
        "ok": compiled.ok,
        "errors": format_errors(compiled) if compiled.ok is False else "",
        "reason": compiled.reason,
        "arch": said,
        "resources": {k: vars(r) for k, r in (compiled.resources or {}).items()},
    }


def checked_expressions(
    restrictions: list[str], grid: dict[str, Any], tune: dict[str, Any]
) -> tuple[list[str], dict[str, Any], list[dict[str, Any]]]:
    """The restrictions and grid divisors that pass kernel/expr.py over the tunable names, and a
    safety flag for each one that does not (it is left out of the spec, never run)."""
    kept, flags = [], []

    def ok(text: str, what: str) -> bool:
        try:
            check_names(text, tune, what)
            return True
        except ExprError as e:
            flags.append({"kind": "expression", "line": None, "message": f"rejected, not used: {e}"})
            return False

    for i, r in enumerate(restrictions if isinstance(restrictions, list) else [restrictions]):
        if not (isinstance(r, str) and not r.strip()) and ok(r, f"restrictions[{i}]"):
            kept.append(str(r).strip())
    good = {
        k: v
        for k, v in grid.items()
        if not v or all([ok(t, f"{k}[{i}]") for i, t in enumerate(v if isinstance(v, list) else [v])])
    }
    return kept, good, flags


def run_rewrite(engine: Any, step_id: str, title: str, rewrite: Any, suggested: dict[str, Any] | None = None) -> Gates:
    # on resume, the base this kernel was first shown against, not what became best since
    shown = engine.data.gate(f"kernel:{step_id}")
    base_vid = shown.body["base_version"] if shown else engine.current_best()
    base_src, base_spec = engine.version(base_vid)
    grid = {k: getattr(rewrite, k, None) for k in ("grid_div_x", "grid_div_y", "grid_div_z")}
    checked = prepare(
        engine, rewrite.kernel_code, rewrite.tune_params, rewrite.restrictions, base_spec, grid, suggested
    )
    attempt = 1
    while True:
        key = f"kernel:{step_id}" + (f":{attempt}" if attempt > 1 else "")
        decision = yield KernelGate(
            key=key,
            title=f"Kernel for step {step_id}: {title}",
            step=step_id,
            explanation=rewrite.explanation,
            diff=unified_diff(base_src, checked["code"]),
            code=checked["code"],
            tune_params=checked["spec"].tune_params,
            restrictions=checked["spec"].restrictions,
            flags=checked["flags"],
            fixes=checked["fixes"],
            unresolved=checked["unresolved"],
            compile=checked["compile"],
            base_version=base_vid,
            manual=KERNEL_NOTE if is_manual(engine) else None,
            tolerances=checked["spec"].tolerances(),
            verify_sizes=[e["label"] for e in checked["spec"].extra_sizes() + kept_cases(engine.data)],
            spec=checked["spec"].to_dict(),
            profile=result_lines(engine, "the current best", base_vid, engine.best_of(base_vid)),
        )
        if decision.choice == "skip":
            engine.set_step(step_id, state="skipped", reason="generated kernel skipped")
            return
        if decision.choice != "edit":
            break
        value = decision.value if isinstance(decision.value, dict) else {"code": str(decision.value)}
        checked = prepare(
            engine,
            value.get("code", checked["code"]),
            value.get("tune_params", checked["spec"].tune_params),
            value.get("restrictions", checked["spec"].restrictions),
            base_spec,
            grid,
            suggested,
        )
        attempt += 1
    if checked["compile"].get("deferred"):
        checked["compile"] = compile_for_gate(engine, checked["code"], checked["spec"])
        engine.emit(
            "compiled",
            step=step_id,
            ok=checked["compile"]["ok"],
            errors=checked["compile"]["errors"],
            arch=checked["compile"]["arch"],
        )
    if checked["compile"]["ok"] is False:
        engine.set_step(step_id, state="failed", reason="does not compile: " + checked["compile"]["errors"][:500])
        return
    vid = engine.new_version(checked["code"], checked["spec"], parent=base_vid, label=f"step {step_id}: {title}")
    if vid == base_vid:
        engine.set_step(step_id, state="skipped", reason="the kernel is unchanged")
        return
    engine.set_step(step_id, state="running", version=vid)
    earlier = engine.data.gate(f"accept:{step_id}:unmeasured")
    if not engine.choice.unmeasured and earlier and (earlier.decision or {}).get("choice") == "skip":
        engine.set_step(step_id, state="skipped", reason="skipped before it was measured (no GPU then)")
        return
    verified = engine.verify(vid)
    if verified.unmeasured:  # no GPU here: the decision is asked now, and again once there are times
        engine.tune(vid, run_id=f"tune:{step_id}")
        yield from _keep_unmeasured(engine, step_id, vid)
        return
    check = verified.result
    if verified.failed:
        why = verified.error or _why(check)
        engine.emit(
            "verification",
            step=step_id,
            version=vid,
            reason=why,
            where="the spec size",
            verdicts=list(check.verdicts or []) if check else [],
        )
        engine.set_step(step_id, state="failed", reason=why)
        return
    bad = first_failure(engine.check_sizes(vid, dict(check.params)))
    if bad:
        engine.emit(
            "verification",
            step=step_id,
            version=vid,
            reason=bad.reason,
            where=bad.label,
            verdicts=list(bad.verdicts or []),
        )
        engine.set_step(step_id, state="failed", reason=bad.reason)
        return
    tuned = engine.tune(vid, run_id=f"tune:{step_id}")
    if tuned.failed:
        engine.set_step(step_id, state="failed", reason=tuned.error)
        return
    # a vacuous check (engine/strength.py) calls nothing verified
    engine.set_step(step_id, state="unchecked" if vacuous_why(engine.data) else "verified")
    yield from _accept(engine, step_id, title, vid)


def candidate(engine: Any, body: dict[str, Any]) -> tuple[str, Spec]:
    """The generated kernel a kernel gate shows, with its spec (for a sanitizer run)."""
    if body.get("spec"):
        return body["code"], spec_from_plain(body["spec"])
    _, spec = engine.version(body.get("base_version") or engine.original)
    return body["code"], replace(spec, tune_params=body["tune_params"], restrictions=body.get("restrictions") or [])


def _why(check: Result) -> str:
    if check.status == "wrong_result" or check.verified is False:
        return failure_text(list(check.verdicts or [])) or (
            f"wrong result at {check.first_bad} (max abs err {check.max_abs_err or 0.0:.3g})"
        )
    return f"{check.status}: {(check.error or '').strip()[:300]}"


def _accept(engine: Any, step_id: str, title: str, vid: str) -> Gates:
    new = engine.confirm_best(vid)
    current = engine.best_ms
    threshold = float(engine.options.get("threshold", 0.02))
    if new is None:
        engine.set_step(step_id, state="rejected", reason="no configuration passed verification")
        return
    new_ms = new.time_ms or 0.0  # confirm_best gives a trusted result: it has a time
    asked = engine.data.gate(f"accept:{step_id}")
    if asked is not None and asked.state == "decided" and isinstance(asked.body.get("new_ms"), (int, float)):
        # replayed: the times it was asked with (the session's best may hold this very kernel by now)
        new_ms, current = float(asked.body["new_ms"]), asked.body.get("current_ms")
    gain = (current / new_ms) if current else None
    recommend = current is None or new_ms < current * (1 - threshold)
    title_ = f"Accept step {step_id}? best {new_ms:.4f} ms" + (
        f" vs {current:.4f} ms now ({gain:.2f}x)" if current else ""
    )
    faster = current is None or new_ms < current
    effect = (
        f"accepting makes it the new best ({new_ms:.4f} ms)"
        if faster
        else f"this kernel is slower than the current best ({new_ms:.4f} ms vs {current:.4f} ms): accepting "
        f"keeps it in the plan as accepted, but the best stays at {current:.4f} ms and the next steps start "
        "from the best kernel"
    )
    decision = yield AcceptGate(
        key=f"accept:{step_id}",
        title=title_,
        step=step_id,
        version=vid,
        new_ms=new_ms,
        current_ms=current,
        params=dict(new.params),
        threshold=threshold,
        recommend=recommend,
        verdicts=list(new.verdicts or []),
        checks=_check_lines(engine, vid, new),
        effect=effect,
        verified=verdict_text(new, engine.choice.simulated, vacuous=vacuous_why(engine.data)),
        limits=result_lines(engine, "candidate", vid, new)
        + result_lines(engine, "best so far", engine.current_best(), engine.best_of(engine.current_best())),
        best=str((engine.data.version(engine.current_best()) or {}).get("label") or "original").split(":")[0],
        baseline_ms=engine.data.session().get("baseline_ms"),
    )
    if decision.choice == "approve":
        engine.accept(vid)
        engine.set_step(
            step_id,
            state="accepted",
            reason=f"{new_ms:.4f} ms"
            + (
                ""
                if faster
                else f"; {'slower than' if new_ms > current else 'as fast as'} the best ({current:.4f} ms), "
                "which stays the best"
            ),
        )
    else:
        engine.set_step(
            step_id,
            state="rejected",
            reason=f"{new_ms:.4f} ms"
            + ("" if recommend else f", not {threshold:.0%} faster")
            + (f"; {decision.why.removeprefix(f'step {step_id}: ')}" if decision.why and decision.by != "user" else ""),
        )


def _keep_unmeasured(engine: Any, step_id: str, vid: str) -> Generator[Gate, Decision, None]:
    """A kernel nothing could measure (no GPU here): no time to compare, so the gate asks whether it
    is measured and offered again when the session is resumed on a GPU."""
    engine.set_step(step_id, state=NOT_MEASURED, reason=NOT_CHECKED)
    decision = yield AcceptGate(
        key=f"accept:{step_id}:unmeasured",
        title=f"Keep step {step_id} for a GPU? not measured: no time to compare",
        step=step_id,
        version=vid,
        threshold=float(engine.options.get("threshold", 0.02)),
        recommend=True,
        effect="there is no time to compare (no GPU here). Accept keeps this kernel: when the session is "
        "resumed on a GPU it is verified and tuned, and this question is asked again with its times. "
        "Reject leaves it out: it is never measured",
        verified=NOT_CHECKED,
        unmeasured=True,
    )
    if decision.choice == "approve":
        engine.set_step(step_id, state=NOT_MEASURED, reason="kept: asked again with times when resumed on a GPU")
    else:
        engine.set_step(step_id, state="skipped", reason="skipped before it was measured (no GPU here)")


def _check_lines(engine: Any, vid: str, result: Result) -> list[dict[str, Any]]:
    return [
        {"label": c.label, "status": c.status, "reason": c.reason} for c in engine.check_sizes(vid, dict(result.params))
    ]


def unified_diff(old: str, new: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "current best", "generated"))
