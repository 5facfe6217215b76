"""The mutation score (issue 35): in the app, from what the check's child recorded (gpu/mutants.py
writes a record per mutant and per stronger case): killed before and after strengthening, equivalent
and stillborn mutants not counted, hangs and mutants not run within the budget said apart (with why,
where many are: gpu/unrun.py), and the line every gate, `spec --check`, `--json` and the report show."""

from __future__ import annotations

from typing import Any

from ..kernel.equivalent import survival
from ..kernel.spec import Spec
from ..words import counted as counted_as
from .mutants import BUDGET_S, HANGS, UNRETRIED
from .unrun import unrun


# -- the score --------------------------------------------------------------------------------------
def score(
    mutants: list[dict[str, Any]],
    records: list[dict[str, Any]],
    cases: list[dict[str, Any]],
    legal: dict[str, str],
    unsafe: dict[str, str] | None = None,
    original: tuple[str, Spec] | None = None,
    budget_s: float = BUDGET_S,
    unmade: str = "",
) -> dict[str, Any]:
    """The mutation score from what the child found: its records (each mutant's compile sorted it
    "equivalent" or "stillborn", else its runs killed it or not; the original's runs, gpu/unrun.py).
    `cases`: the child's verdict on each stronger case (outputs non-degenerate); `legal`: label -> ""
    when memcheck found it clean, else why not; `unsafe`: survivors memcheck found out of bounds (id ->
    the finding), killed as an LLM kernel is; `original`: the kernel's source and spec, whose scalars
    a check that ran too few of its mutants names; `unmade`: why no mutant could be made, where none was."""
    originals = records
    records = [r for r in records if r.get("original") is None]
    base = {r["id"]: r for r in records if r.get("case") is None}
    later: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        if r.get("case") is not None:
            later.setdefault(r["id"], []).append(r)
    sorted_ = {i: (r["class"], r.get("how", "")) for i, r in base.items() if r.get("class")}
    for i, r in base.items():
        if str(r.get("how", "")).startswith("stillborn"):  # its compile for a run failed
            sorted_[i] = ("stillborn", r["how"].removeprefix("stillborn: "))
    equivalent = [m for m in mutants if sorted_.get(m["id"], ("",))[0] == "equivalent"]
    stillborn = [m for m in mutants if sorted_.get(m["id"], ("",))[0] == "stillborn"]
    left = {m["id"] for m in equivalent + stillborn}
    counted = [m for m in mutants if m["id"] not in left and m["id"] in base]
    not_run = [m for m in mutants if m["id"] not in left and m["id"] not in base]
    before = [m for m in counted if base[m["id"]]["killed"]]
    hangs = [m["id"] for m in before if str(base[m["id"]].get("how", "")).startswith(HANGS)]
    kept: list[str] = []
    tried = []
    kills = case_kills(mutants, records, cases)
    killed_by = {label: ids for label, ids in kills.items() if not legal.get(label, "not tested under memcheck")}
    moved = sorted({r["case"] for m in counted for r in later.get(m["id"], []) if r.get("geometry")})
    for label in moved:  # a session verifies every block size: no memcheck, nothing to keep
        ids = [m["id"] for m in counted if not base[m["id"]]["killed"] and any(
            r["killed"] and r["case"] == label for r in later.get(m["id"], []))]  # fmt: skip
        killed_by[label] = ids
        tried.append({"label": f"the survivors {label}", "kept": False, "why": f"kills {', '.join(ids)}"})
    for c in cases:
        label = c["label"]
        why = legal.get(label, "not tested under memcheck")
        if not c.get("ok"):
            why = f"the original's outputs prove nothing with it: {c.get('why')}"
        elif not kills.get(label):  # its legality decides nothing: it is not memchecked
            why = "kills no survivor"
        elif not why:
            why = f"kills {', '.join(killed_by[label])}"
            kept.append(label)
        tried.append({"label": label, "kept": label in kept, "why": why})
    after = {m["id"] for m in before} | {i for label in [*moved, *kept] for i in killed_by[label]}
    caught = [m["id"] for m in counted if m["id"] in (unsafe or {}) and m["id"] not in after]
    if caught:
        tried.append({"label": "memcheck on the survivors", "kept": False, "why": f"kills {', '.join(caught)}"})
        after |= set(caught)
    survivors = [m for m in counted if m["id"] not in after]
    unretried = [m for m in survivors if any(r["case"] == UNRETRIED for r in later.get(m["id"], []))]
    return {
        "made": len(mutants),
        "counted": len(counted),
        "killed_before": len(before),
        "killed": len(after),
        "survivors": [{"id": m["id"], "kind": m["kind"], "what": m["what"], "why": survival(m)} for m in survivors],
        "killed_how": {m["id"]: base[m["id"]].get("how", "") for m in before} | {i: (unsafe or {})[i] for i in caught},
        "hangs": hangs,
        "killed_kinds": sorted({m["kind"] for m in counted if m["id"] in after}),
        "equivalent": [f"{m['what']}: {sorted_[m['id']][1]}" for m in equivalent],
        "stillborn": [f"{m['what']}: {sorted_[m['id']][1]}" for m in stillborn],
        "not_run": [m["what"] for m in not_run],
        "strengthening": tried,
        "kept": kept,
        "line": score_line(len(after), len(counted), survivors, len(hangs), len(not_run), len(unretried)),
        "unretried": len(unretried),
        "unrun": unrun([base[m["id"]] for m in counted], len(not_run), originals, budget_s, original),
        "unmeasured": unmeasured(mutants, counted, len(equivalent), len(stillborn), len(not_run), unmade),
    }


def unmeasured(
    mutants: list[dict[str, Any]], counted: list[dict[str, Any]], equivalent: int, stillborn: int, not_run: int,
    unmade: str = "",
) -> str | None:  # fmt: skip
    """Why the check measured nothing of its strength: no wrong variant of the kernel made, or none but
    the do-nothing kernel (no mutation site), or every one equivalent or stillborn; None where a
    mutant of a site ran, or some went unrun (gpu/unrun.py says those: TOO FEW RUN)."""
    if not mutants:
        return f"kt-tui could make no wrong variant of the kernel ({unmade or 'no mutation site'})"
    if not_run or any(m["kind"] != "nothing" for m in counted):
        return None
    if len(mutants) == 1:
        return "the kernel has no mutation site: kt-tui makes no wrong variant of it but the do-nothing kernel" + (
            "" if counted else ", which compiles to the same code"
        )
    ran = "only the do-nothing kernel" if counted else "none"
    return (
        f"of the {counted_as(len(mutants), 'wrong variant')} kt-tui made, {ran} could be run: {equivalent} equivalent "
        f"(the same compiled code), {stillborn} stillborn (do not compile)"
    )


def case_kills(
    mutants: list[dict[str, Any]], records: list[dict[str, Any]], cases: list[dict[str, Any]]
) -> dict[str, list[str]]:
    """label -> the mutants each stronger case killed, of those counted that the runs at the spec's and
    check sizes left, on cases whose outputs the original's run made non-degenerate; whether memcheck
    finds the case legal is not asked here (only these cases are memchecked: gpu/memcheck.py)."""
    base = {r["id"]: r for r in records if r.get("case") is None}
    ok = {c["label"] for c in cases if c.get("ok")}
    out: dict[str, list[str]] = {}
    for m in mutants:
        first = base.get(m["id"])
        if first is None or first["killed"] or first.get("class"):  # killed, sorted out, or not run
            continue
        killed_by = {r["case"] for r in records if r["id"] == m["id"] and r.get("case") in ok and r["killed"]}
        for label in killed_by:
            out.setdefault(label, []).append(m["id"])
    return out


def score_line(
    killed: int, counted: int, survivors: list[dict[str, Any]], hangs: int = 0, not_run: int = 0, unretried: int = 0
) -> str:
    """ "the check catches 18 of 20 wrong variants (2 of them hang; 5 more not run within the time
    budget; 1 survivor not retried at the spec's size: memcheck had not finished); these 2 survive: ..."
    `unretried`: survivors a case killed, discounted once memcheck refused the case, that the child did
    not run at the spec's size because memcheck's verdict came after it stopped waiting (gpu/mutants.py)."""
    if not counted:
        return "the check ran no wrong variant of the kernel"
    head = f"the check catches {killed} of {counted_as(counted, 'wrong variant')}"
    said_more = [f"{hangs} of them hang{'s' if hangs == 1 else ''}"] if hangs else []
    said_more += [f"{not_run} more not run within the time budget"] if not_run else []
    if unretried:
        said_more.append(
            f"{unretried} survivor{'s' if unretried > 1 else ''} not retried at the spec's size: memcheck had not "
            "finished (the score may be low)"
        )
    if said_more:
        head += f" ({'; '.join(said_more)})"
    if not survivors:
        return head
    said = "; ".join(m["what"] for m in survivors[:3]) + (
        f"; and {len(survivors) - 3} more" if len(survivors) > 3 else ""
    )
    return f"{head}; {'this one survives' if len(survivors) == 1 else f'these {len(survivors)} survive'}: {said}"
