"""The runner kernel_tuner's strategies (and our `kt` search) call: each configuration they ask for
goes to whichever device worker is free (gpu/devices.py), one Run at a time per device, and comes
back as it finishes. It streams begin/result events, answers what the session measured already
without running it, keeps the budgets, stop and pause, the per-configuration watchdog (a hang or a
crash costs that configuration; the worker is restarted and Loaded again), and writes the run's one
kernel_tuner cachefile. Nothing here touches CUDA."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError, Future
from concurrent.futures import wait as wait_for
from dataclasses import dataclass
from itertools import islice
from types import SimpleNamespace
from typing import Any

from ..records import Known, Result, config_key, replace
from . import kt_private as ktp
from .compiled import Compiled, skippable
from .devices import MAX_RESTARTS_WITHOUT_PROGRESS, Control, Device, WorkerClosed, WorkerError
from .ktimport import APP
from .ktimport import load as _load_kernel_tuner
from .results import as_kt_result, normalize_result
from .timeline import mark
from .wire import Load, Loaded, Ran, Run

_load_kernel_tuner(APP)  # before kernel_tuner's own imports, and no GPU backend: see gpu/ktimport.py
from kernel_tuner.runners.runner import Runner

POLL_S = 0.05  # the longest a wait on one device lasts before the watchdog looks again
SPIN_S = 0.002  # several devices at work: how often each is looked at
ALIVE_S = 0.25  # how often the watchdog asks whether a device's worker is alive


class StopTuning(Exception):
    """Raised from the runner to end the search: the user stopped it ("user"), or its budget is spent."""


@dataclass
class Slot:
    """One device in a run: its Load, what it runs now, and how often it failed in a row."""

    device: Device
    state: str = "new"  # new | loading | ready | busy | waiting (the check's test holds its GPU) | gone
    current: tuple[str, dict] | None = None  # (key, params) of the Run in flight
    started: float = 0.0
    first: bool = True  # the first Run after a Load: its watchdog waits twice as long
    fruitless: int = 0
    index: int | None = None  # the position in the strategy's batch of the Run in flight
    name: str | None = None  # the GPU's name, from its Loaded
    looked: float = 0.0  # when the watchdog last asked whether its worker is alive


class QueueRunner(Runner):
    """A kernel_tuner runner over device workers pulling configurations from one queue."""

    def __init__(
        self,
        devices: list[Device],
        load: Load,
        names: list[str],
        kernel_options: dict,
        on_event: Callable[[str, Any], None],
        timeout_s: float,
        control: Control,
        known: dict[str, Known | Result] | None = None,
        max_configs: int | None = None,
        time_limit_s: float | None = None,
        labels: bool = False,
        compiles: Any = None,
        kernel_text: Callable[[dict], tuple[str, str]] | None = None,
    ):
        super().__init__()
        self.slots = [Slot(d) for d in devices]
        self.load, self.names, self.on_event, self.timeout_s = load, names, on_event, timeout_s
        self.kernel_options = kernel_options  # our search reads its grid divisors and block names
        self.control = control
        self.known: dict[str, Known | Result] = known if known is not None else {}
        self.max_configs, self.time_limit_s = max_configs, time_limit_s
        self.labels = labels  # several devices: each result says which ran it
        self.simulation_mode = load.backend == "sim"
        self.done: dict[str, dict] = {}  # evaluated in this run: a strategy asking again gets it back
        self.results: list[dict] = []
        self.evaluated = 0
        self.started: float | None = None  # the first configuration's start: the time limit counts from it
        self.captured: dict | None = None
        self.device_name: str | None = None
        # the compile pool (gpu/compiles.py) and each configuration's (kernel name, kernel string)
        self.compiles = compiles if kernel_text is not None else None
        self.kernel_text = kernel_text
        self.texts: dict[str, tuple[str, str]] = {}  # queued ahead, by key

    # -- kernel_tuner's Runner ---------------------------------------------------------------
    def get_device_info(self) -> Any:
        return SimpleNamespace(name=self.device_name, max_threads=1024)

    def get_environment(self, tuning_options: Any) -> dict:
        return {"device_name": self.device_name}

    def available_parallelism(self) -> int:
        return max(1, sum(s.state != "gone" for s in self.slots))

    def run(self, parameter_space: Iterable, tuning_options: Any) -> list:
        """Each configuration's kernel_tuner result, in the order asked; raises StopTuning when the
        user stops the run or its budget is spent (after the configurations in flight finished)."""
        out: list[dict | None] = []
        todo: Iterator = self._looking_ahead(iter(parameter_space), tuning_options)
        stopping: str | None = None
        exhausted = False
        waiting: tuple[str, dict] | None = None  # the next configuration to run, taken before a device is sought
        while True:
            if not exhausted and stopping is None:
                stopping = self._stopping()
            while not exhausted and stopping is None:
                if waiting is None:
                    element = next(todo, None)
                    if element is None:
                        exhausted = True
                        break
                    key = ",".join(str(v) for v in element)
                    if key in self.done or key in self.known:
                        out.append(self.done.get(key) or as_kt_result(self.known[key]))
                        continue
                    if tuning_options.budget.is_done():  # kernel_tuner's budget: its CostFunc ends the search
                        out.append(None)
                        continue
                    params = dict(zip(self.names, element))
                    cached = tuning_options.cache.get(key) if tuning_options.cache else None
                    out.append(None)
                    tuning_options.budget.add_evaluations(1)
                    if cached is not None:
                        self.on_event("begin", {"key": key, "params": params})
                        self._finish(len(out) - 1, out, dict(cached), tuning_options, store=False)
                        continue
                    waiting = (key, params)
                if self._free() is None:
                    break
                key, params = waiting
                compiled = self._compiled(key, params, out, tuning_options)
                stopping = self._stopping()
                if stopping is not None or self._free() is None:  # stopped or paused meanwhile
                    break
                self._dispatch(len(out) - 1, key, params, compiled)
                waiting = None
                stopping = self._stopping()
            if not any(s.state == "busy" for s in self.slots):
                if stopping is not None:
                    if waiting is not None:  # taken, never run: kernel_tuner's "no result" for it
                        out.pop()
                    if self.compiles is not None:
                        self.compiles.drop()  # what was queued ahead for the rest of this search
                    raise StopTuning(stopping)
                if exhausted:
                    break
            self._wait(out, tuning_options)
        return out

    # -- handing out -----------------------------------------------------------------------
    def _stopping(self) -> str | None:
        if self.control.stop or self.control.closing:
            return "user"
        if (self.max_configs and self.evaluated + self._in_flight() >= self.max_configs) or (
            self.time_limit_s and self.started is not None and time.monotonic() - self.started >= self.time_limit_s
        ):
            return "budget"
        return None

    def _in_flight(self) -> int:
        return sum(s.state == "busy" for s in self.slots)

    def _free(self) -> Slot | None:
        """A device ready for a Run, starting and Loading those that are not; None meanwhile."""
        if self.control.paused:
            return None
        for slot in self.slots:
            if slot.state == "ready":
                return slot
        self._load_idle()
        if all(s.state == "gone" for s in self.slots):
            raise WorkerError("every GPU worker gave up")
        return None

    def _load_idle(self, one: bool = False) -> None:
        """Start and Load the devices that may run now; `one`: only the first of them, and none
        while one is Loaded or Loading already (a run of one configuration Loads one device)."""
        if one and any(s.state in ("loading", "ready", "busy") for s in self.slots):
            return
        for slot in self.slots:
            if slot.state == "waiting" and not self.control.held(slot.device):
                slot.state = "new"
            if slot.state == "new":
                if self.control.held(slot.device):
                    slot.state = "waiting"
                    continue
                slot.device.ensure()
                if slot.device.loaded == self.load.run_id:
                    slot.state = "ready"
                    continue
                slot.device.send(self.load)
                slot.state, slot.first = "loading", True
                if one:
                    return

    def _dispatch(self, index: int, key: str, params: dict, compiled: Compiled | None = None) -> None:
        slot = self._free()
        assert slot is not None
        message = self._message(key, params, compiled)
        if self.started is None:
            self.started = time.monotonic()
            mark(f"main: first begin {key}{' (compiled ahead)' if message.binary is not None else ''}")
        self.on_event("begin", {"key": key, "params": params})
        slot.device.send(message)
        slot.state, slot.current, slot.started, slot.index = "busy", (key, params), time.monotonic(), index

    def _message(self, key: str, params: dict, compiled: Compiled | None) -> Run:
        """The Run of a configuration with the pool's binary, or its compile error; neither (not
        compiled ahead, or a compile kernel_tuner skips as too big): the worker compiles it."""
        run_id = self.load.run_id
        if compiled is None:
            return Run(run_id, key, params)
        if compiled.error is not None and not skippable(compiled.error):
            return Run(run_id, key, params, compile_error=compiled.error, compile_ms=compiled.ms)
        if compiled.binary is not None:
            return Run(run_id, key, params, binary=compiled.binary, symbol=compiled.symbol, compile_ms=compiled.ms)
        return Run(run_id, key, params)

    # -- compiling ahead ---------------------------------------------------------------------
    def _looking_ahead(self, todo: Iterator, tuning_options: Any) -> Iterator:
        """`todo` as it is, its next configurations queued in the compile pool in order as it goes
        (about a window of them beyond the one taken)."""
        if self.compiles is None:
            yield from todo
            return
        depth = max(1, int(self.compiles.window))
        taken: deque = deque()
        more = True
        while True:
            if more and len(taken) <= depth // 2:
                new = list(islice(todo, depth - len(taken)))
                more = len(new) == depth - len(taken)
                self._ahead(new, tuning_options)
                taken.extend(new)
            if not taken:
                return
            yield taken.popleft()

    def _ahead(self, elements: list, tuning_options: Any) -> None:
        pool = self.compiles
        if pool is None:
            return
        items = []
        cache = tuning_options.cache if tuning_options is not None and tuning_options.cache else {}
        for element in elements:
            key = ",".join(str(v) for v in element)
            if key in self.done or key in self.known or key in cache or key in self.texts:
                continue
            text = self._text(dict(zip(self.names, element)))
            if text is not None:
                self.texts[key] = text
                items.append((key, *text))
        try:
            pool.ahead(items)
        except RuntimeError:  # the pool was closed (the session ends): the workers compile
            self.compiles = None

    def _text(self, params: dict) -> tuple[str, str] | None:
        assert self.kernel_text is not None
        try:
            return self.kernel_text(params)
        except Exception as e:  # noqa: BLE001 - kernel_tuner says why when the worker makes it
            mark(f"main: no kernel string for {params}: {type(e).__name__}: {e}"[:300])
            return None

    def _compiled(self, key: str, params: dict, out: list, tuning_options: Any) -> Compiled | None:
        """The pool's compile of this configuration (asked for now if it was not queued), waited
        for while the devices' answers are read; None: the worker compiles it."""
        pool = self.compiles
        if pool is None:
            return None
        text = self.texts.pop(key, None) or self._text(params)
        if text is None:
            return None
        try:
            future: Future = pool.submit(key, *text)
        except RuntimeError:
            self.compiles = None
            return None
        while not future.done():
            if self.control.stop:  # not run: the search ends once what is in flight is back
                return None
            if any(s.state in ("loading", "busy") for s in self.slots):
                self._wait(out, tuning_options, POLL_S / 5)
            else:
                self._check_closing()
                wait_for([future], timeout=POLL_S)
        try:
            return future.result()
        except CancelledError:  # dropped or the pool closed meanwhile
            return None

    # -- collecting ------------------------------------------------------------------------
    def wait_loaded(self) -> Loaded:
        """Start and Load a device that may run now (the others Load once a second configuration
        waits); the first Loaded (a failed one raises)."""
        self._load_idle(one=True)
        while True:
            for slot in self.slots:
                if slot.state == "ready":
                    return Loaded(self.load.run_id, device=slot.name)
            if self.control.stop or self.control.closing:
                self._check_closing()
                return Loaded(self.load.run_id, device=None)
            self._wait([], None)
            self._load_idle(one=True)

    def _check_closing(self) -> None:
        if self.control.closing:
            raise WorkerClosed("the GPU worker was shut down")

    def _wait(self, out: list, tuning_options: Any, most: float = POLL_S) -> None:
        """Read what the devices sent (or see that one died or hangs) once: with one device at
        work, waiting on it (its answer wakes the wait); with several, looking at each in turn."""
        self._check_closing()
        active = [s for s in self.slots if s.state in ("loading", "busy")]
        if not active:
            time.sleep(POLL_S)
        for slot in active:
            event = slot.device.poll(most if len(active) == 1 else 0)
            if event is None:
                self._watch(slot, out, tuning_options)
                continue
            kind, run_id, payload = event
            if run_id != self.load.run_id:
                continue
            if kind == "loaded":
                self._loaded(slot, payload)
            elif kind == "ran" and slot.state == "busy":
                self._ran(slot, payload, out, tuning_options)
        if len(active) > 1 and all(s.state in ("loading", "busy") for s in active):
            time.sleep(SPIN_S)
        self._check_closing()

    def _loaded(self, slot: Slot, loaded: Loaded) -> None:
        if loaded.error is not None:
            raise WorkerError(loaded.error)
        slot.device.loaded, slot.state, slot.first, slot.name = self.load.run_id, "ready", True, loaded.device
        if self.device_name is None:
            self.device_name = loaded.device

    def _ran(self, slot: Slot, ran: Ran, out: list, tuning_options: Any) -> None:
        index, slot.current, slot.first, slot.fruitless = slot.index, None, False, 0
        slot.state = "ready"
        if ran.context_lost:  # the worker exits after this message: a fresh one is Loaded again
            slot.device.kill()
            slot.device.restarts += 1
            slot.state = "new"
        if ran.outputs is not None and self.captured is None:
            self.captured = ran.outputs
        result = ran.result
        if self.labels:
            result = replace(result, worker=slot.device.label, device=slot.name)
        self._finish(index, out, ran.raw, tuning_options, result=result, store=result.status != "not_recorded")

    def _finish(
        self, index: int | None, out: list, raw: dict, tuning_options: Any, result: Result | None = None, store=True
    ) -> None:
        key = config_key(self.names, {n: raw[n] for n in self.names})
        if result is None:
            result = normalize_result(raw, self.names, "recorded" if self.simulation_mode else "measured")
        self.evaluated += 1
        if self.evaluated == 1:
            mark(f"main: first result {self.load.run_id}")
        if store and not self.simulation_mode and tuning_options is not None:
            ktp.store_cache(key, raw, tuning_options.cachefile, tuning_options.cache)
        self.known[key] = result
        self.done[key] = raw
        self.results.append(raw)
        if index is not None and index < len(out):
            out[index] = raw
        self.on_event("result", result)

    def _watch(self, slot: Slot, out: list, tuning_options: Any) -> None:
        """A device that died, or whose Run outlasts its time: that configuration is lost."""
        lost = None
        now = time.monotonic()
        if now - slot.looked >= ALIVE_S:  # asking a Ray actor is a call: not at each poll
            slot.looked = now
            if not slot.device.alive():
                lost = (
                    "crash",
                    f"the GPU worker process died (exit code {slot.device.exitcode() or '?'}) while running this configuration",
                )
        if lost is None and slot.state == "busy" and now - slot.started > self.timeout_s * (2 if slot.first else 1):
            lost = ("timeout", f"no result within {self.timeout_s:g}s; the kernel was killed and the worker restarted")
        if lost is None:
            return
        slot.fruitless += 1
        if slot.state == "busy" and slot.current is not None:
            key, params = slot.current
            raw = dict(
                params,
                time=1e20,
                compile_time=0,
                verification_time=0,
                benchmark_time=0,
                kt_status=lost[0],
                kt_error=lost[1],
                timestamp=time.strftime("%Y-%m-%d %H:%M:%S"),
            )
            raw["__error__"] = ktp.RuntimeFailedConfig()
            result = Result(
                key=key, params=params, status=lost[0], error=lost[1], source="measured", timestamp=raw["timestamp"]
            )
            if self.labels:
                result = replace(result, worker=slot.device.label, device=slot.name)
            index, slot.current = slot.index, None
            self._finish(index, out, raw, tuning_options, result=result)
        slot.device.kill()
        if slot.fruitless > MAX_RESTARTS_WITHOUT_PROGRESS:
            slot.state = "gone"
            if all(s.state == "gone" for s in self.slots):
                raise WorkerError(f"the GPU worker failed {slot.fruitless} times in a row: {lost[1]}")
            return
        slot.device.restarts += 1
        slot.state = "new"
        if not (self.control.stop or self.control.closing):
            self._load_idle(one=True)
