"""How good are `kt-tui spec`'s drafts on kernels nobody shaped for the drafter? (issue 21)

For each kernel of tests/corpus/ the drafter runs as a user runs it: the kernel is copied alone into a
scratch folder and `kt-tui spec KERNEL.cu` writes KERNEL.cu.toml beside it (a subprocess with the
PYTHONPATH of the checkout given by --kt). The draft is judged against tests/corpus/truth/NAME.toml
(benchmarks/corpus_judge.py says the format), never against the hand spec:

  sizes     at the draft's default sizes and at each size its checks use (its verify_sizes, or the
            derived ragged and small ones), every array is at least as long as the kernel can reach:
            the truth's extent expressions evaluated with the scalars the draft passes, the source's
            #defines and the draft's launch; an index array's values stay inside what they index;
            a 0/1 grid gets values in its range and more than one of them
  outputs   the arguments marked output = true are the ones the kernel writes
  geometry  as many grid axes as the kernel has, and the draft's grid (kernel_tuner's rule:
            ceil(problem_size / grid divisors) blocks of block_size_* threads) covers on each axis
            what the kernel's bound checks describe, at every size (threads, or blocks for a
            one-block-per-row kernel; any grid for a grid-stride loop)
  scalars   the scalars that bound loops or scale coordinates have values that make the kernel work
  guesses   the comment lines of the draft that mention a guess (what the draft itself marks)

"fully right" = sizes, outputs, geometry and scalars all right. Each held-out batch (truth `heldout = N`,
written before the drafter saw it) and the tuning set (truth `tuning = 35`: written before drafting but
used to develop the drafter) is scored apart. tests/corpus/heldout.toml records the commit at which each
held-out batch was first drafted; the summary says how many commits have changed the drafter since (then
the batch's score is no longer a first draft), and `--record-seen` records a batch drafted for the first time.

--gpu also runs `kt-tui spec KERNEL.cu --check` on every draft on this machine's GPU and reports
its exit code and whether its lines flag an out-of-bounds access (compute-sanitizer) or a vacuous
check, and the check's mutation score ("catches K of N wrong variants"); --hand does the same for the hand
specs (which must pass). The GPU summary counts the drafts that the truth says index out of bounds but
the check did not flag, and the wrong drafts whose check catches a smaller share of wrong variants than
the hand spec's (a wrong guess that weakened the check) apart from those that catch as many.

usage: python benchmarks/drafts.py [--kt PATH] [--gpu [--hand] [--budget S] [--check-kt PATH]] [--json OUT] [--timeout S]
                                  [--record-seen] [NAME ...]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
# flagged = the check refused it (non-zero exit) for an access outside an array; "memcheck clean" is no flag
OOB = re.compile(
    r"out[ -]of[ -]bounds|invalid (global|shared|local) (read|write)|illegal (memory )?address", re.IGNORECASE
)
VACUOUS = re.compile(r"vacuous|proves nothing", re.IGNORECASE)
WARNED = re.compile(r"layout warnings? \(the spec contradicts")  # kernel/draft_flags.py, printed by spec --check
TOO_FEW = re.compile(r"TOO FEW RUN")  # gpu/unrun.py: a third of the mutants or more not run within the budget
SCORE = re.compile(r"the check catches (\d+) of (\d+) wrong variants?")  # gpu/mutation_score.py score_line
GUESS = re.compile(r"^\s*#.*\bguess", re.IGNORECASE | re.MULTILINE)
SEEN = CORPUS / "heldout.toml"
DRAFTER = [  # the modules whose changes change a draft (kt_tui/kernel/draft*.py and the index math they read)
    "kt_tui/kernel/draft*.py",
    "kt_tui/kernel/cuda_ast.py",
    "kt_tui/kernel/extents*.py",
    "kt_tui/kernel/bounds.py",
    "kt_tui/kernel/poly.py",
]


def _load_judge(kt: Path):
    sys.path.insert(0, str(kt))  # kt_tui of the checkout under test reads the drafts
    import importlib.util

    spec = importlib.util.spec_from_file_location("corpus_judge", Path(__file__).with_name("corpus_judge.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules["corpus_judge"] = mod
    spec.loader.exec_module(mod)
    return mod


def kt_tui(kt: Path, args: list[str], timeout: float, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(kt), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(
        [sys.executable, "-m", "kt_tui", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def draft_row(name: str, kt: Path, judge, scratch: Path, args) -> dict:
    from kt_tui.kernel.source import find_kernels
    from kt_tui.kernel.spec import parse_spec

    cu = CORPUS / f"{name}.cu"
    truth = judge.load_truth(CORPUS / "truth" / f"{name}.toml")
    row = {
        "kernel": name,
        "unseen": truth.unseen,
        "heldout": truth.heldout,
        "tuning": truth.tuning,
        "drafted": False,
        "sizes": False,
        "outputs": False,
        "geometry": False,
        "scalars": False,
        "guesses": 0,
        "fully_right": False,
        "problems": [],
        "check_sizes": 0,
    }
    folder = scratch / name
    folder.mkdir()
    shutil.copy(cu, folder / cu.name)
    t0 = time.perf_counter()
    try:
        done = kt_tui(kt, ["spec", cu.name], args.timeout, folder)
    except subprocess.TimeoutExpired:
        row["problems"].append(f"draft: timed out after {args.timeout:g} s")
        return row
    row["draft_s"] = round(time.perf_counter() - t0, 2)
    draft = folder / f"{cu.name}.toml"
    if done.returncode != 0 or not draft.is_file():
        last = (done.stderr or done.stdout).strip().splitlines()
        row["problems"].append(f"draft: exit {done.returncode}: {last[-1] if last else 'no output'}")
        return row
    text = draft.read_text()
    row["drafted"] = True
    row["guesses"] = len(GUESS.findall(text))
    src = cu.read_text()
    try:
        kernel = next(k for k in find_kernels(src) if k.name == truth_kernel_name(src, find_kernels(src)))
        spec = parse_spec(text, kernel, draft)
        row["check_sizes"] = len(spec.extra_sizes())
        problems = judge.judge(spec, kernel, src, truth)
    except Exception as e:  # noqa: BLE001  (a draft kt-tui itself cannot read, or one the judge cannot evaluate)
        row["problems"].append(f"draft unreadable: {type(e).__name__}: {str(e).replace(str(folder) + os.sep, '')}")
        return row
    for key in ("sizes", "outputs", "geometry", "scalars"):
        row[key] = not problems[key]
        row["problems"] += problems[key]
    row["fully_right"] = all(row[k] for k in ("sizes", "outputs", "geometry", "scalars"))
    if args.gpu and time.monotonic() > args.stop_at:
        row["problems"].append(f"GPU check not run: past --budget {args.budget:g} s")
        return row
    if args.gpu:
        row.update(gpu_check(args.check_kt or kt, folder, cu.name, args.timeout, "draft"))
    if args.gpu and args.hand:
        hand = folder / "hand"
        hand.mkdir()
        shutil.copy(cu, hand / cu.name)
        for extra in (CORPUS / "specs").glob("*.py"):
            shutil.copy(extra, hand / extra.name)
        shutil.copy(CORPUS / "specs" / f"{cu.name}.toml", hand / f"{cu.name}.toml")
        row.update(gpu_check(args.check_kt or kt, hand, cu.name, args.timeout, "hand"))
    return row


def truth_kernel_name(src: str, kernels) -> str:
    return kernels[0].name  # each corpus file holds one __global__ kernel


def gpu_check(kt: Path, folder: Path, cu_name: str, timeout: float, who: str) -> dict:
    try:
        done = kt_tui(kt, ["spec", cu_name, "--check"], timeout, folder)
    except subprocess.TimeoutExpired:
        return {
            f"{who}_check_rc": None,
            f"{who}_check_lines": [f"timed out after {timeout:g} s"],
            f"{who}_oob_flagged": False,
            f"{who}_vacuous_flagged": False,
            f"{who}_warned": False,
            f"{who}_too_few": False,
            f"{who}_score": None,
        }
    lines = (done.stdout + done.stderr).strip().splitlines()
    text = "\n".join(lines)
    return {
        f"{who}_check_rc": done.returncode,
        f"{who}_check_lines": lines[-20:],
        f"{who}_oob_flagged": done.returncode != 0 and bool(OOB.search(text)),
        f"{who}_vacuous_flagged": done.returncode != 0 and bool(VACUOUS.search(text)),
        f"{who}_warned": bool(WARNED.search(text)),
        f"{who}_too_few": bool(TOO_FEW.search(text)),
        f"{who}_score": [int(g) for g in scores[-1]] if (scores := SCORE.findall(text)) else None,
    }


def _score(r: dict, who: str) -> str:
    k = r.get(f"{who}_score")
    return f"{k[0]}/{k[1]}" if k else "-"


def weaker(r: dict) -> bool | None:
    """Whether the draft's check catches a smaller share of its wrong variants than the hand spec's
    (None when either was not measured). Each counts its own mutants: the same kernel gives the same
    mutants, and a draft that skips a size may count fewer."""
    d, h = r.get("draft_score"), r.get("hand_score")
    if not d or not h or not d[1] or not h[1]:
        return None
    return d[0] * h[1] < h[0] * d[1]


def table(rows: list[dict], gpu: bool, hand: bool) -> str:
    yes = {True: "yes", False: "NO", None: "-"}
    head = ["kernel", "set", "sizes", "outputs", "geometry", "scalars", "guesses", "fully right"]
    if gpu:
        head += ["check rc", "oob flagged", "vacuous flagged", "layout warned", "too few run", "score"]
        head += ["hand rc", "hand score"] if hand else []
    head.append("why")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [
            r["kernel"],
            _set_name(r),
            *(yes[r[k]] if r["drafted"] else "-" for k in ("sizes", "outputs", "geometry", "scalars")),
            str(r["guesses"]),
            yes[r["fully_right"]],
        ]
        if gpu:
            cells += [
                str(r.get("draft_check_rc", "-")),
                yes[r.get("draft_oob_flagged")],
                yes[r.get("draft_vacuous_flagged")],
                yes[r.get("draft_warned")],
                yes[r.get("draft_too_few")],
                _score(r, "draft"),
            ]
            if hand:
                cells += [str(r.get("hand_check_rc", "-")), _score(r, "hand")]
        cells.append("; ".join(r["problems"][:3]) + (f" (+{len(r['problems']) - 3})" if len(r["problems"]) > 3 else ""))
        lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return "\n".join(lines)


def _set_name(r: dict) -> str:
    if r.get("unseen"):
        return "unseen"
    if r.get("heldout"):
        return f"held-out {int(r['heldout'])}"
    return "tuning" if r.get("tuning") else ""


def _git(kt: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(kt), *args], capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


def seen_batches() -> dict[int, str]:
    """Held-out batch -> the commit at which it was first drafted (tests/corpus/heldout.toml)."""
    if not SEEN.is_file():
        return {}
    return {int(k): v["seen"] for k, v in tomllib.loads(SEEN.read_text()).get("batch", {}).items()}


def batch_note(kt: Path, batch: int, seen: dict[int, str]) -> str:
    """Whether this score is the batch's first draft: the drafter's commits since it was seen."""
    if batch not in seen:
        return "first draft: not recorded as seen yet (--record-seen records it)"
    changed = _git(kt, "log", "--format=%h", f"{seen[batch]}..HEAD", "--", *DRAFTER).split()
    dirty = _git(kt, "status", "--porcelain", "--", *DRAFTER)
    if not changed and not dirty:
        return f"seen at {seen[batch]}, the drafter unchanged since"
    what = f"{len(changed)} commit(s) changed the drafter since" if changed else "the drafter has uncommitted changes"
    if changed and dirty:
        what += ", and it has uncommitted changes"
    return f"seen at {seen[batch]}; {what}: no longer a first draft"


def summary(rows: list[dict], gpu: bool, kt: Path | None = None) -> list[str]:
    n = len(rows)
    right = sum(r["fully_right"] for r in rows)
    unseen = [r for r in rows if r["unseen"]]
    heldout = [r for r in rows if r.get("heldout")]
    tuning = [r for r in rows if r.get("tuning")]
    seen = seen_batches()
    out = [
        (
            f"{n} kernels, {right} fully right ({100 * right / max(n, 1):.0f} %); "
            f"sizes right {sum(r['sizes'] for r in rows)}, outputs right {sum(r['outputs'] for r in rows)}, "
            f"geometry right {sum(r['geometry'] for r in rows)}, scalars right {sum(r['scalars'] for r in rows)}, "
            f"drafts failed {sum(not r['drafted'] for r in rows)}, guesses marked {sum(r['guesses'] for r in rows)}"
        ),
        f"unseen-like set: {sum(r['fully_right'] for r in unseen)} of {len(unseen)} fully right",
    ]
    for batch in sorted({int(r["heldout"]) for r in heldout}):
        rows_b = [r for r in heldout if int(r["heldout"]) == batch]
        note = f" ({batch_note(kt, batch, seen)})" if kt is not None else ""
        out.append(
            f"held-out batch {batch}: {sum(r['fully_right'] for r in rows_b)} of {len(rows_b)} fully right{note}"
        )
    if tuning:
        out.append(
            f"tuning set (seen while the drafter was developed, not held out): "
            f"{sum(r['fully_right'] for r in tuning)} of {len(tuning)} fully right"
        )
    if gpu:
        oob = [r for r in rows if r["drafted"] and not r["sizes"]]
        missed = [r["kernel"] for r in oob if not r.get("draft_oob_flagged") and r.get("draft_check_rc") == 0]
        out.append(
            f"GPU: {len(oob)} drafts with sizes wrong by the truth, {len(missed)} of them passed "
            f"--check unflagged{': ' + ', '.join(missed) if missed else ''}; "
            f"vacuous flagged {sum(bool(r.get('draft_vacuous_flagged')) for r in rows)}"
        )
        wrong = [r for r in rows if r["drafted"] and not r["fully_right"]]
        silent = [
            r["kernel"]
            for r in wrong
            if r.get("draft_check_rc") == 0 and not r.get("draft_warned") and not r.get("draft_too_few")
        ]
        out.append(
            f"GPU: {len(wrong)} drafts wrong by the truth, {len(silent)} of them passed --check with no flag, "
            f"no layout warning and no TOO FEW RUN{': ' + ', '.join(silent) if silent else ''}"
        )
        judged = [r for r in wrong if weaker(r) is not None]
        weak = [f"{r['kernel']} ({_score(r, 'draft')} vs {_score(r, 'hand')})" for r in judged if weaker(r)]
        out.append(
            f"GPU: of {len(judged)} wrong drafts with both scores, {len(weak)} catch a smaller share of wrong "
            f"variants than the hand spec{': ' + ', '.join(weak) if weak else ''}"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("names", nargs="*", help="corpus kernels (default: all)")
    p.add_argument("--kt", type=Path, default=ROOT, help="the kt-tui checkout to run (default: this one)")
    p.add_argument(
        "--check-kt",
        type=Path,
        help="with --gpu: the kt-tui checkout that runs `spec --check` (default: --kt), e.g. today's on first drafts",
    )
    p.add_argument("--gpu", action="store_true", help="also run `kt-tui spec --check` on each draft (needs a GPU)")
    p.add_argument("--hand", action="store_true", help="with --gpu: also check the hand specs")
    p.add_argument("--json", type=Path, help="write the rows here")
    p.add_argument(
        "--record-seen",
        action="store_true",
        help="record in tests/corpus/heldout.toml each held-out batch drafted here that has no commit recorded",
    )
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per kt-tui command (default 60)")
    p.add_argument(
        "--budget",
        type=float,
        default=480.0,
        help="with --gpu: no GPU check starts after this many seconds (default 480); the rest are still judged",
    )
    args = p.parse_args(argv)
    args.stop_at = time.monotonic() + args.budget
    kt = args.kt.resolve()
    args.check_kt = args.check_kt.resolve() if args.check_kt else None
    if not (kt / "kt_tui").is_dir():
        print(f"drafts.py: {kt}: not a kt-tui checkout (no kt_tui/)", file=sys.stderr)
        return 2
    every = sorted(c.stem for c in CORPUS.glob("*.cu"))
    unknown = [n for n in args.names if n not in every]
    if unknown:
        print(f"drafts.py: not in tests/corpus: {', '.join(unknown)}", file=sys.stderr)
        return 2
    judge = _load_judge(kt)
    t0 = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory(prefix="kt-drafts-") as tmp:
        for name in args.names or every:
            try:
                rows.append(draft_row(name, kt, judge, Path(tmp), args))
            except Exception as e:  # noqa: BLE001  (one kernel's trouble is its row, never the run's end)
                rows.append(
                    {
                        "kernel": name,
                        "unseen": False,
                        "drafted": False,
                        "sizes": False,
                        "outputs": False,
                        "geometry": False,
                        "scalars": False,
                        "guesses": 0,
                        "fully_right": False,
                        "problems": [f"benchmark error: {type(e).__name__}: {e}"],
                    }
                )
    commit = _git(kt, "rev-parse", "--short", "HEAD")
    dirty = " with uncommitted drafter changes" if _git(kt, "status", "--porcelain", "--", *DRAFTER) else ""
    checked = f", checked by {args.check_kt}" if args.gpu and args.check_kt else ""
    print(
        f"kt-tui spec drafts on tests/corpus ({kt}, commit {commit or '?'}{dirty}{checked}), "
        f"{time.perf_counter() - t0:.0f} s"
    )
    print(table(rows, args.gpu, args.hand))
    for line in summary(rows, args.gpu, kt):
        print(line)
    if args.record_seen:
        record_seen(rows, commit)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


def record_seen(rows: list[dict], commit: str) -> None:
    import tomlkit

    doc = tomlkit.parse(SEEN.read_text()) if SEEN.is_file() else tomlkit.document()
    batches = doc.setdefault("batch", tomlkit.table(is_super_table=True))
    for batch in sorted({int(r["heldout"]) for r in rows if r.get("heldout")}):
        if str(batch) not in batches and commit:
            batches[str(batch)] = {"seen": commit}
            print(f"held-out batch {batch}: recorded as seen at {commit} in {SEEN}")
    SEEN.write_text(tomlkit.dumps(doc))


if __name__ == "__main__":
    sys.exit(main())
