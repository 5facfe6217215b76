"""The launch spec: how to call a kernel (arguments, sizes, grid) and what to tune, stored as TOML
beside the kernel (`kernel.cu.toml`), in the session database and sent to the GPU worker.

One model (spec_model.py: `Spec`, its `Arg`s and its `Launch`) and one way in: `read_spec()` checks a
spec's data key by key (spec_keys.py), then across keys (spec_checks.py). Every problem is a SpecError
naming the key, e.g. ``args[2] (a).type: unknown type 'flaot32'``."""

from __future__ import annotations

import json
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ..files import SPEC_MAX, FileRefused, read_text_file
from ..tomlfile import TomlError, check_depth, dumps, inline_tables, load_toml, place, problem_text
from .kernels import Kernel
from .launch import Launch
from .spec_checks import check_spec, check_stored, function_file
from .spec_keys import DEFAULT_TOL, DTYPES, INITS, VECTORS, VERIFY_MODES, LateProblem
from .spec_model import (
    BASELINE_TRIES,
    MAX_ARRAY_BYTES,
    MAX_ARRAY_ELEMENTS,
    SMALL_SIZES,
    Arg,
    Spec,
    default_verify_sizes,
    random_bounds,
)

__all__ = [
    "BASELINE_TRIES",
    "DEFAULT_TOL",
    "DTYPES",
    "INITS",
    "MAX_ARRAY_BYTES",
    "MAX_ARRAY_ELEMENTS",
    "SMALL_SIZES",
    "VECTORS",
    "VERIFY_MODES",
    "Arg",
    "Launch",
    "Spec",
    "SpecError",
    "check_spec",
    "default_verify_sizes",
    "dump_spec",
    "function_file",
    "load_spec",
    "parse_spec",
    "random_bounds",
    "read_spec",
    "spec_from_dict",
    "spec_from_plain",
    "spec_path_for",
    "version_hash",
    "version_ids",
]

SpecError = TomlError  # the one error of every TOML file: `file: field: problem`
_READ = TypeAdapter(Spec)
TOP_KEYS = {f.name for f in fields(Spec)} - {"base_dir"}
ARG_KEYS = {f.name for f in fields(Arg)}


def read_spec(data: Any, stored: bool = False) -> Spec:
    """A Spec from a spec's data, every key checked (spec_model.py); `stored`: data kt-tui wrote (the
    session database, a worker's job), which may carry base_dir and whose expressions are checked
    against the names each may read, since a hand-edited database is input like any other."""
    if not isinstance(data, dict):
        raise SpecError("", f"expected a table, got {type(data).__name__}")
    try:
        spec = _READ.validate_python(data, context={"stored": stored})
    except ValidationError as e:
        raise _spec_error(e, data) from None
    if stored:
        check_stored(spec)
    return spec


def spec_from_dict(data: dict[str, Any]) -> Spec:
    """A Spec from a spec's TOML, read by read_spec(); SpecError names the field."""
    return read_spec(data)


def spec_from_plain(d: dict[str, Any] | str | bytes) -> Spec:
    """A Spec from Spec.to_dict() output (as stored in the session database, as JSON text or parsed, or
    sent to the worker); SpecError for anything else."""
    d = _plain_spec(d)
    try:
        out = {k: v for k, v in d.items() if v is not None}
        out["args"] = [{k: v for k, v in a.items() if v is not None} for a in d["args"]]
        return read_spec(out, stored=True)
    except (KeyError, TypeError, AttributeError) as e:
        raise SpecError("", f"not a spec kt-tui stored ({type(e).__name__}: {e})", "the stored spec") from None
    except SpecError as e:
        raise SpecError(e.field, e.problem, "the stored spec") from None


def _plain_spec(value: Any) -> dict[str, Any]:
    """The stored spec as a dict: JSON text parsed, its nesting bounded; TomlError for anything else."""
    if isinstance(value, (str, bytes)):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError) as e:
            raise TomlError("", f"not valid JSON ({type(e).__name__})", "the stored spec") from None
    if not isinstance(value, dict):
        raise TomlError("", f"expected a table, got {type(value).__name__}", "the stored spec")
    check_depth(value, "the stored spec")
    return value


def _spec_error(e: ValidationError, data: dict[str, Any]) -> TomlError:
    """The first problem as the user reads it: an unknown key first, then a key's own problem, then
    one seen across keys (LateProblem), in the order of the keys."""
    errors = e.errors()
    late = [x for x in errors if isinstance((x.get("ctx") or {}).get("error"), LateProblem)]
    unknown = [
        x
        for x in errors
        if x["type"] in ("extra_forbidden", "unexpected_keyword_argument")
        or str((x.get("ctx") or {}).get("error")) == "unknown key"  # base_dir, in a spec file
    ]
    err = (unknown or [x for x in errors if x not in late] or late)[0]
    loc: list[Any] = list(err["loc"])
    inner = (err.get("ctx") or {}).get("error")
    if isinstance(inner, LateProblem):
        loc = loc + [inner.field]
    elif inner is not None and getattr(inner, "field", None):
        loc = loc[:-1] + [inner.field]
    known = ARG_KEYS if len(loc) > 2 and loc[0] == "args" else TOP_KEYS
    problem = (
        f"unknown key (known: {', '.join(sorted(known))})"
        if err in unknown
        else "expected a table"
        if err["type"] in ("model_type", "dataclass_type", "dataclass_exact_type")
        else str(getattr(inner, "problem", "") or problem_text(dict(err)))
    )
    where = place(loc)
    if len(loc) > 2 and loc[0] == "args" and loc[2] != "name" and err not in unknown:
        arg = data["args"][loc[1]]
        if isinstance(arg.get("name"), str) and arg["name"]:
            where = where.replace(f"args[{loc[1]}]", f"args[{loc[1]}] ({arg['name']})", 1)
    return TomlError(where, problem)


def version_hash(source: str, spec: Spec, legacy: bool = False) -> str:
    """Kernel version id: the source plus the spec's Launch. `legacy`: the id that versions had
    before restrictions counted (caches recorded then are found by it)."""
    return spec.launch.version_id(source, legacy)


def version_ids(source: str, spec: Spec) -> list[str]:
    """The version's id, then its legacy id when that differs: the ids a recorded cache may carry."""
    launch = spec.launch
    return list(dict.fromkeys([launch.version_id(source), launch.version_id(source, legacy=True)]))


# -- reading files -------------------------------------------------------------------------
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
        spec = read_spec(data)
        if base_dir or path:
            spec.base_dir = str(Path(base_dir or Path(str(path)).parent).resolve())
        check_spec(spec, kernel)
    except SpecError as e:
        raise SpecError(e.field, e.problem, path) from None
    return spec


# -- writing -------------------------------------------------------------------------------
def dump_spec(spec: Spec) -> str:
    """The spec as TOML; fields at their defaults are left out."""
    top: dict[str, Any] = {"kernel": spec.kernel, "problem_size": spec.problem_size}
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
