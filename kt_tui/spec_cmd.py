"""`kt-tui spec KERNEL.cu`: draft a launch spec headlessly, or check one (`--check`) with an offline compile."""

from __future__ import annotations

import sys
from pathlib import Path

from .errors import UserError


def _kernel(kf, name: str | None):
    from .kernel.source import pick_kernel
    return pick_kernel(kf.kernels, name, str(kf.path))


def draft_command(args) -> int:
    from .engine.session import read_kernel_file
    from .kernel.draft import draft_note, draft_spec
    from .kernel.spec import dump_spec, spec_path_for

    kf = read_kernel_file(args.kernel_path)
    spec = draft_spec(_kernel(kf, args.kernel), src=kf.source)
    note = draft_note(spec)
    text = ("# drafted by kt-tui spec from the kernel's source: check sizes, inputs and outputs\n"
            + (f"#{note}\n" if note else "") + dump_spec(spec))
    if args.print:
        print(text)
        return 0
    path = Path(args.spec) if args.spec else spec_path_for(kf.path)
    if path.exists():
        raise UserError(f"{path}: exists; not overwritten (use --print to see a draft, --check to check it)")
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}" + (f"\nnote:{note}" if note else ""))
    return 0


def compile_spec(source: str, spec):
    """Compile the kernel at the spec's default configuration (defines, template instance included)."""
    from .gpu.compile import compile_check
    if "<" in spec.kernel:  # a template kernel compiles to nothing until it is instantiated
        source += f"\ntemplate __global__ decltype({spec.kernel}) {spec.kernel};\n"
    return compile_check(source, {**spec.define_values(), **spec.baseline_params()},
                         compiler_options=spec.compiler_options or None, block_size_names=spec.block_size_names)


def check_command(args) -> int:
    """Exit 0: the spec is valid and the kernel compiles at its default configuration; else 2 with why."""
    from .engine.session import load_kernel_spec, read_kernel_file
    from .gpu.compile import find_nvcc, find_nvrtc

    kf = read_kernel_file(args.kernel_path)
    kernel, spec = load_kernel_spec(kf, args.spec, args.kernel)
    if not find_nvcc() and not find_nvrtc():
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


def spec_command(args) -> int:
    return check_command(args) if args.check else draft_command(args)
