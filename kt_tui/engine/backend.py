"""Which backend the numbers come from: a real GPU through pycuda / nvcuda / cupy, or `sim`,
kernel_tuner's simulation mode replaying a cache recorded on a real GPU, or `none`: nothing is
measured (no GPU here); the session runs every gate and waits to be resumed on a GPU."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..gpu.compile import DEFAULT_ARCH
from ..gpu.facts import clean_facts
from ..gpu.protocol import BACKENDS
from ..gpu.simcache import find_cache, gpu_label, read_header
from ..kernel.conditions import Macros
from ..kernel.syntax import code_text, strip_comments
from ..kernel.vector_layout import nvcuda_unpassable, pycuda_misplaced

CHOICES = ("auto", *BACKENDS, "sim", "none")
NO_GPU_NOTE = "No GPU backend (--backend none): kernels are compile-checked, nothing is measured."


class BackendError(UserError):
    pass


class NoCache(BackendError):
    """No recorded cache for the kernel version where sim looked."""


# headers that build inside `extern "C" { }`: kernel_tuner's pycuda backend wraps a kernel there
# unless its text says `extern "C"`; any other include may declare C++ (overloads, templates), which
# cannot have C linkage (cuda_fp16.h: "more than one instance of overloaded function has C linkage").
# Their C++ names (<cfloat>, <cmath> ...) build there too (nvcc 13.0 on GCC 12's headers); NVRTC
# opens none of them, so a kernel that includes one is tried on pycuda first
_C = ("assert", "float", "limits", "math", "stdbool", "stddef", "stdint", "stdio", "stdlib", "string")
C_HEADERS = frozenset(f"{h}.h" for h in _C) | frozenset(f"c{h}" for h in _C if h != "stdbool")
CXX_HEADERS = ("cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "cooperative_groups", "mma.h", "cuda_pipeline", "cub/",
               "thrust/", "cuda/", "complex", "cuda_runtime.h", "cuComplex.h", "curand_kernel.h")  # fmt: skip
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]{1,200})[>"]', re.M)


def cxx_include(source: str) -> tuple[str, bool] | None:
    """The first include of `source` that pycuda's `extern "C"` wrap may break, and whether it is one
    of CUDA's C++ headers (it does break); None where the kernel says `extern "C"` or includes
    only C headers."""
    if 'extern "C"' in source:  # kernel_tuner's own test, comments included
        return None
    for name in _INCLUDE.findall(strip_comments(source[:1_000_000])):
        if name not in C_HEADERS:
            return name, name.startswith(CXX_HEADERS)
    return None


_DEVICE = re.compile(r"\b__device__\b")
_NAMED = re.compile(r"[^()]{0,400}?(?<!::)(\boperator\s*(?:\(\s*\)|\[\s*\]|[^\w\s()]{1,3})|\b[A-Za-z_]\w*)\s*\(([^{]*)")
_TEMPLATE = re.compile(r"\btemplate\s*<")
_SCOPE = re.compile(r"[{};]|\b__device__\b")
_CLASS = re.compile(r"\b(?:struct|class|union)\b[^=()]*$")


def _free_heads(clean: str) -> list[int]:
    """Where each `__device__` of `clean` outside a struct's, class's or union's body ends (a member
    takes no C linkage), in one pass over the braces."""
    out: list[int] = []
    stack: list[bool] = []  # each open brace: a class body?
    last = 0
    for m in _SCOPE.finditer(clean):
        c = m.group()
        if c == "{":
            stack.append(_CLASS.search(clean[max(last, m.start() - 400) : m.start()]) is not None)
        elif c == "}" and stack:
            stack.pop()
        elif c == "__device__" and not any(stack[-1:]):
            out.append(m.end())
        if c != "__device__":
            last = m.end()
    return out


def cxx_code(source: str, kernel: str | None) -> str | None:
    """What in the kernel file's own code pycuda's `extern "C"` wrap breaks (an overloaded function or
    operator, a template: C++ cannot give them C linkage), None where the kernel says `extern "C"`, or
    is named as a template's instance (kernel_tuner then writes the `extern "C"` itself). Definitions of
    one name with one parameter list are one function defined apart (under `#ifdef` and `#else`);
    comments, strings and `#if 0` groups are not read, nor members defined outside their class (`V::V()`)."""
    if 'extern "C"' in source or (kernel is not None and "<" in kernel):
        return None
    clean = code_text(source[:1_000_000])
    seen: dict[str, str] = {}
    for at in _free_heads(clean):
        head = clean[at : at + 400]  # a definition's head ends at its body's "{"
        end = min((i for i in (head.find(c) for c in ";{}") if i >= 0), default=-1)
        named = _NAMED.match(head[:end]) if end >= 0 and head[end] == "{" else None
        if named is None:
            continue
        name, params = re.sub(r"\s+", "", named.group(1)), " ".join(named.group(2).split())
        if seen.setdefault(name, params) != params:
            return f"overloaded function {name}"
    return "a template" if _TEMPLATE.search(clean) else None


def probe_order(
    request: str, source: str, kernel: str | None = None, options: Sequence[str] = (), names: Macros | None = None
) -> tuple[str, ...]:
    """The GPU backends to probe for `request` (auto or one of BACKENDS), the first that works
    taken: pycuda last for a kernel whose includes its extern "C" wrap may break; none that would
    pass a vector by value wrongly (pycuda at another offset) or not at all (nvcuda: one of 3, 12,
    16 ... bytes; kernel/vector_layout.py) to the kernel named `kernel` (every kernel of the source
    where not given; `options`, `names`: the spec's compiler options and the names kernel_tuner defines from
    it, kernel/conditions.py spec_names, which decide the source's #ifs).
    BackendError where such a backend, or pycuda with one of CUDA's C++ headers included, is asked for."""
    header = cxx_include(source)
    if request == "pycuda" and header is not None and header[1]:
        raise BackendError(_wrap_refused(f"<{header[0]}> cannot be included"))
    code = cxx_code(source, kernel)
    if request == "pycuda" and code is not None:
        raise BackendError(_wrap_refused(f"the kernel file's {code} cannot be"))
    misplaced = pycuda_misplaced(source, kernel, options, names) if request in ("auto", "pycuda") else None
    if request == "pycuda" and misplaced:
        raise BackendError(
            f"backend pycuda: kernel_tuner's pycuda backend passes {misplaced} at another offset than CUDA's "
            "(it packs a vector of more than 8 bytes unaligned after the parameters before it); use --backend "
            "cupy or nvcuda, or put the vector first"
        )
    unpassable = nvcuda_unpassable(source, kernel, options, names) if request in ("auto", "nvcuda") else None
    if request == "nvcuda" and unpassable:
        raise BackendError(
            f"backend nvcuda: kernel_tuner's nvcuda backend cannot pass {unpassable} by value (cuda-python "
            "takes no struct; only vectors of 1, 2, 4 or 8 bytes go, as a word); use --backend cupy or pycuda"
        )
    if request != "auto":
        return (request,)
    usable = [b for b in BACKENDS if not (b == "pycuda" and misplaced) and not (b == "nvcuda" and unpassable)]
    return tuple(sorted(usable, key=lambda b: b == "pycuda")) if header is not None or code else tuple(usable)


def _wrap_refused(what: str) -> str:
    return (
        f'backend pycuda: kernel_tuner\'s pycuda backend compiles the kernel inside extern "C", where {what} '
        '(C++ cannot have C linkage); use --backend nvcuda or cupy, or write extern "C" before the kernel'
    )


@dataclass
class BackendChoice:
    backend: str
    gpu: str  # the device's name; for sim, the GPU the cache was recorded on
    sim_sources: list[str] = field(default_factory=list)  # cachefiles or folders, searched by kernel version
    note: str = ""
    arch: str = ""  # the device's compute capability as "sm_90"; "" in sim or when the probe could not tell
    replays_version: bool = False  # sim: the cache's header says it was recorded from this very kernel version
    facts: dict[str, Any] | None = None  # the device's facts and measured peaks (gpu/facts.py); in sim, the recording's
    read_only: bool = False  # a session prepared without a GPU, opened where none is: shown, nothing runs

    @property
    def simulated(self) -> bool:
        return self.backend == "sim"

    @property
    def unmeasured(self) -> bool:
        """Nothing is measured here (`--backend none`): runs end "not measured", the session waits for a GPU."""
        return self.backend == "none"

    def label(self) -> str:
        if self.read_only:
            return "PREPARED: waits for a GPU (read-only here; resume it on a GPU)"
        if self.backend == "none":
            return f"no GPU here: not measured (stored results from {self.gpu})" if self.gpu else "no GPU: not measured"
        if self.simulated:
            return f"SIMULATED (kernel_tuner replay of a cache from {self.gpu})"  # the GPU's name, then its date
        return f"{self.gpu} via {self.backend}"

    def compile_arch(self) -> tuple[str, str]:
        """The arch the offline compile check targets, and how the gate says it."""
        if self.arch:
            return self.arch, f"checked for {self.arch}" + (f" ({self.gpu})" if self.gpu else "")
        why = (
            "simulated"
            if self.simulated
            else "no GPU"
            if self.unmeasured
            else "the GPU's compute capability is unknown"
        )
        return DEFAULT_ARCH, f"assumed {DEFAULT_ARCH} ({why})"

    def sim_cache_for(self, kernel: str, version: str | list[str]) -> Path | None:
        for src in self.sim_sources:
            found = find_cache(src, kernel, version)
            if found:
                return found
        return None


def _what_to_do() -> str:
    return (
        "On a machine with an NVIDIA GPU and the CUDA toolkit, install `kt-tui[cuda]` (pycuda), or "
        "cuda-python or cupy. Without a GPU, replay a cache recorded on one: --backend sim "
        "--sim-cache PATH (a kernel_tuner cachefile, or a folder of them), or prepare the session here "
        "and measure it on a GPU later: --backend none."
    )


def choose_backend(
    request: str,
    probe: Callable[[Sequence[str]], dict[str, Any]],
    kernel: str,
    version: str | list[str],
    sim_sources: list[str],
    source: str = "",
    options: Sequence[str] = (),
    names: Macros | None = None,
) -> BackendChoice:
    """`probe(backends)` runs in the GPU worker and returns {"backend", "gpu", "errors"}.
    `version`: the kernel version's id, or its ids (spec.version_ids). `source`: the kernel's text;
    one that includes a header pycuda's extern "C" wrap may break tries pycuda last (refused where
    asked for and the header is one of CUDA's C++ ones). `options`, `names`: the spec's (probe_order)."""
    if request not in CHOICES:
        raise BackendError(f"unknown backend {request!r} (use one of {', '.join(CHOICES)})")
    sources = [s for s in sim_sources if s]
    if request == "sim":
        return _sim(kernel, version, sources, note="")
    if request == "none":
        return BackendChoice("none", "", sources, note=NO_GPU_NOTE)
    found = probe(probe_order(request, source, kernel, options, names))
    if found.get("backend"):
        facts = clean_facts(found.get("facts"))
        return BackendChoice(found["backend"], found["gpu"], sources, arch=found.get("arch") or "", facts=facts)
    reasons = "; ".join(f"{k}: {v}" for k, v in found.get("errors", {}).items())
    if request != "auto":
        raise BackendError(f"backend {request} does not work here ({reasons}). {_what_to_do()}")
    try:
        return _sim(kernel, version, sources, note=f"No working CUDA backend on this machine ({reasons}).")
    except NoCache:
        raise BackendError(
            f"No working CUDA backend on this machine ({reasons}), and no recorded cache "
            f"for this kernel version ({_first(version)}) was found in: "
            f"{', '.join(sources) or 'nowhere'}. {_what_to_do()}"
        ) from None
    except BackendError as e:  # found, and refused: said as it is
        raise BackendError(f"No working CUDA backend on this machine ({reasons}), and {e}") from None


def _sim(kernel: str, version: str | list[str], sources: list[str], note: str) -> BackendChoice:
    choice = BackendChoice("sim", "", sources)
    cache = choice.sim_cache_for(kernel, version)
    if cache is None:
        where = ", ".join(sources) or "no place given (use --sim-cache)"
        raise NoCache(f"no recorded cache for kernel {kernel} version {_first(version)} in {where}")
    try:
        head = read_header(cache)
    except (OSError, ValueError) as e:
        raise BackendError(f"the recorded cache cannot be read: {e}") from None
    if not isinstance(head.get("device_name"), str) or not head["device_name"].strip():
        raise BackendError(
            f"the recorded cache {cache} names no GPU (device_name): a replay shows only what a named GPU measured"
        )
    choice.gpu = gpu_label(head)
    choice.facts = clean_facts(head.get("kt_tui", {}).get("device"))  # none in a recording made before they were
    choice.replays_version = head.get("kt_tui", {}).get("kernel_version") in (
        [version] if isinstance(version, str) else list(version)
    )
    choice.note = (note + " " if note else "") + f"Replaying {cache} (SIMULATED; from {choice.gpu})."
    return choice


def _first(version: str | list[str]) -> str:
    return version if isinstance(version, str) else version[0]
