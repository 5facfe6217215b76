"""The launch spec, one model: how to call a kernel (arguments, sizes, grid), what to tune and how to
check it; and its `Launch`, the part that makes a kernel version (with the source, the version id).

`Spec` and `Arg` are pydantic dataclasses. Read from data (a spec's TOML, the session database, the
GPU worker) through `read_spec()` in spec.py, every key is checked (spec_keys.py) and a problem names
its key; a Spec that code builds (the drafter, the importer) keeps its values as given and is checked
by check_spec like any other before it is used."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import asdict
from itertools import islice, product
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, ValidationInfo, field_validator, model_validator
from pydantic.dataclasses import dataclass

from ..tomlfile import TomlError
from . import refkernel, spec_keys
from .expr import ExprError, evaluate, names_in, parse
from .launch import Launch
from .spec_keys import DEFAULT_TOL, VECTORS, LateProblem, is_function_ref, need, want
from .vectors import vector_scalar

SMALL_SIZES = (37, 29, 23)  # the default small check size of the 1st, 2nd, 3rd problem dimension
MAX_ARRAY_BYTES = 80 * 2**30  # what the largest GPUs kt-tui targets hold, with room to spare
MAX_ARRAY_ELEMENTS = 10**10
BASELINE_TRIES = 200_000  # configurations looked at for a valid baseline, in kernel_tuner's order
_CONFIG = ConfigDict(extra="forbid", validate_default=True, defer_build=True)  # schemas built at first use
_UNSET: Any = None  # a required key: its validator says it is missing


def checking(info: ValidationInfo) -> bool:
    """Whether the values are data being read (spec.py's read_spec), not a spec code builds."""
    return bool(info.context)


@dataclass(config=_CONFIG)
class Arg:
    """One kernel argument, an [[args]] table."""

    name: str = _UNSET
    type: str = _UNSET  # numpy dtype name, or a CUDA vector type
    size: str | int | None = None  # element count expression; None means a scalar
    init: str | None = None  # None: "random" for an array, "constant" for a scalar
    # scalar value, or the constant for init="constant"; a vector scalar's lanes (kernel/vectors.py)
    value: str | int | float | tuple[str | int | float, ...] | None = None
    seed: int = 1
    output: bool = False
    atol: float | None = None
    rtol: float | None = None
    file: str | None = None  # init = "file": a .npy, or a .npz holding an array of this name
    low: str | int | float | None = None  # random values in [low, high)
    high: str | int | float | None = None
    copy_of: str | None = None  # init = "copy": starts as a copy of this input
    function: str | None = None  # init = "function": "module:function", called with the sizes (worker only)

    @field_validator("*", mode="plain")
    @classmethod
    def _key(cls, v: Any, info: ValidationInfo) -> Any:
        return spec_keys.arg_key(str(info.field_name), v) if checking(info) else v

    @model_validator(mode="after")
    def _together(self, info: ValidationInfo) -> Arg:
        if self.init is None:
            self.init = "random" if self.size is not None else "constant"
        if isinstance(self.value, list):  # a vector scalar's lanes, as JSON gives them back
            self.value = tuple(self.value)
        if checking(info):
            self.type = spec_keys.arg_dtype(self.type, self.size)
            spec_keys.arg_init(self.init, self.file, self.copy_of, self.function)
            if self.vector:
                lanes = self.lanes
                if lanes == 1 and isinstance(self.value, (str, int, float)):  # bfloat16: one number
                    self.value = (self.value,)
                got = list(self.value) if isinstance(self.value, tuple) else self.value
                want(
                    isinstance(self.value, tuple) and len(self.value) == lanes,
                    "value",
                    f"a {self.type} scalar needs {lanes} lane values ({', '.join('xyzw'[:lanes])}), e.g. value = "
                    f"[{', '.join(['1'] * lanes)}]; got {spec_keys.shown(got)}",
                )
                want(
                    self.init == "constant",
                    "init",
                    f'a {self.type} scalar is the constant its lanes give (value = [...]): init must be "constant" '
                    f"or left out, not {spec_keys.shown(self.init)}",
                )
            elif self.is_array:
                want(
                    not isinstance(self.value, tuple),
                    "value",
                    "an array's value is one number or expression; a list of lane values is for a CUDA vector "
                    "type passed by value (a scalar: no size)",
                )
            else:
                want(
                    not isinstance(self.value, tuple),
                    "value",
                    f"a list of lane values is for a CUDA vector type (float2, int4, uchar4, ...), not {self.type}",
                )
        return self

    @property
    def is_array(self) -> bool:
        return self.size is not None

    @property
    def vector(self) -> bool:
        """A CUDA vector type passed by value (kernel/vectors.py): its value is its lanes."""
        return self.size is None and vector_scalar(self.type) is not None

    @property
    def dtype(self) -> str:
        """The numpy dtype of the array's values (a vector type's base type)."""
        return (VECTORS.get(self.type) or vector_scalar(self.type) or (self.type,))[0]

    @property
    def lanes(self) -> int:
        return (VECTORS.get(self.type) or vector_scalar(self.type) or (self.type, 1))[1]

    def tolerance(self) -> tuple[float, float]:
        atol, rtol = DEFAULT_TOL.get(self.dtype, (0.0, 0.0))
        return (self.atol if self.atol is not None else atol, self.rtol if self.rtol is not None else rtol)


_KEYS = (
    "kernel",
    "sizes",
    "problem_size",
    "tune_params",
    "defaults",
    "restrictions",
    "grid_div_x",
    "grid_div_y",
    "grid_div_z",
    "block_size_names",
    "compiler_options",
    "verify_sizes",
    "metrics",
    "defines",
    "defines_only",
    "cmem_args",
    "reference",
    "smem_size",
    "verify",
    "verify_reason",
    "timeout_s",
    "iterations",
)  # every key but args and base_dir


@dataclass(config=_CONFIG, kw_only=True)
class Spec:
    """A launch spec; its keys in the order their problems are reported."""

    kernel: str = _UNSET
    args: list[Arg] = _UNSET
    sizes: dict[str, int] = _UNSET
    problem_size: list[str | int] = _UNSET
    tune_params: dict[str, list[Any]] = _UNSET
    defaults: dict[str, Any] = _UNSET
    restrictions: list[str] = _UNSET
    grid_div_x: list[str] | None = None
    grid_div_y: list[str] | None = None
    grid_div_z: list[str] | None = None
    block_size_names: list[str] | None = None
    compiler_options: list[str] = _UNSET
    verify_sizes: list[dict[str, int]] | None = None  # extra [sizes] to check results at; None: derived, []: none
    metrics: dict[str, str | int | float] = _UNSET  # bytes / flops per run, over sizes
    defines: dict[str, str | int | float] = _UNSET  # -D name=value, values may use sizes
    defines_only: bool = False  # only [defines] are defined (a kernel_tuner script's `defines=`)
    cmem_args: str | None = None  # a .npz of constant-memory symbols by name
    reference: str | dict[str, Any] | None = None  # a .npz of expected outputs, "module:function", or a table
    smem_size: str | int | None = None  # dynamic shared memory bytes: an expression over sizes and tuned params
    verify: str = "elementwise"  # "elementwise", "none" (needs verify_reason) or "module:function"
    verify_reason: str | None = None
    timeout_s: float = 30.0
    iterations: int = 7
    base_dir: str | None = None  # the spec's folder: file names above are relative to it (not written)

    @field_validator(*_KEYS, mode="plain")
    @classmethod
    def _key(cls, v: Any, info: ValidationInfo) -> Any:
        return spec_keys.spec_key(str(info.field_name), v, checking(info))

    @field_validator("args", mode="before")
    @classmethod
    def _args(cls, v: Any, info: ValidationInfo) -> Any:
        need(
            not checking(info) or (isinstance(v, list) and bool(v)), "missing: one [[args]] table per kernel parameter"
        )
        return v

    @field_validator("base_dir", mode="plain")
    @classmethod
    def _base_dir(cls, v: Any, info: ValidationInfo) -> Any:
        if checking(info) and v is not None:
            need(dict(info.context or {}).get("stored"), "unknown key")  # set by the reader, never written to TOML
            need(isinstance(v, str) and bool(v), f"expected the spec's folder, got {v!r}")
        return v

    @model_validator(mode="after")
    def _together(self, info: ValidationInfo) -> Spec:
        if checking(info):
            spec_keys.metrics_at(self.metrics, self.sizes)
            spec_keys.compiler_options(self.compiler_options)
            cmem = spec_keys.data_file("cmem_args", self.cmem_args)
            self.cmem_args = cmem if isinstance(cmem, str) else None  # a table is refused above
            self.reference = spec_keys.data_file("reference", self.reference)
            spec_keys.verify(self.verify, self.verify_reason)
        return self

    # -- derived values -------------------------------------------------------------------
    @property
    def launch(self) -> Launch:
        """The part of the spec that makes a kernel version (with the source): not the tuned values,
        nor how results are checked."""
        return Launch.of(self.to_dict(), _file_digests(self))

    def problem_size_values(
        self, sizes: dict[str, int] | None = None, params: dict[str, Any] | None = None
    ) -> list[int]:
        names = {**(params or self.baseline_params()), **(sizes or self.sizes)}
        return [int(evaluate(p, names)) for p in self.problem_size]

    def tuned_problem_size(self) -> bool:
        """Whether the problem size depends on a tuned parameter (kernel_tuner then evaluates it per config)."""
        return any(names_in(p) & set(self.tune_params) for p in self.problem_size)

    def kernel_base_name(self) -> str:
        return self.kernel.split("<")[0].strip()

    def file_path(self, name: str) -> Path:
        return Path(self.base_dir or ".", name)

    def smem_function(self, sizes: dict[str, int] | None = None) -> Callable[[dict[str, Any]], int]:
        """kernel_tuner's smem_args size: bytes of dynamic shared memory for a configuration."""
        return lambda params: int(evaluate(self.smem_size, {**params, **(sizes or self.sizes)}))

    def define_values(self, sizes: dict[str, int] | None = None) -> dict[str, Any]:
        """Each define's value at `sizes`; one that uses tunable parameters is a function of the
        configuration, as kernel_tuner takes it."""
        at = sizes or self.sizes
        out: dict[str, Any] = {}
        for k, v in self.defines.items():
            if not isinstance(v, str):
                out[k] = v
            elif names_in(v) & set(self.tune_params):
                out[k] = lambda params, v=v: _whole(evaluate(v, {**params, **at}))
            else:
                out[k] = evaluate(v, at)
        return out

    def tolerances(self) -> list[dict[str, Any]]:
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

    def extra_sizes(self) -> list[dict[str, Any]]:
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

    def baseline_params(self) -> dict[str, Any]:
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

    def allows(self, config: dict[str, Any]) -> bool:
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

    def launch_dict(self, legacy: bool = False) -> dict[str, Any]:
        """The Launch as the version id hashes it (`legacy`: as versions before restrictions counted)."""
        return self.launch.identity(legacy)

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)


def _plain(spec: Spec) -> dict[str, Any]:
    return asdict(spec)  # the stdlib's: a pydantic dataclass is one


def _whole(v: Any) -> Any:
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _file_digests(spec: Spec) -> list[tuple[str, str]]:
    ref = spec.reference
    if isinstance(ref, dict):
        ref = refkernel.file_and_name(ref)[0]
    names = [a.file for a in spec.args if a.file] + [spec.cmem_args or "", ref or ""]
    refs = [a.function for a in spec.args if a.function] + [spec.verify, ref or ""]
    names += [r.partition(":")[0] + ".py" for r in refs if is_function_ref(r)]
    out = []
    for name in sorted({n for n in names if n and not is_function_ref(n)}):
        path = spec.file_path(name)
        out.append((name, hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"))
    return out


# -- the sizes ---------------------------------------------------------------------------
def default_verify_sizes(spec: Spec) -> list[dict[str, int]]:
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


def _ragged(start: int, divisors: set[int]) -> int:
    r = start if start % 2 else start - 1
    while r > 3 and any(r % d == 0 for d in divisors):
        r -= 2
    return max(r, 1)


def _valid_at(spec: Spec, sizes: dict[str, int]) -> bool:
    try:
        check_sizes(spec, sizes)
    except TomlError:
        return False
    return True


def check_sizes(spec: Spec, sizes: dict[str, int]) -> None:
    """Every size expression is valid at `sizes`."""
    for i, p in enumerate(spec.problem_size):
        try:
            v = evaluate(p, {**spec.baseline_params(), **sizes})
        except ExprError as e:
            raise LateProblem(f"problem_size[{i}]", str(e)) from None
        want(v >= 1, f"problem_size[{i}]", f"must be >= 1, got {v}")
    elements = nbytes = 0
    scalars = []  # checked after the arrays' total: a size too large is the clearer message
    for i, a in enumerate(spec.args):
        where = f"args[{i}] ({a.name})"
        if a.is_array:
            try:
                n = evaluate(a.size, sizes)
            except ExprError as e:
                raise LateProblem(f"{where}.size", str(e)) from None
            want(int(n) == n and n >= 1, f"{where}.size", f"must be a positive integer, got {n}")
            elements, nbytes = elements + int(n), nbytes + int(n) * _itemsize(a.dtype) * a.lanes
            if a.init == "constant":
                want(isinstance(a.value, (int, float)), f"{where}.value", 'init = "constant" needs a numeric value')
                _fits(a, a.value, f"{where}.value")
            for key in ("low", "high"):
                if getattr(a, key) is not None:
                    try:
                        _fits(a, evaluate(getattr(a, key), sizes), f"{where}.{key}", exclusive=key == "high")
                    except ExprError as e:
                        raise LateProblem(f"{where}.{key}", str(e)) from None
            if a.low is not None and a.high is not None:
                want(evaluate(a.low, sizes) < evaluate(a.high, sizes), f"{where}.high", f"must be above low ({a.low})")
            if a.init == "offsets":
                want(
                    a.dtype.startswith(("int", "uint")) and a.lanes == 1,
                    f"{where}.type",
                    f'init = "offsets" makes row offsets, integers: got {a.type}',
                )
                want(
                    a.high is not None,
                    f"{where}.high",
                    'init = "offsets" needs high: the offsets stay below it (the length of the arrays they '
                    'index, plus one: high = "nnz + 1")',
                )
            if a.init == "spikes":
                want(
                    a.dtype in spec_keys.SPIKES and a.value is not None,
                    f"{where}.value",
                    'init = "spikes" makes float rows with one large value each: it needs a float type and '
                    'value = the row length ("cols")',
                )
                try:
                    width = evaluate(a.value, sizes) if a.value is not None else 1
                except ExprError as e:
                    raise LateProblem(f"{where}.value", str(e)) from None
                want(width >= 1, f"{where}.value", f"the row length must be >= 1, got {width}")
            if a.init == "ties":
                want(
                    a.dtype in spec_keys.SPIKES and isinstance(a.value, (int, float)) and not isinstance(a.value, bool),
                    f"{where}.value",
                    'init = "ties" draws floats that tie with a constant: it needs a float type and value = the '
                    "constant (a number)",
                )
            if a.init == "lifted":
                want(
                    a.dtype.startswith(("int", "uint")) and a.value is not None,
                    f"{where}.value",
                    'init = "lifted" raises every other drawn integer by `value`: it needs an integer type and '
                    "value = the amount",
                )
            if a.init == "rounded":
                want(
                    a.dtype.startswith("float"),
                    f"{where}.type",
                    f'init = "rounded" rounds the floats the user\'s function makes to whole numbers: it needs a '
                    f"float type, got {a.type}",
                )
            if a.init in ("random", "uniform", "normal", "positive", "offsets", "whole", "lifted"):
                low, high = random_bounds(a, sizes)
                want(
                    low < high and math.isfinite(high - low),
                    f"{where}.low" if a.low is not None else f"{where}.high",
                    f"the values are drawn from [{low}, {high}) in {a.dtype}: low must be below high "
                    "(give both low and high)",
                )
            if a.init == "copy":
                want(
                    a.copy_of in {b.name for b in spec.args if b.is_array and b is not a},
                    f"{where}.copy_of",
                    f"{a.copy_of!r} is not another array argument",
                )
        else:
            want(not a.output, f"{where}.output", "a scalar cannot be an output (give it a size)")
            want(a.value is not None, f"{where}.value", "a scalar needs a value (a number or a size name)")
            for k, lane in enumerate(a.value if isinstance(a.value, tuple) else [a.value]):
                at = f"{where}.value" + (f"[{k}]" if isinstance(a.value, tuple) else "")
                try:
                    scalars.append((a, evaluate(lane, sizes), at))
                except ExprError as e:
                    raise LateProblem(at, str(e)) from None
    want(
        nbytes <= MAX_ARRAY_BYTES and elements <= MAX_ARRAY_ELEMENTS,
        "args",
        f"the arrays need {nbytes:.1e} bytes ({nbytes / 1e9:.3g} GB, {elements:.1e} elements), more than "
        f"a GPU holds (at most {MAX_ARRAY_BYTES / 2**30:.0f} GiB and {MAX_ARRAY_ELEMENTS:.0e} elements)",
    )
    for a, v, where in scalars:
        _fits(a, v, where)


def _fits(a: Arg, v: Any, where: str, exclusive: bool = False) -> None:
    """`v` can be stored in the argument's dtype (no overflow, no inf from a finite number); an
    exclusive integer bound (a random draw's `high`) may be one past the greatest value."""
    want(
        isinstance(v, (int, float)) and not isinstance(v, bool) and (isinstance(v, int) or math.isfinite(v)),
        where,
        f"expected a finite number, got {v!r}",
    )
    if a.dtype in FLOAT_MAX:
        big = FLOAT_MAX[a.dtype]
        want(abs(v) <= big, where, f"{v!r} is beyond the range of {a.dtype} (at most {big:.4g})")
    else:
        low, high = int_range(a.dtype)
        high += exclusive
        want(low <= int(v) <= high, where, f"{v!r} does not fit {a.dtype} ({low} to {high})")


def random_bounds(a: Arg, sizes: dict[str, int]) -> tuple[Any, Any]:
    """The [low, high) an array's random values (or offsets) are drawn from: the spec's, else its
    init's defaults (integers clipped to the dtype's range, as kernel/inputs.py draws them)."""
    floating = a.dtype.startswith("float")
    lo, hi = (evaluate(v, sizes) if v is not None else None for v in (a.low, a.high))
    if a.init == "offsets":  # high is required (check_sizes)
        low, high = lo if lo is not None else 0, hi if hi is not None else 1
    elif a.init == "positive":
        low = max(lo if lo is not None else 0.0 if floating else 1, 1e-3 if floating else 1)
        high = hi or (1.0 if floating else 100)
    else:
        wide = floating and a.init == "uniform"
        low = lo if lo is not None else (-1.0 if wide else -100)
        high = hi if hi is not None else (1.0 if wide else 100)
    if not floating:
        least, most = int_range(a.dtype)
        low, high = max(least, int(low)), min(most + 1, int(high))  # high is exclusive
    return low, high


# The largest finite value of each float dtype and the range of each integer dtype, as numpy's
# finfo and iinfo give them (tests/kernel/test_spec_model.py compares): numpy is not imported
# for them, so that reading a spec (a resumed session's first frame does) waits for no numpy.
FLOAT_MAX = {
    "float16": 65504.0,
    "bfloat16": 3.3895313892515355e38,
    "float32": 3.4028234663852886e38,
    "float64": 1.7976931348623157e308,
}


def int_range(dtype: str) -> tuple[int, int]:
    """The least and the greatest value of an integer dtype such as int32 or uint8."""
    bits = _itemsize(dtype) * 8
    return (0, 2**bits - 1) if dtype.startswith("u") else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


def _itemsize(dtype: str) -> int:
    return int("".join(c for c in dtype if c.isdigit()) or 8) // 8
