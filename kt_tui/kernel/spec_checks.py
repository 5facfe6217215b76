"""Checks across a spec's keys and against its kernel and folder: names resolve, outputs exist,
the defaults are among the values, referenced files exist, the spec matches the kernel's signature;
and a stored spec's expressions read only the names they may (issue 22, item 7)."""

from __future__ import annotations

from pathlib import Path

from ..tomlfile import TomlError
from ..words import counted
from . import refkernel, spec_keys
from .expr import ExprError, check_names, evaluate
from .kernels import Kernel
from .spec_keys import DTYPES, is_function_ref
from .spec_model import BASELINE_TRIES, Arg, Spec, check_sizes
from .values import BadValue, check_tune_params, name_problem
from .vectors import bf16_array, param_vector, vector_scalar

SpecError = TomlError


def _want(cond: object, field_name: str, problem: str) -> None:
    if not cond:
        raise SpecError(field_name, problem)


def function_file(spec: Spec, ref: str) -> Path:
    """The Python file a `module:function` reference imports (it runs only in the GPU worker)."""
    return spec.file_path(ref.partition(":")[0] + ".py")


def _known_names(expr: object, names: set[str], where: str, what: str = "a tunable parameter") -> None:
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
    elif isinstance(spec.reference, str) and is_function_ref(spec.reference):
        path = function_file(spec, spec.reference)
        _want(path.is_file(), "reference", f"imports {path.name}, which is not next to the spec ({path})")
    for key in ("cmem_args", "reference"):
        if isinstance(getattr(spec, key), str) and getattr(spec, key).endswith(".npz"):
            _want(
                spec.file_path(getattr(spec, key)).is_file(), key, f"no such file {spec.file_path(getattr(spec, key))}"
            )
    if is_function_ref(spec.verify):
        path = function_file(spec, spec.verify)
        _want(path.is_file(), "verify", f"imports {path.name}, which is not next to the spec ({path})")


def check_spec(spec: Spec, kernel: Kernel | None = None) -> None:
    """Cross-field checks: names resolve, outputs exist, the spec matches the kernel's signature."""
    check_sizes(spec, spec.sizes)
    for i, extra in enumerate(spec.verify_sizes or []):
        for k in extra:
            _want(
                k in spec.sizes,
                f"verify_sizes[{i}].{k}",
                f"not a name in [sizes] (known: {', '.join(spec.sizes) or 'none'})",
            )
        try:
            check_sizes(spec, {**spec.sizes, **extra})
        except SpecError as e:
            raise SpecError(f"verify_sizes[{i}]", f"{e.field}: {e.problem}") from None
    _check_rest(spec, kernel)
    if refkernel.is_kernel(spec.reference):
        try:
            refkernel.check_names_in(spec)
        except refkernel.BadReference as e:
            raise SpecError(e.field, e.problem) from None


def _check_rest(spec: Spec, kernel: Kernel | None) -> None:
    _want(any(a.output for a in spec.args), "args", "no argument is marked output = true; verification needs one")
    spec_keys.compiler_options(spec.compiler_options, late=False)
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
        _want(
            not kernel.templated or "<" in spec.kernel,
            "kernel",
            f'{kernel.name} is a template: name it with its template arguments (kernel = "{kernel.name}<...>", as '
            "the file instantiates it or as you mean it); kernel_tuner instantiates it from them, and no backend "
            "compiles it by its bare name",
        )
        want = [p.name for p in kernel.params]
        have = [a.name for a in spec.args]
        _want(
            len(want) == len(have),
            "args",
            f"the kernel takes {counted(len(want), 'parameter')} ({', '.join(want)}), the spec lists {len(have)}",
        )
        for i, (p, a) in enumerate(zip(kernel.params, spec.args)):
            _want(
                "&" not in p.ctype,
                f"args[{i}] ({a.name})",
                f"kernel parameter {p.name} is a reference ({p.ctype}): a kernel launched from the host gets "
                "the address of host memory there; take it by value or as a pointer",
            )
            _want(
                p.is_pointer == a.is_array,
                f"args[{i}] ({a.name})",
                f"kernel parameter {p.name} is {'a pointer' if p.is_pointer else 'a scalar'}: "
                + ("give it a size" if p.is_pointer else "remove its size and give it a value"),
            )
            if not p.is_pointer:
                _by_value(i, p.name, p.base_type, a)
            elif bf16_array(p.base_type):
                _want(
                    a.dtype in ("uint16", "int16"),
                    f"args[{i}] ({a.name}).type",
                    f"kernel parameter {p.name} is an array of {p.base_type}: kt-tui has no bfloat16 arrays (numpy has "
                    f"no such type), so {spec_keys.shown(a.type)} elements are not its bytes; have the kernel take "
                    'float or half, or give its bits as type = "uint16" (init = "file")'
                    + (", two an element" if p.base_type.endswith("162") else ""),
                )


def _by_value(i: int, param: str, base_type: str, a: Arg) -> None:
    """A kernel's vector parameter passed by value has a vector scalar of its lanes; a number one, not."""
    wanted = param_vector(base_type)
    if wanted is not None:
        found = vector_scalar(wanted)
        assert found is not None
        have = vector_scalar(a.type) if a.vector else None
        _want(
            have is not None and have[:2] == found[:2],
            f"args[{i}] ({a.name}).type",
            f'kernel parameter {param} is a {wanted} passed by value: give type = "{wanted}" and '
            + (f"its {found[1]} lanes as value = [{', '.join('xyzw'[: found[1]])}]" if found[1] > 1 else "one value")
            + f", not type = {spec_keys.shown(a.type)}",
        )
    elif a.vector and base_type in DTYPES:
        _want(
            False,
            f"args[{i}] ({a.name}).type",
            f'kernel parameter {param} is a {base_type}, not a vector: give type = "{DTYPES[base_type]}" and one value',
        )


def check_stored(spec: Spec) -> None:
    """TomlError naming the first field whose expression or name does not pass."""
    try:
        check_tune_params(spec.tune_params)
    except BadValue as e:
        raise TomlError(e.field, e.problem) from None
    tuned, sizes = set(spec.tune_params), set(spec.sizes)
    fields: list[tuple[str, object, set[str]]] = [
        (f"restrictions[{i}]", r, tuned) for i, r in enumerate(spec.restrictions or [])
    ]
    fields += [
        (f"{k}[{i}]", e, tuned)
        for k in ("grid_div_x", "grid_div_y", "grid_div_z")
        for i, e in enumerate(getattr(spec, k) or [])
    ]
    fields += [(f"problem_size[{i}]", p, tuned | sizes) for i, p in enumerate(spec.problem_size or [])]
    fields += [(f"defines.{k}", v, sizes) for k, v in (spec.defines or {}).items()]
    fields += [(f"metrics.{k}", v, sizes) for k, v in (spec.metrics or {}).items()]
    if spec.smem_size is not None:
        fields.append(("smem_size", spec.smem_size, tuned | sizes))
    for i, a in enumerate(spec.args):
        for key in ("size", "value", "low", "high"):
            v = getattr(a, key)
            if v is not None and not (key == "value" and a.init == "constant"):
                fields.append((f"args[{i}] ({a.name}).{key}", v, sizes))
    for where, text, names in fields:
        if isinstance(text, bool) or not isinstance(text, (str, int, float)):
            raise TomlError(where, f"expected a number or an expression, got {text!r}")
        if isinstance(text, str):
            try:
                check_names(text, names, where, "a name it may read")
            except ExprError as e:
                raise TomlError(where, str(e).removeprefix(f"{where} ")) from None
    for i, name in enumerate(spec.block_size_names or []):
        if not isinstance(name, str) or name_problem(name):
            raise TomlError(f"block_size_names[{i}]", f"{name!r} is not a parameter name")
