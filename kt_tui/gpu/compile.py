"""Compile a kernel without a GPU, with the compile pool's compilers (gpu/nvcc.py compile_cu; NVRTC
in a pool process): errors with their source lines, and ptxas resource usage."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..kernel.source import SourceError, find_kernels
from ..kernel.text import KernelTextError, compile_options, kernel_text
from .compiled import CompileFailed
from .nvcc import compile_cu
from .nvrtc import PROGRAM, backend_options

if TYPE_CHECKING:
    from ..kernel.spec import Spec

# Imported where used: kernel_tuner (ktsource.py imports it), at the first compile rather than
# when the app starts.

FILE_NAME = "kernel.cu"
DEFAULT_ARCH = "sm_90"
SEARCH_DIRS = ("/usr/local/cuda/bin", "/opt/cuda/bin")
NO_COMPILER = "no CUDA compiler found (nvcc or NVRTC); install the CUDA toolkit"


@dataclass(frozen=True)
class Resources:
    registers: int = 0
    shared_bytes: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    stack_bytes: int = 0


@dataclass(frozen=True)
class CompileMessage:
    line: int  # 1-based in the source; 0 when the message is about no line of it
    severity: str  # "error" | "warning"
    text: str
    source_line: str = ""
    column: int = 0  # 1-based, from nvcc's caret under the line; 0 when not known


@dataclass
class CompileResult:
    ok: bool | None  # None: no compiler was found, see reason
    messages: list[CompileMessage] = field(default_factory=list)
    resources: dict[str, Resources] = field(default_factory=dict)
    command: list[str] = field(default_factory=list)
    log: str = ""
    reason: str = ""

    @property
    def errors(self) -> list[CompileMessage]:
        return [m for m in self.messages if m.severity == "error"]


def find_cuda_tool(name: str) -> str | None:
    """A CUDA toolkit program: on PATH, under CUDA_HOME / CUDA_PATH, or in the usual install dirs."""
    if found := shutil.which(name):
        return found
    dirs = [os.path.join(os.environ[v], "bin") for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    for d in [*dirs, *SEARCH_DIRS]:
        path = os.path.join(d, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def find_nvcc() -> str | None:
    return find_cuda_tool("nvcc")


def find_nvrtc() -> bool:
    try:
        return importlib.util.find_spec("cuda.bindings.nvrtc") is not None
    except (ImportError, ValueError):
        return False


def compile_check(
    source: str,
    params: dict,
    arch: str | None = None,
    compiler_options: list[str] | None = None,
    timeout_s: float = 60,
    *,
    spec: Spec,
) -> CompileResult:
    """Compile `source` as kernel_tuner would for one configuration `params`: the very string
    kernel_tuner prepares for `spec` (gpu/ktsource.py)."""
    try:
        source = kernel_text(source, "the kernel")
    except KernelTextError as e:  # never handed to a compiler: gcc would skip a NUL and read what it hid
        return CompileResult(ok=False, messages=[CompileMessage(0, "error", str(e))], reason=str(e))
    from .ktsource import kernel_string

    name, text = kernel_string(spec, source, params)
    arch = (arch or DEFAULT_ARCH).strip()
    arch = f"sm_{arch}" if arch.isdigit() else arch
    if nvcc := find_nvcc():
        options = [f"-arch={arch}", "-Xptxas", "-v", "-lineinfo", *compile_options(compiler_options)]
        return _run_nvcc(nvcc, options, text, source, timeout_s)
    if find_nvrtc():
        return _run_nvrtc(
            arch, ["-lineinfo", *backend_options("nvcuda", compiler_options)], name, text, source, timeout_s
        )
    return CompileResult(ok=None, reason=NO_COMPILER)


def _run_nvcc(nvcc: str, options: list[str], text: str, source: str, timeout_s: float) -> CompileResult:
    """nvcc's compile as the compile pool runs it (gpu/nvcc.py), its output kept."""
    cmd, status = [nvcc, "--cubin", *options, FILE_NAME], 0
    with tempfile.TemporaryDirectory(prefix="kt-compile-") as tmp:
        try:
            ok, log = True, compile_cu(text, options, tmp, None, timeout_s=timeout_s, nvcc=nvcc)[1]
        except CompileFailed as e:
            if e.status is None:
                return _timed_out("nvcc", timeout_s, cmd, e.log)
            ok, status, log = False, e.status, e.log
        except OSError as e:
            return CompileResult(ok=None, command=cmd, reason=f"cannot run {nvcc}: {e.strerror or e}")
    log = log.replace("\r\n", "\n").replace("\r", "\n")  # as a text-mode pipe reads it
    tail = " / ".join([line.strip() for line in log.splitlines() if line.strip()][-3:]) or "no output"
    result = _result(ok, log, source, cmd, f"nvcc failed with status {status}: {tail}")
    result.resources = parse_resources(log)
    return result


def _result(ok: bool, log: str, source: str, command: list[str], failure: str) -> CompileResult:
    messages = parse_messages(log, source)
    if not ok and not any(m.severity == "error" for m in messages):
        messages.append(CompileMessage(0, "error", failure))
    ok = ok and not any(m.severity == "error" for m in messages)
    return CompileResult(ok=ok, messages=messages, command=command, log=log)


def _timed_out(tool: str, timeout_s: float, command: list[str], log: str = "") -> CompileResult:
    msg = CompileMessage(0, "error", f"{tool} did not finish within {timeout_s:g} s and was stopped")
    return CompileResult(ok=False, messages=[msg], command=command, log=log, reason=msg.text)


def _run_nvrtc(arch: str, options: list[str], name: str, text: str, source: str, timeout_s: float) -> CompileResult:
    """NVRTC as the nvcuda backend runs it, in a compile pool's process (gpu/compiles.py): a hang is
    stopped, a crash stays there, and the process has none of the app's secrets."""
    from .compiles import CompilePool  # here: a check without NVRTC starts no pool

    shown = ["nvrtc", *options]
    with CompilePool("nvcuda", "".join(c for c in arch if c.isdigit()), options, size=1) as pool:
        try:
            done = pool.submit("check", name, text).result(timeout_s)
        except TimeoutError:
            return _timed_out("NVRTC", timeout_s, shown)
    if done.binary is None and done.error is None:
        return CompileResult(ok=None, command=shown, reason="NVRTC could not be used")
    log = done.log if done.error is None else done.error
    return _result(done.error is None, log, source, shown, f"NVRTC failed: {log.strip() or 'no output'}")


_DIAG = re.compile(
    r"^(?P<file>[^\s(][^(]*)\((?P<line>\d+)\): (?P<sev>catastrophic error|error|warning)"
    r"(?: #[\w-]+)?: (?P<text>.*)$"
)
_GCC_DIAG = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):\d+: (?P<sev>fatal error|error|warning): (?P<text>.*)$")
_TOOL = re.compile(r"^(?P<tool>nvcc|ptxas|nvlink)\s+(?P<sev>error|fatal|warning)\s*: (?P<text>.*)$")
_MANGLED = re.compile(r"'(_Z\w+)'")
_TOO_MUCH_SHARED = re.compile(r"uses too much shared data \((0x[0-9a-fA-F]+) bytes, (0x[0-9a-fA-F]+) max\)")


def parse_messages(log: str, source: str) -> list[CompileMessage]:
    """Compiler errors and warnings, each with the line of `source` it points at."""
    lines, log_lines, out = source.splitlines(), log.splitlines(), []
    try:
        kernel_lines = {k.name: k.line for k in find_kernels(source)}
    except SourceError:
        kernel_lines = {}
    for i, raw in enumerate(log_lines):
        if m := _DIAG.match(raw) or _GCC_DIAG.match(raw):
            line, text = int(m["line"]), m["text"].strip() + "".join(f"; {d}" for d in _details(log_lines, i + 1))
            if Path(m["file"].strip()).name not in (FILE_NAME, PROGRAM):
                if not _safe_to_show(m["file"].strip()):  # its words could be anything the file holds
                    text = f"{m['sev']} in a file the kernel includes (its text is not shown)"
                text, line = f"{m['file'].strip()}({line}): {text}", 0
            elif line > len(lines):
                text += " (in the code kernel_tuner adds after the file to instantiate the template kernel: check "
                text += "the spec's kernel name and its template arguments)"
                line = 0
        elif m := _TOOL.match(raw):
            text, line = _tool_text(m["tool"], m["text"].strip(), kernel_lines)
        else:
            continue
        src = lines[line - 1] if 0 < line <= len(lines) else ""
        out.append(
            CompileMessage(
                line, "warning" if m["sev"] == "warning" else "error", text, src, _column(log_lines[i + 1 : i + 3], src)
            )
        )
    return out


def _column(after: list[str], src: str) -> int:
    """The column nvcc's caret points at: it echoes the line without its indent, a caret below."""
    if len(after) < 2 or not src.strip() or after[1].strip() != "^":
        return 0
    shown, body = after[0], src.strip()
    start = shown.find(body[:20].replace("\t", " ")) if body else -1
    if start < 0:
        return 0
    return after[1].index("^") - start + (len(src) - len(src.lstrip())) + 1


def _safe_to_show(path: str) -> bool:
    """A header beside the kernel or of the CUDA toolkit or the C/C++ system, whose messages are
    shown; elsewhere (an #include of an absolute path) the file's words could be a secret."""
    if not os.path.isabs(path) and ".." not in Path(path).parts:
        return True
    nvcc = find_nvcc()
    roots = ["/usr/include/", "/usr/lib/", "/usr/local/cuda", "/opt/cuda"]
    if nvcc:
        roots.append(str(Path(nvcc).resolve().parent.parent) + "/")
    real = os.path.realpath(path)
    return any(real.startswith(r) for r in roots)


def _details(log_lines: list[str], start: int) -> list[str]:
    """Explanations after a diagnostic ("argument types are: (int)"), not its echo of the line."""
    found = []
    for raw in log_lines[start : start + 8]:
        if not raw.strip() or _DIAG.match(raw):
            break
        found += re.findall(r"^\s+(\w[\w ]* (?:are|is): .*)$", raw)
    return found


def _tool_text(tool: str, text: str, kernel_lines: dict[str, int]) -> tuple[str, int]:
    names = [demangle(n) for n in _MANGLED.findall(text)]
    if (m := _TOO_MUCH_SHARED.search(text)) and names:
        text = (
            f"kernel {names[0]} uses too much shared memory: {int(m[1], 16)} bytes of static __shared__ "
            f"data, the limit is {int(m[2], 16)} bytes"
        )
    else:
        text = f"{tool}: " + _MANGLED.sub(lambda x: f"'{demangle(x[1])}'", text)
    return text, kernel_lines.get(names[0], 0) if names else 0


def demangle(symbol: str) -> str:
    """The unqualified function name of an Itanium-mangled symbol ("_Z6matmulPfPKfS1_i" -> "matmul")."""
    m = re.match(r"_Z(N)?", symbol)
    if not m:
        return symbol
    rest, parts = symbol[m.end() :], []
    while d := re.match(r"\d+", rest):
        n = int(d.group())
        parts.append(rest[d.end() : d.end() + n])
        rest = rest[d.end() + n :]
        if not m.group(1):
            break
    return parts[-1] if parts else symbol


def parse_resources(log: str) -> dict[str, Resources]:
    """Per-kernel resource usage from `ptxas -v` output."""
    found: dict[str, dict[str, int]] = {}  # mangled entry name -> Resources fields
    frames: dict[str, dict[str, int]] = {}
    current = props = None
    for line in log.splitlines():
        if m := re.search(r"Compiling entry function '([^']+)'", line):
            current = m[1]
            found[current] = {}
        elif m := re.search(r"Function properties for (\S+)", line):
            props = m[1]
        elif (
            m := re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        ) and props:
            frames[props] = dict(stack_bytes=int(m[1]), spill_stores=int(m[2]), spill_loads=int(m[3]))
        elif (m := re.search(r"Used (\d+) registers", line)) and current:
            smem = re.search(r"(\d+) bytes smem", line)
            found[current].update(registers=int(m[1]), shared_bytes=int(smem[1]) if smem else 0)
    out: dict[str, Resources] = {}
    for sym, fields in found.items():
        name = demangle(sym)
        out[sym if name in out else name] = Resources(**fields, **frames.get(sym, {}))
    return out


def format_errors(result: CompileResult, max_lines: int = 20) -> str:
    """Errors first, then warnings, as `line N: text` with the source line under each."""
    if result.ok is None:
        return result.reason
    shown: list[str] = []
    for m in sorted(result.messages, key=lambda m: m.severity != "error"):
        where = f"line {m.line}: " if m.line else ""
        shown.append(f"{where}{m.severity}: {m.text}")
        if m.source_line.strip():
            shown.append(f"    {m.source_line.strip()}")
    if not shown:
        return "compiled without errors" if result.ok else "compilation failed"
    if len(shown) > max_lines:
        shown = shown[:max_lines] + [f"... {len(shown) - max_lines} more"]
    return "\n".join(shown)
