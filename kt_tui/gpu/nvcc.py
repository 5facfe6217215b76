"""nvcc as kernel_tuner's pycuda backend has pycuda run it, to a cubin the device worker only loads:
kernel_tuner's pycuda arguments (`pycuda_arguments`), the string in a kernel.cu of its own, and
relocatable code (kernel_tuner's DynamicSourceModule) linked with the device runtime by `nvcc -dlink`
where pycuda links it in the driver. nvcc runs as a child process without the app's secrets
(gpu/env.py), leading a session of its own; the calling thread only waits."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import tempfile
import threading
from typing import Any

from .compiled import CompileFailed
from .env import compile_memory, memory_limited, out_of_memory, scrubbed_env
from .supervise import kill_group


def pycuda_arguments(cc: str, compiler_options: list[str], name: str, text: str) -> tuple[list[str], bool]:
    """nvcc's options as kernel_tuner 1.5's pycuda backend has pycuda run it (PyCudaFunctions.compile:
    its SourceModule class, DynamicSourceModule from compute capability 3.5, adds -rdc=true and
    -lcudadevrt; pycuda.compiler.compile then -arch, -code and its include folder), and whether pycuda
    wraps the string in `extern "C"`."""
    options = ["-Xcompiler=-Wall", *compiler_options, "-e", name]
    if cc != "00" and int(cc) >= 35:
        options += [o for o in ("-rdc=true", "-lcudadevrt") if o not in options]
    if cc != "00":
        options += ["-arch", f"compute_{cc}", "-code", f"sm_{cc}"]
    spec = importlib.util.find_spec("pycuda")  # found, not imported: pycuda's import opens the driver
    if spec is not None and spec.origin:
        options.append("-I" + os.path.abspath(os.path.join(spec.origin, os.path.pardir, "cuda")))
    return options, 'extern "C"' not in text


def relocatable(options: list[str]) -> bool:
    return "-rdc=true" in options


# -- nvcc (a child process per compile; the calling thread only waits) --------------------------
class Running:
    """The nvcc processes under way for a pool; once closed, any that starts is killed at once."""

    def __init__(self) -> None:
        self.procs: set[subprocess.Popen] = set()
        self.closed = False
        self.lock = threading.Lock()

    def add(self, proc: subprocess.Popen) -> None:
        with self.lock:
            self.procs.add(proc)
            if self.closed:
                kill_group(proc)  # nvcc and what it started (cicc, ptxas)

    def discard(self, proc: subprocess.Popen) -> None:
        with self.lock:
            self.procs.discard(proc)

    def kill(self) -> None:
        with self.lock:
            self.closed = True
            for proc in self.procs:
                kill_group(proc)


def run_nvcc(
    args: list[str], cwd: str, running: Running | None, timeout_s: float | None = None, nvcc: str = "nvcc"
) -> tuple[int | None, str]:
    """(nvcc's status, its output); the status None: it ran past `timeout_s` and was killed with
    what it started; its memory held (gpu/env.py memory_limited). OSError (no such program) is the
    caller's."""
    proc = subprocess.Popen(
        memory_limited([nvcc, *args]),
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=scrubbed_env(),
        start_new_session=True,  # a terminal's Ctrl-C is the app's to handle
    )
    if running is not None:
        running.add(proc)
    try:
        out, _ = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, _ = proc.communicate()
        return None, out.decode("utf-8", "replace")
    finally:
        if running is not None:
            running.discard(proc)
    log = out.decode("utf-8", "replace")
    if proc.returncode and out_of_memory(log):
        log += (
            f"\nkt-tui: nvcc ran out of the {compile_memory() / (1 << 30):.3g} GiB of memory a compile may take "
            "(an #include of a device or huge file, or a kernel too large to compile)\n"
        )
    return proc.returncode, log


def compile_cu(source: str, options: list[str], folder: str, running: Running | None, **run: Any) -> tuple[bytes, str]:
    """pycuda.compiler.compile's nvcc call: a kernel.cu in a folder of its own, `nvcc --cubin` (`run`:
    run_nvcc's timeout_s and nvcc). The cubin and nvcc's output (its warnings; ptxas's resource usage
    where `-Xptxas -v` asks)."""
    with open(os.path.join(folder, "kernel.cu"), "w", encoding="utf-8") as f:
        f.write(source)
    rc, log = run_nvcc(["--cubin", *options, "kernel.cu"], folder, running, **run)
    path = os.path.join(folder, "kernel.cubin")
    if rc != 0 or not os.path.exists(path):
        raise CompileFailed(log.strip() or f"nvcc failed with status {rc}", log, rc)
    with open(path, "rb") as f:
        return f.read(), log


def wrapped(text: str, wrap: bool) -> str:
    return 'extern "C" {\n' + text + "\n}\n" if wrap else text


def nvcc_cubin(text: str, options: list[str], wrap: bool, running: Running | None = None) -> bytes:
    """One configuration through nvcc as pycuda compiles it, to a cubin; relocatable code linked
    with the device runtime (`device_link`)."""
    with tempfile.TemporaryDirectory(prefix="kt-tui-nvcc-") as d:
        cubin = compile_cu(wrapped(text, wrap), options, d, running)[0]
        return device_link(cubin, options, d, running) if relocatable(options) else cubin


def device_link(cubin: bytes, options: list[str], folder: str, running: Running | None = None) -> bytes:
    """`nvcc -dlink --cubin` of relocatable device code with the device runtime: what pycuda's
    DynamicModule links in the driver (cuLink* with libcudadevrt), made on the compile cores."""
    if "-code" not in options:
        raise CompileFailed("nvcc -dlink: no -code to link for")
    code = options[options.index("-code") + 1]
    with open(os.path.join(folder, "rdc.cubin"), "wb") as f:
        f.write(cubin)
    args = ["-dlink", "--cubin", f"-arch={code}", "rdc.cubin", "-lcudadevrt", "-o", "linked.cubin"]
    rc, log = run_nvcc(args, folder, running)
    if rc != 0:
        raise CompileFailed("nvcc -dlink: " + (log.strip() or f"status {rc}"))
    with open(os.path.join(folder, "linked.cubin"), "rb") as f:
        return f.read()
