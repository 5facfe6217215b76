"""Runs inside the GPU worker: kernel_tuner with per-config streaming, verification and stop.

kernel_tuner accepts any object with a `tune(searchspace, runner, tuning_options)` method as a
strategy. Ours wraps the runner it is given so that every configuration is evaluated on its own:
we announce it, catch its failure without ending the run, verify its outputs, stream the result,
and check for a stop request before the next one. Any kernel_tuner strategy can run inside.
"""

from __future__ import annotations

import os
import random
import time
from collections import deque
from collections.abc import Callable
from itertools import islice
from typing import Any

import numpy as np

from ..ktimport import load as _load_kernel_tuner

_load_kernel_tuner()  # before kernel_tuner's own imports: see gpu/ktimport.py
from kernel_tuner import tune_kernel, util
from kernel_tuner.interface import strategy_map
from kernel_tuner.observers.observer import OutputObserver

from ...compare import compare_all
from ...kernel import refkernel
from ...kernel.expr import evaluate, launch_callables, restriction_function
from ...kernel.inputs import load_named, reference_outputs, user_function
from ...kernel.spec import Spec, spec_from_plain
from ...kernel.text import compile_options
from ...search.lazy import SAMPLE, ExprConstraint, LazySpace, is_huge, kernel_tuner_restrictions
from ..ktsource import tuner_defines
from ..protocol import TuneJob, sim_pace
from ..timeline import mark
from .batching import batch_size
from .lang import cuda_lang, numpy_arguments
from .outputs import reference_kernel_outputs, references_by_config
from .prefetch import Early, Prefetcher, window
from .prefetch import enabled as prefetch_enabled
from .prepare import early_for, job_args
from .results import as_kt_result, classify_exception, normalize_result

STICKY = (
    "illegal memory access",
    "illegal address",
    "unspecified launch failure",
    "misaligned address",
    "illegal instruction",
    "launch failed",
    "hardware stack error",
    "ecc error",
    "launch timed out",
    "context is destroyed",
    "invalid context",
)


MODEL_STEPS = 60  # configurations our search picks by model before an unbudgeted run goes on in order
# an unbudgeted run of our search over no more configurations runs them in order: every one runs
# anyway, and in order they compile ahead on every core and deal over every GPU, where the model's
# picks compile one by one (an LLM session's tuning runs are mostly this small)
SMALL_SPACE = 128


class StopTuning(Exception):
    """Raised from the runner to end the search: the user stopped it, or its budget is spent."""


class ContextLost(Exception):
    """The CUDA context cannot be trusted any more; the worker must be restarted."""


class VerifyObserver(OutputObserver):
    """Checks each configuration's outputs against the reference; optionally keeps them."""

    def __init__(self, spec: Spec, reference: dict | None, capture: bool):
        self.out_index = {a.name: i for i, a in enumerate(spec.args) if a.output}
        self.tol = {a.name: a.tolerance() for a in spec.args if a.output}
        self.reference = reference
        for ref in (reference or {}).values():  # the same for every configuration: compare keeps its bounds
            if isinstance(ref, np.ndarray):
                ref.flags.writeable = False
        self.capture = capture
        self.captured: dict | None = None
        self.verdicts: list | None = None
        self.user_verify = user_verify(spec)
        self.names = [a.name for a in spec.args]
        self.atol = min((t[0] for t in self.tol.values()), default=None)

    def process_output(self, answer, output):
        outs = {name: np.asarray(output[i]) for name, i in self.out_index.items() if output[i] is not None}
        if self.capture and self.captured is None:
            self.captured = dict(outs)  # kernel_tuner copies each output into a new array, every run
        if self.reference is not None and self.user_verify is not None:
            ref = [self.reference.get(n) for n in self.names]
            got = [outs.get(n) if n in self.reference else None for n in self.names]
            ok = bool(self.user_verify(ref, got, atol=self.atol))
            self.verdicts = [
                {
                    "output": name,
                    "ok": ok,
                    "reason": None if ok else "the spec's verify function said no",
                    "max_abs_err": None,
                    "first_bad": None,
                }
                for name in self.reference
            ]
        elif self.reference is not None:
            self.verdicts = compare_all(self.reference, outs, self.tol)

    def get_results(self):
        verdicts, self.verdicts = self.verdicts, None
        if verdicts is None:
            return {}
        bad = [v for v in verdicts if not v["ok"]]
        first = bad[0] if bad else None
        return {
            "kt_correct": 0 if bad else 1,
            "kt_max_abs_err": max((v["max_abs_err"] or 0.0) for v in verdicts),
            "kt_first_bad": f"{first['output']}[{first['first_bad']}]" if first else "",
            "kt_verdicts": verdicts,
        }


def user_verify(spec: Spec):
    """The spec's `verify = "module:function"` (the user's own file next to the kernel), or None."""
    if ":" not in spec.verify:
        return None
    return user_function(spec, spec.verify)


class StreamingStrategy:
    """A kernel_tuner strategy object: evaluates one config at a time and streams each result."""

    def __init__(self, job: TuneJob, names: list[str], emit: Callable, should_stop: Callable[[], bool]):
        self.job, self.names, self.emit, self.should_stop = job, names, emit, should_stop
        self.evaluated = 0
        self.stopped = False
        self.started = time.monotonic()
        self.pace = sim_pace()  # replay seconds per config (demos, tests); the app checked it
        self.lazy: LazySpace | None = (
            None  # a huge space (search/lazy.py): kernel_tuner was handed a one-configuration stand-in
        )
        self.early: Early | None = None  # compiles started before kernel_tuner (gpu/device/prefetch.py)
        self.on_config: Callable | None = None  # told each configuration before it runs (its reference)

    def tune(self, searchspace, runner, tuning_options):
        mark("worker: kernel_tuner ready (device, space)")
        job = self.job
        self.started = time.monotonic()
        if self.lazy is not None:
            return self._tune_huge(runner, tuning_options)
        self.emit("space", {"total": int(searchspace.size)})
        proxy = _StreamingRunner(runner, self)
        try:
            small = not job.max_configs and searchspace.size <= SMALL_SPACE
            if job.seeds and not (job.search == "kt" and job.configs is None and not small):  # else kt weighs them
                proxy.run([tuple(c[n] for n in self.names) for c in job.seeds], tuning_options)
            if job.configs is not None:
                elements = [tuple(c[n] for n in self.names) for c in job.configs]
                return proxy.run(elements, tuning_options)
            if job.search == "brute_force":
                return proxy.run(searchspace.sorted_list(), tuning_options)
            if job.search == "kt" and small:
                # every configuration runs anyway and there are few: a model costs more than its order gains
                return proxy.run(searchspace.sorted_list(), tuning_options)
            if job.search == "kt" and not job.max_configs:
                # no budget: the model picks the first configurations (its cost grows with every
                # one it learns from), then the rest of the space runs in order
                whole = tuning_options.budget
                tuning_options.budget = util.TuningBudget(None, min(searchspace.size, MODEL_STEPS + len(job.seeds)))
                search_module("kt").tune(searchspace, proxy, tuning_options)
                tuning_options.budget = whole
                return proxy.run(searchspace.sorted_list(), tuning_options)
            return search_module(job.search).tune(searchspace, proxy, tuning_options)
        except StopTuning as e:
            self.stopped = str(e) != "budget"
            return proxy.results
        finally:
            proxy.close()

    def _tune_huge(self, runner, tuning_options):
        """Brute force walks the space in order and our search chooses from a sample of it: neither
        lists the whole space, so the first configuration starts at once."""
        job, lazy = self.job, self.lazy
        tuning_options.tune_params = dict(zip(lazy.names, lazy.values))
        old = tuning_options.budget
        tuning_options.budget = util.TuningBudget(old.time_limit, job.max_configs or None)
        self.emit("space", {"total": lazy.count()[0]})  # as the sweep's gate counts it (search/space.py)
        proxy = _StreamingRunner(runner, self)
        try:
            seeds = [tuple(c[n] for n in self.names) for c in job.seeds]
            if seeds:
                proxy.run(seeds, tuning_options)
            if job.search == "kt":
                seed = (job.search_options or {}).get("seed")
                rng = np.random.default_rng(seed if seed is not None else np.random.randint(2**31))
                pool = list(dict.fromkeys([*(s for s in seeds if lazy.contains(s)), *lazy.sample(rng, SAMPLE)]))
                space = _Sampled(tuning_options.tune_params, pool)
                if not job.max_configs:
                    tuning_options.budget = util.TuningBudget(old.time_limit, min(len(pool), MODEL_STEPS + len(seeds)))
                search_module("kt").tune(space, proxy, tuning_options)
                if job.max_configs:
                    return proxy.results
                tuning_options.budget = util.TuningBudget(old.time_limit, None)
            return proxy.run(lazy.iter_sorted(), tuning_options)
        except StopTuning as e:
            self.stopped = str(e) != "budget"
            return proxy.results
        finally:
            proxy.close()

    def over_budget(self) -> bool:
        job = self.job
        return bool(
            (job.max_configs and self.evaluated >= job.max_configs)
            or (job.time_limit_s and time.monotonic() - self.started >= job.time_limit_s)
        )


class _Sampled:
    """What our search reads of a kernel_tuner Searchspace: the parameters and the configurations."""

    def __init__(self, tune_params: dict, configs: list[tuple]):
        self.tune_params, self.list, self.size = tune_params, configs, len(configs)


def search_module(name: str):
    """A search by name: ours ("kt") or one of kernel_tuner's strategies."""
    if name == "kt":
        from ...search import kt_search  # here: its model loads scipy, which most small runs never need

        return kt_search
    return strategy_map[name]


class _StreamingRunner:
    def __init__(self, runner, owner: StreamingStrategy):
        self.runner, self.owner = runner, owner
        self.results: list = []
        self.done: dict[str, dict] = {}  # evaluated in this run: a strategy asking again gets it back
        self.simulation_mode = getattr(runner, "simulation_mode", False)
        self.prefetch: Prefetcher | None = None

    def __getattr__(self, name):
        return getattr(self.runner, name)

    def run(self, parameter_space, tuning_options):
        owner, job = self.owner, self.owner.job
        out = []
        offered = 0  # the configurations before this one went to the prefetcher already
        batch = batch_size() if job.backend == "pycuda" and prefetch_enabled() else 1  # nvcc's batches need more
        for i, (element, ahead) in enumerate(_lookahead(parameter_space, max(32, window(batch) + 8))):
            if i == 0 and (len(ahead) > 1 or owner.early):  # else a lone configuration gains nothing
                self._start_prefetch()
            key = ",".join(str(v) for v in element)
            if self.prefetch is not None:
                rest = ahead[max(0, offered - i) :]
                fresh = [j for j, e in enumerate(rest) if ",".join(map(str, e)) not in job.known]
                wanted = fresh[: max(0, job.max_configs - owner.evaluated)] if job.max_configs else fresh
                seen = self.prefetch.upcoming(dict(zip(owner.names, rest[j])) for j in wanted)
                offered = i + len(ahead) - len(rest) + (fresh[seen] if seen < len(fresh) else len(rest))
            if key in self.done or key in job.known:
                out.append(self.done.get(key) or as_kt_result(job.known[key]))
                continue
            if owner.should_stop():
                raise StopTuning("user")
            if owner.over_budget():
                raise StopTuning("budget")
            params = dict(zip(owner.names, element))
            if not owner.evaluated:
                mark(f"worker: first begin {key}")
            owner.emit("begin", {"key": key, "params": params})
            if owner.on_config is not None:
                owner.on_config(params)
            _inject_fault(key)
            sticky = None
            try:
                raw = self.runner.run([element], tuning_options)[0]
                if raw is None:
                    raise StopTuning("user")
            except StopTuning:
                raise
            except Exception as e:  # one config failing must not end the run
                status, text = classify_exception(e)
                if self.simulation_mode:
                    status, text = "not_recorded", "this configuration is not in the recorded cache"
                raw = dict(
                    params,
                    time=1e20,
                    compile_time=0,
                    verification_time=0,
                    benchmark_time=0,
                    kt_status=status,
                    kt_error=text,
                    timestamp=time.strftime("%Y-%m-%d %H:%M:%S"),
                )
                raw["__error__"] = util.RuntimeFailedConfig()
                if status in ("compile_error", "runtime_error"):
                    util.store_cache(key, raw, tuning_options.cachefile, tuning_options.cache)
                sticky = text if any(s in text.lower() for s in STICKY) else None
            owner.evaluated += 1
            if self.simulation_mode and owner.pace:
                time.sleep(owner.pace)
            source = "recorded" if self.simulation_mode else "measured"
            owner.emit("result", normalize_result(raw, owner.names, source))
            out.append(raw)
            self.results.append(raw)
            self.done[key] = raw
            if sticky:
                raise ContextLost(sticky)
        return out

    def _start_prefetch(self) -> None:
        if self.prefetch is None and prefetch_enabled():
            if Prefetcher.usable(self.runner):
                try:
                    self.prefetch = Prefetcher(self.runner, early=self.owner.early)
                except Exception as e:  # noqa: BLE001 - compiling ahead is an optimisation, never a failure
                    print(f"kt-tui: not compiling ahead: {type(e).__name__}: {e}", flush=True)

    def close(self) -> None:
        if self.prefetch is not None:
            self.prefetch.close()


def _lookahead(items, n: int):
    """(item, [it and the next n-1]) for each item of a list or an iterator, never listing an iterator."""
    it = iter(items)
    window: deque = deque(islice(it, n))
    while window:
        yield window[0], list(window)
        window.popleft()
        window.extend(islice(it, 1))


def _inject_fault(key: str) -> None:
    """KT_TUI_FAULT=hang:KEY or crash:KEY makes this worker hang or die on one configuration:
    how the GPU-free tests exercise the watchdog and the restart path."""
    kind, _, target = os.environ.get("KT_TUI_FAULT", "").partition(":")
    if target == key:
        if kind == "hang":
            time.sleep(10**6)
        elif kind == "crash":
            os._exit(77)


def _checked_by_observer(answer, result_host, atol=None) -> bool:
    return True


def _budgeted(job: TuneJob) -> dict:
    """kernel_tuner's strategies plan with max_fevals / time_limit; we enforce both ourselves too."""
    options = dict(job.search_options)
    if job.max_configs:
        options.setdefault("max_fevals", job.max_configs)
    if job.time_limit_s and job.search != "kt":  # ours counts from our first configuration (over_budget)
        options.setdefault("time_limit", job.time_limit_s)
    if job.seeds and job.search == "kt":
        options.setdefault("seeds", job.seeds)
    if job.known and job.search == "kt":  # what the session measured: ours learns from it, asks none again
        options.setdefault("known", {k: r.time_ms if r.status == "ok" else None for k, r in job.known.items()})
    return options


def _problem_size_function(spec: Spec):
    """kernel_tuner calls this with each configuration: a problem size that depends on tuned parameters."""

    def problem_size(params: dict):
        values = [int(evaluate(p, {**params, **spec.sizes})) for p in spec.problem_size]
        return tuple(values) if len(values) > 1 else values[0]

    return problem_size


def run_tune_job(job: TuneJob, emit: Callable, should_stop: Callable[[], bool]) -> dict:
    """Run one tuning job; returns what `done` reports. Raises ContextLost when the GPU is wedged."""
    spec = spec_from_plain(job.spec)
    names = list(spec.tune_params)
    tune_params = {k: list(v) for k, v in spec.tune_params.items()}
    if job.configs is not None:  # restrict the space to the asked configurations
        tune_params = {n: sorted({c[n] for c in job.configs}, key=lambda v: tune_params[n].index(v)) for n in names}
    reference = job.reference
    if spec.verify == "none":
        reference = None
    elif refkernel.is_kernel(spec.reference) and job.backend != "sim" and job.result_params:
        reference = None  # one per configuration, chosen as each runs
    elif refkernel.is_kernel(spec.reference) and job.backend != "sim":
        reference = reference_kernel_outputs(spec, None, job.backend)
    elif spec.reference and job.backend != "sim":  # the spec's expected outputs (an imported `answer`)
        reference = reference_outputs(spec, job_args(spec, job.spec, False))
    observer = VerifyObserver(spec, reference, job.capture_reference)
    strategy = StreamingStrategy(job, names, emit, should_stop)
    if (
        reference is None
        and job.result_params
        and spec.verify != "none"
        and job.backend != "sim"
        and refkernel.is_kernel(spec.reference)
    ):
        refs = references_by_config(spec, tune_params, job.result_params, None, job.backend)
        strategy.on_config = lambda params: setattr(
            observer, "reference", refs[tuple(params[n] for n in job.result_params)]
        )
    restrictions: list[Callable[..., bool]] | list[ExprConstraint] | None = (
        [restriction_function(spec.restrictions, names)] if spec.restrictions else None
    )
    options = _budgeted(job)
    if job.configs is None and job.search not in ("kt", "brute_force") and is_huge(spec):
        restrictions = kernel_tuner_restrictions(spec)  # kernel_tuner's strategies need its whole space
        # building it can outlast a time limit, which kernel_tuner then refuses to start: ours counts
        # from the first configuration (over_budget)
        options.pop("time_limit", None)
    if job.configs is None and job.search in ("kt", "brute_force") and is_huge(spec):
        lazy = LazySpace(spec)
        first = lazy.first(1)
        if first:  # kernel_tuner builds a stand-in of one configuration; the space itself is ours
            strategy.lazy, restrictions = lazy, None
            tune_params = {n: [v] for n, v in zip(names, first[0])}
    simulated = job.backend == "sim"
    kwargs: dict[str, Any] = dict(
        **launch_callables(spec),
        block_size_names=spec.block_size_names,
        restrictions=restrictions,
        iterations=spec.iterations,
        compiler_options=compile_options(spec.compiler_options),
        quiet=True,
        strategy=strategy,
        strategy_options=options,
    )
    defines = tuner_defines(spec)
    if defines is not None:
        kwargs["defines"] = defines
    if simulated:
        kwargs.update(lang="CUDA", simulation_mode=True, cache=job.sim_cache)
    elif spec.cmem_args:
        kwargs["cmem_args"] = load_named(spec, spec.cmem_args, "cmem_args")
    if spec.smem_size is not None and not simulated:
        kwargs["smem_args"] = {"size": spec.smem_function()}
    strategy.early = None if simulated else early_for(job, spec, names)
    if job.run_seed is not None and job.search != "kt":  # ours takes its seed as an option
        np.random.seed(job.run_seed)
        random.seed(job.run_seed)
    try:
        return _tune(job, spec, tune_params, strategy, observer, emit, kwargs)
    finally:
        if strategy.early is not None and not strategy.early.adopted:
            strategy.early.close()


def _tune(job: TuneJob, spec: Spec, tune_params: dict, strategy, observer, emit, kwargs: dict) -> dict:
    simulated = job.backend == "sim"
    args = job_args(spec, job.spec, simulated)
    mark("worker: inputs made")
    if not simulated:
        # `answer` marks which arguments kernel_tuner copies back (only the outputs, not every array);
        # the observer does the real check, so kernel_tuner's own comparison must never fail a run
        answer = [arg if a.output else None for arg, a in zip(args, spec.args)]
        kwargs.update(cache=job.cachefile, observers=[observer], answer=answer, verify=_checked_by_observer)
    values = spec.problem_size_values()
    problem_size: list[int] | int | Callable = values if len(values) > 1 else values[0]
    if spec.tuned_problem_size():
        problem_size = _problem_size_function(spec)
    with cuda_lang("sim" if simulated else job.backend) as lang, numpy_arguments(job.backend):
        kwargs.setdefault("lang", lang)
        _, env = tune_kernel(spec.kernel, job.source, problem_size, args, tune_params, **kwargs)
    if observer.captured is not None:
        emit("reference", observer.captured)
    return {
        "device": env.get("device_name"),
        "stopped": strategy.stopped,
        "simulated": simulated,
        "evaluated": strategy.evaluated,
        "note": strategy.lazy.gave_up if strategy.lazy else "",  # a huge space's walk that ended early
    }
