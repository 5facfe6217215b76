"""A recorded tune_kernel / run_kernel call becomes a kernel file, a launch spec and its data files."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import UserError
from ..files import refuse_existing
from ..gpu.protocol import SEARCHES
from ..kernel.expr import ExprError, evaluate, names_in
from ..kernel.inputs import bf16_value, vector_dtype
from ..kernel.source import SourceError, find_kernels, read_source
from ..kernel.spec import DTYPES, Arg, Spec, SpecError, check_spec, dump_spec, spec_path_for
from ..kernel.values import BadValue, check_tune_params
from ..kernel.vectors import param_vector, vector_bytes, vector_scalar
from ..words import counted
from .checks import decide
from .hostc import NotLaunchable, launched_kernel

CUDA_LANGS = {"cuda", "cupy", "nvcuda", "pycuda"}
AXIS_NAMES = ("nx", "ny", "nz")


def _vector(p: Any, a: dict[str, Any]) -> tuple[str, tuple[Any, ...]] | None:
    """A CUDA vector parameter passed by value (`float2 c`) as the script passes it, a numpy scalar of its
    bytes (a struct, a complex64, a uint64 packing two floats), as (its type, its lanes); None for others."""
    vector = None if p.is_pointer else param_vector(p.base_type)
    data = bytes.fromhex(a["bytes"]) if isinstance(a.get("bytes"), str) else None
    if vector is None or data is None or len(data) != vector_bytes(vector):
        return None
    struct = np.frombuffer(data, vector_dtype(vector))[0]
    lanes = tuple(struct[lane].item() for lane in struct.dtype.names or ())
    bf16 = (vector_scalar(vector) or ("",))[0] == "bfloat16"  # its lanes' bits
    return vector, tuple(bf16_value(v) for v in lanes) if bf16 else lanes


class CallError(Exception):
    """One call cannot be imported; the message says why."""


@dataclass
class Imported:
    kernel: str
    files: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    losses: list[str] = field(default_factory=list)  # what of the call the import could not keep
    search: str | None = None  # kernel_tuner's strategy, as kt-tui's --search
    search_options: dict = field(default_factory=dict)
    call: int = 0  # the script's kernel_tuner call it comes from, counted from 0

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
        raise CallError(
            f"the kernel source is a Python function ({src['generator']}) that generates code, and "
            f"{src['why']}: write the CUDA text to a .cu file and pass that"
        )
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
    sizes: dict[str, int] = {}
    out: list[str | int] = []
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


def _number(v):
    """A define whose expression uses no name (a function that returns numbers) as its value."""
    if isinstance(v, str):
        try:
            if not names_in(v):
                value = evaluate(v, {})
                return int(value) if float(value).is_integer() else value
        except ExprError:
            return v
    return v


def _size_name(n: int, sizes: dict):
    """An array's length as a size expression when it is one ("n", "nx*ny"), else the number."""
    for name, v in sizes.items():
        if v == n:
            return name
    if len(sizes) > 1 and int(np.prod(list(sizes.values()))) == n:
        return "*".join(sizes)
    return n


@dataclass
class Batch:
    """What the calls of one script share: file stems, each staged array's file in the output folder
    (written once, whoever uses it again), the files of calls imported so far."""

    staging: Path
    out_dir: Path
    calls: list
    force: bool = False
    taken: set = field(default_factory=set)
    placed: dict = field(default_factory=dict)  # staged .npy -> its name in out_dir
    kernel_files: dict = field(default_factory=dict)  # call index -> its .cu's name in out_dir

    def array(self, staged: str) -> np.ndarray:
        path = self.out_dir / self.placed[staged] if staged in self.placed else self.staging / staged
        return np.load(path, mmap_mode="r", allow_pickle=False)


def _launched(call: dict, src: str, extra: list[Path]) -> tuple[dict, str, list[str]]:
    lang = str(call.get("lang") or "CUDA")
    if lang.lower() in CUDA_LANGS:
        return call, src, []
    if lang.upper() != "C":
        raise CallError(f"lang = {lang!r} is not supported: kt-tui tunes CUDA kernels")
    try:
        return launched_kernel(call, src, extra)
    except NotLaunchable as e:
        raise CallError(f'lang = "C" (a host function) is not tuned by kt-tui, which tunes CUDA kernels: {e}') from None


def _partial_reads(call: dict, arrays: list, problem_size: list, sizes: dict) -> list[str]:
    """Inputs far larger than anything the call says it works on: the kernel likely reads part of them."""
    extent = int(np.prod([sizes.get(p, p) if not isinstance(sizes.get(p, p), str) else 1 for p in problem_size]))
    scalars = [a["value"] for a in call["args"] if isinstance(a.get("value"), int)]
    bound = max([extent, *scalars])
    return [
        f"{name} holds {size} elements, while the problem size is {extent} and the largest integer argument "
        f"{max(scalars, default=0)}: this call likely reads only part of it (it is stored whole, once)"
        for name, size in arrays
        if size > 16 * bound
    ]


def _strategy(call: dict, imported: Imported) -> None:
    name = call.get("strategy")
    if name is None:
        return
    options = call.get("strategy_options") or {}
    if isinstance(name, str) and name in SEARCHES:
        imported.search, imported.search_options = name, options
        flags = "".join(f" --search-option {k}={v}" for k, v in options.items())
        imported.notes.append(
            f"strategy {name!r}: run it with --search {name}{flags} (kt-tui's default search is its own)"
        )
    else:
        what = name["custom"] if isinstance(name, dict) else repr(name)
        imported.losses.append(
            f"strategy {what} has no kt-tui equivalent (known: {', '.join(SEARCHES)}); kt-tui's own search is used"
        )


def convert_call(call: dict, index: int, batch: Batch) -> Imported:
    """Write DIR/<kernel>.cu, .cu.toml, each input array once as .npy (+ .reference.npz, .cmem.npz);
    CallError if it cannot."""
    if call["errors"]:
        raise CallError("; ".join(call["errors"]))
    src, extra_files = _source_text(call)
    call, src, launch_notes = _launched(call, src, extra_files)
    base = call["kernel_name"].split("<")[0].strip()
    kernel = next((k for k in find_kernels(src) if k.name == base), None)
    if kernel is None:
        raise CallError(f"no __global__ kernel named {base!r} in its source")
    if len(kernel.params) != len(call["args"]):
        raise CallError(
            f"the kernel takes {counted(len(kernel.params), 'argument')}, the script passes {len(call['args'])}"
        )
    problem_size, sizes = _problem_size(call)
    try:
        check_tune_params(call["tune_params"])
    except BadValue as e:
        raise CallError(str(e)) from None
    stem = _unique_stem(base, batch.taken)
    check = decide(call, src, kernel, batch.calls, batch.kernel_files)
    atol = call.get("atol")
    args, big = [], []
    new_arrays: dict[str, str] = {}  # staged array -> its file name here
    reference: dict[str, Any] = {}  # Any: numpy's savez stub would take an array for allow_pickle
    for i, (p, a) in enumerate(zip(kernel.params, call["args"])):
        where = f"argument {i} ({p.name})"
        if "unsupported" in a:
            raise CallError(
                f"{where}: a {a['unsupported']} argument is not supported by kt-tui yet (numpy arrays and numbers are)"
            )
        if (vector := _vector(p, a)) is not None:
            args.append(Arg(name=p.name, type=vector[0], init="constant", value=vector[1]))
            continue
        dtype = DTYPES.get(a["dtype"])
        if dtype is None:
            raise CallError(
                f"{where}: numpy type {a['dtype']} is not supported "
                f"(use one of {', '.join(sorted(set(DTYPES.values())))})"
            )
        if "array" in a:
            name = batch.placed.get(a["array"]) or new_arrays.get(a["array"]) or f"{stem}.{p.name}.npy"
            if a["array"] not in batch.placed:
                new_arrays.setdefault(a["array"], name)
            out = p.name in check.outputs
            if not out:
                big.append((p.name, a["size"]))
            args.append(
                Arg(
                    name=p.name,
                    type=dtype,
                    size=_size_name(a["size"], sizes),
                    init="file",
                    file=name,
                    output=out,
                    atol=float(atol) if out and atol is not None else None,
                )
            )
            answer = call.get("answer") or []
            if i < len(answer) and answer[i] and not check.reference_kernel and i not in call.get("chained", []):
                reference[p.name] = batch.array(answer[i])
        else:
            value = a["value"]
            named = next((k for k, v in sizes.items() if v == value and isinstance(value, int)), None)
            args.append(Arg(name=p.name, type=dtype, init="constant", value=named or value))
    notes = launch_notes + list(call["notes"]) + check.notes + _partial_reads(call, big, problem_size, sizes)
    if not any(a.output for a in args):
        raise CallError("the kernel has no array argument to check")
    spec = Spec(
        kernel=call["kernel_name"],
        args=args,
        problem_size=problem_size,
        sizes=sizes,
        tune_params=call["tune_params"],
        verify_sizes=[],
    )
    for key in ("grid_div_x", "grid_div_y", "grid_div_z", "block_size_names"):
        if call.get(key) is not None:
            setattr(spec, key, [str(x) for x in call[key]])
    spec.restrictions = [str(r) for r in call.get("restrictions") or []]
    spec.compiler_options = [str(o) for o in call.get("compiler_options") or []]
    if call.get("iterations"):
        spec.iterations = int(call["iterations"])
    spec.defines = {k: _number(v) for k, v in (call.get("defines") or {}).items()}
    spec.defines_only = call.get("defines") is not None  # kernel_tuner then defines nothing else
    if call.get("smem_size") is not None:
        spec.smem_size = call["smem_size"] if isinstance(call["smem_size"], (int, str)) else str(call["smem_size"])
    losses = list(call.get("losses", [])) + check.losses
    if call.get("objective") not in (None, "time"):
        losses.append(f"objective {call['objective']!r} not imported: kt-tui minimises time")
    kernel_file = batch.out_dir / f"{stem}.cu"
    files = [kernel_file, spec_path_for(kernel_file)]
    planned = files + [batch.out_dir / n for n in new_arrays.values()]
    planned += (
        [batch.out_dir / f"{stem}.reference.npz"] * bool(reference)
        + [batch.out_dir / f"{stem}.cmem.npz"] * bool(call.get("cmem_args"))
        + [batch.out_dir / f"{stem}_verify.py"] * bool(call.get("verify") and call.get("verify_source"))
    )
    copies = [f for f in extra_files if f.is_file() and f.resolve() != (batch.out_dir / f.name).resolve()]
    planned += [batch.out_dir / f.name for f in copies]
    if check.reference_kernel:
        spec.reference = dict(check.reference_kernel)
    if check.unverified:
        spec.verify, spec.verify_reason = "none", check.unverified
    try:
        check_spec(spec, kernel)  # before anything is written
    except SpecError as e:
        raise CallError(f"the spec it gives is not valid: {e}") from None
    try:
        refuse_existing(planned, batch.force)
    except UserError as e:
        raise CallError(str(e).removeprefix("--out: ")) from None
    batch.out_dir.mkdir(parents=True, exist_ok=True)
    spec.base_dir = str(batch.out_dir.resolve())
    kernel_file.write_text(src, encoding="utf-8")
    for staged, name in new_arrays.items():
        _place(batch, staged, name)
        files.append(batch.out_dir / name)
    if reference:
        spec.reference = f"{stem}.reference.npz"
        np.savez(batch.out_dir / spec.reference, **reference)
        files.append(batch.out_dir / spec.reference)
    if call.get("cmem_args"):
        spec.cmem_args = f"{stem}.cmem.npz"
        cmem: dict[str, Any] = {
            k: np.asarray(batch.array(staged)).reshape(shape) for k, staged, shape in call["cmem_args"]
        }
        np.savez(batch.out_dir / spec.cmem_args, **cmem)
        files.append(batch.out_dir / spec.cmem_args)
    _verify(call, spec, notes, losses, stem, files)
    for f in copies:
        shutil.copyfile(f, batch.out_dir / f.name)
        files.append(batch.out_dir / f.name)
    batch.kernel_files[index] = kernel_file.name
    imported = Imported(kernel=call["kernel_name"], files=files, notes=notes, losses=losses, call=index)
    _strategy(call, imported)
    files[1].write_text(_header(call, index, imported) + dump_spec(spec), encoding="utf-8")
    return imported


def _place(batch: Batch, staged: str, name: str) -> None:
    """Move a staged array into the output folder (a rename where both are on one disk)."""
    target = batch.out_dir / name
    if batch.force:
        target.unlink(missing_ok=True)
    shutil.move(str(batch.staging / staged), str(target))
    batch.placed[staged] = name


def _verify(call: dict, spec: Spec, notes: list, losses: list, stem: str, files: list) -> None:
    ref = call.get("verify")
    if not ref:
        return
    func = ref.partition(":")[2].rpartition(".")[2]
    if call.get("verify_source"):
        path = Path(spec.base_dir or ".", f"{stem}_verify.py")
        path.write_text(call["verify_source"], encoding="utf-8")
        files.append(path)
        spec.verify = f"{stem}_verify:{func}"
        notes.append(f'verify = "{spec.verify}": the script\'s function, copied; it runs in the GPU worker only')
    else:
        spec.verify = "none"
        spec.verify_reason = (
            f"the script's verify function {func} could not be copied; write it in a .py file "
            'next to the kernel and set verify = "module:function"'
        )
        losses.append(
            f"verify function {func} not kept ({call.get('verify_why', 'see above')}): this kernel is "
            "UNVERIFIED until you fix that (verify_reason in the spec)"
        )


def _header(call: dict, index: int, imported: Imported) -> str:
    what = "tune_kernel" if call["kind"] == "tune" else "run_kernel (a reference kernel)"
    lines = [f"# imported by kt-tui import from call {index + 1}, {what}"]
    lines += [f"# note: {n}" for n in imported.notes + imported.losses]
    return "\n".join(" ".join(line.split()) for line in lines) + "\n"
