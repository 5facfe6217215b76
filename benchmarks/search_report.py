"""benchmarks/search.py's statistics and tables: evaluations to the target, the Mann-Whitney test
against the reference strategy, what blind uniform picks need, and the per-space and summary tables."""

from __future__ import annotations

import math
from typing import Any

from scipy.stats import mannwhitneyu

ALPHA = 0.05


def median(values: list) -> float:
    """The median with runs that never got there counted as infinitely late (inf: over budget)."""
    v = sorted(math.inf if x is None else x for x in values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def censored(values: list, size: int) -> list[float]:
    """Evaluations to the target, a run that never got there counted as the budget + 1."""
    return [float(size + 1) if x is None else float(x) for x in values]


def compare(ours_: list, theirs: list, size: int) -> tuple[float, str]:
    """The two-sided Mann-Whitney U test of evaluations to 2 % (censored at the budget + 1), and who
    is ahead: 'kt' or 'them' when p < ALPHA, '=' otherwise."""
    a, b = censored(ours_, size), censored(theirs, size)
    if a == b or len(set(a + b)) == 1:
        return 1.0, "="
    res = mannwhitneyu(a, b, alternative="two-sided")
    p = float(res.pvalue)
    if p >= ALPHA:
        return p, "="
    return p, "kt" if res.statistic < len(a) * len(b) / 2 else "them"


def show(x: float, fmt: str) -> str:
    return ">budget" if math.isinf(x) else format(x, fmt)


def blind(size: int, hits: int) -> tuple[float, int]:
    """Evaluations until the first of `hits` good configurations among `size` for distinct uniform
    random picks (no knowledge of the kernel): the expected number, (size + 1) / (hits + 1), and the
    median, the fewest picks that find one with probability at least a half."""
    if not 0 < hits <= size:
        return math.inf, size + 1
    miss, k = 1.0, 0
    while miss > 0.5:
        miss *= (size - hits - k) / (size - k)
        k += 1
    return (size + 1) / (hits + 1), k


def print_space(space: Any, rows: dict, ref: str | None) -> None:
    mean, med = blind(space.size or 0, space.within[0.02])
    lines = [
        f"\n{space.label}: {space.size} configurations, optimum {space.optimum:.5g} ms "
        f"({space.within[0.02]} within 2 %, {space.within[0.05]} within 5 %), {space.gpu} "
        f"{space.header.get('recorded', '')[:10]}; budget {space.budget} evaluations; "
        f"{len(space.seeds)} heuristic seeds; blind uniform picks need {med} / {mean:.1f} (median / mean) to 2 %",
        f"{'strategy':22s} {'runs':>4s} | {'evals to 2 %':>12s} {'mean':>7s} {'sim s':>7s} | {'to 5 %':>7s} | "
        f"{'reached':>7s} | {'p vs ' + (ref or '-'):>13s} {'ahead':>5s} | {'wall s':>6s} {'ms/eval':>7s}",
    ]
    for s, r in rows.items():
        note = " (cut)" if any(x["cut"] for x in r["runs"]) else ""
        errors = sum(x["error"] is not None for x in r["runs"])
        note += f" ({errors} failed: {next(x['error'] for x in r['runs'] if x['error'])[:60]})" if errors else ""
        p = f"{r['p']:.2g}" if "p" in r else "-"
        lines.append(
            f"{s:22s} {r['seeds']:4d} | {show(r['median_evals_2'], '12.1f'):>12s} {r['mean_evals_2']:7.1f} "
            f"{show(r['median_sim_s_2'], '7.1f'):>7s} | {show(r['median_evals_5'], '7.1f'):>7s} | "
            f"{r['reached_2']:>3d}/{r['seeds']:<3d} | {p:>13s} {r.get('ahead', ''):>5s} | "
            f"{r['wall_s']:6.1f} {r['search_ms_per_eval']:7.1f}{note}"
        )
    print("\n".join(lines), flush=True)


def print_summary(summary: list, ours_names: tuple, title: str = "") -> None:
    """Per space: where the reference (kt) stands against kernel_tuner's strategies (nothing when none
    ran), then on how many spaces it is behind none, ahead of all, and below the best one's median."""
    if not any(s.partition("@")[0] not in ours_names for _, _, rows in summary for s in rows):
        return
    print(f"\n{title}summary (evaluations to 2 %, median / mean; vs kernel_tuner's strategies at p < 0.05):")
    behind_none = ahead_all = below_best = spaces = 0
    for label, ref, rows in summary:
        theirs = {s: r for s, r in rows.items() if s.partition("@")[0] not in ours_names}
        if not theirs:
            continue
        spaces += 1
        best = min(theirs, key=lambda s: (theirs[s]["median_evals_2"], theirs[s]["mean_evals_2"]))
        behind = [s for s, r in theirs.items() if r["ahead"] != "kt"]
        losing = [s for s, r in theirs.items() if r["ahead"] == "them"]
        mine = rows[ref]
        behind_none += not losing
        ahead_all += not behind
        below_best += (mine["median_evals_2"], mine["mean_evals_2"]) < (
            theirs[best]["median_evals_2"],
            theirs[best]["mean_evals_2"],
        )
        lagging = "; not of: " + ", ".join(f"{s} ({theirs[s]['ahead']})" for s in behind) if behind else ""
        print(
            f"  {label:28s} {ref} {show(mine['median_evals_2'], '.1f')} / {mine['mean_evals_2']:.1f}; best of theirs "
            f"{best} {show(theirs[best]['median_evals_2'], '.1f')} / {theirs[best]['mean_evals_2']:.1f} "
            f"(p {theirs[best]['p']:.2g}); {ref} significantly ahead of {len(theirs) - len(behind)} of {len(theirs)}"
            + lagging
        )
    ref = summary[0][1]
    print(
        f"{title}{ref} on {spaces} spaces: significantly behind no kernel_tuner strategy on {behind_none}, significantly "
        f"ahead of every one on {ahead_all}, median (then mean) below the best one's on {below_best}"
    )


def print_held_out(summaries: dict, spaces: dict, ref: str | None) -> None:
    """Each held-out space beside the tuning space of the same kernel and variant: kt's evaluations to
    2 % per run, each over the median of the best kernel_tuner strategy on its own space, compared
    (Mann-Whitney U): "worse" when the held-out ratios are significantly larger."""
    if ref is None:
        return

    def ratios(label: str) -> list[float] | None:
        rows = spaces[label]["strategies"]
        theirs = [r for s, r in rows.items() if s.partition("@")[0] != ref.partition("@")[0] and "p" in r]
        if not theirs:
            return None
        best = min(r["median_evals_2"] for r in theirs)
        budget = spaces[label]["budget"]
        return [x / min(best, budget + 1) for x in censored([r["evals_2"] for r in rows[ref]["runs"]], budget)]

    def kernel(label: str) -> tuple:
        return spaces[label].get("kernel"), label.rpartition(":")[2]

    tuning = {kernel(label): label for label, _, _ in summaries[False]}
    print(f"\nheld out against tuning ({ref}'s evaluations to 2 % over the best kernel_tuner median, per run):")
    for label, _, _ in summaries[True]:
        twin = tuning.get(kernel(label))
        mine, theirs = ratios(label), ratios(twin) if twin else None
        if mine is None or theirs is None:
            print(f"  {label:28s} no tuning space of the same kernel in this run")
            continue
        p, ahead = compare(theirs, mine, 10**9)
        verdict = {"kt": "worse", "them": "better", "=": "no different"}[ahead]
        print(
            f"  {label:28s} {median(mine):.2f} vs {twin} {median(theirs):.2f} (medians; p {p:.2g}): held out {verdict}"
        )
