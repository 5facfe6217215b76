"""The launch spec: how to call a kernel (arguments, sizes, grid) and what to tune.

Stored as TOML beside the kernel (`kernel.cu.toml`). Every problem is reported as a SpecError
naming the field, e.g. ``args[2].type: unknown type 'flaot32'``.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import asdict, dataclass, field
from itertools import islice, product
from pathlib import Path

import numpy as np

from ..files import SPEC_MAX, FileRefused, read_text_file
from ..tomlfile import TomlError, dumps, inline_tables, load_toml
from . import refkernel
from .expr import ExprError, check_names, evaluate, names_in, parse
from .source import Kernel
from .spec_model import ArgFile, read_spec_file
from .spec_stored import check_stored, plain_spec
from .values import BadValue, check_tune_params, name_problem

DTYPES = {
    "float32": "float32",
    "float": "float32",
    "float64": "float64",
    "double": "float64",
    "float16": "float16",
    "half": "float16",
    "__half": "float16",
    "int8": "int8",
    "char": "int8",
    "signed char": "int8",
    "uint8": "uint8",
    "unsigned char": "uint8",
    "int16": "int16",
    "short": "int16",
    "uint16": "uint16",
    "unsigned short": "uint16",
    "int32": "int32",
    "int": "int32",
    "uint32": "uint32",
    "unsigned int": "uint32",
    "unsigned": "uint32",
    "int64": "int64",
    "long long": "int64",
    "long": "int64",
    "size_t": "uint64",
    "uint64": "uint64",
    "unsigned long long": "uint64",
}
# CUDA vector types: arrays of them are arrays of their base type, `lanes` values per element
VECTORS = {
    f"{c}{n}": (DTYPES_BASE, n)
    for c, DTYPES_BASE in (("float", "float32"), ("double", "float64"), ("int", "int32"), ("uint", "uint32"))
    for n in (2, 4)
}
INITS = (
    "random",
    "zeros",
    "ones",
    "range",
    "constant",
    "poison",
    "uniform",
    "normal",
    "positive",
    "file",
    "copy",
    "function",
)
VERIFY_MODES = ("elementwise", "none")  # or "module:function", a Python file next to the kernel
# Default tolerances by dtype (atol, rtol); integers compare exactly.
DEFAULT_TOL = {"float64": (1e-9, 1e-7), "float32": (1e-5, 1e-4), "float16": (1e-2, 1e-2)}
BASELINE_TRIES = 200_000  # configurations looked at for a valid baseline, in kernel_tuner's order
SMALL_SIZES = (37, 29, 23)  # the default small check size of the 1st, 2nd, 3rd problem dimension
MAX_ARRAY_BYTES = 80 * 2**30  # what the largest GPUs kt-tui targets hold, with room to spare
MAX_ARRAY_ELEMENTS = 10**10


SpecError = TomlError  # the one error of every TOML file: `file: field: problem`


@dataclass
class Arg:
    name: str
    type: str  # numpy dtype name
    size: str | int | None = None  # element count expression; None means a scalar
    init: str = "random"
    value: str | int | float | None = None  # scalar value, or the constant for init="constant"
    seed: int = 1
    output: bool = False
    atol: float | None = None
    rtol: float | None = None
    file: str | None = None  # init = "file": a .npy, or a .npz holding an array of this name
    low: int | float | None = None  # random values in [low, high)
    high: int | float | None = None
    copy_of: str | None = None  # init = "copy": starts as a copy of this input
    function: str | None = None  # init = "function": "module:function", called with the sizes (worker only)

    @property
    def is_array(self) -> bool:
        return self.size is not None

    @property
    def dtype(self) -> str:
        """The numpy dtype of the array's values (a vector type's base type)."""
        return VECTORS.get(self.type, (self.type, 1))[0]

    @property
    def lanes(self) -> int:
        return VECTORS.get(self.type, (self.type, 1))[1]

    def tolerance(self) -> tuple[float, float]:
        atol, rtol = DEFAULT_TOL.get(self.dtype, (0.0, 0.0))
        return (self.atol if self.atol is not None else atol, self.rtol if self.rtol is not None else rtol)


@dataclass
class Spec:
    kernel: str
    args: list[Arg]
    problem_size: list[str | int]
    sizes: dict[str, int] = field(default_factory=dict)
    tune_params: dict[str, list] = field(default_factory=dict)
    defaults: dict[str, object] = field(default_factory=dict)
    grid_div_x: list[str] | None = None
    grid_div_y: list[str] | None = None
    grid_div_z: list[str] | None = None
    block_size_names: list[str] | None = None
    restrictions: list[str] = field(default_factory=list)
    compiler_options: list[str] = field(default_factory=list)
    timeout_s: float = 30.0
    iterations: int = 7
    verify_sizes: list[dict] | None = None  # extra [sizes] to check results at; None: derived, []: none
    metrics: dict[str, str | int | float] = field(default_factory=dict)  # bytes / flops per run, over sizes
    defines: dict[str, str | int | float] = field(default_factory=dict)  # -D name=value, values may use sizes
    defines_only: bool = False  # only [defines] are defined (a kernel_tuner script's `defines=`)
    cmem_args: str | None = None  # a .npz of constant-memory symbols by name
    smem_size: str | int | None = None  # dynamic shared memory bytes: an expression over sizes and tuned params
    reference: str | dict | None = None  # a .npz of expected outputs, "module:function", or a [reference] kernel
    verify: str = "elementwise"  # "elementwise", "none" (needs verify_reason) or "module:function"
    verify_reason: str | None = None
    base_dir: str | None = None  # the spec's folder: file names above are relative to it (not written)

    # -- derived values -------------------------------------------------------------------
    def problem_size_values(self, sizes: dict | None = None, params: dict | None = None) -> list[int]:
        names = {**(params or self.baseline_params()), **(sizes or self.sizes)}
        return [int(evaluate(p, names)) for p in self.problem_size]

    def tuned_problem_size(self) -> bool:
        """Whether the problem size depends on a tuned parameter (kernel_tuner then evaluates it per config)."""
        return any(names_in(p) & set(self.tune_params) for p in self.problem_size)

    def kernel_base_name(self) -> str:
        return self.kernel.split("<")[0].strip()

    def file_path(self, name: str) -> Path:
        return Path(self.base_dir or ".", name)

    def smem_function(self, sizes: dict | None = None):
        """kernel_tuner's smem_args size: bytes of dynamic shared memory for a configuration."""
        return lambda params: int(evaluate(self.smem_size, {**params, **(sizes or self.sizes)}))

    def define_values(self, sizes: dict | None = None) -> dict:
        """Each define's value at `sizes`; one that uses tunable parameters is a function of the
        configuration, as kernel_tuner takes it."""
        sizes = sizes or self.sizes
        out = {}
        for k, v in self.defines.items():
            if not isinstance(v, str):
                out[k] = v
            elif names_in(v) & set(self.tune_params):
                out[k] = lambda params, v=v: _whole(evaluate(v, {**params, **sizes}))
            else:
                out[k] = evaluate(v, sizes)
        return out

    def tolerances(self) -> list[dict]:
        """Each output's atol / rtol, and whether the spec gives it or the dtype default does."""
        out = []
        for a in self.outputs():
            atol, rtol = a.tolerance()
            out.append(
                {
                    "output": a.name,
                    "type": a.type,
                    "atol": atol,
                    "rtol": rtol,
                    "atol_from": "spec" if a.atol is not None else "default",
                    "rtol_from": "spec" if a.rtol is not None else "default",
                }
            )
        return out

    def extra_sizes(self) -> list[dict]:
        """The sizes results are also checked at: [{"label": "n=349525", "sizes": {...}}, ...]."""
        if any(a.init == "file" for a in self.args):
            return []  # the files hold one size
        tables = self.verify_sizes if self.verify_sizes is not None else default_verify_sizes(self)
        out, seen = [], set()
        for t in tables:
            merged = {**self.sizes, **t}
            label = ", ".join(f"{k}={merged[k]}" for k in self.sizes if merged[k] != self.sizes[k])
            if label and label not in seen:
                seen.add(label)
                out.append({"label": label, "sizes": merged})
        return out

    def baseline_params(self) -> dict:
        """The original kernel's configuration: `defaults`, and for the parameters they leave out
        the first values in kernel_tuner's order that satisfy the restrictions and the thread limit
        (kernel_tuner's first configuration when there are no defaults)."""
        first = {k: self.defaults.get(k, v[0]) for k, v in self.tune_params.items()}
        if self.allows(first):
            return first
        free = [k for k in self.tune_params if k not in self.defaults]
        for combo in islice(product(*(self.tune_params[k] for k in free)), BASELINE_TRIES):
            config = {**first, **dict(zip(free, combo))}
            if self.allows(config):
                return config
        return first

    def allows(self, config: dict) -> bool:
        """Whether `config` satisfies the restrictions and kernel_tuner's limit of 1024 threads."""
        threads = 1
        for name in self.block_size_names or ("block_size_x", "block_size_y", "block_size_z"):
            v = config.get(name, 1)
            threads *= v if isinstance(v, int) and not isinstance(v, bool) else 1
        if threads > 1024:
            return False
        try:
            return all(parse(r, "restriction").holds(config) for r in self.restrictions)
        except ExprError:
            return True  # a broken restriction is reported by check_spec, naming it

    def outputs(self) -> list[Arg]:
        return [a for a in self.args if a.output]

    def space_size(self) -> int:
        n = 1
        for values in self.tune_params.values():
            n *= len(values)
        return n

    def launch_dict(self, legacy: bool = False) -> dict:
        """What determines a kernel version's runs (not the parameter values or how it is checked).
        Restrictions count when there are any; `legacy`: the dict of older versions, without them."""
        d = asdict(self)
        for k in (
            "tune_params",
            "defaults",
            "timeout_s",
            "iterations",
            "verify_sizes",
            "metrics",
            "base_dir",
            "verify",
            "verify_reason",
        ):
            d.pop(k)
        if legacy or not d["restrictions"]:
            d.pop("restrictions")
        for a in d["args"]:
            a.pop("atol"), a.pop("rtol")
            for k in ("file", "low", "high", "copy_of", "function"):
                if a[k] is None:
                    a.pop(k)  # unused keys leave the version id of older specs as it was
        for k in ("defines", "cmem_args", "reference", "smem_size"):
            if d[k] is None or d[k] == {}:
                d.pop(k)
        if not d["defines_only"]:
            d.pop("defines_only")
        return d

    def to_dict(self) -> dict:
        return asdict(self)


def _whole(v):
    return int(v) if isinstance(v, float) and v.is_integer() else v


def spec_from_plain(d: dict | str) -> Spec:
    """A Spec from Spec.to_dict() output (as stored in the session database, as JSON text or parsed, or
    sent to the worker); SpecError for anything else."""
    d = plain_spec(d)
    try:
        out = {k: v for k, v in d.items() if v is not None}
        out["args"] = [{k: v for k, v in a.items() if v is not None} for a in d["args"]]
        base_dir = out.pop("base_dir", None)
        spec = spec_from_dict(out)
    except (KeyError, TypeError, AttributeError) as e:
        raise SpecError("", f"not a spec kt-tui stored ({type(e).__name__}: {e})", "the stored spec") from None
    except SpecError as e:
        raise SpecError(e.field, e.problem, "the stored spec") from None
    spec.base_dir = base_dir
    try:
        check_stored(spec)  # stored text is untrusted: a hand-edited DB is input like any other
    except SpecError as e:
        raise SpecError(e.field, e.problem, "the stored spec") from None
    return spec


def version_hash(source: str, spec: Spec, legacy: bool = False) -> str:
    """Kernel version id: the source plus the launch part of the spec. `legacy`: the id that
    versions had before restrictions counted (caches recorded then are found by it)."""
    h = hashlib.sha256(source.encode())
    h.update(json.dumps(spec.launch_dict(legacy), sort_keys=True, default=str).encode())
    for name, digest in _file_digests(spec):  # data and code files: new contents, a new version
        h.update(f"{name}={digest}".encode())
    return h.hexdigest()[:16]


def version_ids(source: str, spec: Spec) -> list[str]:
    """The version's id, then its legacy id when that differs: the ids a recorded cache may carry."""
    return list(dict.fromkeys([version_hash(source, spec), version_hash(source, spec, legacy=True)]))


def _file_digests(spec: Spec) -> list[tuple[str, str]]:
    ref = refkernel.file_and_name(spec.reference)[0] if refkernel.is_kernel(spec.reference) else spec.reference
    names = [a.file for a in spec.args if a.file] + [spec.cmem_args or "", ref or ""]
    refs = [a.function for a in spec.args if a.function] + [spec.verify, ref or ""]
    names += [ref.partition(":")[0] + ".py" for ref in refs if _is_function_ref(ref)]
    out = []
    for name in sorted({n for n in names if n and not _is_function_ref(n)}):
        path = spec.file_path(name)
        out.append((name, hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"))
    return out


# -- reading and checking ------------------------------------------------------------------
def spec_path_for(kernel_path: str | Path) -> Path:
    return Path(str(kernel_path) + ".toml")


def load_spec(path: str | Path, kernel: Kernel | None = None) -> Spec:
    p = Path(path)
    try:
        text = read_text_file(p, "spec", SPEC_MAX)
    except FileRefused as e:
        problem = str(e).removeprefix(f"spec {p}: ")
        raise SpecError("", "no such spec file" if problem == "no such file" else problem, p) from None
    return parse_spec(text, kernel, p)


def parse_spec(
    text: str, kernel: Kernel | None = None, path: str | Path | None = None, base_dir: str | Path | None = None
) -> Spec:
    data = load_toml(text, path)
    try:
        spec = spec_from_dict(data)
        if base_dir or path:
            spec.base_dir = str(Path(base_dir or Path(path).parent).resolve())
        check_spec(spec, kernel)
    except SpecError as e:
        raise SpecError(e.field, e.problem, path) from None
    return spec


def _want(cond: bool, field_name: str, problem: str) -> None:
    if not cond:
        raise SpecError(field_name, problem)


def spec_from_dict(data: dict) -> Spec:
    """A Spec from a spec's TOML: keys and types checked by the model (spec_model.py), then the
    values that depend on one another here; SpecError names the field."""
    f = read_spec_file(data)
    spec = Spec(
        kernel=f.kernel,
        args=[_arg(i, a) for i, a in enumerate(f.args)],
        problem_size=f.problem_size,
        sizes=f.sizes,
        tune_params=f.tune_params,
        defaults=f.defaults,
        grid_div_x=f.grid_div_x,
        grid_div_y=f.grid_div_y,
        grid_div_z=f.grid_div_z,
        block_size_names=f.block_size_names,
        restrictions=f.restrictions,
        compiler_options=f.compiler_options,
        verify_sizes=f.verify_sizes,
        metrics=_metrics(f.metrics, f.sizes),
        defines=f.defines,
        defines_only=f.defines_only,
        smem_size=f.smem_size,
    )
    _check_options(spec.compiler_options)  # also when a stored spec is read back: a hand-edited DB is data too
    for key in ("cmem_args", "reference"):
        v = getattr(f, key)
        if key == "reference" and isinstance(v, dict):  # a reference kernel (kernel/refkernel.py)
            try:
                v = refkernel.check_table(v)
            except refkernel.BadReference as e:
                raise SpecError(e.field, e.problem) from None
        ok = (
            v is None
            or refkernel.is_kernel(v)
            or (isinstance(v, str) and (v.endswith(".npz") or (key == "reference" and _is_function_ref(v))))
        )
        _want(
            ok,
            key,
            "expected a .npz file name"
            + (
                ' or "module:function" or a [reference] table with kernel = "FILE.cu:NAME"'
                if key == "reference"
                else ""
            ),
        )
        setattr(spec, key, v)
    _want(
        isinstance(f.verify, str) and (f.verify in VERIFY_MODES or _is_function_ref(f.verify)),
        "verify",
        f'expected one of {", ".join(VERIFY_MODES)} or "module:function" (a .py file next to the kernel), '
        f"got {f.verify!r}",
    )
    _want(
        f.verify != "none" or bool(f.verify_reason and f.verify_reason.strip()),
        "verify_reason",
        'verify = "none" needs a reason, e.g. verify_reason = "the output is random"',
    )
    spec.verify, spec.verify_reason = f.verify, f.verify_reason
    if f.timeout_s is not None:
        spec.timeout_s = float(f.timeout_s)
    if f.iterations is not None:
        spec.iterations = f.iterations
    return spec


def _metrics(value: dict, sizes: dict) -> dict:
    for k, v in value.items():
        try:
            _want(evaluate(v, sizes) >= 0, f"metrics.{k}", f"must be >= 0, got {v!r}")
        except ExprError as e:
            raise SpecError(f"metrics.{k}", str(e)) from None
    return dict(value)


def default_verify_sizes(spec: Spec) -> list[dict]:
    """A ragged size (odd, no multiple of any tuned value, about a third of the spec's) and a small
    one, for each size the problem_size uses; a size not valid for the spec's expressions is left out."""
    dims = [n for n in spec.sizes if any(n in names_in(p) for p in spec.problem_size)]
    divisors = {
        v
        for vals in spec.tune_params.values()
        for v in vals
        if isinstance(v, int) and not isinstance(v, bool) and v > 1
    }
    out = []
    for attempt in range(8):
        ragged = {
            n: _ragged(spec.sizes[n] // 3 - 2 * (k + attempt), divisors)
            for k, n in enumerate(dims)
            if spec.sizes[n] >= 16
        }
        if ragged and _valid_at(spec, {**spec.sizes, **ragged}):
            out.append(ragged)
            break
    small = {n: SMALL_SIZES[k % 3] for k, n in enumerate(dims) if spec.sizes[n] > SMALL_SIZES[k % 3]}
    if small and _valid_at(spec, {**spec.sizes, **small}):
        out.append(small)
    return out


def _ragged(start: int, divisors: set) -> int:
    r = start if start % 2 else start - 1
    while r > 3 and any(r % d == 0 for d in divisors):
        r -= 2
    return max(r, 1)


def _valid_at(spec: Spec, sizes: dict) -> bool:
    try:
        _check_sizes(spec, sizes)
    except SpecError:
        return False
    return True


def _arg(i: int, a: ArgFile) -> Arg:
    where = f"args[{i}] ({a.name})"
    t = a.type
    dtype = DTYPES.get(t.replace("*", "").strip()) or (t.strip() if t.strip() in VECTORS else None)
    _want(
        dtype is not None,
        f"{where}.type",
        f"unknown type {t!r} (use one of {', '.join(sorted(set(DTYPES.values())) + sorted(VECTORS))})",
    )
    _want(
        dtype not in VECTORS or a.size is not None,
        f"{where}.type",
        f"a {dtype} scalar is not supported; vector types are for arrays",
    )
    init = a.init if a.init is not None else "random" if a.size is not None else "constant"
    _want(init in INITS, f"{where}.init", f"unknown init {init!r} (use one of {', '.join(INITS)})")
    _want(init != "file" or a.file, f"{where}.file", 'init = "file" needs file = "NAME.npy" or "NAME.npz"')
    _want(
        a.file is None or str(a.file).endswith((".npy", ".npz")), f"{where}.file", "expected a .npy or .npz file name"
    )
    _want(init != "copy" or a.copy_of, f"{where}.copy_of", 'init = "copy" needs copy_of = "ARG"')
    fn = a.function
    _want(
        init != "function" or fn is not None,
        f"{where}.function",
        'init = "function" needs function = "module:function" (a .py file next to the kernel)',
    )
    _want(
        fn is None or (isinstance(fn, str) and _is_function_ref(fn)),
        f"{where}.function",
        f'expected "module:function", got {fn!r}',
    )
    return Arg(
        name=a.name,
        type=dtype,
        size=a.size,
        init=init,
        value=a.value,
        seed=a.seed,
        output=a.output,
        atol=a.atol,
        rtol=a.rtol,
        file=a.file,
        low=a.low,
        high=a.high,
        copy_of=a.copy_of,
        function=fn,
    )


def _is_function_ref(text: str) -> bool:
    module, sep, func = text.partition(":")
    return bool(sep) and module.replace("_", "a").isalnum() and func.replace("_", "a").isalnum()


def function_file(spec: Spec, ref: str) -> Path:
    """The Python file a `module:function` reference imports (it runs only in the GPU worker)."""
    return spec.file_path(ref.partition(":")[0] + ".py")


def _known_names(expr: str, names: set, where: str, what: str = "a tunable parameter") -> None:
    try:
        check_names(expr, names, where, what)
    except ExprError as e:
        raise SpecError(where, str(e).removeprefix(f"{where} ")) from None


def _check_files(spec: Spec) -> None:
    """Referenced files exist (only when the spec's folder is known)."""
    if spec.base_dir is None:
        return
    for i, a in enumerate(spec.args):
        if a.file:
            _want(
                spec.file_path(a.file).is_file(), f"args[{i}] ({a.name}).file", f"no such file {spec.file_path(a.file)}"
            )
        if a.function:
            path = function_file(spec, a.function)
            _want(
                path.is_file(),
                f"args[{i}] ({a.name}).function",
                f"imports {path.name}, which is not next to the spec ({path})",
            )
    if refkernel.is_kernel(spec.reference):
        try:
            refkernel.check_file(spec)
        except refkernel.BadReference as e:
            raise SpecError(e.field, e.problem) from None
    elif spec.reference and _is_function_ref(spec.reference):
        path = function_file(spec, spec.reference)
        _want(path.is_file(), "reference", f"imports {path.name}, which is not next to the spec ({path})")
    for key in ("cmem_args", "reference"):
        if isinstance(getattr(spec, key), str) and getattr(spec, key).endswith(".npz"):
            _want(
                spec.file_path(getattr(spec, key)).is_file(), key, f"no such file {spec.file_path(getattr(spec, key))}"
            )
    if _is_function_ref(spec.verify):
        path = function_file(spec, spec.verify)
        _want(path.is_file(), "verify", f"imports {path.name}, which is not next to the spec ({path})")


def check_spec(spec: Spec, kernel: Kernel | None = None) -> None:
    """Cross-field checks: names resolve, outputs exist, the spec matches the kernel's signature."""
    _check_sizes(spec, spec.sizes)
    for i, extra in enumerate(spec.verify_sizes or []):
        for k in extra:
            _want(
                k in spec.sizes,
                f"verify_sizes[{i}].{k}",
                f"not a name in [sizes] (known: {', '.join(spec.sizes) or 'none'})",
            )
        try:
            _check_sizes(spec, {**spec.sizes, **extra})
        except SpecError as e:
            raise SpecError(f"verify_sizes[{i}]", f"{e.field}: {e.problem}") from None
    _check_rest(spec, kernel)
    if refkernel.is_kernel(spec.reference):
        try:
            refkernel.check_names_in(spec)
        except refkernel.BadReference as e:
            raise SpecError(e.field, e.problem) from None


def _check_sizes(spec: Spec, sizes: dict) -> None:
    """Every size expression is valid at `sizes`."""
    for i, p in enumerate(spec.problem_size):
        try:
            v = evaluate(p, {**spec.baseline_params(), **sizes})
        except ExprError as e:
            raise SpecError(f"problem_size[{i}]", str(e)) from None
        _want(v >= 1, f"problem_size[{i}]", f"must be >= 1, got {v}")
    elements = nbytes = 0
    scalars = []  # checked after the arrays' total: a size too large is the clearer message
    for i, a in enumerate(spec.args):
        where = f"args[{i}] ({a.name})"
        if a.is_array:
            try:
                n = evaluate(a.size, sizes)
            except ExprError as e:
                raise SpecError(f"{where}.size", str(e)) from None
            _want(int(n) == n and n >= 1, f"{where}.size", f"must be a positive integer, got {n}")
            elements, nbytes = elements + int(n), nbytes + int(n) * _itemsize(a.dtype) * a.lanes
            if a.init == "constant":
                _want(isinstance(a.value, (int, float)), f"{where}.value", 'init = "constant" needs a numeric value')
                _fits(a, a.value, f"{where}.value")
            for key in ("low", "high"):
                if getattr(a, key) is not None:
                    try:
                        _fits(a, evaluate(getattr(a, key), sizes), f"{where}.{key}")
                    except ExprError as e:
                        raise SpecError(f"{where}.{key}", str(e)) from None
            if a.low is not None and a.high is not None:
                _want(evaluate(a.low, sizes) < evaluate(a.high, sizes), f"{where}.high", f"must be above low ({a.low})")
            if a.init in ("random", "uniform", "normal", "positive"):
                low, high = random_bounds(a, sizes)
                _want(
                    low < high and math.isfinite(high - low),
                    f"{where}.low" if a.low is not None else f"{where}.high",
                    f"the values are drawn from [{low}, {high}) in {a.dtype}: low must be below high "
                    "(give both low and high)",
                )
            if a.init == "copy":
                _want(
                    a.copy_of in {b.name for b in spec.args if b.is_array and b is not a},
                    f"{where}.copy_of",
                    f"{a.copy_of!r} is not another array argument",
                )
        else:
            _want(not a.output, f"{where}.output", "a scalar cannot be an output (give it a size)")
            _want(a.value is not None, f"{where}.value", "a scalar needs a value (a number or a size name)")
            try:
                scalars.append((a, evaluate(a.value, sizes), f"{where}.value"))
            except ExprError as e:
                raise SpecError(f"{where}.value", str(e)) from None
    _want(
        nbytes <= MAX_ARRAY_BYTES and elements <= MAX_ARRAY_ELEMENTS,
        "args",
        f"the arrays need {nbytes:.1e} bytes ({nbytes / 1e9:.3g} GB, {elements:.1e} elements), more than "
        f"a GPU holds (at most {MAX_ARRAY_BYTES / 2**30:.0f} GiB and {MAX_ARRAY_ELEMENTS:.0e} elements)",
    )
    for a, v, where in scalars:
        _fits(a, v, where)


def _fits(a: Arg, v, where: str) -> None:
    """`v` can be stored in the argument's dtype (no overflow, no inf from a finite number)."""
    _want(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
        where,
        f"expected a finite number, got {v!r}",
    )
    if a.dtype.startswith("float"):
        big = float(np.finfo(a.dtype).max)
        _want(abs(v) <= big, where, f"{v!r} is beyond the range of {a.dtype} (at most {big:.4g})")
    else:
        info = np.iinfo(a.dtype)
        _want(info.min <= int(v) <= info.max, where, f"{v!r} does not fit {a.dtype} ({info.min} to {info.max})")


def random_bounds(a: Arg, sizes: dict) -> tuple:
    """The [low, high) an array's random values are drawn from: the spec's, else its init's defaults
    (integers clipped to the dtype's range, as kernel/inputs.py draws them)."""
    floating = a.dtype.startswith("float")
    lo, hi = (evaluate(v, sizes) if v is not None else None for v in (a.low, a.high))
    if a.init == "positive":
        low = max(lo if lo is not None else 0.0 if floating else 1, 1e-3 if floating else 1)
        high = hi or (1.0 if floating else 100)
    else:
        wide = floating and a.init == "uniform"
        low = lo if lo is not None else (-1.0 if wide else -100)
        high = hi if hi is not None else (1.0 if wide else 100)
    if not floating:
        info = np.iinfo(a.dtype)
        low, high = max(info.min, int(low)), min(info.max, int(high))
    return low, high


def _itemsize(dtype: str) -> int:
    return int("".join(c for c in dtype if c.isdigit()) or 8) // 8


# nvcc/NVRTC options a spec may pass: code generation, math and warnings. Options that run another
# program (-ccbin, -Xcompiler, -Xlinker), read a given file (-include, --options-file) or write
# one (-o, --dependency-output, --keep-dir) are refused: a spec is data.
_OPTION = re.compile(
    r"-O[0-3]|--optimize=[0-3]|--?std=c\+\+\d\d|--?use_fast_math|-lineinfo|--generate-line-info|-w"
    r"|--disable-warnings|-G|--device-debug|-D[A-Za-z_]\w*(=[\w.+-]*)?|-U[A-Za-z_]\w*"
    r"|-arch=(sm|compute)_\d+[af]?|--gpu-architecture=(sm|compute)_\d+[af]?"
    r"|-gencode=arch=compute_\d+[af]?,code=(sm|compute)_\d+[af]?|--?maxrregcount=\d+"
    r"|--?(ftz|prec-div|prec-sqrt|fmad)=(true|false)|--extended-lambda|--expt-extended-lambda"
    r"|--expt-relaxed-constexpr|-rdc=(true|false)|--relocatable-device-code=(true|false)|-lcudadevrt"
    r"|(-Xptxas=|--ptxas-options=)[-\w=,.]+|-I[\w./+-]+|--include-path=[\w./+-]+|-fopenmp"
)


def _check_options(options: list[str]) -> None:
    for i, o in enumerate(options):
        _want(
            bool(_OPTION.fullmatch(o)),
            f"compiler_options[{i}]",
            f"{o!r} is not allowed: options that run another program, read or write a named file "
            "(-ccbin, -Xcompiler, -include, -o, ...) are refused; allowed are code generation, math, "
            "warnings, -D/-U, -I and -Xptxas options",
        )


def _check_rest(spec: Spec, kernel: Kernel | None) -> None:
    _want(any(a.output for a in spec.args), "args", "no argument is marked output = true; verification needs one")
    _check_options(spec.compiler_options)
    names = set(spec.tune_params)
    for k in spec.defaults:
        _want(k in names, f"defaults.{k}", "not a tunable parameter")
    for k, v in spec.baseline_params().items():
        _want(v in spec.tune_params[k], f"defaults.{k}", f"{v!r} is not one of its values {spec.tune_params[k]}")
    for key in ("grid_div_x", "grid_div_y", "grid_div_z"):
        for i, e in enumerate(getattr(spec, key) or []):
            _known_names(e, names, f"{key}[{i}]")
            try:
                v = evaluate(e, spec.baseline_params())
            except ExprError as err:
                raise SpecError(f"{key}[{i}]", str(err)) from None
            _want(
                v > 0 and int(v) == v,
                f"{key}[{i}]",
                f"must be a positive integer at the default configuration, got {v} at {spec.baseline_params()}",
            )
    _check_files(spec)
    try:
        check_tune_params(spec.tune_params)  # also for specs not read from TOML (import, LLM)
    except BadValue as e:
        raise SpecError(e.field, e.problem) from None
    for k, v in spec.defines.items():
        _want(name_problem(k) is None, f"defines.{k!r}", str(name_problem(k)))
        _known_names(v, set(spec.sizes) | names, f"defines.{k}", "a name in [sizes] or a tunable parameter")
    if spec.smem_size is not None:
        try:
            v = evaluate(spec.smem_size, {**spec.baseline_params(), **spec.sizes})
            _want(0 <= v <= 2**31, "smem_size", f"must be 0 to 2**31 bytes, got {v}")
        except ExprError as e:
            raise SpecError("smem_size", str(e)) from None
    for i, r in enumerate(spec.restrictions):
        _known_names(r, names, f"restrictions[{i}]")
    base = spec.baseline_params()
    if spec.tune_params and not spec.allows(base):
        where = "defaults" if spec.defaults else "restrictions"
        problem = (
            f"the default configuration {base} breaks the restrictions or the 1024-thread limit"
            if spec.defaults
            else f"no configuration among the first {BASELINE_TRIES} satisfies them"
        )
        raise SpecError(where, problem)
    if kernel is not None:
        _want(
            spec.kernel_base_name() == kernel.name,
            "kernel",
            f"the spec is for {spec.kernel!r}, the kernel is {kernel.name!r}",
        )
        want = [p.name for p in kernel.params]
        have = [a.name for a in spec.args]
        _want(
            len(want) == len(have),
            "args",
            f"the kernel takes {len(want)} parameters ({', '.join(want)}), the spec lists {len(have)}",
        )
        for i, (p, a) in enumerate(zip(kernel.params, spec.args)):
            _want(
                p.is_pointer == a.is_array,
                f"args[{i}] ({a.name})",
                f"kernel parameter {p.name} is {'a pointer' if p.is_pointer else 'a scalar'}: "
                + ("give it a size" if p.is_pointer else "remove its size and give it a value"),
            )


# -- writing -------------------------------------------------------------------------------
def dump_spec(spec: Spec) -> str:
    """The spec as TOML; fields at their defaults are left out."""
    top = {"kernel": spec.kernel, "problem_size": spec.problem_size}
    for key in ("grid_div_x", "grid_div_y", "grid_div_z", "block_size_names"):
        top[key] = getattr(spec, key)
    top["restrictions"] = spec.restrictions
    top["compiler_options"] = spec.compiler_options or None
    top.update(
        timeout_s=spec.timeout_s,
        iterations=spec.iterations,
        verify_sizes=None if spec.verify_sizes is None else inline_tables(spec.verify_sizes),
    )
    for key in ("cmem_args", "reference", "verify_reason", "smem_size"):
        top[key] = getattr(spec, key)
    top["verify"] = spec.verify if spec.verify != "elementwise" else None
    top["defines_only"] = spec.defines_only or None
    top.update(
        sizes=spec.sizes,
        tune_params=spec.tune_params,
        defaults=spec.defaults,
        metrics=spec.metrics or None,
        defines=spec.defines or None,
    )
    top["args"] = [
        {k: v for k, v in asdict(a).items() if not ((k == "seed" and v == 1) or (k == "output" and not v))}
        for a in spec.args
    ]
    return dumps(top)
