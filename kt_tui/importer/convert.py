"""A recorded tune_kernel / run_kernel call becomes a kernel file, a launch spec and its data files."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import UserError
from ..files import refuse_existing
from ..kernel.source import SourceError, find_kernels, read_source
from ..kernel.spec import DTYPES, Arg, Spec, SpecError, check_spec, dump_spec, spec_path_for
from ..kernel.draft import kernel_body, written_pointers
from ..kernel.values import BadValue, check_tune_params

CUDA_LANGS = {"cuda", "cupy", "nvcuda", "pycuda"}
AXIS_NAMES = ("nx", "ny", "nz")


class CallError(Exception):
    """One call cannot be imported; the message says why."""


@dataclass
class Imported:
    kernel: str
    files: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def kernel_path(self) -> Path:
        return self.files[0]


def _unique_stem(base: str, taken: set) -> str:
    stem, k = base, 2
    while stem in taken:
        stem, k = f"{base}_{k}", k + 1
    taken.add(stem)
    return stem


def _source_text(call: dict) -> tuple[str, list[Path]]:
    src = call["source"]
    if "generator" in src:
        raise CallError(f"the kernel source is a Python function ({src['generator']}) that generates code, and "
                        f"{src['why']}: write the CUDA text to a .cu file and pass that")
    if "text" in src:
        return src["text"], []
    files = [Path(f) for f in src["files"]]
    try:
        return read_source(files[0]), files[1:]
    except SourceError as e:
        raise CallError(str(e)) from None


def _problem_size(call: dict) -> tuple[list, dict]:
    ps = call.get("problem_size")
    if ps is None:
        raise CallError("problem_size: the function given could not be read as an expression")
    if not isinstance(ps, list):
        ps = [ps]
    if not 1 <= len(ps) <= 3:
        raise CallError(f"problem_size: expected 1 to 3 entries, got {len(ps)}")
    sizes, out = {}, []
    for i, p in enumerate(ps):
        if isinstance(p, bool) or not isinstance(p, (int, float, str)):
            raise CallError(f"problem_size[{i}]: cannot read {p!r}")
        if isinstance(p, (int, float)) and int(p) > 1:
            name = "n" if len(ps) == 1 else AXIS_NAMES[i]
            sizes[name] = int(p)
            out.append(name)
        else:
            out.append(p if isinstance(p, str) else int(p))
    return out, sizes


def _size_name(n: int, sizes: dict):
    """An array's length as a size expression when it is one ("n", "nx*ny"), else the number."""
    for name, v in sizes.items():
        if v == n:
            return name
    if len(sizes) > 1 and int(np.prod(list(sizes.values()))) == n:
        return "*".join(sizes)
    return n


def _outputs(call: dict, src: str, kernel) -> list[str]:
    names = [p.name for p in kernel.params]
    if call.get("answer") is not None:
        return [names[i] for i, a in enumerate(call["answer"]) if a is not None and i < len(names)]
    return written_pointers(kernel_body(src, kernel), kernel)


def convert_call(call: dict, index: int, staging: Path, out_dir: Path, taken: set, force: bool = False) -> Imported:
    """Write DIR/<kernel>.cu, .cu.toml, .inputs.npz (+ .reference.npz, .cmem.npz); CallError if it cannot."""
    if call["errors"]:
        raise CallError("; ".join(call["errors"]))
    lang = str(call.get("lang") or "CUDA")
    if lang.lower() not in CUDA_LANGS:
        raise CallError(f"lang = {lang!r} is not supported: kt-tui tunes CUDA kernels")
    src, extra_files = _source_text(call)
    base = call["kernel_name"].split("<")[0].strip()
    kernel = next((k for k in find_kernels(src) if k.name == base), None)
    if kernel is None:
        raise CallError(f"no __global__ kernel named {base!r} in its source")
    if len(kernel.params) != len(call["args"]):
        raise CallError(f"the kernel takes {len(kernel.params)} arguments, the script passes {len(call['args'])}")
    problem_size, sizes = _problem_size(call)
    try:
        check_tune_params(call["tune_params"])
    except BadValue as e:
        raise CallError(str(e)) from None
    stem = _unique_stem(base, taken)
    arrays = np.load(staging / call["arrays"], allow_pickle=False)
    outputs = _outputs(call, src, kernel)
    atol = call.get("atol")
    args, inputs, reference = [], {}, {}
    for i, (p, a) in enumerate(zip(kernel.params, call["args"])):
        where = f"argument {i} ({p.name})"
        if "unsupported" in a:
            raise CallError(f"{where}: a {a['unsupported']} argument is not supported by kt-tui yet (numpy arrays and numbers are)")
        dtype = DTYPES.get(a["dtype"])
        if dtype is None:
            raise CallError(f"{where}: numpy type {a['dtype']} is not supported "
                            f"(use one of {', '.join(sorted(set(DTYPES.values())))})")
        if "array" in a:
            inputs[p.name] = arrays[a["array"]]
            out = p.name in outputs
            args.append(Arg(name=p.name, type=dtype, size=_size_name(a["size"], sizes), init="file", file=f"{stem}.inputs.npz",
                            output=out, atol=float(atol) if out and atol is not None else None))
            if call.get("answer") and i < len(call["answer"]) and call["answer"][i] and i not in call.get("chained", []):
                reference[p.name] = arrays[call["answer"][i]]
        else:
            value = a["value"]
            named = next((k for k, v in sizes.items() if v == value and isinstance(value, int)), None)
            args.append(Arg(name=p.name, type=dtype, init="constant", value=named or value))
    notes = list(call["notes"])
    if not any(a.output for a in args):
        first = next((a for a in args if a.is_array), None)
        if first is None:
            raise CallError("the kernel has no array argument to check")
        first.output = True
        notes.append(f"no output found (no answer, no pointer written): {first.name} is marked as the output")
    spec = Spec(kernel=call["kernel_name"], args=args, problem_size=problem_size, sizes=sizes,
                tune_params=call["tune_params"], verify_sizes=[])
    for key in ("grid_div_x", "grid_div_y", "grid_div_z", "block_size_names"):
        if call.get(key) is not None:
            setattr(spec, key, [str(x) for x in call[key]])
    spec.restrictions = [str(r) for r in call.get("restrictions") or []]
    spec.compiler_options = [str(o) for o in call.get("compiler_options") or []]
    if call.get("iterations"):
        spec.iterations = int(call["iterations"])
    spec.defines = dict(call.get("defines") or {})
    spec.defines_only = call.get("defines") is not None  # kernel_tuner then defines nothing else
    if call.get("smem_size") is not None:
        spec.smem_size = call["smem_size"] if isinstance(call["smem_size"], (int, str)) else str(call["smem_size"])
    if call.get("objective") not in (None, "time"):
        notes.append(f"objective {call['objective']!r} not imported: kt-tui minimises time")
    try:
        check_spec(spec, kernel)  # before anything is written
    except SpecError as e:
        raise CallError(f"the spec it gives is not valid: {e}") from None
    files = [out_dir / f"{stem}.cu", spec_path_for(out_dir / f"{stem}.cu"), out_dir / f"{stem}.inputs.npz"]
    planned = files + [out_dir / f"{stem}.reference.npz"] * bool(reference) + [out_dir / f"{stem}.cmem.npz"] * bool(
        call.get("cmem_args")) + [out_dir / f"{stem}_verify.py"] * bool(call.get("verify") and call.get("verify_source"))
    planned += [out_dir / f.name for f in extra_files if f.is_file() and f.resolve() != (out_dir / f.name).resolve()]
    try:
        refuse_existing(planned, force)
    except UserError as e:
        raise CallError(str(e).removeprefix("--out: ")) from None
    out_dir.mkdir(parents=True, exist_ok=True)
    if reference:
        spec.reference = f"{stem}.reference.npz"
        np.savez(out_dir / spec.reference, **reference)
        files.append(out_dir / spec.reference)
    if call.get("cmem_args"):
        spec.cmem_args = f"{stem}.cmem.npz"
        np.savez(out_dir / spec.cmem_args, **{k: arrays[f"cmem_{k}"] for k in call["cmem_args"]})
        files.append(out_dir / spec.cmem_args)
    spec.base_dir = str(out_dir.resolve())
    _verify(call, spec, notes, stem, files)
    files[0].write_text(src, encoding="utf-8")
    np.savez(files[2], **inputs)
    for f in extra_files:
        if f.is_file() and f.resolve() != (out_dir / f.name).resolve():
            shutil.copyfile(f, out_dir / f.name)
            files.append(out_dir / f.name)
    files[1].write_text(_header(call, index) + dump_spec(spec), encoding="utf-8")
    return Imported(kernel=call["kernel_name"], files=files, notes=notes)


def _verify(call: dict, spec: Spec, notes: list, stem: str, files: list) -> None:
    ref = call.get("verify")
    if not ref:
        return
    func = ref.partition(":")[2].rpartition(".")[2]
    if call.get("verify_source"):
        path = Path(spec.base_dir or ".", f"{stem}_verify.py")
        path.write_text(call["verify_source"], encoding="utf-8")
        files.append(path)
        spec.verify = f"{stem}_verify:{func}"
        notes.append(f"verify = \"{spec.verify}\": the script's function, copied; it runs in the GPU worker only")
    else:
        spec.verify = "none"
        spec.verify_reason = f"the script's verify function {func} could not be copied; write it in a .py file " \
                             "next to the kernel and set verify = \"module:function\""
        notes.append(f"this kernel is UNVERIFIED until you fix that (verify_reason in the spec)")


def _header(call: dict, index: int) -> str:
    what = "tune_kernel" if call["kind"] == "tune" else "run_kernel (a reference kernel)"
    lines = [f"# imported by kt-tui import from call {index + 1}, {what}"]
    lines += [f"# note: {n}" for n in call["notes"]]
    return "\n".join(lines) + "\n"
