"""Steps files for the explicit strategy: TOML with one `[[step]]` table per step.

    [[step]]
    id = "tile_shared"                 # letters, digits, _ and -; starts with a letter
    title = "Tile the inputs in shared memory"
    description = "..."                # optional: what the plan shows
    prompt = '''... {kernel_string} ...'''
    tune_params = { tile = [16, 32] }  # optional: name -> candidate values
    skip_evaluation = false            # optional: true skips asking the LLM whether the step fits
    depends_on = ["block_xy"]          # optional: earlier steps that must have been accepted

Every problem is a StepsError naming the file, the step and the field.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ...errors import UserError
from ...files import STEPS_MAX, FileRefused, read_text_file
from ...kernel.values import BadValue, check_tune_params

LIBRARY = "library.toml"
STEP_KEYS = {"id", "title", "description", "prompt", "tune_params", "skip_evaluation", "depends_on"}
ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
RESERVED = {"one-prompt"}  # the one-prompt strategy's step


class StepsError(UserError):
    def __init__(self, where: str, step: str | None, field_name: str, problem: str):
        self.step, self.field = step, field_name
        at = f"step {step!r}" if step and not step.startswith("#") else f"step {step}" if step else ""
        loc = ".".join(p for p in (at, field_name) if p)
        super().__init__(f"{where}: {loc}: {problem}" if loc else f"{where}: {problem}")


@dataclass
class Step:
    id: str
    title: str
    prompt: str
    description: str = ""
    tune_params: dict[str, list] = field(default_factory=dict)
    skip_evaluation: bool = False
    depends_on: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
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
        raise StepsError(str(p), None, "", f"cannot read the steps file: {e}") from None
    return str(p), parse_steps(text, str(p))


def parse_steps(text: str, where: str = "steps.toml") -> list[Step]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise StepsError(where, None, "", f"not valid TOML: {e}") from None
    extra = sorted(set(data) - {"step"})
    if extra:
        raise StepsError(where, None, extra[0], "unknown key (a steps file holds [[step]] tables only)")
    items = data.get("step")
    if not isinstance(items, list) or not items:
        raise StepsError(where, None, "step", "no steps: add at least one [[step]] table")
    steps: list[Step] = []
    for i, item in enumerate(items, 1):
        steps.append(_step(item, f"#{i}", where, {s.id for s in steps}))
    return steps


def _step(item: dict, label: str, where: str, earlier: set[str]) -> Step:
    sid = item.get("id")
    if not isinstance(sid, str) or not ID.match(sid):
        raise StepsError(where, label, "id", "required: letters, digits, _ or -, starting with a letter")
    if sid in earlier:
        raise StepsError(where, sid, "id", "used by an earlier step")
    if sid in RESERVED:
        raise StepsError(where, sid, "id", "reserved for another strategy's step; pick another id")

    def fail(field_name: str, problem: str):
        raise StepsError(where, sid, field_name, problem)

    unknown = sorted(set(item) - STEP_KEYS)
    if unknown:
        fail(unknown[0], f"unknown field (known: {', '.join(sorted(STEP_KEYS))})")
    for key in ("title", "prompt"):
        if not isinstance(item.get(key), str) or not item[key].strip():
            fail(key, "required: a non-empty string")
    if "{kernel_string}" not in item["prompt"]:
        fail("prompt", "must contain {kernel_string}")
    if not isinstance(item.get("description", ""), str):
        fail("description", "must be a string")
    if not isinstance(item.get("skip_evaluation", False), bool):
        fail("skip_evaluation", "must be true or false")
    tune = item.get("tune_params", {})
    if not isinstance(tune, dict):
        fail("tune_params", "must be a table of name = [values]")
    try:
        tune = check_tune_params(tune)
    except BadValue as e:
        fail(e.field, e.problem)
    deps = item.get("depends_on", [])
    deps = [deps] if isinstance(deps, str) else deps
    if not isinstance(deps, list) or not all(isinstance(d, str) for d in deps):
        fail("depends_on", "must be a list of step ids")
    for d in deps:
        if d not in earlier:
            fail("depends_on", f"{d!r} is not a step defined before this one")
    return Step(sid, item["title"].strip(), item["prompt"], item.get("description", "").strip(),
                dict(tune), item.get("skip_evaluation", False), list(deps))


def blocked_by(step: Step, outcomes: dict[str, str]) -> tuple[str, str] | None:
    """The first dependency that did not end accepted, with its state: such a step is skipped.
    A dependency that was skipped, failed or rejected (not faster by the threshold) gained nothing."""
    for dep in step.depends_on:
        state = outcomes.get(dep, "not run")
        if state != "accepted":
            return dep, state
    return None
