"""Runs and measuring: the engine's jobs on the GPU worker (baseline, reference, verify, tune), the
results they store and how a run ended. `Runs` is a part of the Engine (engine/core.py), which
holds the session's state these methods read."""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import config_dir
from ..errors import UserError
from ..gpu.protocol import TuneJob
from ..gpu.simcache import finalize_cache
from ..gpu.tuner import Tuner, WorkerClosed, WorkerError
from ..kernel.spec import Spec
from ..records import Check, Result, as_result, replace
from ..search.options import run_seed, search_options
from ..search.seeds import grouped_seed_configs, named_params
from ..search.space import SpaceError, config_key, space_sizes
from ..store import SessionStore, Store
from ..store.results import StoredResults
from ..words import counted
from .backend import BackendChoice
from .known import known_in_space
from .profiles import profile_after_tune
from .strength import CheckInFlight, measure_again, result_params, settle_check, start_check
from .verdict import CUT, NO_RECORDING, NO_REFERENCE, NO_VERDICT, NO_VERDICT_SIM, NOT_CHECKED, NOT_MEASURED, Outcome

if TYPE_CHECKING:
    import threading

    from .checks import SizeChecks


class Interrupted(Exception):
    """The user left at a pending gate; the session resumes there."""


class Stopped(Exception):
    """A signal stopped the session (Engine.interrupt): nothing more is asked or run; a resume goes on."""


class Runs:
    """The measuring half of the Engine: what it reads of the session is declared here."""

    store: Store
    sid: str
    data: SessionStore
    gpu: Tuner
    choice: BackendChoice
    original: str
    options: dict[str, Any]
    labels: dict[str, str]
    timeout_s: float | None
    cache_dir: Path | None
    kernel_name: str
    checks: SizeChecks
    stop_requested: threading.Event
    llm_cancel: threading.Event
    interrupted: str | None
    accepted: set[str]
    best_ms: float | None
    best_key: str | None
    check_in_flight: CheckInFlight | None
    disturbed: dict[str, set[str]]

    if TYPE_CHECKING:  # the Engine's own (engine/core.py)

        def version(self, vid: str) -> tuple[str, Spec]: ...
        def trusted(self, vid: str, r: Result) -> bool: ...
        def reference_key(self) -> str: ...
        def emit(self, name: str, keep: bool = True, **data: Any) -> None: ...
        def sim_cache(self, vid: str) -> Path | None: ...
        def refresh_best(self) -> None: ...

    def verify(self, vid: str) -> Outcome:
        """Run a new version's first configuration once, checked against the original's outputs.
        finished: its result is trusted; failed: the error says why (wrong, no reference, no verdict)."""
        if vid != self.original:
            settle_check(self)  # its checks run the stronger inputs the check's test kept (engine/checks.py)
        _, spec = self.version(vid)
        params = spec.baseline_params()
        key = config_key(spec, params)
        run_id = f"verify:{vid}"
        if key not in self.known(vid):
            if self.choice.unmeasured:
                self.data.put_run(run_id, version=vid, kind="verify", state="running")
                self._end_run(run_id, NOT_MEASURED, NOT_CHECKED)
                return Outcome(NOT_MEASURED, NOT_CHECKED)
            if not self.choice.simulated and self.reference() is None:
                settle_check(self)  # an original out of bounds is said as that
                self.data.put_run(run_id, version=vid, kind="verify", state="running")
                why = self.no_reference()
                self._end_run(run_id, "failed", why)
                return Outcome("failed", why)
            self._run_job(vid, run_id, "verify", configs=[params])
        r = self.known(vid).get(key)
        if r is None:
            run = self.data.run(run_id)
            return Outcome("failed", (run.error if run else None) or "no result")
        if r.status != "ok" or r.verified is False:
            return Outcome("failed", None, result=r)
        if not self.trusted(vid, r):
            return Outcome("failed", NO_VERDICT_SIM if self.choice.simulated else NO_VERDICT, result=r)
        return Outcome("finished", measured=1, result=r)

    def reference(self) -> dict[str, Any] | None:
        """The original's outputs at its baseline, which every version is checked against; lost or
        damaged ones are captured again by a reference job. None in sim (verdicts are recorded)
        or when they cannot be had."""
        if self.choice.simulated:
            return None
        ref = self.data.reference(self.original)
        if ref is None and not self.choice.unmeasured:
            _, spec = self.version(self.original)
            self._run_job(
                self.original, f"reference:{self.original}", "reference", configs=[spec.baseline_params()], capture=True
            )
            ref = self.data.reference(self.original)
        return ref

    def no_reference(self) -> str:
        """NO_REFERENCE with what went wrong when the original's outputs were taken."""
        why = [
            run.error
            for run in (self.data.run(f"{kind}:{self.original}") for kind in ("reference", "baseline"))
            if run and run.error
        ]
        base = self.known(self.original).get(self.reference_key())
        if base and base.status != "ok":
            why.append(f"the original's run: {base.status}: {(base.error or '').strip()[:300]}")
        return NO_REFERENCE + (f" ({'; '.join(why)})" if why else "")

    def known(self, vid: str) -> StoredResults:
        """The version's stored results, key -> result (read from the store on use: sessions can be large)."""
        return self.data.known(vid)

    # -- measuring -----------------------------------------------------------------------
    def baseline(self, vid: str) -> Result | None:
        """The original configuration's time and outputs (the reference), measured once."""
        source, spec = self.version(vid)
        params = spec.baseline_params()
        key = config_key(spec, params)
        have = self.known(vid).get(key)
        if have is None:
            if vid == self.original:  # the check's strength, once per session, tested beside (engine/strength.py)
                start_check(self)
            self._run_job(vid, f"baseline:{vid}", "baseline", configs=[params], capture=not self.choice.simulated)
            have = self.known(vid).get(key)
            if have is None or have.status != "ok":
                settle_check(self)  # an original out of bounds is said as that, not as its crash
        if have and have.time_ms is not None:
            self.data.update_session(baseline_ms=have.time_ms)
            self.emit("session", keep=False, baseline_ms=have.time_ms)
        return have

    def tune(
        self,
        vid: str,
        run_id: str,
        search: str | None = None,
        configs: list[dict[str, Any]] | None = None,
        labels: dict[str, str] | None = None,
        budget: dict[str, Any] | None = None,
        seeds: bool | list[Any] = True,
        counts_with: tuple[str, ...] = (),
    ) -> Outcome:
        """Tune one kernel version; returns how the run ended (engine/verdict.py Outcome).

        search: how to walk the space (the session's setting when None); configs: exactly these
        configurations instead; labels: config key -> where it came from, shown in the table;
        seeds: evaluate the heuristic seeds first (True), or these configurations. max_configs counts
        what the store holds of this run and of `counts_with` (earlier parts of one search), across
        resumes. A stopped run goes on from where it stopped; a finished or failed one is not run again."""
        run = self.data.run(run_id)
        cut = run is not None and run.state == "stopped" and (run.error or "").startswith(CUT)  # by a signal
        if run and run.state in ("finished", "failed", "stopped") and not cut:
            return replace(self._outcome(vid, run_id), replayed=True)
        if not self.choice.simulated and not self.choice.unmeasured and self.reference() is None:
            settle_check(self)
            self.data.put_run(run_id, version=vid, kind="tune", state="running")
            self._end_run(run_id, "failed", self.no_reference())
            return self._outcome(vid, run_id)
        opts = self.options
        search = search or opts.get("search") or "kt"
        budget = (
            budget
            if budget is not None
            else {"max_configs": opts.get("max_configs") or None, "time_limit_s": opts.get("time_limit_s") or None}
        )
        if isinstance(seeds, list):
            seed_list = [(c, "", "") for c in seeds]
        else:
            seed_list = self.seed_configs(vid) if (seeds and configs is None and opts.get("seeds", True)) else []
        spec = self.version(vid)[1]
        self.labels.update({config_key(spec, c): f"seed: {rule}" for c, rule, _ in seed_list if rule})
        self.labels.update(labels or {})
        groups = [g for _, _, g in seed_list]
        options = search_options(
            search, opts.get("search_options"), groups, f"{vid}:{run_id}", self.seed_named(vid, groups)
        )
        again = self.data.count_results(vid, run=run_id) if run else 0
        spent = again + sum(self.data.count_results(vid, run=r) for r in counts_with)
        whole = budget.get("max_configs") or None
        if whole is not None and spent >= whole:  # spent before a resume: the run ends as it would have
            first: dict[str, Any] = {} if run else {"version": vid, "kind": "tune", "strategy": search, "total": 0}
            self._end_run(run_id, "finished", **first)  # never stored before: one whole row
            self._after_tune(vid, run_id, stopped=False)
            return self._outcome(vid, run_id)
        self._run_job(
            vid,
            run_id,
            "tune",
            configs=configs,
            search=search,
            seeds=[c for c, _, _ in seed_list],
            options=options,
            spent=(spent, again),
            **{**budget, "max_configs": whole - spent if whole else None},
        )
        return self._outcome(vid, run_id)

    def _outcome(self, vid: str, run_id: str) -> Outcome:
        run = self.data.run(run_id)
        measured = self.data.count_results(vid, run=run_id, measured=True)
        state = (run.state if run else None) or "failed"
        if (
            state == "finished"
            and not measured
            and not self._measured(vid)
            and self.data.count_results(vid, run=run_id)
        ):
            rows = [r for r in self.data.results(vid) if r.run == run_id]  # all failed: few
            return Outcome("nothing", "no configuration could be measured: " + _common_error(rows), 0)
        return Outcome(state, run.error if run else None, measured)

    def seed_configs(self, vid: str) -> list[tuple[dict[str, Any], str, str]]:
        """The heuristic rules' seed configurations for this version, valid in its space: (config,
        the rules that shaped it, the patterns that picked it: search/seeds.py grouped_seed_configs)."""
        source, spec = self.version(vid)
        try:
            return grouped_seed_configs(spec, source, self.choice.gpu or "", [config_dir() / "rules"])
        except UserError as e:  # a broken rule file of the user's: say so, tune without seeds
            self.emit("note", text=f"no heuristic seeds: {e}")
            return []

    def seed_named(self, vid: str, groups: list[str]) -> list[list[str]]:
        """The parameters each seed's patterns name (search/seeds.py named_params); none without groups."""
        if not groups or not all(groups):
            return []
        try:
            return named_params(self.version(vid)[1], groups, [config_dir() / "rules"])
        except UserError:  # said by seed_configs already
            return []

    def request_stop(self) -> None:
        self.stop_requested.set()
        self.llm_cancel.set()
        self.gpu.request_stop()

    def pause(self, on: bool) -> None:
        """Hold the tuning run between configurations, or let it go on."""
        self.gpu.pause(on)
        self.emit("paused", keep=False, on=on)

    def _run_job(
        self,
        vid: str,
        run_id: str,
        kind: str,
        configs: list[dict[str, Any]] | None = None,
        capture: bool = False,
        search: str = "brute_force",
        max_configs: int | None = None,
        time_limit_s: float | None = None,
        seeds: Any = (),
        options: dict[str, Any] | None = None,
        one_worker: bool = False,
        timing_only: bool = False,
        spent: tuple[int, int] = (0, 0),  # (what the budget counted before this job, of which this run measured)
    ) -> str:
        if self.interrupted:
            raise Stopped(run_id)
        source, spec = self.version(vid)
        self.stop_requested.clear()
        sim = self.choice.simulated
        sim_cache = self.sim_cache(vid) if sim else None
        cachefile = None if one_worker else self.cachefile(vid, spec)  # a re-measure must not hit the cache
        started = time.strftime("%Y-%m-%d %H:%M:%S")
        total = len(configs) if configs else _space_total(spec)
        self.data.put_run(
            run_id,
            version=vid,
            kind=kind,
            strategy=search,
            state="running",
            total=total,
            cachefile=cachefile or (str(sim_cache) if sim_cache else None),
            device=self.choice.gpu,
            started=started,
        )
        known = self._known_for_worker(vid, spec) if kind == "tune" and not (sim and sim_cache is None) else {}
        self.emit(
            "run",
            run=run_id,
            version=vid,
            kind=kind,
            total=total,
            backend=self.choice.backend,
            budget=max_configs + spent[0] if max_configs else None,
            known=None if configs else len(known),
            again=spent[1] or None,
        )  # known: measured before
        if sim and sim_cache is None:
            return self._end_run(run_id, "failed", NO_RECORDING.format(vid))
        if self.choice.unmeasured:  # resuming on a GPU runs it (tune() redoes runs not ended)
            return self._end_run(run_id, NOT_MEASURED, "no GPU here: nothing was measured")
        job = TuneJob(
            run_id=run_id,
            source=source,
            spec=spec.to_dict(),
            backend=self.choice.backend,
            cachefile=cachefile,
            sim_cache=str(sim_cache) if sim_cache else None,
            configs=configs,
            known=known,
            reference=None if capture or sim or timing_only else self.data.reference(self.original),
            capture_reference=capture,
            search=search,
            max_configs=max_configs,
            time_limit_s=time_limit_s,
            seeds=list(seeds),
            search_options=dict(options or {}),
            one_worker=one_worker,
            result_params=result_params(self.data),
            run_seed=run_seed(f"{vid}:{run_id}"),  # the same run of the same kernel walks the same way
        )

        def on_gpu(kind_: str, payload: dict[str, Any]) -> None:
            if kind_ == "result" and kind != "reference":
                r: Result | None = as_result(payload)
                if timing_only:
                    r = self._timed_again(vid, as_result(payload))
                if r is not None:
                    self._add_result(vid, run_id, r)
            elif kind_ == "space" and not configs:  # a batch's total is its length, not its space's
                self.data.put_run(run_id, total=payload["total"])
                self.emit("space", keep=False, run=run_id, total=payload["total"])
            elif kind_ == "reference":
                self.data.set_reference(vid, payload)
            elif kind_ == "begin":
                self.emit("begin", keep=False, run=run_id, **payload)

        try:
            info = self.run_on_gpu(job, on_gpu, self.timeout_s or spec.timeout_s)
        except WorkerError as e:
            return self._end_run(run_id, "failed", str(e))
        if cachefile and Path(cachefile).exists():
            finalize_cache(
                cachefile,
                {
                    "kernel_version": vid,
                    "backend": self.choice.backend,
                    "gpu": info.get("device") or self.choice.gpu,
                    "recorded": started,
                    "session": self.sid,
                    **({"device": self.choice.facts} if self.choice.facts else {}),  # replays show them
                },
                spec.tune_params,
            )
        if info.get("note"):
            self.emit("note", text=f"run {run_id}: {info['note']}")
        stopped = info.get("stopped") or self.stop_requested.is_set()
        cut = f"stopped by {self.interrupted}" if stopped and self.interrupted else None
        state = self._end_run(run_id, "stopped" if stopped else "finished", cut)
        if self.interrupted:  # nothing after the run: no re-measure, no check, no next gate
            raise Stopped(run_id)
        if kind == "tune":
            self._after_tune(vid, run_id, stopped)
        return state

    def _after_tune(self, vid: str, run_id: str, stopped: bool) -> None:
        measure_again(self, measure=not stopped)
        if not stopped:
            self.checks.remeasure_top(vid, run_id)
        self.confirm_best(vid)
        if not stopped:
            profile_after_tune(self, vid)

    def _timed_again(self, vid: str, new: Result) -> Result | None:
        """A configuration timed again (its outputs were checked when first measured): its stored
        result with the new times; None when this time it did not run (the first result stands)."""
        stored = self.known(vid).get(new.key)
        if stored is None or new.time_ms is None or new.status != "ok":
            return None if stored is not None else new
        return replace(stored, time_ms=new.time_ms, times=new.times, timestamp=new.timestamp, worker=new.worker)

    def run_on_gpu(self, job: Any, on_gpu: Callable[[str, dict[str, Any]], None], timeout_s: float) -> dict[str, Any]:
        """One job on the GPU worker; a worker closed under it (the user left) interrupts the session."""
        try:
            return self.gpu.run(job, on_gpu, timeout_s)
        except WorkerClosed:
            raise Interrupted(job.run_id) from None

    def cachefile(self, vid: str, spec: Spec) -> str | None:
        """The kernel_tuner cachefile a real run of `vid` writes (None in sim mode or without a cache dir)."""
        if self.choice.simulated or not self.cache_dir:
            return None
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        # one file per version and parameter set: kernel_tuner refuses a cache of other parameters
        names = hashlib.sha256(",".join(spec.tune_params).encode()).hexdigest()[:6]
        return str(self.cache_dir / f"{self.kernel_name}-{vid}-{self.sid}-{names}.json")

    # -- results at other sizes (engine/checks.py) ----------------------------------------
    def check_sizes(self, vid: str, params: dict[str, Any]) -> list[Check]:
        return self.checks.check_sizes(vid, params)

    def confirm_best(self, vid: str, tries: int = 3) -> Result | None:
        return self.checks.confirm_best(vid, tries)

    def sanitize(
        self, source: str, spec: Spec, tool: str = "memcheck", params: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """One run of `source` under compute-sanitizer at a small size; stored as an event."""
        from ..gpu.sanitize import sanitize  # here: only a kernel gate's m / R keys run it

        report = sanitize(source, spec, params or spec.baseline_params(), self.choice.backend, tool=tool)
        self.emit("sanitize", **report.to_dict())
        return report.to_dict()

    def _why_failed(self) -> str | None:
        """The one place a finished strategy's runs decide the session's end: it failed when a run of
        the original kernel failed, or when no run measured anything."""
        runs = [r for r in self.data.runs() if r.kind != "reference"]
        bad = [r for r in runs if r.state == "failed" and r.version == self.original]
        if bad:
            return bad[-1].error or f"run {bad[-1].id} failed"
        if runs and not self._measured() and not self.unmeasured_runs():
            rows = self.data.results()  # none ran: failures only
            failed = [r for r in runs if r.state == "failed"]
            return "nothing could be measured: " + (
                failed[-1].error if failed and failed[-1].error else _common_error(rows)
            )
        return None

    def unmeasured_runs(self) -> list[str]:
        """The runs that waited for a GPU (state NOT_MEASURED): a session with any ends "unmeasured"."""
        return [r.id for r in self.data.runs() if r.state == NOT_MEASURED]

    def _known_for_worker(self, vid: str, spec: Spec) -> dict[str, Any]:
        return known_in_space(self.data, vid, spec)

    def _measured(self, vid: str | None = None) -> bool:
        """Whether any result (of `vid`) ran and has a time: the fastest one is found by index, where
        counting them all reads every row of a large session."""
        return next(iter(self.data.by_time(vid, limit=1)), None) is not None

    def _end_run(self, run_id: str, state: str, error: str | None = None, **fields: Any) -> str:
        """fields: what a run that ends before it was stored is (one row, written once)."""
        self.data.put_run(run_id, state=state, ended=time.strftime("%Y-%m-%d %H:%M:%S"), error=error, **fields)
        self.emit("run_end", run=run_id, state=state, error=error)
        return state

    def _add_result(self, vid: str, run_id: str, r: Result) -> None:
        r = replace(r, origin=r.origin or self.labels.get(r.key), version=vid, run=run_id)
        self.data.add_result(vid, run_id, r)
        flight = self.check_in_flight
        if flight is not None and r.time_ms is not None and flight.shared_gpu(time.monotonic(), r.worker, r.timestamp):
            self.disturbed.setdefault(vid, set()).add(r.key)
        t = r.time_ms
        best = vid in self.accepted and self.trusted(vid, r) and (self.best_ms is None or (t or 0.0) < self.best_ms)
        if best:
            self.best_ms, self.best_key = t, r.key
            self.data.update_session(best_ms=t, best_key=r.key, best_version=vid)
        self.emit("result", keep=False, run=run_id, version=vid, result=r, best=best)


def _common_error(rows: list[Result]) -> str:
    """The most frequent failure among results, for a run or session that measured nothing."""
    errors = Counter(
        f"{r.status}: {(r.error or '').strip().splitlines()[-1][:200] if r.error else ''}"
        for r in rows
        if r.status != "ok"
    )
    if not errors:
        return "no results"
    text, n = errors.most_common(1)[0]
    return f"{text.rstrip(': ')} ({n} of {counted(len(rows), 'configuration')})"


def _space_total(spec: Spec) -> int:
    """The configurations a run may measure: after restrictions, counted without listing them."""
    try:
        return space_sizes(spec)[1]
    except SpaceError:
        return spec.space_size()
