"""The search space of a Spec as data: enumeration with restrictions, a text rendering for prompts,
checks for proposed configurations, and edits of the space.

Restrictions (search/restrictions.py, re-exported here) are kernel_tuner-style expressions over
parameter names, in kt-tui's one expression language (kernel/expr.py): checked against a whitelist
and evaluated without eval.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .. import records
from ..kernel.spec import Spec
from ..kernel.values import BadValue, check_tune_params, name_problem
from ..words import counted, plural
from .lazy import ABOUT, EXACT, FEWER, HUGE, LazySpace  # noqa: F401 - ABOUT, FEWER: re-exported
from .restrictions import (  # noqa: F401 - re-exported
    DEFAULT_BLOCK_NAMES,
    MAX_THREADS,
    SpaceError,
    block_names,
    compile_restriction,
    parse_expression,
    restrictions,
    thread_limit,
)

MAX_PRODUCT = 10**7  # unrestricted size above which the space is not enumerated
FORBIDDEN_NAMES = ("time", "grid_size_x", "grid_size_y", "grid_size_z")


# -- enumeration ---------------------------------------------------------------------------
def _key(spec: Spec, max_threads) -> tuple:
    return (
        tuple((k, tuple(v)) for k, v in spec.tune_params.items()),
        tuple(spec.restrictions),
        tuple(block_names(spec)),
        max_threads,
    )


def unrestricted_size(spec: Spec) -> int:
    return math.prod(len(v) for v in spec.tune_params.values())


def configurations(spec: Spec, max_threads: int | None = MAX_THREADS) -> list[tuple]:
    """Every configuration (a tuple in tune_params order) that satisfies the restrictions."""
    return list(_enumerate(_key(spec, max_threads)))


@lru_cache(maxsize=32)
def _enumerate(key: tuple) -> tuple:
    params, restr, bnames, max_threads = key
    names = [k for k, _ in params]
    if math.prod(len(v) for _, v in params) > MAX_PRODUCT:
        raise SpaceError(f"the space has more than {MAX_PRODUCT} configurations before restrictions: too large")
    spec_like = Spec(
        kernel="",
        args=[],
        problem_size=[1],
        tune_params=dict(params),
        restrictions=list(restr),
        block_size_names=list(bnames) or None,
    )
    rs = restrictions(spec_like, max_threads)
    at: list[list[Any]] = [[] for _ in names]  # restrictions checked once their last parameter is set
    for r in rs:
        at[max((names.index(n) for n in r.names), default=0)].append(r)
    out = []
    config: dict = {}

    def walk(depth: int) -> None:
        name, values = params[depth]
        for v in values:
            config[name] = v
            if all(r.holds(config) for r in at[depth]):
                if depth + 1 == len(params):
                    out.append(tuple(config[n] for n in names))
                else:
                    walk(depth + 1)
        del config[name]

    if params:
        walk(0)
    return tuple(out)


def space_size(spec: Spec, max_threads: int | None = MAX_THREADS) -> int:
    """The number of configurations that satisfy the restrictions (and the thread limit): counted
    per group of tied parameters (search/lazy.py), listed only when a group is too large to solve."""
    n = LazySpace(spec, max_threads).size()
    return n if n is not None else len(_enumerate(_key(spec, max_threads)))


def space_sizes(spec: Spec, max_threads: int | None = MAX_THREADS) -> tuple[int, int, str]:
    """(before restrictions, after, how `after` is known: search/lazy.py's EXACT, ABOUT or FEWER):
    estimated from random draws, or bounded above, when a group of tied parameters is too large to
    solve and the product too large to list."""
    lazy = LazySpace(spec, max_threads)
    if lazy.size() is None and lazy.before <= HUGE:
        return lazy.before, len(_enumerate(_key(spec, max_threads))), EXACT
    return lazy.before, *lazy.count()


# -- rendering -----------------------------------------------------------------------------
def _kind(values: list) -> str:
    kinds = {"bool" if isinstance(v, bool) else type(v).__name__ for v in values}
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def pattern(values: list) -> str:
    """A short description of a numeric list's shape: step, powers of 2, multiples."""
    if len(values) < 3 or not all(_is_number(v) for v in values):
        return ""
    s = sorted(values)
    lo, hi = s[0], s[-1]
    if all(isinstance(v, int) and v > 0 and v & (v - 1) == 0 for v in s) and all(b == 2 * a for a, b in zip(s, s[1:])):
        return f"powers of 2 from {lo} to {hi}"
    steps = {b - a for a, b in zip(s, s[1:])}
    if len(steps) == 1:
        return f"{lo} to {hi} step {steps.pop()}"
    for k in (1, 2):
        rest = s[k:]
        if len(rest) >= 3 and len({b - a for a, b in zip(rest, rest[1:])}) == 1:
            head = ", ".join(map(str, s[:k]))
            return f"{head}, then {rest[0]} to {rest[-1]} step {rest[1] - rest[0]}"
    if all(isinstance(v, int) for v in s):
        g = math.gcd(*s)
        if g > 1:
            return f"multiples of {g} from {lo} to {hi}"
    if all(v > 0 for v in s) and all(b % a == 0 for a, b in zip(s, s[1:]) if isinstance(a, int) and isinstance(b, int)):
        return f"each a multiple of the previous, {lo} to {hi}"
    return ""


def render(spec: Spec, max_threads: int | None = MAX_THREADS) -> str:
    """The space as text for an LLM prompt (or a person)."""
    base = spec.baseline_params()
    lines = [f"Search space of {spec.kernel}: {counted(len(spec.tune_params), 'parameter')}."]
    for name, values in spec.tune_params.items():
        shape = pattern(values)
        lines.append(
            f"  {name} ({_kind(values)}, {counted(len(values), 'value')}): {values}"
            + (f" -- {shape}" if shape else "")
            + f"; default {base[name]!r}"
        )
    rs = list(spec.restrictions)
    limit = thread_limit(spec, max_threads)
    if rs or limit:
        lines.append("Restrictions (every configuration must satisfy all):")
        lines += [f"  {i + 1}. {r}" for i, r in enumerate(rs)]
        if limit:
            lines.append(f"  thread limit: {limit}")
    else:
        lines.append("Restrictions: none.")
    total = unrestricted_size(spec)
    try:
        after = f"{space_size(spec, max_threads)}"
    except SpaceError:
        after = "not counted (too large)"
    lines.append(
        f"Size: {counted(total, 'configuration') if isinstance(total, int) else total} before restrictions, {after} after."
    )
    return "\n".join(lines)


# -- checking proposed configurations --------------------------------------------------------
def config_key(spec: Spec, config: dict) -> str:
    """kernel_tuner's cache key of a configuration of `spec` (records.config_key)."""
    return records.config_key(list(spec.tune_params), config)


def _match(value, values: list):
    """The spec's own value equal to `value` (16.0 or "16" given for 16), else None."""
    for v in values:
        if type(v) is type(value) and v == value:
            return v
    for v in values:
        if isinstance(v, bool) or isinstance(value, bool):
            continue
        if (_is_number(v) and _is_number(value) and v == value) or str(v) == str(value).strip():
            return v
    return None


def check_configs(
    spec: Spec, configs: list[dict], known_keys=(), max_threads: int | None = MAX_THREADS
) -> tuple[list[tuple[dict, str]], list[tuple[dict, str]]]:
    """Split proposed configurations into (valid, invalid), each a list of (config, note).

    A valid config is complete, in the spec's value types, and new; its note says what was filled
    in ("" when nothing). An invalid one comes back as given, with the reason."""
    names = list(spec.tune_params)
    base = spec.baseline_params()
    rs = [(f"restriction {i + 1} ({r})", compile_restriction(r, names)) for i, r in enumerate(spec.restrictions)]
    limit = thread_limit(spec, max_threads)
    if limit:
        rs.append((f"the thread limit ({limit})", compile_restriction(limit, names)))
    known = set(known_keys)
    seen: dict[str, int] = {}
    valid, invalid = [], []
    for i, given in enumerate(configs):
        if not isinstance(given, dict):
            invalid.append((given, "not a table of parameter = value"))
            continue
        unknown = [k for k in given if k not in spec.tune_params]
        if unknown:
            invalid.append((given, f"unknown parameter {unknown[0]!r} (parameters: {', '.join(names)})"))
            continue
        config, filled, reason = {}, [], None
        for n in names:
            if n not in given:
                config[n] = base[n]
                filled.append(f"{n}={base[n]!r}")
                continue
            v = _match(given[n], spec.tune_params[n])
            if v is None:
                reason = f"{n}={given[n]!r} is not one of its values {spec.tune_params[n]}"
                break
            config[n] = v
        if reason is None:
            reason = next((f"violates {label}" for label, r in rs if not r.holds(config)), None)
        key = config_key(spec, config) if reason is None else ""
        if reason is None and key in seen:
            reason = f"duplicate of configuration {seen[key] + 1} in this batch"
        if reason is None and key in known:
            reason = "already measured"
        if reason is not None:
            invalid.append(
                (given, reason + (f" (missing {', '.join(filled)} filled from the defaults)" if filled else ""))
            )
            continue
        seen[key] = i
        valid.append((config, f"missing {', '.join(filled)} filled from the spec's defaults" if filled else ""))
    return valid, invalid


# -- edits ---------------------------------------------------------------------------------
EDIT_KINDS = ("add_param", "add_values", "drop_values")


@dataclass
class SpaceEdit:
    """add_param: a new parameter with its values and default (the value that keeps the kernel as
    it was); add_values / drop_values: change an existing parameter's list."""

    kind: str
    param: str
    values: list = field(default_factory=list)
    default: object = None

    @classmethod
    def from_dict(cls, d: dict) -> SpaceEdit:
        if not isinstance(d, dict):
            raise SpaceError("an edit must be a table with kind, param, values (and default)")
        extra = set(d) - {"kind", "param", "values", "default"}
        if extra:
            raise SpaceError(f"unknown edit {plural(len(extra), 'field')}: {', '.join(sorted(extra))}", d.get("param"))
        return cls(
            kind=d.get("kind", ""), param=d.get("param", ""), values=d.get("values", []), default=d.get("default")
        )


def _values_ok(values, param: str) -> list:
    if not isinstance(values, list) or not values:
        raise SpaceError(f"{param}: values must be a non-empty list", param)
    try:
        return check_tune_params({param: values}, "values")[param]
    except BadValue as e:
        raise SpaceError(f"{param}: {e}", param) from None


def apply_edit(spec: Spec, edit: SpaceEdit, max_threads: int | None = MAX_THREADS) -> Spec:
    """A new Spec with the edit applied; SpaceError (naming the parameter) when it is not sound."""
    p = edit.param
    if edit.kind not in EDIT_KINDS:
        raise SpaceError(f"unknown edit kind {edit.kind!r} (known: {', '.join(EDIT_KINDS)})", p or None)
    if name_problem(p):
        raise SpaceError(f"parameter name {name_problem(p)}", p or None)
    new = copy.deepcopy(spec)
    values = _values_ok(edit.values, p)
    if edit.kind == "add_param":
        if p in spec.tune_params:
            raise SpaceError(f"{p}: already a parameter (use add_values)", p)
        if p in FORBIDDEN_NAMES:
            raise SpaceError(f"{p}: reserved by kernel_tuner", p)
        if edit.default is None or _match(edit.default, values) is None:
            raise SpaceError(f"{p}: the default {edit.default!r} must be one of the values {values}", p)
        new.tune_params[p] = values
        new.defaults[p] = _match(edit.default, values)
    else:
        if p not in spec.tune_params:
            raise SpaceError(f"{p}: no such parameter (parameters: {', '.join(spec.tune_params)})", p)
        old = list(spec.tune_params[p])
        if edit.kind == "add_values":
            numeric = all(_is_number(v) for v in old)
            if any(_is_number(v) != numeric for v in values):
                raise SpaceError(f"{p}: {'numbers' if numeric else 'non-numbers'} expected, like {old}", p)
            added = [v for v in values if _match(v, old) is None]
            if not added:
                raise SpaceError(f"{p}: all of {values} are already values", p)
            merged = old + added
            new.tune_params[p] = sorted(merged) if numeric and old == sorted(old) else merged
        else:
            missing = [v for v in values if _match(v, old) is None]
            if missing:
                raise SpaceError(f"{p}: {missing[0]!r} is not one of its values {old}", p)
            drop = {repr(_match(v, old)) for v in values}
            if repr(spec.baseline_params()[p]) in drop:
                raise SpaceError(
                    f"{p}: cannot drop {spec.baseline_params()[p]!r}, the default "
                    "(the original kernel's configuration)",
                    p,
                )
            new.tune_params[p] = [v for v in old if repr(v) not in drop]
    if space_size(new, max_threads) == 0:
        raise SpaceError(f"{p}: after this edit no configuration satisfies the restrictions", p)
    return new
