"""Steps files for the explicit strategy: TOML with one `[[step]]` table per step.

    [[step]]
    id = "tile_shared"                 # letters, digits, _ and -; starts with a letter
    title = "Tile the inputs in shared memory"
    description = "..."                # optional: what the plan shows
    prompt = '''... {kernel_string} ...'''
    tune_params = { tile = [16, 32] }  # optional: name -> candidate values
    skip_evaluation = false            # optional: true skips asking the LLM whether the step fits
    depends_on = ["block_xy"]          # optional: earlier steps that must have been accepted

Every problem is a StepsError (the TomlError of every TOML file) naming the file, the step and the field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ...files import STEPS_MAX, FileRefused, read_text_file
from ...kernel.values import check_tune_params
from ...tomlfile import TomlError, first_error, load_toml

LIBRARY = "library.toml"
ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
RESERVED = {"one-prompt"}  # the one-prompt strategy's step
StepsError = TomlError


class StepFile(BaseModel):
    """One [[step]] table as written in the file."""

    model_config = ConfigDict(extra="forbid", strict=True)

    id: str
    title: str = Field(min_length=1)
    prompt: str = Field(min_length=1)
    description: str = ""
    tune_params: dict[str, Any] = {}
    skip_evaluation: bool = False
    depends_on: list[str] = []

    @field_validator("title", "prompt")
    @classmethod
    def _text(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("required: a non-empty string")
        return v

    @field_validator("prompt")
    @classmethod
    def _prompt(cls, v: str) -> str:
        if "{kernel_string}" not in v:
            raise ValueError("must contain {kernel_string}")
        return v

    @field_validator("tune_params", mode="before")
    @classmethod
    def _tune(cls, v: object) -> dict[str, list[Any]]:
        if not isinstance(v, dict):
            raise ValueError("must be a table of name = [values]")
        return check_tune_params(v)  # BadValue names the parameter

    @field_validator("depends_on", mode="before")
    @classmethod
    def _deps(cls, v: object) -> list[str]:
        v = [v] if isinstance(v, str) else v
        if not isinstance(v, list) or not all(isinstance(d, str) for d in v):
            raise ValueError("must be a list of step ids")
        return v


STEP_KEYS = set(StepFile.model_fields)
_WORDS = {
    "missing": "required: a non-empty string",
    "string_too_short": "required: a non-empty string",
    "extra_forbidden": f"unknown field (known: {', '.join(sorted(STEP_KEYS))})",
}


@dataclass
class Step:
    id: str
    title: str
    prompt: str
    description: str = ""
    tune_params: dict[str, list[Any]] = field(default_factory=dict)
    skip_evaluation: bool = False
    depends_on: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


def library_text() -> str:
    return resources.files("kt_tui").joinpath("steps", LIBRARY).read_text(encoding="utf-8")


def load_steps(path: str | Path | None = None) -> tuple[str, list[Step]]:
    """(where the steps came from, the steps): the file at `path`, or the library shipped with kt-tui."""
    if path is None:
        return LIBRARY, parse_steps(library_text(), LIBRARY)
    p = Path(path)
    try:
        text = read_text_file(p, "steps file", STEPS_MAX)
    except FileRefused as e:
        raise StepsError("", f"cannot read the steps file: {e}", p) from None
    return str(p), parse_steps(text, str(p))


def parse_steps(text: str, where: str = "steps.toml") -> list[Step]:
    data = load_toml(text, where)
    extra = sorted(set(data) - {"step"})
    if extra:
        raise StepsError(extra[0], "unknown key (a steps file holds [[step]] tables only)", where)
    items = data.get("step")
    if not isinstance(items, list) or not items:
        raise StepsError("step", "no steps: add at least one [[step]] table", where)
    steps: list[Step] = []
    for i, item in enumerate(items, 1):
        steps.append(_step(item, f"#{i}", where, {s.id for s in steps}))
    return steps


def _step(item: dict[str, Any], label: str, where: str, earlier: set[str]) -> Step:
    sid = item.get("id")
    if not isinstance(sid, str) or not ID.match(sid):
        raise StepsError(f"step {label}.id", "required: letters, digits, _ or -, starting with a letter", where)
    at = f"step {sid!r}"
    if sid in earlier:
        raise StepsError(f"{at}.id", "used by an earlier step", where)
    if sid in RESERVED:
        raise StepsError(f"{at}.id", "reserved for another strategy's step; pick another id", where)
    try:
        s = StepFile.model_validate(item)
    except ValidationError as e:
        raise first_error(e, where, at, _WORDS) from None
    for d in s.depends_on:
        if d not in earlier:
            raise StepsError(f"{at}.depends_on", f"{d!r} is not a step defined before this one", where)
    return Step(
        sid, s.title.strip(), s.prompt, s.description.strip(), s.tune_params, s.skip_evaluation, list(s.depends_on)
    )


def blocked_by(step: Step, outcomes: dict[str, str]) -> tuple[str, str] | None:
    """The first dependency that did not end accepted, with its state: such a step is skipped.
    A dependency that was skipped, failed or rejected (not faster by the threshold) gained nothing."""
    for dep in step.depends_on:
        state = outcomes.get(dep, "not run")
        if state != "accepted":
            return dep, state
    return None
