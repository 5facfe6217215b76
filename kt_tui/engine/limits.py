"""How far a result is from the GPU's limit: the bytes and FLOPs a run moves (the spec's [metrics],
else the bytes estimated from its arrays: every input read once, every output written once), the
achieved GB/s and GFLOP/s, and their share of the peaks measured on the device (gpu/facts.py: a
device-to-device copy, FP32 FMAs). One place computes them for the table, the gates, `--json`,
results.csv, the report and the prompts. Every time is kernel_tuner's, launch included: where the
launch measured with the peaks is a fair share of a time, the text says so; no time is corrected."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..gpu.facts import clean_facts
from ..kernel.expr import ExprError, evaluate
from ..kernel.spec import Spec

NOT_RECORDED = "device facts not recorded"
LAUNCH_SAID = 5.0  # % of a time that is kernel_tuner's launch (gpu/device/device.py), from which it is said


@dataclass(frozen=True)
class Work:
    """What one run of a version moves and computes, at the spec's sizes."""

    bytes: float | None = None
    flops: float | None = None
    estimated: bool = False  # the bytes were estimated from the arrays, not given by [metrics]
    error: str | None = None


def _itemsize(dtype: str) -> int:
    """Bytes of a numpy dtype name as a spec writes it ("float32", "uint8", "bool", "complex64")."""
    if dtype == "bool":
        return 1
    m = re.search(r"(\d+)$", dtype)
    return int(m.group(1)) // 8 if m else 4


def work_of(spec: Spec) -> Work:
    """The spec's [metrics] at its sizes; without `bytes`, every array input read once and every
    output written once (an output that starts with data, not poison, is read too)."""
    metrics = getattr(spec, "metrics", None) or {}
    try:
        flops = float(evaluate(metrics["flops"], spec.sizes)) if "flops" in metrics else None
        if "bytes" in metrics:
            return Work(float(evaluate(metrics["bytes"], spec.sizes)), flops)
        moved = 0.0
        for a in spec.args:
            if not a.is_array or a.size is None:
                continue
            n = float(evaluate(a.size, spec.sizes)) * a.lanes * _itemsize(a.dtype)
            reads = not a.output or a.init not in ("poison",)
            moved += n * (int(reads) + int(a.output))
        return Work(moved or None, flops, estimated=True)
    except (ExprError, KeyError, TypeError, ValueError) as e:
        return Work(error=str(e)[:200])


def per_ms(work: Work, facts: dict[str, Any] | None) -> dict[str, float]:
    """Each rate times the run's time in ms: GB/s, GFLOP/s and their % of the measured peaks are
    these divided by time_ms (one division a row where a table has many)."""
    facts = facts or {}
    out: dict[str, float] = {}
    if work.bytes is not None:
        out["gbps"] = work.bytes / 1e6
        if facts.get("copy_gbps"):
            out["pct_bw"] = 100 * out["gbps"] / facts["copy_gbps"]
    if work.flops is not None:
        out["gflops"] = work.flops / 1e6
        if facts.get("fma_gflops"):
            out["pct_fp32"] = 100 * out["gflops"] / facts["fma_gflops"]
    return out


def limits(work: Work, time_ms: float | None, facts: dict[str, Any] | None) -> dict[str, Any] | None:
    """Achieved GB/s and GFLOP/s of one result and their % of the measured peaks (None: no time)."""
    if not time_ms or time_ms <= 0 or (work.bytes is None and work.flops is None):
        return None
    out: dict[str, Any] = {"estimated": work.estimated}
    if work.bytes is not None:
        out["bytes"] = work.bytes
    if work.flops is not None:
        out["flops"] = work.flops
    out |= {k: v / time_ms for k, v in per_ms(work, facts).items()}
    shares = {k: out[k] for k in ("pct_bw", "pct_fp32") if k in out}
    if shares:
        bound = max(shares, key=lambda k: shares[k])
        out["pct"] = shares[bound]
        out["bound"] = "memory" if bound == "pct_bw" else "compute"
    launch_us = (facts or {}).get("launch_us")
    if launch_us:
        out["launch_us"] = launch_us
        out["launch_pct"] = min(100.0, 100 * launch_us / 1000 / time_ms)
    return out


def pct_cell(lim: dict[str, Any] | None) -> str:
    """The table's cell: '92%' of the limit nearest, '~92%' when the bytes are an estimate."""
    if not lim or "pct" not in lim:
        return "-"
    return ("~" if lim.get("estimated") and lim.get("bound") == "memory" else "") + f"{lim['pct']:.0f}%"


def limits_text(lim: dict[str, Any] | None) -> str:
    """One line: '2771 GB/s, 91.6 % of the measured copy bandwidth (bytes estimated from the arrays)'."""
    if not lim:
        return "no throughput (no time, or no bytes or FLOPs known)"
    parts = []
    if "gbps" in lim:
        parts.append(
            f"{lim['gbps']:.0f} GB/s"
            + (f", {lim['pct_bw']:.1f} % of the measured copy bandwidth" if "pct_bw" in lim else "")
        )
    if "gflops" in lim:
        parts.append(
            f"{lim['gflops']:.0f} GFLOP/s"
            + (f", {lim['pct_fp32']:.1f} % of the measured FP32 FMA peak" if "pct_fp32" in lim else "")
        )
    text = "; ".join(parts)
    if lim.get("estimated"):
        text += " (bytes estimated: every input read once, every output written once)"
    if lim.get("launch_pct", 0) >= LAUNCH_SAID:
        text += (
            f"; kernel_tuner's time includes the launch (~{lim['launch_us']:.0f} us, {lim['launch_pct']:.0f} % of it)"
        )
    return text


def stored_facts(session: dict[str, Any]) -> dict[str, Any] | None:
    """The facts a session stored (its GPU's, or its recording's), checked: the database is untrusted."""
    try:
        return clean_facts(json.loads(session.get("device") or "null"))
    except (ValueError, RecursionError):
        return None


def _mib(n: Any) -> str:
    return f"{n / 2**20:.0f} MiB" if n else "?"


def facts_text(facts: dict[str, Any] | None, gpu: str = "", simulated: bool = False) -> str:
    """The device's facts in a few compact lines (what a prompt, the Profile tab and the report say)."""
    if not facts:
        why = " (replayed from a recording that has none)" if simulated else ""
        return f"{gpu or 'GPU'}: {NOT_RECORDED}{why}"
    f = facts
    lines = [
        f"{f['name']}, compute capability {f.get('cc', '?')}, {f.get('sms', '?')} SMs at "
        f"{f.get('sm_clock_mhz', 0):.0f} MHz, {f.get('memory_bytes', 0) / 2**30:.0f} GiB on a "
        f"{f.get('bus_width_bits', '?')}-bit bus at {f.get('mem_clock_mhz', 0):.0f} MHz "
        f"(theoretical {f.get('bandwidth_gbps', 0):.0f} GB/s), L2 {_mib(f.get('l2_bytes'))}",
        f"per block: {f.get('max_threads_per_block', '?')} threads, {f.get('smem_per_block', 0) // 1024} KiB "
        f"shared ({f.get('smem_per_block_optin', 0) // 1024} KiB opt-in); per SM: "
        f"{f.get('max_threads_per_sm', '?')} threads, {f.get('regs_per_sm', '?')} registers, "
        f"{f.get('smem_per_sm', 0) // 1024} KiB shared",
    ]
    if f.get("copy_gbps") or f.get("fma_gflops"):
        lines.append(
            f"measured peaks: copy {f.get('copy_gbps', 0):.0f} GB/s (read + write), "
            f"FP32 FMA {f.get('fma_gflops', 0) / 1000:.1f} TFLOP/s"
            + (f" (on {f['recorded']})" if f.get("recorded") else "")
            + (
                f"; launch ~{f['launch_us']:.0f} us (kernel_tuner's time of a kernel doing next to nothing)"
                if f.get("launch_us")
                else ""
            )
        )
    elif f.get("peak_error"):
        lines.append(f"peaks not measured: {f['peak_error']}")
    return "\n".join(lines)
