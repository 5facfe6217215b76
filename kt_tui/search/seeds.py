"""Heuristic seed configurations: rules (TOML files) that say which configurations are worth
measuring first for a kind of kernel.

A rule file:

    name = "block-1d"                       # unique; a user rule of the same name replaces a built-in
    description = "..."
    [when]                                  # all that are given must hold
    dims = [1]                              # len(problem_size)
    params = ["block_size_x"]               # patterns (fnmatch) that must each match a parameter
    any_params = ["*vec*"]                  # at least one must match
    source_matches = ["regex"]              # must each be found in the kernel source
    source_lacks = ["regex"]                # must not be found
    gpu = "regex"                           # searched in the GPU name, case-insensitive
    [[seeds]]                               # one or more patterns
    block_size_x = { multiple_of = 32, min = 128, max = 512 }   # or a value, or a list of values
    "tile_size_*" = { values = [2, 4] }     # a pattern key constrains every parameter it matches
    where = "128 <= threads <= 256"         # optional; `threads` is the product of the block sizes
    prefer = "abs(threads - 256)"           # optional; smaller first
    limit = 2                               # configurations taken from this pattern

A pattern picks configurations of the space (restrictions included); parameters it does not name
stay as close to the spec's defaults as the space allows. The eligible rules' patterns are combined,
one pattern per rule, in every combination (see seed_configs).
"""

from __future__ import annotations

import fnmatch
import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parser  # type: ignore[attr-defined]
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..files import RULES_MAX, FileRefused, read_text_file
from ..kernel.expr import Expr as Restriction
from ..kernel.spec import Spec
from ..kernel.values import value_problem
from ..tomlfile import TomlError, first_error, load_toml
from .lazy import SAMPLE, LazySpace, is_huge
from .space import SpaceError, block_names, configurations, parse_expression

FILTER_KEYS = {"values", "min", "max", "multiple_of", "power_of_2"}
SEED_KEYS = {"where", "prefer", "limit"}
MAX_COMBINATIONS = 16
WHEN_KEYS = {"dims", "params", "any_params", "source_matches", "source_lacks", "gpu"}


RuleError = TomlError


@dataclass
class Pattern:
    filters: dict  # key pattern -> value filter (dict)
    where: Restriction | None = None
    prefer: Restriction | None = None
    limit: int = 2


@dataclass
class Rule:
    name: str
    description: str
    path: str
    when: dict = field(default_factory=dict)
    patterns: list[Pattern] = field(default_factory=list)

    def eligible(self, spec: Spec, source: str, gpu: str) -> bool:
        w, names = self.when, list(spec.tune_params)
        if "dims" in w and len(spec.problem_size) not in w["dims"]:
            return False
        if any(not fnmatch.filter(names, p) for p in w.get("params", [])):
            return False
        if w.get("any_params") and not any(fnmatch.filter(names, p) for p in w["any_params"]):
            return False
        if any(not re.search(p, source) for p in w.get("source_matches", [])):
            return False
        if any(re.search(p, source) for p in w.get("source_lacks", [])):
            return False
        return not ("gpu" in w and not re.search(w["gpu"], gpu or "", re.IGNORECASE))


# -- reading rule files --------------------------------------------------------------------
REGEX_MAX = 200


def backtracking_risk(rx: str) -> str | None:
    """Why matching `rx` could take exponential time, or None. Python's re backtracks and cannot be
    timed out from a worker thread, so risky shapes are refused when the rule is read: long patterns,
    backreferences, and a repeat around another repeat or an alternation."""
    if len(rx) > REGEX_MAX:
        return f"longer than {REGEX_MAX} characters"

    def walk(items, inside: bool):
        for op, arg in items:
            if op in (sre.GROUPREF, sre.GROUPREF_EXISTS):
                return "a backreference"
            if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
                if inside and arg[1] > 1:
                    return "a repeat inside a repeat (nested quantifiers)"
                found = walk(arg[2], inside or arg[1] > 1)
            elif op == sre.BRANCH:
                if inside:
                    return "an alternation inside a repeat"
                found = next((w for b in arg[1] if (w := walk(b, inside))), None)
            elif op == sre.SUBPATTERN:
                found = walk(arg[3], inside)
            elif op in (sre.ASSERT, sre.ASSERT_NOT, sre.ATOMIC_GROUP):
                found = walk(arg[1] if op != sre.ATOMIC_GROUP else arg, inside)
            else:
                found = None
            if found:
                return found
        return None

    return walk(sre_parser.parse(rx), False)


def _strings(v) -> list[str]:
    v = [v] if isinstance(v, str) else v
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ValueError("expected a string or a list of strings")
    return v


def _regexes(rxs: list[str]) -> list[str]:
    for rx in rxs:
        try:
            re.compile(rx)
        except re.error as e:
            raise ValueError(f"bad regular expression {rx!r}: {e}") from None
        why = backtracking_risk(rx)
        if why:
            raise ValueError(f"regular expression {rx[:60]!r} refused: {why}")
    return rxs


class When(BaseModel):
    """The [when] table: all that are given must hold."""

    model_config = ConfigDict(extra="forbid")

    dims: list[int] | None = None
    params: list[str] | None = None
    any_params: list[str] | None = None
    source_matches: list[str] | None = None
    source_lacks: list[str] | None = None
    gpu: str | None = None

    @field_validator("dims", mode="before")
    @classmethod
    def _dims(cls, v):
        v = [v] if isinstance(v, int) else v
        if not isinstance(v, list) or not all(
            isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 3 for x in v
        ):
            raise ValueError("expected 1, 2 or 3, or a list of them")
        return v

    @field_validator("params", "any_params", "source_matches", "source_lacks", mode="before")
    @classmethod
    def _lists(cls, v, info):
        v = _strings(v)
        return _regexes(v) if info.field_name.startswith("source") else v

    @field_validator("gpu", mode="before")
    @classmethod
    def _gpu(cls, v):
        rxs = _regexes(_strings(v)[:1])
        return rxs[0] if rxs else None


class RuleFile(BaseModel):
    """A rule file as written."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(min_length=1)
    description: str = Field(min_length=1)
    when: When = When()
    seeds: list[dict[str, Any]] = Field(min_length=1)

    @field_validator("name", "description")
    @classmethod
    def _text(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("missing: a non-empty string")
        return v.strip()


def _problem(err: Mapping[str, Any]) -> dict[str, str]:
    """Words for the errors whose pydantic wording says too little here."""
    top = err["loc"][0]
    if err["type"] == "extra_forbidden":
        known = WHEN_KEYS if top == "when" and len(err["loc"]) > 1 else set(RuleFile.model_fields)
        return {"extra_forbidden": f"unknown key (known: {', '.join(sorted(known))})"}
    if top in ("name", "description"):
        return {err["type"]: "missing: a non-empty string"}
    if top == "seeds" and len(err["loc"]) <= 2:
        return {err["type"]: "missing: one or more [[seeds]] tables"}
    return {"model_type": "expected a table", "dict_type": "expected a table"}


def _filter(v, path, where: str) -> dict:
    if isinstance(v, (int, float, str, bool)):
        v = [v]
    if isinstance(v, list) and v and all(isinstance(x, (int, float, str, bool)) for x in v):
        for i, x in enumerate(v):
            problem = value_problem(x)
            if problem:
                raise RuleError(f"{where}[{i}]", problem, path)
        return {"values": v}
    if not isinstance(v, dict):
        raise RuleError(
            where, f"expected a value, a list of values, or a table with {', '.join(sorted(FILTER_KEYS))}", path
        )
    for k in v:
        if k not in FILTER_KEYS:
            raise RuleError(f"{where}.{k}", f"unknown key (known: {', '.join(sorted(FILTER_KEYS))})", path)
    for k in ("min", "max", "multiple_of"):
        if k in v and (not isinstance(v[k], (int, float)) or isinstance(v[k], bool) or value_problem(v[k])):
            raise RuleError(f"{where}.{k}", "expected a finite number", path)
    if "multiple_of" in v and v["multiple_of"] <= 0:
        raise RuleError(f"{where}.multiple_of", "expected a number > 0", path)
    if "power_of_2" in v and not isinstance(v["power_of_2"], bool):
        raise RuleError(f"{where}.power_of_2", "expected true or false", path)
    if "values" in v:
        v = dict(v, values=_filter(v["values"], path, f"{where}.values")["values"])
    return v


def _expr(v, path, where: str) -> Restriction:
    if not isinstance(v, str):
        raise RuleError(where, "expected an expression in a string", path)
    try:
        return parse_expression(v, "expression")
    except SpaceError as e:
        raise RuleError(where, str(e), path) from None


def parse_rule(text: str, path: str = "<rule>") -> Rule:
    data = load_toml(text, path)
    try:
        rule = RuleFile.model_validate(data)
    except ValidationError as e:
        raise first_error(e, path, words=_problem(e.errors()[0])) from None
    patterns = []
    for i, s in enumerate(rule.seeds):
        where = f"seeds[{i}]"
        limit = s.get("limit", 2)
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise RuleError(f"{where}.limit", "expected an integer >= 1", path)
        filters = {k: _filter(v, path, f"{where}.{k}") for k, v in s.items() if k not in SEED_KEYS}
        if not filters and "where" not in s:
            raise RuleError(where, "names no parameter and has no `where`: it picks nothing", path)
        patterns.append(
            Pattern(
                filters,
                _expr(s["where"], path, f"{where}.where") if "where" in s else None,
                _expr(s["prefer"], path, f"{where}.prefer") if "prefer" in s else None,
                limit,
            )
        )
    when = rule.when.model_dump(exclude_none=True)
    return Rule(rule.name, rule.description, path, when, patterns)


def load_rules(rule_dirs=()) -> list[Rule]:
    """The built-in rules, then those in rule_dirs (missing folders are fine); a later rule of the
    same name replaces an earlier one. RuleError names the file and field of a bad rule."""
    rules: dict[str, Rule] = {}
    for f in sorted(resources.files(__package__).joinpath("rules").iterdir(), key=lambda p: p.name):
        if f.name.endswith(".toml"):
            r = parse_rule(f.read_text(encoding="utf-8"), f"rules/{f.name} (built in)")
            rules[r.name] = r
    for d in rule_dirs or ():
        d = Path(d)
        if not d.is_dir():
            continue
        for f in sorted(d.glob("*.toml")):
            try:
                text = read_text_file(f, "rule file", RULES_MAX)
            except FileRefused as e:
                raise RuleError("", f"cannot read: {e}", f) from None
            r = parse_rule(text, str(f))
            rules[r.name] = r
    return list(rules.values())


# -- picking configurations ----------------------------------------------------------------
def _allows(flt: dict, v) -> bool:
    if "values" in flt and v not in flt["values"]:
        return False
    if set(flt) - {"values"}:
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            return False
        if ("min" in flt and v < flt["min"]) or ("max" in flt and v > flt["max"]):
            return False
        if "multiple_of" in flt and v % flt["multiple_of"] != 0:
            return False
        if flt.get("power_of_2") and not (isinstance(v, int) and v > 0 and v & (v - 1) == 0):
            return False
    return True


class _Picker:
    def __init__(self, spec: Spec):
        self.names = list(spec.tune_params)
        self.space = configurations(spec) if not is_huge(spec) else _sample(spec)
        self.base = spec.baseline_params()
        self.pos = {n: {v: i for i, v in enumerate(vals)} for n, vals in spec.tune_params.items()}
        bn = self.block = block_names(spec)
        self.envs = []
        for c in self.space:
            env = dict(zip(self.names, c))
            env.setdefault("threads", math.prod(env[n] for n in bn) if bn else 1)
            self.envs.append(env)

    def matches(self, p: Pattern) -> tuple[set[str], list[int]] | None:
        """The parameters a pattern names and the space indices it allows; None if it cannot apply."""
        keys = {}
        for key, flt in p.filters.items():
            hit = fnmatch.filter(self.names, key)
            if not hit:
                return None
            keys.update({n: flt for n in hit})
        for e in (p.where, p.prefer):
            if e is not None and not e.names <= set(self.envs[0] if self.envs else ()):
                return None
        out = [
            i
            for i, env in enumerate(self.envs)
            if all(_allows(f, env[n]) for n, f in keys.items()) and (p.where is None or p.where.holds(env))
        ]
        return pattern_names(p, self.names, self.block), out

    def rank(self, idx: list[int], patterns: list[Pattern], named: set[str]) -> list[int]:
        def key(i):
            env = self.envs[i]
            pref = []
            for p in patterns:
                try:
                    pref.append(float(p.prefer.value(env)) if p.prefer else 0.0)
                except (ArithmeticError, TypeError, ValueError):
                    pref.append(math.inf)
            free = [n for n in self.names if n not in named]
            moved = sum(env[n] != self.base[n] for n in free)
            dist = sum(abs(self.pos[n][env[n]] - self.pos[n][self.base[n]]) for n in free)
            return (*pref, moved, dist, i)

        return sorted(idx, key=key)

    def config(self, i: int) -> dict:
        return dict(zip(self.names, self.space[i]))


def pattern_names(p: Pattern, names: list[str], block: Sequence[str]) -> set[str]:
    """The parameters a pattern names: those its keys match, and those its `where` and `prefer` read
    (`threads`: the block sizes)."""
    named = {n for key in p.filters for n in fnmatch.filter(names, key)}
    for e in (p.where, p.prefer):
        if e is not None:
            named |= {n for n in e.names if n in names} | (set(block) if "threads" in e.names else set())
    return named


def named_params(spec: Spec, groups: Sequence[str], rule_dirs: Sequence[str | Path] = ()) -> list[list[str]]:
    """Per seed group ("block-2d[1] + register-tiling[0]", as grouped_seed_configs gives them), the
    parameters its patterns name, in the spec's order: the others were only set near the defaults,
    and the search may set them from what it has measured (kt_search.Search._complete)."""
    rules = {r.name: r for r in load_rules(rule_dirs)}
    names, block = list(spec.tune_params), block_names(spec)
    out = []
    for group in groups:
        named: set[str] = set()
        for part in str(group).split(" + "):
            rule, _, at = part.strip().rpartition("[")
            k = int(at.rstrip("]")) if at.rstrip("]").isdigit() else -1
            if rule in rules and 0 <= k < len(rules[rule].patterns):
                named |= pattern_names(rules[rule].patterns[k], names, block)
        out.append([n for n in names if n in named])
    return out


def _sample(spec: Spec) -> list[tuple]:
    """A huge space's stand-in for picking seeds: the defaults and a fixed random sample (the same
    on every resume)."""
    lazy = LazySpace(spec)
    base = tuple(spec.baseline_params()[n] for n in lazy.names)
    return list(dict.fromkeys(([base] if lazy.contains(base) else []) + lazy.sample(np.random.default_rng(0), SAMPLE)))


def seed_configs(
    spec: Spec, source: str, gpu: str = "", rule_dirs: Sequence[str | Path] = ()
) -> list[tuple[dict[str, Any], str]]:
    """(config, label) pairs, valid in the spec's space and without duplicates. The eligible rules'
    patterns are combined, one pattern per rule, in every combination (first patterns first); a
    pattern that would leave nothing is left out of its combination. Each combination gives its
    best configurations (as many as its largest limit, differing in the parameters the patterns
    name); the label names the rules that shaped it ("block-2d + register-tiling"). A rule left
    out of every combination gives its own picks."""
    return [(c, label) for c, label, _ in grouped_seed_configs(spec, source, gpu, rule_dirs)]


def grouped_seed_configs(
    spec: Spec, source: str, gpu: str = "", rule_dirs: Sequence[str | Path] = ()
) -> list[tuple[dict[str, Any], str, str]]:
    """seed_configs with the group of each: the patterns that picked it ("block-2d[1] +
    register-tiling[0]", each rule's [[seeds]] table by position), the unit the search weighs by
    its measurements."""
    rules = [r for r in load_rules(rule_dirs) if r.eligible(spec, source, gpu)]
    if not rules:
        return []
    try:
        pick = _Picker(spec)
    except SpaceError:  # too large to enumerate: no seeds rather than no tuning
        return []
    options = []
    for r in rules:
        applicable = [
            (f"{r.name}[{k}]", p, m) for k, p in enumerate(r.patterns) if (m := pick.matches(p)) is not None and m[1]
        ]
        if applicable:
            options.append(applicable)
    out: dict[int, tuple[str, str]] = {}
    combined: set[str] = set()
    for combo in itertools.islice(itertools.product(*options), MAX_COMBINATIONS):
        used: list[str] = []
        pats: list[Pattern] = []
        named: set[str] = set()
        idx: set[int] | None = None
        for name, p, (keys, allowed) in combo:
            both = set(allowed) if idx is None else idx & set(allowed)
            if both:
                used, pats, named, idx = used + [name], pats + [p], named | keys, both
        combined.update(n.rpartition("[")[0] for n in used)
        label = " + ".join(n.rpartition("[")[0] for n in used)
        _take(pick, sorted(idx or ()), pats, named, (label, " + ".join(used)), out)
    for opts in options:  # a rule that conflicts with the ones before it still gets its own picks
        for name, p, (keys, allowed) in opts:
            if name.rpartition("[")[0] not in combined:
                _take(pick, allowed, [p], keys, (name.rpartition("[")[0], name), out)
    return [(pick.config(i), label, group) for i, (label, group) in out.items()]


def _take(
    pick: _Picker,
    idx: list[int],
    pats: list[Pattern],
    named: set[str],
    label: tuple[str, str],
    out: dict[int, tuple[str, str]],
) -> None:
    """The best configurations of idx that differ in the named parameters, up to the patterns' limit."""
    taken: set = set()
    for i in pick.rank(idx, pats, named):
        proj = tuple(pick.envs[i][n] for n in sorted(named))
        if proj in taken:
            continue
        taken.add(proj)
        out.setdefault(i, label)
        if len(taken) >= max(p.limit for p in pats):
            break
