"""Everything an export needs from one stored session, read once."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..engine.limits import stored_facts
from ..engine.profiles import profile_of
from ..engine.summary import best_result, refused_why
from ..engine.verdict import UNMEASURED, waits_for_gpu
from ..errors import UserError
from ..files import file_stem
from ..kernel.expr import ExprError, evaluate
from ..kernel.spec import Spec, spec_from_plain
from ..kernel.text import kernel_text
from ..records import Check, Result
from ..store import SessionStore, Store

BLOCK_NAMES = ("block_size_x", "block_size_y", "block_size_z")


class ExportError(UserError):
    pass


class NotMeasured(ExportError):
    """A session prepared without a GPU: export/unmeasured.py writes what it has."""


@dataclass
class Bundle:
    session: dict
    best: Result  # the best result
    version: dict  # its kernel version row
    spec: Spec  # the best version's spec
    original: dict  # the session's first version row
    original_spec: Spec
    store: Store  # results are read from it as they are written out, never all at once
    versions: list[dict]
    checks: list[Check]

    def results(self, vid: str | None = None):
        """The session's results (of `vid`), in the order stored, one at a time."""
        return self.data.iter_results(vid)

    @property
    def count(self) -> int:
        return self.data.count_results()

    def tuned(self) -> list[dict]:
        """The versions that have results."""
        return [v for v in self.versions if self.data.count_results(v["id"])]

    @property
    def data(self) -> SessionStore:
        """The session's view of the store: what an export reads."""
        return SessionStore(self.store, self.sid)

    @property
    def sid(self) -> str:
        return self.session["id"]

    @property
    def name(self) -> str:
        return self.spec.kernel

    @property
    def stem(self) -> str:
        """The name the exported files go by (a template kernel's without its brackets)."""
        return file_stem(self.spec.kernel)

    @property
    def speedup(self) -> float | None:
        base = self.session.get("baseline_ms")
        return base / self.best.time_ms if base and self.best.time_ms else None

    def launch(self) -> dict:
        return launch_config(self.spec, dict(self.best.params))

    @property
    def facts(self) -> dict[str, Any] | None:
        """The device's facts and measured peaks the session stored (None: not recorded)."""
        return stored_facts(self.session)

    def profile_of(self, r: Result) -> dict[str, Any] | None:
        """A result's stored profile: its state and summary (None: not profiled)."""
        p = profile_of(self.data, r.version or "", r.key)
        return None if p is None else {"state": p["state"], **p["summary"]}


def load_bundle(store: Store, sid: str) -> Bundle:
    s = store.session(sid)
    if s is None:
        raise ExportError(f"no session {sid!r} in {store.path}")
    best = best_result(store, s["id"])  # the one best (engine/summary.py), as `--json` and the table name it
    if (best is None or best.time_ms is None) and s.get("state") == UNMEASURED:
        raise NotMeasured(f"nothing measured to export yet: {waits_for_gpu(s['id'])}")
    if best is None and (why := refused_why(store, s["id"])):
        raise ExportError(
            f"session {s['id']}: the original kernel was refused ({why[:300]}): nothing it measured is "
            "trusted, nothing to export"
        )
    if best is None or best.time_ms is None:
        raise ExportError(f"session {s['id']} has no accepted best kernel yet: nothing to export")
    versions = store.versions(s["id"])
    version = next((v for v in versions if v["id"] == best.version), None)
    if version is None:
        raise ExportError(
            f"session {s['id']}: its best result names kernel version {best.version!r}, which the "
            "session does not hold (a damaged database): nothing to export"
        )
    return Bundle(
        session=s,
        best=best,
        version=version,
        spec=spec_of(version),
        original=versions[0],
        original_spec=spec_of(versions[0]),
        store=store,
        versions=versions,
        checks=store.checks(s["id"]),
    )


def spec_of(version: dict) -> Spec:
    kernel_text(version["source"], "the stored kernel")  # refused like a kernel file would be
    return spec_from_plain(version["spec_json"])


def launch_config(spec: Spec, params: dict) -> dict:
    """Grid and block at the spec's sizes, by kernel_tuner's rules (grid = ceil(size / divisors))."""
    names = list(spec.block_size_names or BLOCK_NAMES) + list(BLOCK_NAMES[len(spec.block_size_names or []) :])
    block = [int(params.get(names[0], 256)), int(params.get(names[1], 1)), int(params.get(names[2], 1))]
    sizes = spec.problem_size_values() + [1, 1]
    grid = []
    for i, divs in enumerate((spec.grid_div_x, spec.grid_div_y, spec.grid_div_z)):
        if divs is None:  # kernel_tuner's default divisor: the block size of that dimension
            divs = [names[i]] if names[i] in params else []
        divisor: float = 1
        try:
            for d in divs:
                divisor *= evaluate(d, params)
        except ExprError:
            divisor = 1
        grid.append(int(math.ceil(sizes[i] / divisor)) if divisor else 1)
    return {"grid": grid, "block": block}


def metrics(spec: Spec, time_ms: float | None, facts: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Achieved bytes/s and FLOP/s when the spec's [metrics] gives bytes or flops per run; `peak`:
    the device's measured one (a device-to-device copy, FP32 FMAs), when its facts are stored."""
    out: list[dict[str, Any]] = []
    peaks = {"bytes": (facts or {}).get("copy_gbps"), "flops": (facts or {}).get("fma_gflops")}
    for key, unit in (("bytes", "B/s"), ("flops", "FLOP/s")):
        expr = (getattr(spec, "metrics", None) or {}).get(key)
        if expr is None or not time_ms:
            continue
        try:
            per_run = float(evaluate(expr, spec.sizes))
        except ExprError as e:
            out.append({"metric": key, "error": str(e)})
            continue
        measured = peaks[key]
        peak = measured * 1e9 if measured else None
        out.append({"metric": key, "per_run": per_run, "per_s": per_run / (time_ms * 1e-3), "unit": unit, "peak": peak})
    return out
