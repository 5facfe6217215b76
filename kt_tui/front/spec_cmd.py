"""`kt-tui spec KERNEL.cu`: draft a launch spec headlessly, or check one (`--check`) with an offline compile."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Sequence
from pathlib import Path

from ..config import load_settings
from ..engine.backend import probe_order
from ..engine.precheck import compile_spec
from ..engine.strength import score_line, survivor_text
from ..errors import UserError
from ..files import FileRefused, read_text_file, write_new
from ..gpu import checkrun  # looked up at each call: tests replace check_strength
from ..gpu import compile as gpu_compile  # looked up at each call: tests replace them
from ..gpu.env import scrubbed_env
from ..gpu.probe_cache import cached_probe, fingerprint
from ..kernel import refkernel
from ..kernel.conditions import Macros, names_of, spec_names
from ..kernel.draft import draft
from ..kernel.draft_flags import layout_warnings
from ..kernel.draft_floats import draft_note
from ..kernel.headers import local_headers
from ..kernel.source import pick_kernel
from ..kernel.spec import SpecError, parse_spec, spec_path_for
from ..llm import spec_draft as spec_llm
from ..redact import for_terminal
from ..words import counted
from .session import load_kernel_spec, read_kernel_file

SPEC_BYTES = 1 << 20
SAID = 10  # undecided #if conditions a draft names, one line each


def _kernel(kf, name: str | None):
    return pick_kernel(kf.kernels, name, str(kf.path))


def draft_command(args) -> int:

    if getattr(args, "approve", False) and not getattr(args, "llm", False):
        raise UserError("--approve goes with --llm (it approves the LLM's draft)")
    kf = read_kernel_file(args.kernel_path)
    kernel = _kernel(kf, args.kernel)
    path = Path(args.spec) if args.spec else spec_path_for(kf.path)
    undecided: list[str] = []
    options, names = _spec_names(path)
    headers = local_headers(kf.source, kf.path, options, undecided, names)
    drafted = draft(kernel, src=kf.source, headers=[text for _, text in headers], options=options, names=names)
    drafted.guesses += [("", f"header conditions: {line}") for line in undecided[:SAID]]
    if len(undecided) > SAID:  # a spec stays a size spec --check reads
        left = len(undecided) - SAID
        drafted.guesses.append(("", f"header conditions: {left} more not decided here, each read as if it held"))
    spec = drafted.spec
    note = draft_note(spec)
    text = (
        "# drafted by kt-tui spec from the kernel's index math: check sizes, inputs and outputs,\n"
        "# above all the values marked `# guess:`\n" + drafted.text()
    )
    if getattr(args, "llm", False):
        return llm_gate(args, kf, kernel, text, drafted.text(), path)  # the model sees the guesses
    if args.print:
        print(text)
        return 0
    _write(path, text)
    print(f"wrote {path}" + (f"\nnote:{note}" if note else ""))
    guesses = drafted.lines()
    if guesses:
        print(f"{counted(len(guesses), 'guess')} to check (marked `# guess:` in the file):")
        for line in guesses:
            print(f"  {line}")
    _print_warnings(layout_warnings(kf.source, kernel.name, spec), sys.stdout)
    return 0


def _spec_names(path: Path) -> tuple[list[str], Macros]:
    """The compiler options of the spec already at `path` and the names kernel_tuner defines from it, its
    tune parameters and defines (kernel/conditions.py spec_names): they decide the kernel's #ifs; none
    where there is no spec or it does not read."""
    if not path.is_file():
        return [], {}
    try:
        top = tomllib.loads(read_text_file(path, "spec", SPEC_BYTES))
    except (FileRefused, tomllib.TOMLDecodeError, RecursionError):  # nested past tomllib's depth
        return [], {}
    options, tune, defines = top.get("compiler_options"), top.get("tune_params"), top.get("defines")
    options = [o for o in options if isinstance(o, str)] if isinstance(options, list) else []
    tune = tune if isinstance(tune, dict) else {}
    defines = defines if isinstance(defines, dict) else {}
    return options, spec_names(tune, defines, top.get("defines_only") is True)


def _print_warnings(warnings: list[str], out) -> None:
    if warnings:
        n = len(warnings)
        print(f"{counted(n, 'layout warning')} (the spec contradicts the kernel's index math):", file=out)
        for line in warnings:
            print(for_terminal(f"  warning: {line}"), file=out)


def _write(path: Path, text: str) -> None:
    if os.path.lexists(path):  # a link too, dangling or not: nothing is written through one
        raise UserError(f"{path}: exists; not overwritten (use --print to see a draft, --check to check it)")
    write_new(path, text)


def llm_gate(args, kf, kernel, heuristic: str, draft: str, path: Path) -> int:
    """The LLM drafts, its draft is checked, then shown as changes to the heuristic draft: approve
    writes it, edit opens it in $VISUAL / $EDITOR first, skip writes the heuristic draft."""
    from ..llm.client import LlmClient  # openai loads only for `spec --llm`

    if not args.print and os.path.lexists(path):
        raise UserError(f"{path}: exists; not overwritten (use --print to see a draft, --check to check it)")
    settings = load_settings({"model": args.model, "base_url": args.base_url})
    drafted = spec_llm.ask(LlmClient.from_settings(settings), kf.source, kernel, draft, compile_spec)
    changes = spec_llm.diff(heuristic, drafted) or "(no changes to the heuristic draft)\n"
    if args.print:  # nothing is written: the draft on stdout, the changes on stderr
        print(for_terminal(changes), end="", file=sys.stderr)
        print(for_terminal(drafted), end="")
        return 0
    print(f"Decide: the LLM's launch spec for {kernel.name} (checked; changes to the heuristic draft):")
    print(for_terminal(changes), end="")
    while True:
        choice = "approve" if args.approve else _choose()
        if choice == "approve":
            _write(path, drafted)
            print(f"wrote {path} (the LLM's draft)")
            return 0
        if choice == "skip":
            _write(path, heuristic)
            print(f"wrote {path} (the heuristic draft; the LLM's was skipped)")
            return 0
        if choice == "quit":
            print("nothing written")
            return 1
        edited = _edit(drafted)
        if edited is None:
            continue
        try:
            parse_spec(edited, kernel)
        except SpecError as e:
            print(f"the edited spec is not valid: {e}; edit again, or approve / skip")
            drafted = edited
            continue
        _write(path, edited)
        print(f"wrote {path} (the LLM's draft, edited)")
        return 0


def _choose() -> str:
    if not sys.stdin.isatty():
        raise UserError(
            "not written: the LLM's draft waits for a decision; pass --approve to write it, "
            "--print to see it, or run on a terminal to approve, edit or skip"
        )
    while True:
        answer = input("[a]pprove  [e]dit  [s]kip (write the heuristic draft)  [q]uit: ").strip().lower()
        for choice in ("approve", "edit", "skip", "quit"):
            if answer and choice.startswith(answer):
                return choice


def _edit(text: str) -> str | None:
    """The text after $VISUAL / $EDITOR (run with a scrubbed environment); None without an editor."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        print("no editor: set $VISUAL or $EDITOR, or approve and edit the file")
        return None
    with tempfile.TemporaryDirectory(prefix="kt-spec-") as tmp:
        file = Path(tmp, "draft.cu.toml")
        file.write_text(text, encoding="utf-8")
        try:
            subprocess.run([*shlex.split(editor), str(file)], env=scrubbed_env(), check=False)
        except OSError as e:
            print(f"cannot run the editor {editor!r}: {e.strerror or e}")
            return None
        return file.read_text(encoding="utf-8", errors="replace")


def check_command(args) -> int:
    """Exit 0: the spec is valid and the kernel compiles at its default configuration; else 2 with why."""
    kf = read_kernel_file(args.kernel_path)
    kernel, spec = load_kernel_spec(kf, args.spec, args.kernel)
    if not gpu_compile.find_nvcc() and not gpu_compile.find_nvrtc():
        raise UserError(
            f"{kf.path}: the spec is valid, but no CUDA compiler (nvcc or NVRTC) is here to compile-check it"
        )
    _print_warnings(layout_warnings(kf.source, kernel.name, spec), sys.stderr)
    result = compile_spec(kf.source, spec)
    if not result.ok:
        first = result.errors[0] if result.errors else None
        where = f"{kf.path}:{first.line}: " if first and first.line else f"{kf.path}: "
        text = first.text if first else (result.reason or "the compile failed")
        print(for_terminal(f"kt-tui: {where}error: {text}"), file=sys.stderr)
        for m in result.errors[1:5]:
            print(
                for_terminal(f"  {kf.path}:{m.line}: {m.text}" if m.line else f"  {kf.path}: {m.text}"), file=sys.stderr
            )
        return 2
    if refkernel.is_kernel(spec.reference):
        derived, params = refkernel.run_spec(spec)
        ref = gpu_compile.compile_check(
            refkernel.source(spec), params, compiler_options=spec.compiler_options or None, spec=derived
        )
        if not ref.ok:
            first = ref.errors[0] if ref.errors else None
            line = f" line {first.line}" if first and first.line else ""
            text = first.text if first else (ref.reason or "the compile failed")
            print(
                for_terminal(f"kt-tui: {kf.path}: reference.kernel ({spec.reference['kernel']}){line}: error: {text}"),
                file=sys.stderr,
            )
            return 2
    regs = result.resources.get(kernel.name) or next(iter(result.resources.values()), None)
    extra = f", {regs.registers} registers" if regs else ""
    unverified = f'; UNVERIFIED: verify = "none" ({spec.verify_reason})' if spec.verify == "none" else ""
    if refkernel.is_kernel(spec.reference):
        unverified += f"; expected: {refkernel.describe(spec)} (compiles)"
    said = test_check(args, kf, spec) if spec.verify != "none" else ""
    if said is None:
        return 2
    print(f"{kf.path}: spec ok, compiles at {spec.baseline_params()}{extra}{unverified}{said}")
    return 0


def gpu_backend(
    request: str | None,
    source: str = "",
    kernel: str | None = None,
    options: Sequence[str] = (),
    names: Macros | None = None,
) -> tuple[str | None, str]:
    """The backend that runs the check's tests, or None and why there is none; `options`: the spec's
    compiler options (engine/backend.py probe_order)."""
    request = request or "auto"
    if request == "sim":
        return None, "--backend sim"
    if fingerprint() is None:
        return None, "no NVIDIA driver on this machine"
    order = probe_order(request, source, kernel, options, names)
    if request != "auto":
        return request, ""
    from ..gpu.tuner import Tuner  # here: only `spec --check` on a machine with a driver starts one

    settings = load_settings({})
    worker = Tuner()
    try:
        found = cached_probe(worker.probe, settings.data_dir / "backend-probe.json")(order)
    finally:
        worker.close()
    errors = "; ".join(f"{k}: {v}" for k, v in (found.get("errors") or {}).items())
    return found.get("backend"), f"no backend ran the probe kernel ({errors or 'none found'})"


def test_check(args, kf, spec) -> str | None:
    """Whether the check can fail (gpu/checkrun.py): the text added to "spec ok", or None after
    saying on stderr why the spec is refused (out of bounds, vacuous, wrong outputs, result parameters)."""
    backend, why = gpu_backend(
        getattr(args, "backend", None), kf.source, spec.kernel, spec.compiler_options, names_of(spec)
    )
    if backend is None:
        state = checkrun.check_strength(kf.source, spec, None)
        if state["state"] == "unchecked":
            return (
                f"; check NOT tested: no GPU here ({why}): out of bounds, a check that proves nothing and "
                "the outputs are unknown until a GPU runs it"
            )
    else:
        try:
            state = checkrun.check_strength(kf.source, spec, backend)
        except checkrun.OutOfBounds as e:
            print(f"kt-tui: {kf.path}: {e}", file=sys.stderr)
            return None
    problems = [f"the check proves nothing because {state['why']}"] if state["state"] == "vacuous" else []
    if state.get("blame"):
        problems.insert(0, state["blame"])
    problems += list(state.get("fixes") or [])
    if refused := checkrun.refusal(spec, state.get("result_params") or {}):
        problems.append(refused)
    if problems:
        print(
            f"kt-tui: {kf.path}: VACUOUS CHECK: {problems[0]}"
            if state["state"] == "vacuous"
            else f"kt-tui: {kf.path}: {problems[0]}",
            file=sys.stderr,
        )
        for p in problems[1:]:
            print(f"  {p}", file=sys.stderr)
        return None
    if state["state"] == "unchecked":
        return f"; check NOT tested: {state['why']}"
    notes = list(state.get("notes") or [])
    memcheck = next((n for n in notes if n.startswith("memcheck")), None)
    mutant = next((n for n in notes if n.startswith("no do-nothing kernel")), None)
    sizes = 1 + len(spec.extra_sizes())
    parts = [
        memcheck.replace(": not run:", " NOT run:") if memcheck else f"memcheck clean at {counted(sizes, 'size')}",
        "the outputs change",
        mutant or "a do-nothing kernel fails it",
    ]
    rest = [n for n in notes if n not in (memcheck, mutant)]
    if line := score_line(state):
        rest.append(line)
        score = state.get("mutants") or {}
        rest += [
            f"stronger inputs {t['label']}: {'kept, ' if t['kept'] else ''}{t['why']}"
            for t in score.get("strengthening") or []
        ]
        rest += [survivor_text(m) for m in score.get("survivors") or []]
        if score.get("equivalent") or score.get("stillborn"):
            rest.append(
                f"not counted: {len(score.get('equivalent') or [])} equivalent (the same compiled code), "
                f"{len(score.get('stillborn') or [])} stillborn (do not compile)"
            )
    seconds = f" in {state['seconds']:g} s" if state.get("seconds") is not None else ""
    return f"; check tested on {backend}{seconds}: " + ", ".join(parts) + "".join(f"; {n}" for n in rest)


def spec_command(args) -> int:
    return check_command(args) if args.check else draft_command(args)
