"""Shared test helpers: run the real CLI in-process and read its JSON."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from kt_tui.cli import main
from kt_tui.kernel.spec import Spec, spec_from_dict


def spec_for(kernel: str, params: dict) -> Spec:
    """A spec of `kernel` tuning just these values, its grid one block (problem size 1)."""
    tune = {k: [v] for k, v in params.items()}
    args = [{"name": "x", "type": "float32", "size": 1}]
    return spec_from_dict({"kernel": kernel, "problem_size": [1], "tune_params": tune, "args": args})


def run_cli(capsys, *argv: str) -> tuple[int, dict | list | None]:
    """Run kt-tui in-process; returns the exit code and the JSON it printed last (stderr on failure)."""
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    out = captured.out
    start = out.find("{") if argv[0] != "sessions" else out.find("[")
    data = json.loads(out[start:]) if start >= 0 else None
    if data is None or code != 0:
        print(f"kt-tui {' '.join(map(str, argv))} -> {code}\nstderr:\n{captured.err[-3000:]}", file=sys.stderr)
    return code, data


def report(line: str) -> None:
    """GPU tests append what they measured here, for the closing note."""
    path = os.environ.get("KT_TUI_GPU_REPORT")
    if path:
        with open(path, "a") as f:
            f.write(line.rstrip() + "\n")


class _Here:
    """The `proc` of a device worker that runs in the test's own process."""

    exitcode = None
    pid = None
    dead = False

    def is_alive(self) -> bool:
        return not self.dead

    def kill(self) -> None:
        pass

    def join(self, timeout=None) -> None:
        pass


def in_process_device():
    """A device handle whose worker is this process: each Load and Run is answered as it is sent,
    by the device worker's own Session (gpu/device/session.py). For tests of one tuning run that
    need no worker process (or replace parts of the device side with monkeypatch)."""
    from collections import deque

    from kt_tui.gpu.device.session import Session
    from kt_tui.gpu.devices import Device

    class Here(Device):
        label = "here"

        def start(self) -> None:
            self.proc, self.session, self.queue = _Here(), Session(), deque()

        def send(self, message) -> None:
            self.asked = True
            self.queue.append(self.session.handle(message))

        def poll(self, timeout: float = 0.0):
            return self.queue.popleft() if self.queue else None

        def kill(self) -> None:
            self.loaded = None

        def close(self) -> None:
            self.kill()  # no worker process to tell

    return Here()


def run_tune_job(job, emit=lambda kind, payload: None, timeout_s: float = 60.0, device=None) -> dict:
    """One TuneJob through the app's Tuner and QueueRunner, on `device` (default: a device worker
    in this process)."""
    from kt_tui.gpu.tuner import Tuner

    tuner = Tuner()
    tuner.workers = [device if device is not None else in_process_device()]
    return tuner.run(job, emit, timeout_s)


def fake_device(
    label: str = "fake",
    gpu: str = "fake GPU",
    answer=None,
    pace: float = 0.0,
    calls: list | None = None,
    dies_after: int | None = None,
    runs: list | None = None,
):
    """A device handle whose worker is a stand-in in this process: probed and Loaded at once, and
    each Run answered with `answer(params)` (kernel_tuner's result fields: {"time": ...}; default:
    1 ms) after `pace` seconds. `calls` collects (label, key, when) of every Run it was handed.
    `dies_after`: after that many Runs, every Run it is handed kills it (a restart revives it).
    `runs` collects every Run message it was handed."""
    import time
    from collections import deque

    from kt_tui.gpu.devices import Device
    from kt_tui.gpu.protocol import ProbeJob
    from kt_tui.gpu.results import normalize_result
    from kt_tui.gpu.wire import Load, Loaded, Ran, Run

    handed = runs
    runs = [0]

    class Fake(Device):
        def start(self) -> None:
            self.proc, self.queue, self.pending = _Here(), deque(), None

        def send(self, message) -> None:
            self.asked = True
            if isinstance(message, ProbeJob):
                self.queue.append(("probe", None, {"backend": "pycuda", "gpu": gpu, "errors": {}}))
            elif isinstance(message, Run) and dies_after is not None and runs[0] >= dies_after:
                self.proc.dead = True
            elif isinstance(message, Load):
                self.queue.append(("loaded", message.run_id, Loaded(message.run_id, device=gpu)))
            elif isinstance(message, Run):
                runs[0] += 1
                if handed is not None:
                    handed.append(message)
                if calls is not None:
                    calls.append((self.label, message.key, time.monotonic()))
                self.pending = (message, time.monotonic() + pace)

        def poll(self, timeout: float = 0.0):
            if self.pending is not None and not self.queue:
                time.sleep(max(0.0, min(timeout, self.pending[1] - time.monotonic())))
            if self.pending is not None and time.monotonic() >= self.pending[1]:
                run, self.pending = self.pending[0], None
                raw = dict(run.params, **(answer(run.params) if answer else {"time": 1.0, "times": [1.0]}))
                raw.setdefault("timestamp", "now")
                result = normalize_result(raw, list(run.params), "measured")
                self.queue.append(("ran", run.run_id, Ran(run.run_id, result, raw=raw)))
            return self.queue.popleft() if self.queue else None

        def kill(self) -> None:
            self.loaded = self.pending = None
            self.proc = None

        def close(self) -> None:
            self.kill()

    device = Fake()
    device.label = label
    return device


def check_device(outputs, faults: dict | None = None, sent: list | None = None):
    """A device handle whose worker is a stand-in in this process, for a check's runs at other
    sizes (gpu/checking.py): each Load answered at once, each Run's outputs `outputs(spec, params)`
    (an exception is the run's runtime_error), captured as the reference or compared on the host
    (kt_tui/compare.py) with the Load's. `faults` maps a run's unit ("n=37@reference") to "hang"
    or "crash"; `sent` collects every Load and Run."""
    import time
    from collections import deque

    from kt_tui.compare import compare_all
    from kt_tui.gpu.devices import Device
    from kt_tui.gpu.results import normalize_result
    from kt_tui.gpu.wire import Load, Loaded, Ran, Run
    from kt_tui.kernel.spec import spec_from_plain

    class Check(Device):
        def start(self) -> None:
            self.proc, self.queue = _Here(), deque()

        def send(self, message) -> None:
            self.asked = True
            if sent is not None:
                sent.append(message)
            if isinstance(message, Load):
                self.load = message
                self.queue.append(("loaded", message.run_id, Loaded(message.run_id, device="fake GPU")))
            elif isinstance(message, Run):
                label, tag = message.run_id.rsplit(":", 2)[1:]
                fault = (faults or {}).get(f"{label}@{tag}")
                if fault == "crash":
                    self.proc.dead = True
                if fault is None:
                    self.queue.append(("ran", message.run_id, self._ran(message)))

        def _ran(self, run):
            spec = spec_from_plain(self.load.spec)
            raw = dict(run.params, timestamp="now")
            outs = None
            try:
                outs = outputs(spec, run.params)
            except Exception as e:  # noqa: BLE001 - the run's failure
                raw.update(kt_status="runtime_error", kt_error=f"{type(e).__name__}: {e}")
            if outs is not None and self.load.reference is not None:
                verdicts = compare_all(self.load.reference, outs, {a.name: a.tolerance() for a in spec.outputs()})
                raw.update(kt_correct=int(all(v["ok"] for v in verdicts)), kt_verdicts=verdicts)
            result = normalize_result(raw, list(run.params), "measured")
            return Ran(run.run_id, result, outputs=outs if self.load.capture_reference else None, raw=raw)

        def poll(self, timeout: float = 0.0):
            if not self.queue:
                time.sleep(min(timeout, 0.01))
            return self.queue.popleft() if self.queue else None

        def kill(self) -> None:
            self.loaded = self.proc = None

        def close(self) -> None:
            self.kill()

    return Check()


def tuner_on(*devices, **kw):
    """A Tuner over these device handles (several: as `--gpus N` makes them)."""
    from kt_tui.gpu.tuner import Tuner

    tuner = Tuner(**kw) if kw else Tuner()
    tuner.workers = list(devices)
    if len(devices) > 1 and not kw:
        tuner.via = "local"
    tuner.devices = {d.label: getattr(d, "gpu", "fake GPU") for d in devices}
    return tuner


class FakeDeviceInterface:
    """kernel_tuner's DeviceInterface as a device worker's Session makes it (gpu/device/session.py),
    without a GPU: it keeps what it was given and what was current as it was made."""

    made: list = []

    def __init__(self, kernel_source, iterations=7, compiler_options=None, quiet=False, **kw):
        import kernel_tuner.core as core

        self.kernel_source, self.iterations, self.compiler_options = kernel_source, iterations, compiler_options
        self.backend = core._select_default_cuda_backend()
        self.name, self.max_threads = "fake GPU", 1024
        FakeDeviceInterface.made.append(self)

    def ready_argument_list(self, arguments):
        return list(arguments)


def open_load(job, monkeypatch, device_interface=None):
    """The device side of a TuneJob's Load (gpu/device/session.py Session.open) with kernel_tuner's
    DeviceInterface faked: the Session, holding what kernel_tuner would have been given."""
    from kt_tui.gpu.device import session
    from kt_tui.gpu.tunerun import load_for
    from kt_tui.kernel.spec import spec_from_plain

    monkeypatch.setattr(session, "DeviceInterface", device_interface or FakeDeviceInterface)
    spec = spec_from_plain(job.spec)
    opened = session.Session()
    loaded = opened.open(load_for(job, spec, {k: list(v) for k, v in spec.tune_params.items()}))
    assert loaded.error is None, loaded.error
    return opened


def fake_nvcc(tmp_path: Path, monkeypatch, body: str) -> None:
    """An `nvcc` first on PATH: a shell script of `body`."""
    fake = tmp_path / "bin" / "nvcc"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\n{body}\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
