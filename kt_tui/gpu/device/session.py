"""Runs inside a device worker: one loaded tuning run (wire.Load) and its configurations (wire.Run).

On Load: the inputs (made once per spec and sizes, gpu/device/prepare.py), kernel_tuner's
DeviceInterface for the backend with the arguments on the device, the reference. On Run: the
kernel instance, its function (compiled here through kernel_tuner, or loaded from the compile
pool's binary), one run whose outputs are compared with the reference, the outputs reset, the
benchmark, and the Result. A replay (`sim`) answers each Run from the recorded cachefile.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import numpy as np

from ..ktimport import load as _load_kernel_tuner

_load_kernel_tuner()  # before kernel_tuner's own imports: see gpu/ktimport.py
from kernel_tuner.core import DeviceInterface, KernelSource

from ...compare import compare_all
from ...kernel import refkernel
from ...kernel.expr import launch_callables, restriction_function
from ...kernel.inputs import load_named, reference_outputs, user_function
from ...kernel.spec import Spec, spec_from_plain
from ...kernel.text import instantiations_wrapped
from .. import kt_private as ktp
from ..ktsource import problem_size, tuner_defines
from ..nvrtc import backend_options
from ..protocol import sim_pace
from ..results import classify_exception, normalize_result
from ..timeline import mark
from ..wire import Load, Loaded, Ran, Run
from . import loaders
from .compare import Checker, OutputReset
from .lang import by_value, cuda_lang, numpy_arguments
from .outputs import reference_kernel_outputs, references_by_config
from .prepare import job_args

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


def inject_fault(key: str) -> None:
    """KT_TUI_FAULT=hang:KEY or crash:KEY makes this worker hang or die on one configuration:
    how the GPU-free tests exercise the watchdog and the restart path."""
    kind, _, target = os.environ.get("KT_TUI_FAULT", "").partition(":")
    if target == key:
        if kind == "hang":
            time.sleep(10**6)
        elif kind == "crash":
            os._exit(77)


def user_verify(spec: Spec):
    """The spec's `verify = "module:function"` (the user's own file next to the kernel), or None."""
    if ":" not in spec.verify:
        return None
    return user_function(spec, spec.verify)


# -- the comparison and the reset on the host: for a spec's own verify function, and where the
# device cannot (gpu/device/compare.py's Checker and OutputReset do it on the device otherwise)
def host_verdicts(spec: Spec, reference: Mapping[str, Any], outs: Mapping[str, np.ndarray], verify) -> list[Any]:
    """Each output against the reference (kt_tui/compare.py), or the spec's own verify function."""
    tol = {a.name: a.tolerance() for a in spec.args if a.output}
    if verify is None:
        return compare_all(reference, outs, tol)
    names = [a.name for a in spec.args]
    atol = min((t[0] for t in tol.values()), default=None)
    ok = bool(
        verify([reference.get(n) for n in names], [outs.get(n) if n in reference else None for n in names], atol=atol)
    )
    return [
        {
            "output": name,
            "ok": ok,
            "reason": None if ok else "the spec's verify function said no",
            "max_abs_err": None,
            "first_bad": None,
        }
        for name in reference
    ]


def host_reset(dev: Any, gpu_args: list, host_args: list, outputs: list[int]) -> None:
    """The output arguments on the device back to their values as made (the host's copies)."""
    ktp.backend(dev).refresh_memory(gpu_args, host_args, [i in outputs for i in range(len(host_args))])


def placed(verdicts: list[Any], where: str | Mapping[str, str]) -> list[Any]:
    """Each verdict with where it was reached: "device" or "host" (`where` maps the outputs
    compared on the host to why)."""
    if isinstance(where, str):
        return [dict(v, where=where) for v in verdicts]
    return [dict(v, where="host" if v["output"] in where else "device") for v in verdicts]


def verdict_fields(verdicts: list[Any]) -> dict[str, Any]:
    bad = [v for v in verdicts if not v["ok"]]
    first = bad[0] if bad else None
    return {
        "kt_correct": 0 if bad else 1,
        "kt_max_abs_err": max((v["max_abs_err"] or 0.0) for v in verdicts),
        "kt_first_bad": f"{first['output']}[{first['first_bad']}]" if first else "",
        "kt_verdicts": verdicts,
    }


def _failed(params: dict, status: str, text: str | None) -> dict[str, Any]:
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
    raw["__error__"] = ktp.RuntimeFailedConfig()
    return raw


def explain(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}"
    if "Simulation mode requires an existing cachefile" in text:
        return "the recorded cache file is missing"
    if "Cannot load cache" in text:
        return "the cache file does not match this kernel and spec: " + str(e).split("(", 1)[-1].strip(" )")
    return text[:2000]


class Session:
    """The one loaded run of a device worker."""

    def __init__(self) -> None:
        self.load: Load | None = None
        self.spec: Spec | None = None
        self.names: list[str] = []
        self.dev: Any = None
        self.gpu_args: list = []
        self.host_args: list = []
        self.outputs: list[int] = []
        self.kernel_source: Any = None
        self.kernel_options: Any = None
        self.reference: dict | None = None
        self.by_config: dict[tuple, dict] | None = None
        self.verify: Callable | None = None
        self.cache: dict = {}
        self.dirty = False
        self.captured = False
        self.pace = 0.0
        self.restriction: Callable | None = None
        self.checker: Checker | None = None  # the references on the device, compared there
        self.checked: Mapping | None = None  # the reference the checker holds now
        self.resetter: OutputReset | None = None  # the outputs' pristine copies on the device
        self.unchecked = ""  # why the Checker failed this Load ("host: ..."); then the host compares

    def handle(self, message: Load | Run) -> tuple[str, str, Loaded | Ran]:
        """A Load or a Run, answered as the worker sends it: ("loaded" | "ran", run_id, record)."""
        if isinstance(message, Run):
            return "ran", message.run_id, self.run(message)
        mark(f"worker: load {message.run_id}")
        try:
            loaded = self.open(message)
        except Exception as e:  # noqa: BLE001 - reported to the app, which fails the run
            traceback.print_exc()
            self.close()
            loaded = Loaded(message.run_id, error=explain(e))
        mark(f"worker: loaded {message.run_id}")
        return "loaded", message.run_id, loaded

    def open(self, load: Load) -> Loaded:
        """Make the run's data; a failure comes back as Loaded(error=...)."""
        self.close()
        spec = spec_from_plain(load.spec)
        self.spec, self.names, self.load = spec, list(spec.tune_params), load
        if load.backend == "sim":
            return self._open_sim(load, spec)
        args = job_args(spec, load.spec)
        self.reference, self.by_config = self._reference(load, spec, args)
        self.verify = user_verify(spec) if self.reference is not None or self.by_config is not None else None
        defines = tuner_defines(spec)
        args = by_value(args, load.backend)  # what the kernel gets; the reference had the spec's values
        with cuda_lang(load.backend) as lang, numpy_arguments(load.backend):
            self.kernel_source = KernelSource(
                spec.kernel, instantiations_wrapped(load.source, spec.kernel), lang, defines
            )
            self.kernel_options = ktp.kernel_options(
                kernel_name=spec.kernel,
                kernel_source=self.kernel_source,
                lang=lang,
                problem_size=problem_size(spec),
                arguments=args,
                **launch_callables(spec),
                smem_args={"size": spec.smem_function()} if spec.smem_size is not None else None,
                cmem_args=load_named(spec, spec.cmem_args, "cmem_args") if spec.cmem_args else None,
                texmem_args=None,
                block_size_names=list(spec.block_size_names) if spec.block_size_names else None,
                defines=defines,
                tune_params=spec.tune_params,
            )
            self.dev = DeviceInterface(
                self.kernel_source,
                iterations=spec.iterations,
                compiler_options=backend_options(load.backend, spec.compiler_options),
                quiet=True,
            )
            self.gpu_args = self.dev.ready_argument_list(args)
        self.host_args = args
        self.outputs = [i for i, a in enumerate(spec.args) if a.output and a.is_array]
        self.resetter = self._output_reset()
        first = self.reference if self.by_config is None else next(iter(self.by_config.values()), None)
        if first is None:
            return Loaded(load.run_id, device=self.dev.name, compare="none")
        if self.verify is not None:
            return Loaded(load.run_id, device=self.dev.name, compare="host: the spec's verify function")
        checker = self._checker(first)
        return Loaded(load.run_id, device=self.dev.name, compare=checker.where if checker else self.unchecked)

    def _output_reset(self) -> OutputReset | None:
        """Pristine device copies of the outputs as made, or None: the host's copies reset them."""
        assert self.spec is not None
        index = {self.spec.args[i].name: i for i in self.outputs}
        nbytes = {self.spec.args[i].name: int(self.host_args[i].nbytes) for i in self.outputs}
        try:
            return OutputReset(self.dev, self.gpu_args, index, nbytes)
        except Exception as e:  # noqa: BLE001 - an unknown backend or no memory for the copies
            mark(f"worker: outputs reset from the host ({e})")
            return None

    def _checker(self, reference: Mapping[str, Any]) -> Checker | None:
        """The Checker holding `reference` on the device: made once per Load, its reference
        replaced when result_params pick another; None once it failed (the host compares)."""
        if self.unchecked:
            return None
        try:
            if self.checker is None:
                assert self.spec is not None
                tol = {a.name: a.tolerance() for a in self.spec.args if a.output}
                like = {self.spec.args[i].name: self.host_args[i] for i in self.outputs}
                self.checker = Checker(self.dev, reference, tol, like={n: x for n, x in like.items() if n in reference})
            elif self.checked is not reference:
                self.checker.set_reference(reference)
        except Exception as e:  # noqa: BLE001 - a driver or memory failure: the host compares
            traceback.print_exc()
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            self.unchecked = f"host: the device comparison failed: {first}"
            if self.checker is not None:
                self.checker.close()
            self.checker = self.checked = None
            return None
        self.checked = reference
        return self.checker

    def _reference(self, load: Load, spec: Spec, args: list) -> tuple[dict | None, dict | None]:
        if not load.verify or spec.verify == "none":
            return None, None
        if refkernel.is_kernel(spec.reference) and load.result_params:
            values = load.result_values or {n: tuple(spec.tune_params[n]) for n in load.result_params}
            return None, references_by_config(spec, values, list(load.result_params), None, load.backend)
        if refkernel.is_kernel(spec.reference):
            return reference_kernel_outputs(spec, None, load.backend), None
        if spec.reference:  # the spec's expected outputs (an imported `answer`)
            return reference_outputs(spec, args), None
        return load.reference, None

    def _open_sim(self, load: Load, spec: Spec) -> Loaded:
        """A replay: the recorded cache, checked as kernel_tuner's simulation mode checks it."""
        self.pace = sim_pace()
        device = SimpleNamespace(name=None)
        runner = SimpleNamespace(simulation_mode=True, dev=device, get_device_info=lambda: device)
        kernel_options = ktp.Options(kernel_name=spec.kernel, problem_size=problem_size(spec))
        tuning = ktp.Options(tune_params=spec.tune_params, simulation_mode=True)
        self.cache = ktp.process_cache(load.sim_cache or "", kernel_options, tuning, runner)
        self.restriction = restriction_function(spec.restrictions, self.names) if spec.restrictions else None
        return Loaded(load.run_id, device=device.name, compare="none")

    def close(self) -> None:
        """Frees the device copies of the last Load (the next Load, or the worker's end)."""
        if self.checker is not None:
            self.checker.close()
        if self.resetter is not None:
            self.resetter.close()
        self.checker = self.checked = self.resetter = None
        self.unchecked = ""
        self.dev, self.gpu_args, self.host_args, self.cache = None, [], [], {}
        self.reference = self.by_config = None
        self.dirty = self.captured = False

    # -- one configuration ---------------------------------------------------------------
    def run(self, run: Run) -> Ran:
        load = self.load
        assert load is not None and self.spec is not None
        inject_fault(run.key)
        if load.backend == "sim":
            return self._replay(run)
        if run.compile_error is not None:
            raw = _failed(run.params, "compile_error", run.compile_error)
            raw["compile_time"] = run.compile_ms or 0
            return Ran(run.run_id, normalize_result(raw, self.names, "measured"), raw=raw)
        outputs = None
        try:
            with numpy_arguments(load.backend):
                raw, outputs = self._measure(run)
        except Exception as e:  # noqa: BLE001 - one configuration failing is its result
            status, text = classify_exception(e)
            raw = _failed(run.params, status, text)
            lost = any(s in text.lower() for s in STICKY)
            return Ran(run.run_id, normalize_result(raw, self.names, "measured"), raw=raw, context_lost=lost)
        return Ran(run.run_id, normalize_result(raw, self.names, "measured"), outputs=outputs, raw=raw)

    def _measure(self, run: Run) -> tuple[dict, dict | None]:
        dev, params, load = self.dev, dict(run.params), self.load
        assert load is not None and self.spec is not None
        raw: dict[str, Any] = dict(params)
        instance = dev.create_kernel_instance(self.kernel_source, self.kernel_options, params, False)
        if isinstance(instance, ktp.ErrorConfig):
            raw.update(__error__=ktp.InvalidConfig(), compile_time=0, verification_time=0, benchmark_time=0)
            return self._stamped(raw), None
        started = time.perf_counter()
        func = self._function(instance, run)
        compile_ms = run.compile_ms if run.compile_ms is not None else 1000 * (time.perf_counter() - started)
        raw.update(compile_time=compile_ms, verification_time=0, benchmark_time=0)
        if not func:
            raw["__error__"] = ktp.CompilationFailedConfig()
            return self._stamped(raw), None
        options = self.kernel_options
        if options.smem_args is not None:
            dev.copy_shared_memory_args(ktp.get_smem_args(options.smem_args, params))
        if options.cmem_args is not None:
            dev.copy_constant_memory_args(options.cmem_args)
        reference = self.reference
        if self.by_config is not None:
            reference = self.by_config[tuple(params[n] for n in load.result_params)]
        capture = load.capture_reference and not self.captured
        outputs = None
        if reference is not None or capture:
            started = time.perf_counter()
            if self.dirty:
                if self.resetter is not None:
                    self.resetter.reset()
                else:
                    host_reset(dev, self.gpu_args, self.host_args, self.outputs)
            self.dirty = True
            if not dev.run_kernel(func, self.gpu_args, instance):
                raw.update(kt_status="runtime_error", kt_error="too many resources requested for launch")
                raw["__error__"] = ktp.RuntimeFailedConfig()
                return self._stamped(raw), None
            outs = self._host_outputs() if capture or (reference is not None and self.verify is not None) else None
            if capture:
                outputs, self.captured = dict(outs or {}), True
            if reference is not None:
                raw.update(verdict_fields(self._verdicts(reference, outs)))
            raw["verification_time"] = 1000 * (time.perf_counter() - started)
        if not load.timed:
            return self._stamped(raw), outputs
        started = time.perf_counter()
        self.dirty = True
        raw.update(dev.benchmark(func, self.gpu_args, instance, False, ["time"]))
        raw["benchmark_time"] = 1000 * (time.perf_counter() - started)
        if "__error__" in raw and "kt_status" not in raw:  # kernel_tuner skips a launch refused for resources
            raw.update(kt_status="runtime_error", kt_error="too many resources requested for launch")
        return self._stamped(raw), outputs

    def _host_outputs(self) -> dict[str, np.ndarray]:
        """The outputs copied to the host (a captured reference, a spec's verify function)."""
        assert self.spec is not None
        outs = {}
        for i in self.outputs:
            host = np.zeros_like(self.host_args[i])
            self.dev.memcpy_dtoh(host, self.gpu_args[i])
            outs[self.spec.args[i].name] = host
        return outs

    def _verdicts(self, reference: Mapping[str, Any], outs: dict[str, np.ndarray] | None) -> list[Any]:
        """The outputs against `reference`: on the device through the Checker, or on the host
        with the spec's verify function."""
        assert self.spec is not None
        if self.verify is not None:
            assert outs is not None
            return placed(host_verdicts(self.spec, reference, outs, self.verify), "host")
        checker = self._checker(reference)
        if checker is None:
            return placed(host_verdicts(self.spec, reference, self._host_outputs(), None), "host")
        buffers = {self.spec.args[i].name: self.gpu_args[i] for i in self.outputs}
        verdicts = checker.compare(buffers)
        return placed(list(verdicts), checker.on_host)

    def _function(self, instance: Any, run: Run) -> Any:
        """The configuration's function: the compile pool's binary loaded when there is one, else
        compiled here as kernel_tuner compiles it (gpu/device/loaders.py function)."""
        binary = (run.binary, run.symbol) if run.binary is not None else None
        return loaders.function(self.dev, instance, binary, lambda why: mark(f"worker: {run.key}: {why}"))

    @staticmethod
    def _stamped(raw: dict) -> dict:
        raw["timestamp"] = str(datetime.now(UTC))
        return raw

    def _replay(self, run: Run) -> Ran:
        if self.pace:
            time.sleep(self.pace)
        entry = self.cache.get(run.key)
        if entry is not None:
            raw = dict(entry)
        elif self.restriction is not None and not self.restriction(**run.params):
            raw = dict(run.params, __error__=ktp.InvalidConfig())
        else:
            raw = _failed(run.params, "not_recorded", "this configuration is not in the recorded cache")
        return Ran(run.run_id, normalize_result(raw, self.names, "recorded"), raw=raw)
