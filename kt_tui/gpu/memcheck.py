"""compute-sanitizer memcheck for the check's test (gpu/checkrun.py): on the original kernel at the spec's
size and at every check size, with each stronger case that killed a mutant, and on the mutants the
outputs did not catch; the first out-of-bounds finding named by its argument (when its allocation's
size tells it), its size and its index; otherwise the sanitizer's first finding."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..kernel.spec import Spec
from ..kernel.spec_model import _valid_at
from ..kernel.strengthen import case_spec
from ..words import counted
from .mutants import CASES, RECORDS, read_jsonl, write_verdict
from .mutation_score import case_kills, score
from .sanitize import SanitizeReport, sanitize
from .timeline import mark

MEMCHECK_AT_ONCE = 6  # survivors under compute-sanitizer at once (each its own process), half the cores at most
MEMCHECK_MOST = 12
MEMCHECK_S = 15.0  # each: a survivor's memcheck at the check sizes is a few seconds

_FINDING = re.compile(
    r"=+\s*(Invalid __\w+__ (?:read|write|atomic)[^\n]*|Out-of-range[^\n]*|"
    r"Misaligned[^\n]*|Program hit [^\n]*)"
)
_AT = re.compile(r"=+\s+at (?:0x[0-9a-f]+ in )?([^\n]+)")
_ADDRESS = re.compile(r"Address (0x[0-9a-fA-F]+)")
_NEAREST = re.compile(
    r"is ([\d,]+) bytes? (after|before) the nearest allocation at (0x[0-9a-fA-F]+) of size "
    r"([\d,]+) bytes?"
)


def _int(text: str) -> int:
    return int(text.replace(",", ""))


AT_SOME_SIZE = "the spec's size or a check size"  # one process ran them all: which one is not told


def oob_text(report: SanitizeReport, spec: Spec, sizes: dict, label: str, subject: str = "the original kernel") -> str:
    """One line: which argument (when its allocation's size tells it), at which size, which index;
    otherwise the sanitizer's first finding. `subject`: the kernel it ran."""
    text = report.text
    m = _FINDING.search(text)
    where = f"at {label}" if label else "at the spec's size"
    oob = "out of bounds" in text or "Invalid __" in text
    if report.errors == 0 and not oob:  # no finding: the run itself failed; say why, never "memcheck"
        said = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("=========")]
        failing = [
            ln for ln in said if re.search(r"\berror\b", ln, re.IGNORECASE) and "error summary" not in ln.lower()
        ]
        why = (failing or said or [report.reason or "no message"])[0 if failing else -1][:400]
        return f"{subject} did not run under compute-sanitizer {where} (no memory error found): {why}"
    head = (
        f"{subject} {'accesses memory out of bounds' if oob else 'fails compute-sanitizer memcheck'} "
        f"{where} ({counted(report.errors, 'error')} under memcheck)"
    )
    if not m:
        first = next(
            (
                ln.strip("= ").strip()
                for ln in text.splitlines()
                if ln.startswith("=========") and "COMPUTE-SANITIZER" not in ln and ln.strip("= ").strip()
            ),
            "",
        )
        return f"{head}: {first}" if first else head
    what = m.group(1).strip()
    rest = text[m.end() : m.end() + 1200]
    at = _AT.search(rest)
    near = _NEAREST.search(rest)
    address = _ADDRESS.search(rest)
    detail = what + (f" at {at.group(1).strip()}" if at else "")
    if near:
        size = _int(near.group(4))
        names = _args_of_bytes(spec, sizes, size)
        start = int(near.group(3), 16)
        if names:  # the offset from the allocation's start: the address, or the distance the sanitizer gives
            gap = _int(near.group(1))
            offset = int(address.group(1), 16) - start if address else size + gap if near.group(2) == "after" else -gap
            arg = " or ".join(f"`{n}`[{offset // item}] ({size // item} elements long)" for n, item in names)
            return f"{head}: {arg} is read or written ({detail}; the address {near.group(0)})"
        return f"{head}: {detail}; {near.group(0)}"
    return f"{head}: {detail}" + (f", address {address.group(1)}" if address else "")


def _args_of_bytes(spec: Spec, sizes: dict, nbytes: int) -> list[tuple[str, int]]:
    from ..kernel.inputs import make_args  # numpy: only once something was found

    try:
        values = make_args(spec, sizes)
    except Exception:  # noqa: BLE001 - the finding is said without the argument's name
        return []
    return [(a.name, v.itemsize) for a, v in zip(spec.args, values) if a.is_array and v.nbytes == nbytes]


def sanitize_sizes(
    source: str, spec: Spec, backend: str, run: Callable = sanitize, timeout_s: float = 300.0
) -> tuple[str, list[str]]:
    """memcheck on the original at its baseline, at the spec's size and every check size:
    ("" or the first out-of-bounds finding, notes on sizes that could not be checked). All sizes run
    in one process under the tool; only when that finds something is each size run on its own, to
    say which size it was."""
    params = spec.baseline_params()
    notes: list[str] = []
    every = [("", spec.sizes)] + [(e["label"], e["sizes"]) for e in spec.extra_sizes()]
    if len(every) > 1:
        report = run(
            source, spec, params, backend, tool="memcheck", timeout_s=timeout_s, sizes=spec.sizes,
            more=[sizes for _, sizes in every[1:]],
        )  # fmt: skip
        if report.ok:
            return "", notes
        if report.ok is None and ("not found" in report.reason or "no GPU" in report.reason):
            return "", [f"memcheck at every size: not run: {report.reason}"]
    for label, sizes in every:
        report = run(source, spec, params, backend, tool="memcheck", timeout_s=timeout_s, sizes=sizes)
        if report.ok is False:
            return oob_text(report, spec, sizes, label), notes
        if report.ok is None:
            notes.append(f"memcheck {'at ' + label if label else 'at the spec size'}: not run: {report.reason}")
            if "not found" in report.reason or "no GPU" in report.reason:
                break  # the same at every size
    return "", notes


def sanitize_cases(
    source: str, spec: Spec, backend: str, cases: list[dict], run: Callable = sanitize, timeout_s: float = 300.0
) -> dict[str, str]:
    """memcheck on the original with each stronger case: label -> "" (clean) or why it is not legal.
    All in one process (the first case's inputs in place of the spec's: sanitize_sizes ran those);
    only when that finds something is each case run on its own."""
    if not cases:
        return {}
    params = spec.baseline_params()
    specs = [case_spec(spec, c) for c in cases]
    first = specs[0]
    report = run(
        source, first, params, backend, tool="memcheck", timeout_s=timeout_s, sizes=first.sizes, cases=specs[1:]
    )
    if report.ok:
        return {c["label"]: "" for c in cases}
    out = {}
    for c, s in zip(cases, specs):
        one = run(source, s, params, backend, tool="memcheck", timeout_s=timeout_s, sizes=s.sizes)
        out[c["label"]] = "" if one.ok else "memcheck: " + oob_text(one, s, s.sizes, c["label"])
    return out


def one_idle_thread(spec: Spec, sizes: dict) -> dict | None:
    """`sizes` with each size the launch spans (a problem_size that is one name, divided by the block:
    kernel_tuner's default) raised to one less than a multiple of the baseline's block on its axis: the
    last block has one thread past the end, and a load or store that reaches one element past it, or a
    block's halo past the input (conv1d_tile's `k <= n + TAPS - 1`), meets memcheck there, as at no size
    a check picks at random. None where no size changes or the sizes are not valid."""
    params = spec.baseline_params()
    names = spec.block_size_names or ["block_size_x", "block_size_y", "block_size_z"]
    out = dict(sizes)
    for k, (axis, size) in enumerate(zip("xyz", spec.problem_size, strict=False)):
        div = getattr(spec, f"grid_div_{axis}")
        block = params.get(names[k]) if k < len(names) else None
        if div is not None or not isinstance(size, str) or size.strip() not in sizes or not isinstance(block, int):
            continue  # an exact launch, a tuned divisor, an expression: the last block is not simply ragged
        n = sizes[size.strip()]
        out[size.strip()] = -(-(n + 1) // block) * block - 1
    if out == sizes or not _valid_at(spec, out):
        return None
    return out


def memcheck_survivors(
    entries: list[dict], survivors: list[dict], spec: Spec, backend: str, run: Callable = sanitize
) -> dict[str, str]:
    """memcheck on each mutant the outputs did not catch, at the baseline and the check sizes, as an
    LLM kernel is checked before it is called verified (engine/checks.py): id -> the finding, for
    those that read or write out of bounds. MEMCHECK_AT_ONCE processes at a time (half the cores at
    most), the first MEMCHECK_MOST survivors only."""
    sources = {e["id"]: e["source"] for e in entries}
    ids = [m["id"] for m in survivors if m["id"] in sources][:MEMCHECK_MOST]
    if not ids:
        return {}
    # the check sizes only, where there are some: small and ragged, an edge is there as at the spec's
    # size, and memcheck at a large size costs seconds per survivor
    every = [e["sizes"] for e in spec.extra_sizes()] or [spec.sizes]
    label = "a check size" if len(every) > 1 or every[0] is not spec.sizes else ""
    edge = one_idle_thread(spec, min(every, key=lambda s: sum(v for v in s.values() if isinstance(v, int))))
    every += [edge] if edge and edge not in every else []

    def one(i: str) -> str:
        report = run(
            sources[i], spec, spec.baseline_params(), backend, tool="memcheck", timeout_s=MEMCHECK_S,
            sizes=every[0], more=every[1:],
        )  # fmt: skip
        if report.ok is not False or not report.errors:  # a finding, not a run that failed under the tool
            return ""
        return "memcheck: " + oob_text(report, spec, every[0], label, subject=f"mutant {i}")

    with ThreadPoolExecutor(min(MEMCHECK_AT_ONCE, max(1, (os.cpu_count() or 2) // 2))) as pool:
        found = dict(zip(ids, pool.map(one, ids)))
    return {i: why for i, why in found.items() if why}


def memcheck_for_score(
    source: str,
    spec: Spec,
    backend: str,
    entries: list[dict],
    cases: list[dict],
    out: Path,
    runs_ended: Callable[[], bool],
    run: Callable = sanitize,
    timeout_s: float = 300.0,
) -> tuple[dict[str, str], dict[str, str]]:
    """The memchecks the mutation score needs, once the check's child ran the stronger cases at the
    check sizes (its records in `out`): (legal: label -> "" or why not, for the cases that killed a
    survivor; unsafe: memcheck_survivors). A case that kills nothing is not memchecked: its legality
    decides nothing. Those that killed are memchecked in one process, and the survivors no case killed
    (memcheck_survivors), beside the child's runs of those survivors at the spec's size (short: most
    die at the check sizes, and a run's hang limit is its original's, measured beside the same);
    `runs_ended()` waits for those runs to end and says whether the mutants are scored; the child hears
    which of those cases memcheck refused (out/VERDICT) and runs the survivors they leave at the spec's
    size. Then a case that killed only at the spec's size is memchecked, and a survivor left by a case
    memcheck refused."""

    def killing(done: dict[str, str]) -> list[dict]:
        kills = case_kills(entries, read_jsonl(out / RECORDS), read_jsonl(out / CASES))
        return [c for c in cases if kills.get(c["label"]) and c["label"] not in done]

    def left(legal: dict[str, str]) -> list[dict]:
        return score(entries, read_jsonl(out / RECORDS), read_jsonl(out / CASES), legal)["survivors"]

    with ThreadPoolExecutor(2) as pool:
        first = killing({})
        checking = pool.submit(sanitize_cases, source, spec, backend, first, run, timeout_s)
        checking.add_done_callback(lambda f: write_verdict(out, {} if f.exception() else f.result()))
        hoped = left({c["label"]: "" for c in first})  # if every case that killed is legal
        survivors = pool.submit(memcheck_survivors, entries, hoped, spec, backend, run)
        if not runs_ended():
            checking.result()  # a sanitizer's process is waited for, never left running
            survivors.result()
            return {}, {}
        legal = checking.result()
        if later := killing(legal):
            legal |= sanitize_cases(source, spec, backend, later, run, timeout_s)
        if legal:
            mark(f"main: check memcheck of {len(legal)} stronger cases done")
        unsafe = survivors.result()
    seen = [m["id"] for m in hoped][:MEMCHECK_MOST]
    final = left(legal)
    room = MEMCHECK_MOST - len({m["id"] for m in final} & set(seen))  # the first MEMCHECK_MOST of those left
    more = [m for m in final if m["id"] not in seen][: max(0, room)]
    if more:
        unsafe |= memcheck_survivors(entries, more, spec, backend, run)
    if hoped or more:
        mark(f"main: memcheck of {len(hoped) + len(more)} survivors done")
    return legal, unsafe
