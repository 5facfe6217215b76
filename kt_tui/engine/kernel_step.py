"""One generated kernel, from the LLM's rewrite to accepted or rejected: fix its tunable
parameters, review and compile it, show it at a gate, then verify, tune and compare."""

from __future__ import annotations

import difflib
from dataclasses import replace

from ..kernel.spec import Spec
from .events import Gate

GRID_NAMES = ("block_size_x", "block_size_y", "block_size_z")


def spec_text(spec: Spec) -> str:
    return f"problem_size = {spec.problem_size} with {spec.sizes}; grid divisors x={spec.grid_div_x} y={spec.grid_div_y}"


def current_best(engine) -> str:
    vid = engine.store.session(engine.sid).get("best_version") or engine.original
    return vid if vid in engine.accepted else engine.original


def prepare(engine, code: str, tune_params: dict, restrictions: list[str], base_spec: Spec,
            grid: dict | None = None) -> dict:
    """Fix parameter names, drop unused ones, and check the code: what the kernel gate shows."""
    from ..gpu.compile import compile_check
    from ..kernel.params import apply_renames, check_params
    from ..kernel.review import review

    tune = {k: (v if isinstance(v, list) else [v]) for k, v in tune_params.items()}
    names = list(base_spec.block_size_names or GRID_NAMES)
    report = check_params(code, tune, names)
    fixes = []
    if report.renames:
        code = apply_renames(code, report.renames)
        fixes += [f"renamed {a} to {b} in the code" for a, b in report.renames.items()]
        report = check_params(code, tune, names)
    for name in report.used_undeclared:
        if name in base_spec.tune_params:
            tune[name] = list(base_spec.tune_params[name])
            fixes.append(f"{name} is used but was not declared: took its values from the current kernel")
    for name in GRID_NAMES:
        if name in base_spec.tune_params and name not in tune:
            tune[name] = list(base_spec.tune_params[name])
    report = check_params(code, tune, names)
    grid = grid or {}
    keep = set(names) | {n for k in ("grid_div_x", "grid_div_y", "grid_div_z")
                         for e in (grid.get(k) or getattr(base_spec, k) or []) for n in tune if n in str(e)}
    for name in report.declared_unused:
        if name not in keep:
            tune.pop(name, None)
            fixes.append(f"dropped {name}: declared but not used by the code")
    spec = replace(base_spec, tune_params=tune, restrictions=[r for r in restrictions if r.strip()],
                   defaults={k: base_spec.defaults[k] for k in tune
                             if k in base_spec.defaults and base_spec.defaults[k] in tune[k]},
                   **{k: v for k, v in grid.items() if v})
    unresolved = [n for n in check_params(code, tune, names).used_undeclared]
    first = spec.baseline_params()
    compiled = compile_check(code, first, compiler_options=spec.compiler_options or None)
    flags = review(engine.version(engine.original)[0], code, base_spec.kernel)
    return {"code": code, "spec": spec, "fixes": fixes, "unresolved": unresolved,
            "flags": [{"kind": f.kind, "line": f.line, "message": f.message} for f in flags],
            "compile": {"ok": compiled.ok, "errors": _errors(compiled), "reason": getattr(compiled, "reason", ""),
                        "resources": {k: vars(r) for k, r in (compiled.resources or {}).items()}}}


def _errors(result) -> str:
    from ..gpu.compile import format_errors
    return format_errors(result) if result.ok is False else ""


def run_rewrite(engine, step_id: str, title: str, rewrite):
    base_vid = current_best(engine)
    base_src, base_spec = engine.version(base_vid)
    grid = {k: getattr(rewrite, k, None) for k in ("grid_div_x", "grid_div_y", "grid_div_z")}
    checked = prepare(engine, rewrite.kernel_code, rewrite.tune_params, rewrite.restrictions, base_spec, grid)
    attempt = 1
    while True:
        body = {"step": step_id, "explanation": rewrite.explanation, "diff": unified_diff(base_src, checked["code"]),
                "code": checked["code"], "tune_params": checked["spec"].tune_params,
                "restrictions": checked["spec"].restrictions, "flags": checked["flags"], "fixes": checked["fixes"],
                "unresolved": checked["unresolved"], "compile": checked["compile"], "base_version": base_vid}
        key = f"kernel:{step_id}" + (f":{attempt}" if attempt > 1 else "")
        decision = yield Gate(key, "kernel", f"Kernel for step {step_id}: {title}", body)
        if decision.choice == "skip":
            engine.set_step(step_id, state="skipped", reason="generated kernel skipped")
            return
        if decision.choice != "edit":
            break
        value = decision.value if isinstance(decision.value, dict) else {"code": str(decision.value)}
        checked = prepare(engine, value.get("code", checked["code"]), value.get("tune_params", checked["spec"].tune_params),
                          value.get("restrictions", checked["spec"].restrictions), base_spec, grid)
        attempt += 1
    if checked["compile"]["ok"] is False:
        engine.set_step(step_id, state="failed", reason="does not compile: " + checked["compile"]["errors"][:500])
        return
    vid = engine.new_version(checked["code"], checked["spec"], parent=base_vid, label=f"step {step_id}: {title}")
    engine.set_step(step_id, state="running", version=vid)
    check = engine.verify(vid)
    if check is None or check["status"] != "ok" or check["verified"] is False:
        engine.set_step(step_id, state="failed", reason=_why(check, engine, vid))
        return
    if engine.tune(vid, run_id=f"tune:{step_id}") == "failed":
        engine.set_step(step_id, state="failed", reason=engine.store.run(engine.sid, f"tune:{step_id}")["error"])
        return
    engine.set_step(step_id, state="verified")
    yield from _accept(engine, step_id, title, vid)


def _why(check, engine, vid) -> str:
    if check is None:
        run = engine.store.run(engine.sid, f"verify:{vid}")
        return (run or {}).get("error") or "no result"
    if check["status"] == "wrong_result" or check["verified"] is False:
        return f"wrong result at {check['first_bad']} (max abs err {check['max_abs_err']:.3g})"
    return f"{check['status']}: {(check['error'] or '').strip()[:300]}"


def _accept(engine, step_id, title, vid):
    new = engine.best_of(vid)
    current = engine.best_ms
    threshold = float(engine.options.get("threshold", 0.02))
    if new is None:
        engine.set_step(step_id, state="rejected", reason="no configuration passed verification")
        return
    gain = (current / new["time_ms"]) if current else None
    recommend = current is None or new["time_ms"] < current * (1 - threshold)
    title_ = (f"Accept step {step_id}? best {new['time_ms']:.4f} ms"
              + (f" vs {current:.4f} ms now ({gain:.2f}x)" if current else ""))
    decision = yield Gate(f"accept:{step_id}", "accept", title_,
                          {"step": step_id, "version": vid, "new_ms": new["time_ms"], "current_ms": current,
                           "params": new["params"], "threshold": threshold, "recommend": recommend},
                          choices=("approve", "skip", "stop"))
    if decision.choice == "approve":
        engine.accept(vid)
        engine.set_step(step_id, state="accepted", reason=f"{new['time_ms']:.4f} ms")
    else:
        engine.set_step(step_id, state="rejected",
                        reason=f"{new['time_ms']:.4f} ms" + ("" if recommend else f", not {threshold:.0%} faster"))


def unified_diff(old: str, new: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "current best", "generated"))
