"""How far the example kernels are from the GPU's limit, and what profiling costs (issue 39), on a GPU.

usage: python benchmarks/limits.py [--kernels saxpy,big,examples] [--max-configs 4] [--without-ncu saxpy]
                                   [--deadline-s 150] [--out DIR]

Each kernel runs as `kt-tui run KERNEL --auto --json --max-configs N` (fresh processes, one data dir for
all, so the device's facts and peaks are measured once, by the first), saxpy and the rest of
benchmarks/big first: they are the bandwidth-bound ones, where kt-tui's share of the copy peak and
ncu's DRAM throughput should agree; a run starts only while the deadline leaves room for the longest
so far. Printed per kernel: the
baseline's and the best's times and % of the measured copy bandwidth (kt-tui's own, from the bytes
moved), the launch's share of the baseline's time, Nsight Compute's DRAM throughput of the baseline
(as % of the same copy peak, and as ncu gives it: % of the theoretical bandwidth), its SM throughput
and top stall, the number of profiles and the seconds each took, and the session's wall time; then
where the profiles' seconds went (gpu/profile.py). Kernels named by --without-ncu run again with
KT_TUI_NCU=0 (profiling off, as where ncu is absent): their wall time beside, and the profiles they
made (none). Then the device's facts, once.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from short import ROOT, Deadline, kernel_paths  # noqa: E402

from kt_tui.gpu.profile import SPLIT  # noqa: E402


def run(kernel: str, data: Path, max_configs: int, ncu: bool) -> tuple[dict | None, float, str]:
    env = dict(os.environ, KT_TUI_DATA_DIR=str(data), KT_TUI_DB=str(data / "sessions.db"))
    if not ncu:
        env["KT_TUI_NCU"] = "0"
    cmd = [sys.executable, "-m", "kt_tui", "run", kernel, "--auto", "--json", "--max-configs", str(max_configs)]
    started = time.monotonic()
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    wall = time.monotonic() - started
    out = p.stdout[p.stdout.find("{") :] if "{" in p.stdout else ""
    try:
        return json.loads(out), wall, p.stderr
    except ValueError:
        return None, wall, p.stderr[-400:]


def pct(lim: dict | None, key: str = "pct_bw") -> str:
    return f"{lim[key]:.1f}" if lim and key in lim else "-"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", default="saxpy,big,examples")
    ap.add_argument("--max-configs", type=int, default=4)
    ap.add_argument("--without-ncu", default="saxpy")
    ap.add_argument("--deadline-s", type=float, default=150)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    deadline = Deadline(args.deadline_s)
    data = Path(tempfile.mkdtemp(prefix="kt-limits-"))
    head = (
        f"{'kernel':<16} {'base ms':>9} {'best ms':>9} {'base %cp':>8} {'best %cp':>8} {'launch%':>7} {'ncu %cp':>7} "
        f"{'ncu DRAM':>8} {'ncu SM':>6} {'top stall':<22} {'prof':>4} {'s/prof':>6} {'wall s':>7} {'no-ncu s':>8}"
    )
    lines = [head]
    where = [f"{'kernel':<16} " + " ".join(f"{k:>9}" for k in (*SPLIT, "passes"))]
    facts = None
    skip = {n for n in args.without_ncu.split(",") if n}
    for kernel in kernel_paths(args.kernels):
        name = Path(kernel).stem
        if not deadline.allows():
            continue
        out, wall, err = run(kernel, data, args.max_configs, ncu=True)
        deadline.ran(wall)
        if out is None or out.get("error"):
            lines.append(f"{name:<16} failed: {(out or {}).get('error') or err.strip().splitlines()[-1:]}")
            continue
        facts = facts or out.get("device")
        profs = [p for p in out.get("profiles", []) if p.get("state") == "done"]
        base = profs[0] if profs else {}  # the baseline is profiled first
        stall = ", ".join(f"{n} {v:.0f}" for n, v in base.get("stalls", [])[:1]) or "-"
        secs = [p["seconds"] for p in profs if p.get("seconds")]
        others = [p["state"] for p in out.get("profiles", []) if p.get("state") != "done"]
        copy = (out.get("device") or {}).get("copy_gbps")
        theirs = f"{100 * base['dram_bytes_per_s'] / 1e9 / copy:.1f}" if copy and "dram_bytes_per_s" in base else "-"
        without = "-"
        if name in skip and deadline.allows():
            plain, wall2, _ = run(kernel, data, args.max_configs, ncu=False)
            deadline.ran(wall2)
            made = [p["state"] for p in (plain or {}).get("profiles", [])]
            without = f"{wall2:.1f}" + ("" if set(made) <= {"absent"} else f" (profiled: {made})")
        lines.append(
            f"{name:<16} {out['baseline_ms'] or 0:>9.4f} {out['best']['time_ms']:>9.4f} "
            f"{pct(out.get('baseline_limits')):>8} {pct(out.get('best_limits')):>8} "
            f"{pct(out.get('baseline_limits'), 'launch_pct'):>7} {theirs:>7} "
            f"{base.get('dram_pct', 0):>8.1f} {base.get('sm_pct', 0):>6.1f} {stall:<22} "
            f"{len(profs):>4} {(sum(secs) / len(secs) if secs else 0):>6.1f} {wall:>7.1f} {without:>8}"
            + (f"  not profiled: {', '.join(others)}" if others else "")
        )
        splits = [p["split"] for p in profs if p.get("split")]
        if splits:
            mean = [sum(x.get(k, 0) for x in splits) / len(splits) for k in SPLIT]
            passes = "/".join(str(p["passes"]) for p in profs if "passes" in p) or "-"
            where.append(f"{name:<16} " + " ".join(f"{v:>9.2f}" for v in mean) + f" {passes:>9}")
    lines.append("")
    lines.append(
        "%cp: % of the measured copy bandwidth (bytes from [metrics], else estimated); launch%: kernel_tuner's "
        "time of a kernel doing next to nothing, as % of the baseline's time (part of every time); ncu: the "
        "baseline's profile (%cp: its DRAM bytes/s against the same copy peak; DRAM: % of the theoretical "
        "bandwidth); s/prof: seconds per profiled configuration (one ncu run); no-ncu: the same run with "
        "KT_TUI_NCU=0" + deadline.note()
    )
    lines += ["", "where a profile's seconds go (mean of the kernel's profiles; passes: ncu's replay passes each):"]
    lines += [*where, ""]
    if facts:
        lines.append(
            f"device: {facts.get('name')}, copy {facts.get('copy_gbps')} GB/s, FP32 FMA {facts.get('fma_gflops')} "
            f"GFLOP/s, theoretical {facts.get('bandwidth_gbps')} GB/s, launch {facts.get('launch_us')} us, "
            f"peaks measured in {facts.get('measure_s')} s"
        )
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"limits-{time.strftime('%Y-%m-%d')}.txt").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
