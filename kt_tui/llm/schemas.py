"""The shapes asked of the LLM, tolerant of the usual drift in key names and nesting."""

from __future__ import annotations

import re

from pydantic import AliasChoices, BaseModel, Field, field_validator, model_validator

INT = re.compile(r"^\s*[+-]?\d+\s*$")
FLOAT = re.compile(r"^\s*[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?\s*$")
CODE_FENCE = re.compile(r"^\s*```[\w+-]*[^\n]*\n(.*?)\n?```\s*$", re.S)


class PlanStep(BaseModel):
    title: str = Field(validation_alias=AliasChoices("title", "name", "step", "summary"))
    description: str = Field("", validation_alias=AliasChoices("description", "details", "desc", "detail"))

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, data):
        return {"title": data} if isinstance(data, str) else data

    @field_validator("description", mode="before")
    @classmethod
    def _none_is_empty(cls, v):
        return "" if v is None else v


def _steps(data, *keys: str):
    """A bare list is the steps; so is the value under a drifted key."""
    if isinstance(data, list):
        return {"steps": data}
    if isinstance(data, dict) and "steps" not in data:
        for k in keys:
            if k in data:
                return {**data, "steps": data[k]}
    return data


class Plan(BaseModel):
    steps: list[PlanStep]

    @model_validator(mode="before")
    @classmethod
    def _drift(cls, data):
        return _steps(data, "plan", "optimizations", "optimisations")


class StepVerdict(BaseModel):
    valid: bool = Field(validation_alias=AliasChoices("valid", "is_valid", "ok"))
    reason: str = Field("", validation_alias=AliasChoices("reason", "explanation", "why"))


class Breakdown(BaseModel):
    steps: list[PlanStep]

    @model_validator(mode="before")
    @classmethod
    def _drift(cls, data):
        return _steps(data, "substeps", "sub_steps", "breakdown")


Value = int | float | str | bool


class KernelRewrite(BaseModel):
    kernel_code: str = Field(validation_alias=AliasChoices("kernel_code", "code", "kernel", "source", "kernel_string"))
    tune_params: dict[str, list[Value]] = Field(
        default_factory=dict, validation_alias=AliasChoices("tune_params", "tunable_parameters", "params")
    )
    restrictions: list[str] = Field(default_factory=list)
    explanation: str = ""
    # when the rewrite changes how much work a block does: the grid divisors per dimension
    grid_div_x: list[str] | None = None
    grid_div_y: list[str] | None = None
    grid_div_z: list[str] | None = None

    @field_validator("kernel_code")
    @classmethod
    def _unfence(cls, v: str) -> str:
        m = CODE_FENCE.match(v)
        return m.group(1) if m else v

    @field_validator("tune_params", mode="before")
    @classmethod
    def _lists(cls, v):
        if v is None:
            return {}
        if not isinstance(v, dict):
            return v
        return {k: [_number(x) for x in (vals if isinstance(vals, (list, tuple)) else [vals])] for k, vals in v.items()}

    @field_validator("restrictions", mode="before")
    @classmethod
    def _restriction_list(cls, v):
        if v is None:
            return []
        return [v] if isinstance(v, str) else v

    @field_validator("explanation", mode="before")
    @classmethod
    def _explanation(cls, v):
        return "" if v is None else v


def _number(x):
    """ "128" -> 128 and "0.5" -> 0.5; other values as they are."""
    if isinstance(x, str):
        if INT.match(x):
            return int(x)
        if FLOAT.match(x):
            return float(x)
    return x


class Worth(BaseModel):
    worth_it: bool = Field(validation_alias=AliasChoices("worth_it", "worth", "worthwhile"))
    reason: str = Field("", validation_alias=AliasChoices("reason", "explanation", "why"))


def _configs(data):
    """A bare list is the batch; so is a list under a drifted key."""
    if isinstance(data, list):
        return {"configs": data}
    if isinstance(data, dict) and "configs" not in data:
        for k in ("configurations", "batch", "candidates", "proposals"):
            if k in data:
                return {**data, "configs": data[k]}
    return data


class ConfigBatch(BaseModel):
    """config-search: configurations to benchmark next."""

    configs: list[dict]
    reasoning: str = Field("", validation_alias=AliasChoices("reasoning", "explanation", "reason", "why"))

    @model_validator(mode="before")
    @classmethod
    def _shape(cls, data):
        return _configs(data)

    @field_validator("configs", mode="before")
    @classmethod
    def _numbers(cls, v):
        if not isinstance(v, list):
            return v
        return [{k: _number(x) for k, x in c.items()} if isinstance(c, dict) else c for c in v]


class SpaceChange(BaseModel):
    action: str = Field(validation_alias=AliasChoices("action", "op", "kind", "type"))
    param: str = Field(validation_alias=AliasChoices("param", "parameter", "name"))
    values: list = []
    default: object = None

    @field_validator("values", mode="before")
    @classmethod
    def _values(cls, v):
        v = [] if v is None else (v if isinstance(v, list) else [v])
        return [_number(x) for x in v]


class SpaceEdit(BaseModel):
    """config-search: changes to the search space, proposed from the results so far."""

    edits: list[SpaceChange] = Field(
        default_factory=list, validation_alias=AliasChoices("edits", "changes", "space_edits")
    )
    reason: str = Field("", validation_alias=AliasChoices("reason", "reasoning", "explanation"))
