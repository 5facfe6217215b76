"""A check that ran too few of its wrong variants (issue 35): when mutants go unrun within the budget,
the mutation score carries `unrun`, with the numbers that say why. The check's child records each run
of the original at the sizes the mutants run at (gpu/mutants.py original_record): from those, the
seconds the mutants that ran would have taken had they run as long as the original, and so about how
long running them all would take. Where that is past the budget, the spec's sizes and scalars are
the cause, and the text names them: those the drafter guesses and those that bound a loop in the
kernel. Else the time went elsewhere (compiles, hangs, a restarted child), and the spec is not blamed.

More than UNKNOWN_SHARE of them unrun is `over`: said at every place the score is, and `--auto` keeps
no generated kernel on such a check unless survivors are allowed (engine/strength.py), as for a
survivor: an unrun mutant is unknown, not killed. A third: with more unknown, even a check that
killed every mutant it ran has a worst case under two thirds, far from the 90 % issue 35 asks; the
drafted specs measured on an H100 left 22 of 29 and 25 of 30 unrun, an ordinary check a few of 30,
so the line lies well apart from both."""

from __future__ import annotations

import re
from typing import Any, TypedDict

from ..kernel.source import find_kernels, kernel_body
from ..kernel.spec import Spec
from ..words import counted, plural

UNKNOWN_SHARE = 1 / 3
SPEC_SIZE = "the spec's size"
LOOPS = re.compile(r"\bfor\s*\([^;]*;([^;]*);|\bwhile\s*\(([^;{]*)\)")
NAME = re.compile(r"[A-Za-z_]\w*")
NAMED_MAX = 6  # scalars named in the text, at most
RUNS_SAID, LABEL_MAX = 3, 60  # the original's runs the text says (the slowest), and a size's label's length


class Run(TypedDict):
    at: str  # SPEC_SIZE or a check size's label
    ms: float  # one run of the original: its inputs made, copied, run and copied back
    sizes: dict[str, Any]
    bytes: int  # its arrays' bytes


class Scalar(TypedDict):
    name: str
    value: Any
    guess: bool  # the drafter marks it a guess (`# guess:` in a drafted spec)
    loop: bool  # it bounds a loop in the kernel


class Unrun(TypedDict):
    ran: int
    made: int  # ran + not_run (equivalent and stillborn mutants are neither)
    not_run: int
    budget_s: float
    over: bool  # more than UNKNOWN_SHARE of them unrun: said, and --auto refuses as for a survivor
    runs: list[Run]  # the original's, the cheapest size first
    need_s: float | None  # about how long running them all takes at the original's pace
    slow_runs: bool  # the original's runs alone need more than the budget: the spec's sizes are the cause
    scalars: list[Scalar]  # the spec's sizes and the scalars guessed or bounding a loop (when over)
    text: str


def unrun(
    ran: list[dict[str, Any]],
    not_run: int,
    records: list[dict[str, Any]],
    budget_s: float,
    original: tuple[str, Spec] | None = None,
) -> Unrun | None:
    """The flag, or None when every mutant ran. `ran`: the base records of the counted mutants (each
    with "at", the size it was killed at; "" when it passed them all)."""
    if not not_run:
        return None
    runs = original_runs(records)
    made = len(ran) + not_run
    spent = sum(_cost(r, runs) for r in ran)
    need = round(spent / len(ran) * made, 1) if ran and runs else None
    over = not_run > UNKNOWN_SHARE * made
    scalars = named_scalars(runs, original) if over and runs else []
    flag: Unrun = {
        "ran": len(ran),
        "made": made,
        "not_run": not_run,
        "budget_s": budget_s,
        "over": over,
        "runs": runs,
        "need_s": need,
        "slow_runs": need is not None and need > budget_s,
        "scalars": scalars,
        "text": "",
    }
    flag["text"] = unrun_text(flag)
    return flag


def original_runs(records: list[dict[str, Any]]) -> list[Run]:
    """The original's quickest run at each size, in the order the child first ran them."""
    out: dict[str, Run] = {}
    for r in records:
        if r.get("original") is None or not isinstance(r.get("seconds"), (int, float)):
            continue
        at = str(r["original"]) or SPEC_SIZE
        ms = round(float(r["seconds"]) * 1000, 3)
        if at not in out or ms < out[at]["ms"]:
            out[at] = {"at": at, "ms": ms, "sizes": dict(r.get("sizes") or {}), "bytes": int(r.get("bytes") or 0)}
    return list(out.values())


def _cost(record: dict[str, Any], runs: list[Run]) -> float:
    """Seconds a mutant's runs take at the original's pace: each size up to the one it was killed at
    (all of them where it passed); a crash or hang its parent recorded, the first size."""
    if not runs:
        return 0.0
    if record.get("killed") and "at" not in record:
        return runs[0]["ms"] / 1000
    stop = (str(record.get("at") or "") or SPEC_SIZE) if record.get("killed") else None
    total = 0.0
    for run in runs:
        total += run["ms"] / 1000
        if run["at"] == stop:
            break
    return total


def named_scalars(runs: list[Run], original: tuple[str, Spec] | None) -> list[Scalar]:
    """The spec's sizes, then its scalars set to a number that the drafter guesses or that bound a
    loop in the kernel, with their values at the spec's size."""
    if original is None:  # the sizes the original ran with at the spec's size, unmarked
        sizes = next((r["sizes"] for r in runs if r["at"] == SPEC_SIZE), {})
        return [{"name": n, "value": v, "guess": False, "loop": False} for n, v in sizes.items()]
    source, spec = original
    guessed = drafted_guesses(source, spec)
    loops = loop_bounds(source, spec.kernel_base_name())
    out: list[Scalar] = [
        {"name": n, "value": v, "guess": f"sizes.{n}" in guessed, "loop": n in loops} for n, v in spec.sizes.items()
    ]
    for a in spec.args:
        if a.is_array or a.init != "constant" or isinstance(a.value, str) or a.value is None:
            continue
        if f"args.{a.name}" in guessed or a.name in loops:
            out.append(
                {"name": a.name, "value": a.value, "guess": f"args.{a.name}" in guessed, "loop": a.name in loops}
            )
    return out


def drafted_guesses(source: str, spec: Spec) -> set[str]:
    """What the drafter marks a guess for this kernel ("sizes.N", "args.N"); empty when it cannot say."""
    from ..kernel.draft import draft  # here: only a check that ran too few of its mutants drafts

    try:
        kernel = next((k for k in find_kernels(source) if k.name == spec.kernel_base_name()), None)
        return {key for key, _ in draft(kernel, src=source).guesses} if kernel is not None else set()
    except Exception:  # noqa: BLE001 - a best effort: the numbers are said without it
        return set()


def loop_bounds(source: str, kernel: str) -> set[str]:
    """Names in the conditions of the kernel's `for` and `while` loops."""

    try:
        found = next((k for k in find_kernels(source) if k.name == kernel), None)
        body = kernel_body(source, found) if found is not None else ""
    except Exception:  # noqa: BLE001 - a best effort, as above
        return set()
    return {n for m in LOOPS.finditer(body) for n in NAME.findall(m[1] or m[2] or "")}


def unrun_text(flag: Unrun) -> str:
    """ "the check ran 7 of 29 wrong variants in its 5 s (22 not run: unknown, not killed): one run of
    the original takes 41 ms at the spec's size (...); ... would let it run them all" """
    head = (
        f"the check ran {flag['ran']} of {counted(flag['made'], 'wrong variant')} in its {flag['budget_s']:g} s "
        f"({flag['not_run']} not run: unknown, not killed)"
    )
    runs = flag["runs"]
    if not runs:
        return head
    times = []
    for r in sorted(runs, key=lambda r: -r["ms"])[:RUNS_SAID]:
        about = ([_named(flag["scalars"])] if r["at"] == SPEC_SIZE and flag["scalars"] else []) + _mb(r["bytes"])
        at = r["at"] if len(r["at"]) <= LABEL_MAX else r["at"][: LABEL_MAX - 1].rsplit(",", 1)[0] + ", …"
        times.append(f"{_ms(r['ms'])} at {at}" + (f" ({'; '.join(about)})" if about else ""))
    if len(runs) > RUNS_SAID:
        times.append(f"less at {len(runs) - RUNS_SAID} more {plural(len(runs) - RUNS_SAID, 'size')}")
    said = "one run of the original takes " + (", ".join(times[:-1]) + " and " if len(times) > 1 else "") + times[-1]
    if flag["slow_runs"]:
        return (
            f"{head}: {said}; running them all would take about {flag['need_s']:g} s: smaller check sizes "
            "or scalars would let it run them all"
        )
    all_s = f" (about {flag['need_s']:g} s for them all)" if flag["need_s"] is not None else ""
    return f"{head}; {said}{all_s}: the time went to the mutants' compiles, hangs or restarts, not to the spec's sizes"


def _named(scalars: list[Scalar]) -> str:
    parts = []
    for s in scalars[:NAMED_MAX]:
        marks = [m for m, on in (("the draft guesses it", s["guess"]), ("bounds a loop", s["loop"])) if on]
        parts.append(f"{s['name']} = {s['value']}" + (f" — {', '.join(marks)}" if marks else ""))
    return "; ".join(parts) + (f"; and {len(scalars) - NAMED_MAX} more" if len(scalars) > NAMED_MAX else "")


def _ms(ms: float) -> str:
    return f"{ms / 1000:.2g} s" if ms >= 1000 else f"{ms:.3g} ms"


def _mb(n: int) -> list[str]:
    return [f"{n / 1e6:.3g} MB of arrays"] if n >= 1e6 else []
