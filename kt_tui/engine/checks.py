"""Results at other sizes: a configuration that is right at the spec's size can still be wrong at a
ragged or a small one. Each check runs on a GPU worker (gpu/checking.py), is stored before
anyone hears of it, and is never run twice; in sim mode it is read from the recorded cache."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..compare import poisoned
from ..gpu.protocol import CheckJob
from ..gpu.simcache import finalize_cache, recorded_checks
from ..gpu.tuner import WorkerError
from ..kernel.spec import Spec
from ..kernel.strengthen import case_spec
from ..records import Check, Result, config_key, trusted
from ..store.rows import check_entry, check_from_entry
from ..words import counted
from .strength import kept_cases, result_params

REMEASURE_TOP = 5  # a run over several GPUs: its fastest configurations measured again on one
NO_RECORD = "not checked at other sizes (recorded cache has none)"
MEMCHECK = "memcheck"  # the label of an LLM kernel's memcheck among its checks
MEMCHECK_S = 120.0


def not_checked(vid: str, extra: dict[str, Any], key: str, reason: str) -> Check:
    return Check(
        version=vid, key=key, label=extra["label"], ok=None, status="not_checked", sizes=extra["sizes"], reason=reason
    )


def first_failure(checks: list[Check]) -> Check | None:
    return next((c for c in checks if c.ok is False), None)


class _Memcheck:
    """A sanitizer run on a daemon thread (the sanitizer's process tree is killed with the app's): the
    engine waits for it in short steps, and stops waiting once the session is stopped."""

    def __init__(self, run: Callable[[], Any]) -> None:
        self.result: list[Any] = []
        self.error = ""
        self.thread = threading.Thread(target=self._run, args=(run,), name="kt-memcheck", daemon=True)
        self.thread.start()

    def _run(self, run: Callable[[], Any]) -> None:
        try:
            self.result.append(run())
        except Exception as e:  # noqa: BLE001 - said as the reason memcheck did not run
            self.error = f"{type(e).__name__}: {e}"[:300]

    def wait(self, stopped: Callable[[], bool]) -> Any:
        """The report, or None where the session was stopped first or the run raised (self.error)."""
        while self.thread.is_alive() and not stopped():
            self.thread.join(0.2)
        return self.result[0] if self.result else None


class SizeChecks:
    """The engine's checks at other sizes; the engine owns one (engine.checks) and so does its
    memory of which versions' unchecked sizes were already said."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.noted: set[str] = set()

    def check_sizes(self, vid: str, params: dict[str, Any]) -> list[Check]:
        """`vid` at `params`, checked at the spec's extra sizes against the original kernel at its
        baseline. One entry per size: label, sizes, ok (None: not checked), status, reason, verdicts."""
        engine = self.engine
        _, spec = engine.version(vid)
        _, ref_spec = engine.version(engine.original)
        params = {**spec.baseline_params(), **params}  # a result from before a space edit lacks the new names
        key = config_key(list(spec.tune_params), params)
        extra = spec.extra_sizes() + kept_cases(engine.data)  # and the stronger inputs the check kept
        if vid == engine.original and params == ref_spec.baseline_params():
            return []  # the reference itself
        pending = self._memcheck_start(vid, key, params)  # beside the runs below: another process
        out = self._at_sizes(vid, key, params, extra) if extra else []
        safe = self._memcheck_end(vid, key, pending)
        return out + ([safe] if safe else [])  # wrong outputs said first, then memcheck's finding

    def _at_sizes(self, vid: str, key: str, params: dict[str, Any], extra: list[dict[str, Any]]) -> list[Check]:
        engine = self.engine
        source, spec = engine.version(vid)
        ref_source, ref_spec = engine.version(engine.original)
        stored = {c.label: c for c in engine.data.checks(vid, key)}
        missing = [e for e in extra if e["label"] not in stored]
        why = ""
        if missing and engine.choice.simulated:
            stored.update(self._recorded(vid, key, missing))
            why = NO_RECORD
        elif missing and engine.choice.backend == "none":
            why = "not checked at other sizes: no GPU backend here"
        elif missing:
            labels = ", ".join(e["label"] for e in missing)
            engine.emit("note", keep=False, text=f"checking {key} of {vid} at {labels}")
            job = CheckJob(
                run_id=f"check:{vid}:{key}",
                source=source,
                spec=spec.to_dict(),
                ref_source=ref_source,
                ref_spec=ref_spec.to_dict(),
                ref_params=ref_spec.baseline_params(),
                backend=engine.choice.backend,
                sizes=missing,
                configs=[params],
                partial=self._partial(),
                result_params=result_params(engine.data),
            )

            def on_gpu(kind: str, payload: dict[str, Any]) -> None:
                if kind == "check" and not payload.get("reference"):
                    c = check_from_entry(vid, payload, source="measured")
                    engine.data.add_check(vid, c)
                    stored[c.label] = c
                    engine.emit("check", version=vid, key=key, label=c.label, status=c.status, reason=c.reason)
                elif kind == "begin":
                    engine.emit("begin", keep=False, run=job.run_id, **payload)

            try:
                engine.run_on_gpu(job, on_gpu, engine.timeout_s or spec.timeout_s)
            except WorkerError as e:
                why = f"not checked at other sizes: {e}"
            self._stamp(vid, spec)
        out = [stored.get(e["label"]) or not_checked(vid, e, key, why) for e in extra]
        if any(c.ok is None for c in out) and vid not in self.noted:
            self.noted.add(vid)
            engine.emit("note", text=next(c.reason for c in out if c.ok is None))
        return out

    def _memcheck_start(self, vid: str, key: str, params: dict[str, Any]) -> Check | _Memcheck | None:
        """A generated kernel at `params` under compute-sanitizer memcheck at the spec's size, every
        check size and the stronger inputs the check kept, once per configuration: one that reads or
        writes out of bounds is not verified, whatever its outputs (the original's own memcheck is the
        check's test, engine/strength.py). The stored verdict (in a replay: the recorded one), or the
        run started on a thread (its own process), or None (no GPU, a replay without one, the
        original). A run that could not tell is tried again next time."""
        engine = self.engine
        if vid == engine.original or engine.choice.backend == "none":
            return None
        stored: list[Check] = [c for c in engine.data.checks(vid, key) if c.label == MEMCHECK and c.ok is not None]
        if stored:
            return stored[-1]
        if engine.choice.simulated:
            return self._recorded(vid, key, [{"label": MEMCHECK}]).get(MEMCHECK)
        from ..gpu.sanitize import sanitize  # here: only a generated kernel's check runs it (as engine/runs.py)

        source, spec = engine.version(vid)
        engine.emit("note", keep=False, text=f"memcheck of {key} of {vid}")
        more = [e["sizes"] for e in spec.extra_sizes()]
        cases = [case_spec(spec, c) for c in kept_cases(engine.data)]
        run = _Memcheck(
            lambda: sanitize(
                source, spec, params, engine.choice.backend, tool="memcheck", timeout_s=MEMCHECK_S,
                sizes=spec.sizes, more=more, cases=cases,
            )
        )  # fmt: skip
        return run

    def _memcheck_end(self, vid: str, key: str, pending: Check | _Memcheck | None) -> Check | None:
        """The memcheck's verdict as a stored check (the run waited for while the session goes on)."""
        if not isinstance(pending, _Memcheck):
            return pending
        from ..gpu.memcheck import AT_SOME_SIZE, oob_text  # here: only a generated kernel's check reads one

        engine = self.engine
        _, spec = engine.version(vid)
        report = pending.wait(lambda: bool(engine.interrupted))
        runs = 1 + len(spec.extra_sizes()) + len(kept_cases(engine.data))
        if report is None:
            why = pending.error or "the session was stopped"
            c = Check(vid, key, MEMCHECK, None, "not_checked", spec.sizes, f"memcheck not run: {why}")
        elif report.ok is None or (report.ok is False and not report.errors):
            said = report.reason or oob_text(report, spec, spec.sizes, AT_SOME_SIZE, subject=f"{vid} at {key}")
            c = Check(vid, key, MEMCHECK, None, "not_checked", spec.sizes, f"memcheck not run: {said}")
        elif report.ok:
            c = Check(
                vid,
                key,
                MEMCHECK,
                True,
                "ok",
                spec.sizes,
                f"memcheck clean at {counted(runs, 'run')} (sizes and inputs)",
            )
        else:
            at = AT_SOME_SIZE if runs > 1 else ""
            why = "memcheck: " + oob_text(report, spec, spec.sizes, at, subject=f"the generated kernel {vid} at {key}")
            c = Check(vid, key, MEMCHECK, False, "unsafe", spec.sizes, why)
        engine.data.add_check(vid, c)
        engine.emit("check", version=vid, key=key, label=c.label, status=c.status, reason=c.reason)
        self._stamp(vid, spec)
        return c

    def _partial(self) -> list[str]:
        """Outputs the original leaves partly unwritten at the spec's size (poison left in its reference)."""
        engine = self.engine
        ref = engine.reference() or {}  # a lost or damaged one is captured again
        return [name for name, a in ref.items() if poisoned(a).any()]

    def _recorded(self, vid: str, key: str, missing: list[dict[str, Any]]) -> dict[str, Check]:
        engine = self.engine
        path = engine.sim_cache(vid)
        recorded = {c["label"]: c for c in (recorded_checks(path, key) if path else [])}
        found = {}
        for e in missing:
            if e["label"] in recorded:
                c = check_from_entry(vid, recorded[e["label"]], key=key, source="recorded")
                engine.data.add_check(vid, c)
                found[e["label"]] = c
        return found

    def _stamp(self, vid: str, spec: Spec) -> None:
        """Write the version's checks into its cachefile's header: a replay of it shows them."""
        engine = self.engine
        path = engine.cachefile(vid, spec)
        if not path or not Path(path).exists():
            return
        checks: dict[str, list[dict[str, Any]]] = {}
        for c in engine.data.checks(vid):
            checks.setdefault(c.key, []).append(check_entry(c))
        finalize_cache(path, {"checks": checks})

    def remeasure_top(self, vid: str, run_id: str, top: int = REMEASURE_TOP) -> None:
        """A run dealt over several GPUs: its fastest configurations are measured again on one GPU,
        so the best is chosen between timings of one device (GPUs of one model still differ)."""
        engine = self.engine
        if getattr(engine.gpu, "size", 1) < 2:
            return
        ref = engine.reference_key() if vid == engine.original else None
        rows = [r for r in engine.data.by_time(vid, limit=top * 4) if trusted(r, r.key == ref)][:top]
        if len({r.worker for r in rows}) < 2:
            return  # one device measured them all already
        before = {r.key: r.time_ms for r in rows}
        engine._run_job(
            vid,
            f"{run_id}:remeasure",
            "remeasure",
            configs=[dict(r.params) for r in rows],
            one_worker=True,
            timing_only=True,  # their outputs were checked when first measured
        )
        engine.refresh_best()
        after = {r.key: r for r in engine.data.by_time(vid, limit=top * 4) if r.key in before}
        where = next((r.worker for r in after.values() if r.worker), "one GPU")
        best = engine.best_of(vid)
        engine.emit(
            "note",
            text=f"the {len(rows)} fastest of {run_id} measured again on {where}: best "
            + (f"{best.key} at {best.time_ms:.4f} ms" if best and best.time_ms is not None else "none"),
        )

    def confirm_best(self, vid: str, tries: int = 3) -> Result | None:
        """The version's best configuration, checked at the extra sizes. One that is wrong there is
        marked wrong_result (excluded from best) and the next best is checked, `tries` at most."""
        engine = self.engine
        for _ in range(tries):
            best: Result | None = engine.best_of(vid)
            if best is None:
                return None
            bad = first_failure(self.check_sizes(vid, dict(best.params)))
            if bad is None:
                return best
            self.mark_wrong(vid, best, bad)
        best = engine.best_of(vid)
        if best is not None:
            engine.emit(
                "note",
                text=f"{best.key} of {vid} is not checked at other sizes: the {tries} faster "
                "configurations were wrong there",
            )
        return best

    def mark_wrong(self, vid: str, result: Result, check: Check) -> None:
        engine = self.engine
        bad = next((v for v in check.verdicts or () if not v["ok"]), None)
        where = f"{bad['output']}[{bad['first_bad']}] at {check.label}" if bad else check.label
        engine.data.mark_result(
            vid, result.key, status="wrong_result", verified=False, error=check.reason, first_bad=where
        )
        row = engine.known(vid)[result.key]
        engine.emit("result", keep=False, run=row.run, version=vid, result=row, best=False)
        engine.emit("note", text=f"{result.key} of {vid}: {check.reason}")
        engine.refresh_best()
