"""What an imported kernel is checked against, keeping kernel_tuner's `answer` semantics: the script's
answer where it gives one (its non-None entries are the outputs), the kernel that produced a chained
answer as a [reference] kernel, and where it gives none, what kt-tui checks instead, or nothing, with
the reason, when no one configuration's outputs are right for the others."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..kernel.expr import ExprError, names_in
from .script import sizing_params
from .writes import kernel_writes


@dataclass
class Check:
    outputs: list[str]
    reference_kernel: dict | None = None  # the [reference] table
    unverified: str | None = None  # verify = "none" with this reason
    notes: list[str] = field(default_factory=list)
    losses: list[str] = field(default_factory=list)  # notes that say what the import could not keep


def result_params(call: dict) -> dict[str, str]:
    """Tuned parameters (more than one value) that change what the kernel computes, by what shows it:
    the problem size is written with them, or the script sizes its data with them."""
    tuned = {k for k, v in call["tune_params"].items() if len(v) > 1}
    out: dict[str, str] = {}
    ps = call.get("problem_size")
    for p in ps if isinstance(ps, list) else [ps]:
        if isinstance(p, str):
            try:
                for n in sorted(names_in(p) & tuned):
                    out.setdefault(n, f"the problem size is {p!r}")
            except ExprError:
                continue
    if call.get("script"):
        for n, where in sizing_params(call["script"], tuned).items():
            out.setdefault(n, f"the script sizes its data with it ({where})")
    return out


def _said(params: dict) -> str:
    return "; ".join(f"{k}: {why}" for k, why in params.items())


def chained_reference(call: dict, calls: list, files: dict) -> tuple[dict | None, str]:
    """A chained answer (outputs of an earlier run_kernel call) as that call's kernel, run by kt-tui at
    the call's parameters, when it ran on the same inputs: ({reference table}, "") or (None, why not)."""
    answer, chained = call.get("answer") or [], call.get("chained_from") or {}
    runs = {c for c, _ in chained.values()}
    if len(runs) != 1 or len(chained) != sum(a is not None for a in answer):
        return None, "the answer is not all outputs of one run_kernel call"
    (c,) = runs
    if any(int(i) != j for i, (_, j) in chained.items()):
        return None, "an answer entry is another argument's output of that call"
    run = calls[c]
    if len(run["args"]) != len(call["args"]) or any(
        a.get("array", a.get("value")) != b.get("array", b.get("value")) for a, b in zip(run["args"], call["args"])
    ):
        return None, "run_kernel ran on other arguments than tune_kernel is given"
    if c not in files:
        return None, f"run_kernel call {c + 1} could not be imported itself"
    if run.get("defines") is not None:
        return None, "run_kernel was given its own defines"
    table = {
        "kernel": f"{files[c]}:{run['kernel_name'].split('<')[0].strip()}",
        "params": {k: v[0] for k, v in run["tune_params"].items()},
    }
    if run.get("problem_size") != call.get("problem_size"):
        ps = run.get("problem_size")
        if not all(isinstance(p, int) for p in (ps if isinstance(ps, list) else [ps])):
            return None, "run_kernel's problem size is not numbers"
        table["problem_size"] = ps if isinstance(ps, list) else [ps]
    for key in ("grid_div_x", "grid_div_y", "grid_div_z"):
        if run.get(key) is not None:
            table[key] = [str(x) for x in run[key]]
    return table, ""


def decide(call: dict, src: str, kernel, calls: list, files: dict) -> Check:
    names = [p.name for p in kernel.params]
    changing = result_params(call)
    if call.get("answer") is not None and any(a is not None for a in call["answer"]):
        check = Check([names[i] for i, a in enumerate(call["answer"]) if a is not None and i < len(names)])
        if call.get("chained_from"):
            table, why = chained_reference(call, calls, files)
            run = calls[next(iter(call["chained_from"].values()))[0]]
            if table:
                check.reference_kernel = table
                at = ", ".join(f"{k}={v}" for k, v in table["params"].items())
                check.notes.append(
                    f"the answer is the output of run_kernel({run['kernel_name']}) at {at}: kt-tui "
                    f"runs that kernel as the [reference] kernel, as kernel_tuner's answer came from it"
                )
            else:
                check.losses.append(
                    f"the answer is the output of run_kernel({run['kernel_name']}), which ran nothing "
                    f"during the import, and it cannot be kt-tui's [reference] kernel ({why}): "
                    "it is checked against the original's outputs instead"
                )
        if changing and not call.get("verify"):
            check.notes.append(
                "the script compares every configuration with one answer, while these parameters "
                f"change the result ({_said(changing)}): at their other values kernel_tuner's check "
                "fails, and kt-tui's (the same check) does too"
            )
        return check
    writes = kernel_writes(src, kernel)
    check = Check(list(writes.written))
    for p, fn in writes.unknown.items():
        check.notes.append(
            f"kt-tui cannot tell whether the kernel writes {p}: it is passed to {fn}, whose code is "
            "not in the source; it is not checked (set output = true in the spec if it is an output)"
        )
    none = "kernel_tuner checked nothing here (the script passes no answer)"
    if not check.outputs:
        first = next((p.name for p in kernel.params if p.is_pointer), None)
        check.outputs = [first] if first else []
        check.unverified = (
            f"{none}, and kt-tui found no argument the kernel writes; mark the outputs "
            '(output = true) and remove verify = "none" to check them'
        )
    elif changing and not call.get("verify"):
        check.unverified = (
            f"{none}, and these tuned parameters change the result, so no one configuration's "
            f"outputs are right for the others ({_said(changing)}); to check, give them one value "
            "each, or pass an answer computed at each"
        )
    elif not call.get("verify") and call["kind"] == "tune":
        check.notes.append(
            f"{none}; kt-tui compares {', '.join(check.outputs)} (the arguments the kernel writes) "
            "with the default configuration's outputs"
        )
    if check.unverified:
        check.losses.append(f'this kernel is UNVERIFIED (verify = "none"): {check.unverified}')
    return check
