"""A launch spec drafted by the LLM: asked for, checked harder than a hand-written spec (a reply that
only looks valid does not pass), and shown as a diff against the heuristic draft at a gate."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import Any

from ..errors import UserError
from ..kernel.spec import Spec, SpecError, parse_spec

PROMPT = """You write launch specs (TOML) for kt-tui, which tunes CUDA kernels with kernel_tuner.
Here is the kernel and a draft that was guessed from its source. Correct the draft: the problem size
and its rank, [sizes] (from the bounds the kernel checks), which pointers are outputs (written by the
kernel), how inputs are initialised (init = random | uniform | normal | positive | zeros | ones |
range | constant | poison, with low / high for bounded values such as indices; init = offsets with
high = the indexed length + 1 for row offsets such as CSR row pointers), scalar values, and
the tune_params / restrictions / grid_div_x / grid_div_y the kernel reads. Keep one [[args]] table
per kernel parameter, in order, named as the kernel names them. Do not reference files or Python
functions. Reply with the whole spec in one ```toml block.

Kernel:
```cuda
{source}
```

Draft:
```toml
{draft}
```"""
CompileSpec = Callable[[str, Spec], Any]  # a compile check of a kernel at a spec's default configuration
TRIES = 2  # the first reply, and one retry told what was wrong


def toml_block(text: str) -> str:
    m = re.search(r"```(?:toml)?\s*\n(.*?)```", text, re.S)
    return (m.group(1) if m else text).strip() + "\n"


def check_draft(text: str, kernel, source: str, compile_with: CompileSpec | None) -> Spec:
    """The spec, or SpecError: valid as any spec for this kernel, its arguments named as the kernel's
    parameters, no file or Python function, and compiling at its default configuration when a
    compiler is here (`compile_with`: the caller's compile check, engine/precheck.py's compile_spec)."""
    spec = parse_spec(text, kernel)
    refs = [a.function for a in spec.args if a.function] + [str(spec.reference or ""), spec.verify]
    if any(":" in r for r in refs) or any(a.file for a in spec.args) or spec.cmem_args or spec.reference:
        raise SpecError("", "the draft references files or Python functions; it may not")
    for i, (p, a) in enumerate(zip(kernel.params, spec.args)):
        if p.name != a.name:
            raise SpecError(f"args[{i}]", f"named {a.name!r}, the kernel's parameter {i} is {p.name!r}")
    if compile_with is not None:
        result = compile_with(source, spec)
        if result.ok is False:
            first = result.errors[0] if result.errors else None
            where = f"line {first.line}: " if first and first.line else ""
            raise SpecError("", f"the kernel does not compile with it: {where}{first.text if first else result.reason}")
    return spec


def ask(client, source: str, kernel, draft: str, compile_with: CompileSpec | None) -> str:
    """The model's spec, with a header naming the model; UserError when it stays invalid."""
    messages = [{"role": "user", "content": PROMPT.format(source=source, draft=draft)}]
    problem = ""
    for _ in range(TRIES):
        reply = client.complete("draft_spec", messages)
        text = toml_block(reply.text)
        try:
            check_draft(text, kernel, source, compile_with)
        except SpecError as e:
            problem = str(e)
            messages += [
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": f"That spec is not valid: {problem}. Reply with the corrected spec."},
            ]
            continue
        return (
            f"# drafted by the LLM ({reply.model or client.model}) from the kernel and a guessed draft: "
            f"check it before running\n{text}"
        )
    raise UserError(f"the LLM's spec is not valid: {problem}")


def diff(heuristic: str, drafted: str) -> str:
    """The LLM's changes to the heuristic draft, as a unified diff ("" when it changed nothing)."""
    return "".join(
        difflib.unified_diff(
            heuristic.splitlines(keepends=True), drafted.splitlines(keepends=True), "heuristic draft", "LLM draft"
        )
    )
