"""One tuning run (a TuneJob) in the app: kernel_tuner's Searchspace and tuning_options, and the
search — kernel_tuner's strategy, or ours — over the QueueRunner (gpu/runner.py), with the seeds
first, explicit configurations, huge spaces walked lazily (search/lazy.py), and the budgets."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from ..kernel.expr import launch_callables, restriction_function
from ..kernel.spec import Spec, spec_from_plain
from ..records import replace
from ..search.lazy import SAMPLE, ExprConstraint, LazySpace, is_huge, kernel_tuner_restrictions
from . import kt_private as ktp
from .devices import Device
from .ktimport import APP
from .ktimport import load as _load_kernel_tuner
from .ktsource import kernel_string
from .protocol import TuneJob
from .runner import QueueRunner, StopTuning
from .timeline import mark
from .wire import Load

_load_kernel_tuner(APP)  # before kernel_tuner's own imports, and no GPU backend: see gpu/ktimport.py
from kernel_tuner.interface import strategy_map
from kernel_tuner.searchspace import Searchspace

MODEL_STEPS = 60  # configurations our search picks by model before an unbudgeted run goes on in order
# an unbudgeted run of our search over no more configurations runs them in order: every one runs
# anyway, and in order they go to every GPU at once, where the model's picks go one by one (an LLM
# session's tuning runs are mostly this small)
SMALL_SPACE = 128
SIM_MAX_THREADS = 1_000_000_000  # a replay has no device limit (kernel_tuner's simulation mode says the same)


def search_module(name: str):
    """A search by name: ours ("kt") or one of kernel_tuner's strategies."""
    if name == "kt":
        from ..search import kt_search  # here: its model loads scipy, which most small runs never need

        return kt_search
    return strategy_map[name]


def budgeted(job: TuneJob) -> dict:
    """kernel_tuner's strategies plan with max_fevals / time_limit; the runner enforces both too."""
    options = dict(job.search_options)
    if job.max_configs:
        options.setdefault("max_fevals", job.max_configs)
    if job.time_limit_s and job.search != "kt":  # ours counts from our first configuration (the runner)
        options.setdefault("time_limit", job.time_limit_s)
    if job.seeds and job.search == "kt":
        options.setdefault("seeds", job.seeds)
    if job.known and job.search == "kt":  # what the session measured: ours learns from it, asks none again
        options.setdefault("known", {k: r.time_ms if r.status == "ok" else None for k, r in job.known.items()})
    return options


class _Sampled:
    """What our search reads of a kernel_tuner Searchspace: the parameters and the configurations."""

    def __init__(self, tune_params: dict, configs: list[tuple]):
        self.tune_params, self.list, self.size = tune_params, configs, len(configs)


def tune(tuner: Any, workers: list[Device], job: TuneJob, on_event, timeout_s: float) -> dict:
    """One tuning run: kernel_tuner's search (or ours) here, its configurations on the workers.
    `tuner`: gpu/tuner.py's Tuner (its control, the probe's facts and the devices' GPU models)."""
    spec = spec_from_plain(job.spec)
    names = list(spec.tune_params)
    tune_params = {k: list(v) for k, v in spec.tune_params.items()}
    if job.configs is not None:  # restrict the space to the asked configurations
        tune_params = {n: sorted({c[n] for c in job.configs}, key=lambda v: tune_params[n].index(v)) for n in names}
    restrictions: list[Callable[..., bool]] | list[ExprConstraint] | None = (
        [restriction_function(spec.restrictions, names)] if spec.restrictions else None
    )
    options = budgeted(job)
    if job.configs is None and job.search not in ("kt", "brute_force") and is_huge(spec):
        restrictions = kernel_tuner_restrictions(spec)  # kernel_tuner's strategies need its whole space
        options.pop(
            "time_limit", None
        )  # building it may outlast the limit: the runner counts from the first configuration
    lazy = LazySpace(spec) if job.configs is None and job.search in ("kt", "brute_force") and is_huge(spec) else None
    if lazy is not None and not lazy.first(1):
        lazy = None
    simulated = job.backend == "sim"
    load = load_for(job, spec, tune_params)
    labels = tuner.size > 1  # several GPUs: each result says which measured it (a re-measure on one too)
    kernel_options = _kernel_options(spec)
    pool = None if simulated else tuner.compile_pool(spec, job.backend)
    runner = QueueRunner(
        workers, load, names, kernel_options, _forward(tuner, on_event, labels), timeout_s, tuner.control,
        dict(job.known), job.max_configs, job.time_limit_s, labels,
        compiles=pool, kernel_text=_kernel_text(spec, job) if pool is not None else None,
    )  # fmt: skip
    runner._load_idle(one=True)  # a worker Loads while the space is built
    if job.run_seed is not None and job.search != "kt":  # ours takes its seed as an option
        np.random.seed(job.run_seed)
        random.seed(job.run_seed)
    tuning = ktp.tuning_options(tune_params, restrictions, options, spec.iterations, simulated)
    if lazy is None:
        max_threads = SIM_MAX_THREADS if simulated else int((tuner.facts or {}).get("max_threads_per_block") or 1024)
        construct = options.get("searchspace_construction_options") or {}
        space: Any = Searchspace(tune_params, restrictions, max_threads, **construct)
        tuning.restrictions = space._modified_restrictions if hasattr(space, "_modified_restrictions") else restrictions
        size, total = space.size, int(space.size)
    else:
        tuning.tune_params = dict(zip(lazy.names, lazy.values))
        size, total = 0, lazy.count()[0]  # as the sweep's gate counts it (search/space.py)
    mark("main: space built")
    first = runner.wait_loaded()
    if tuner.control.stop and first.device is None:
        return {"device": None, "stopped": True, "simulated": simulated, "evaluated": 0, "note": ""}
    if job.cachefile and not simulated:
        tuning.cachefile = job.cachefile
        tuning.cache = ktp.process_cache(job.cachefile, kernel_options, tuning, runner)
    max_fevals = options.get("max_fevals")
    if lazy is None and (max_fevals is None or max_fevals > size):
        max_fevals = size
    tuning.budget = ktp.budget(options.get("time_limit"), max(1, max_fevals) if max_fevals is not None else None)
    on_event("space", {"total": total})
    stopped = False
    try:
        if lazy is None:
            _search(job, space, runner, tuning)
        else:
            _search_huge(job, lazy, runner, tuning)
    except StopTuning as e:
        stopped = str(e) != "budget"
    if runner.captured is not None:
        on_event("reference", runner.captured)
    names_seen = sorted({s.name for s in runner.slots if s.name})
    return {
        "device": (" + ".join(names_seen) if labels else runner.device_name) or runner.device_name,
        "stopped": stopped,
        "simulated": simulated,
        "evaluated": runner.evaluated,
        "note": lazy.gave_up if lazy is not None else "",  # a huge space's walk that ended early
        **({"workers": len(workers)} if labels else {}),
    }


def load_for(job: TuneJob, spec: Spec, tune_params: dict) -> Load:
    """What the device workers are told of a TuneJob: everything but the search."""
    return Load(
        run_id=job.run_id,
        source=job.source,
        spec=job.spec,
        backend=job.backend,
        sim_cache=job.sim_cache,
        reference=job.reference,
        capture_reference=job.capture_reference,
        result_params=tuple(job.result_params),
        verify=spec.verify != "none",
        result_values={n: tuple(tune_params[n]) for n in job.result_params} if job.result_params else None,
        timed=job.timed,
    )


def _kernel_text(spec: Spec, job: TuneJob) -> Callable[[dict], tuple[str, str]]:
    """A configuration's (kernel name, kernel string) as kernel_tuner makes it in the worker."""
    return lambda params: kernel_string(spec, job.source, params)


def _forward(tuner: Any, on_event, labels: bool):
    if not labels:
        return on_event

    def forward(kind: str, payload: Any) -> None:
        if kind == "result" and payload.worker is not None:
            payload = replace(payload, device=tuner.devices.get(payload.worker) or payload.device)
        on_event(kind, payload)

    return forward


def _kernel_options(spec: Spec) -> dict:
    """What our search and kernel_tuner's cache check read of kernel_tuner's kernel_options."""
    values = spec.problem_size_values()
    return ktp.Options(
        kernel_name=spec.kernel,
        problem_size="callable" if spec.tuned_problem_size() else (values if len(values) > 1 else values[0]),
        block_size_names=list(spec.block_size_names) if spec.block_size_names else None,
        **launch_callables(spec),
    )


def _search(job: TuneJob, space: Any, runner: QueueRunner, tuning: Any) -> None:
    names = runner.names
    small = not job.max_configs and space.size <= SMALL_SPACE
    if job.seeds and not (job.search == "kt" and job.configs is None and not small):  # else kt weighs them
        runner.run([tuple(c[n] for n in names) for c in job.seeds], tuning)
    if job.configs is not None:
        runner.run([tuple(c[n] for n in names) for c in job.configs], tuning)
    elif job.search == "brute_force" or (job.search == "kt" and small):
        # few configurations of ours: every one runs anyway, and a model costs more than its order gains
        runner.run(space.sorted_list(), tuning)
    elif job.search == "kt" and not job.max_configs:
        # no budget: the model picks the first configurations (its cost grows with every one it
        # learns from), then the rest of the space runs in order
        whole = tuning.budget
        tuning.budget = ktp.budget(None, min(space.size, MODEL_STEPS + len(job.seeds)))
        search_module("kt").tune(space, runner, tuning)
        tuning.budget = whole
        runner.run(space.sorted_list(), tuning)
    else:
        search_module(job.search).tune(space, runner, tuning)


def _search_huge(job: TuneJob, lazy: LazySpace, runner: QueueRunner, tuning: Any) -> None:
    """Brute force walks the space in order and our search chooses from a sample of it: neither
    lists the whole space, so the first configuration starts at once."""
    old = tuning.budget
    tuning.budget = ktp.budget(old.time_limit, job.max_configs or None)
    seeds = [tuple(c[n] for n in runner.names) for c in job.seeds]
    if seeds:
        runner.run(seeds, tuning)
    if job.search == "kt":
        seed = (job.search_options or {}).get("seed")
        rng = np.random.default_rng(seed if seed is not None else np.random.randint(2**31))
        pool = list(dict.fromkeys([*(s for s in seeds if lazy.contains(s)), *lazy.sample(rng, SAMPLE)]))
        space = _Sampled(tuning.tune_params, pool)
        if not job.max_configs:
            tuning.budget = ktp.budget(old.time_limit, min(len(pool), MODEL_STEPS + len(seeds)))
        search_module("kt").tune(space, runner, tuning)
        if job.max_configs:
            return
        tuning.budget = ktp.budget(old.time_limit, None)
    runner.run(lazy.iter_sorted(), tuning)
