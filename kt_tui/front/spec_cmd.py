"""`kt-tui spec KERNEL.cu`: draft a launch spec headlessly, or check one (`--check`) with an offline compile."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from ..config import load_settings
from ..engine.precheck import compile_spec
from ..errors import UserError
from ..files import write_new
from ..gpu import compile as gpu_compile  # looked up at each call: tests replace them
from ..kernel.draft import draft_note, draft_spec
from ..kernel.source import pick_kernel
from ..kernel.spec import SpecError, dump_spec, parse_spec, spec_path_for
from .session import load_kernel_spec, read_kernel_file


def _kernel(kf, name: str | None):
    return pick_kernel(kf.kernels, name, str(kf.path))


def draft_command(args) -> int:

    kf = read_kernel_file(args.kernel_path)
    kernel = _kernel(kf, args.kernel)
    spec = draft_spec(kernel, src=kf.source)
    note = draft_note(spec)
    text = ("# drafted by kt-tui spec from the kernel's source: check sizes, inputs and outputs\n"
            + (f"#{note}\n" if note else "") + dump_spec(spec))
    if getattr(args, "llm", False):
        text = llm_draft(args, kf.source, kernel, dump_spec(spec))
    if args.print:
        print(text)
        return 0
    path = Path(args.spec) if args.spec else spec_path_for(kf.path)
    if os.path.lexists(path):  # a link too, dangling or not: nothing is written through one
        raise UserError(f"{path}: exists; not overwritten (use --print to see a draft, --check to check it)")
    write_new(path, text)
    print(f"wrote {path}" + (f"\nnote:{note}" if note else ""))
    return 0


def check_command(args) -> int:
    """Exit 0: the spec is valid and the kernel compiles at its default configuration; else 2 with why."""
    kf = read_kernel_file(args.kernel_path)
    kernel, spec = load_kernel_spec(kf, args.spec, args.kernel)
    if not gpu_compile.find_nvcc() and not gpu_compile.find_nvrtc():
        raise UserError(f"{kf.path}: the spec is valid, but no CUDA compiler (nvcc or NVRTC) is here to compile-check it")
    result = compile_spec(kf.source, spec)
    if not result.ok:
        first = result.errors[0] if result.errors else None
        where = f"{kf.path}:{first.line}: " if first and first.line else f"{kf.path}: "
        text = first.text if first else (result.reason or "the compile failed")
        print(f"kt-tui: {where}error: {text}", file=sys.stderr)
        for m in result.errors[1:5]:
            print(f"  {kf.path}:{m.line}: {m.text}", file=sys.stderr)
        return 2
    regs = result.resources.get(kernel.name) or next(iter(result.resources.values()), None)
    extra = f", {regs.registers} registers" if regs else ""
    unverified = f"; UNVERIFIED: verify = \"none\" ({spec.verify_reason})" if spec.verify == "none" else ""
    print(f"{kf.path}: spec ok, compiles at {spec.baseline_params()}{extra}{unverified}")
    return 0


LLM_PROMPT = """You write launch specs (TOML) for kt-tui, which tunes CUDA kernels with kernel_tuner.
Here is the kernel and a draft that was guessed from its source. Correct the draft: the problem size
and its rank, [sizes] (from the bounds the kernel checks), which pointers are outputs (written by the
kernel), how inputs are initialised (init = random | uniform | normal | positive | zeros | ones |
range | constant | poison, with low / high for bounded values such as indices), scalar values, and
the tune_params / restrictions / grid_div_x / grid_div_y the kernel reads. Keep one [[args]] table
per kernel parameter, in order. Do not reference files or Python functions.
Reply with the whole spec in one ```toml block.

Kernel:
```cuda
{source}
```

Draft:
```toml
{draft}
```"""


def _toml_block(text: str) -> str:
    m = re.search(r"```(?:toml)?\s*\n(.*?)```", text, re.S)
    return (m.group(1) if m else text).strip() + "\n"


def llm_draft(args, source: str, kernel, draft: str) -> str:
    """The model's spec, checked like any spec; one retry with the problem. It may not make the worker
    import Python (verify / reference / init functions), since those would run code the user did not pick."""
    from ..llm.client import LlmClient  # openai loads only for `spec --llm`
    settings = load_settings({"model": args.model, "base_url": args.base_url})
    client = LlmClient.from_settings(settings)
    messages = [{"role": "user", "content": LLM_PROMPT.format(source=source, draft=draft)}]
    problem = ""
    for _ in range(2):
        reply = client.complete("draft_spec", messages)
        text = _toml_block(reply.text)
        try:
            spec = parse_spec(text, kernel)
            refs = [a.function for a in spec.args if a.function] + [spec.reference or "", spec.verify]
            if any(":" in r for r in refs) or any(a.file for a in spec.args) or spec.cmem_args:
                raise SpecError("", "the draft references files or Python functions; it may not")
            return f"# drafted by the LLM ({reply.model or settings.model}) from the kernel and a guessed draft: " \
                   f"check it before running\n{text}"
        except SpecError as e:
            problem = str(e)
            messages += [{"role": "assistant", "content": reply.text},
                         {"role": "user", "content": f"That spec is not valid: {problem}. Reply with the corrected spec."}]
    raise UserError(f"the LLM's spec is not valid: {problem}")


def spec_command(args) -> int:
    return check_command(args) if args.check else draft_command(args)
