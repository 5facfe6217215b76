"""Prompt templates: packaged ones, each overridable by a file of the same name in the user's config dir."""

from __future__ import annotations

import json
import os
import re
from importlib import resources
from pathlib import Path

from ..errors import UserError
from ..files import FileRefused, read_text_file
from ..paths import config_dir

NAMES = (
    "system",
    "plan",
    "validate_step",
    "breakdown",
    "execute_step",
    "replan",
    "one_prompt",
    "rewrite_reply",
    "propose_configs",
    "edit_space",
)
PLACEHOLDERS = (
    "kernel_string",
    "kernel_name",
    "tune_params",
    "restrictions",
    "step",
    "previous_steps",
    "results",
    "gpu",
    "problem_size",
    "step_params",
    "space",
    "round",
    "anchors",
    "failed",
    "batch_size",
    "performance",  # engine/profiles.py: device facts, % of peak, profiles (at most 1,500 characters)
)
TEMPLATE_MAX = 256 << 10  # the built-in ones are under 2 KiB each
PLACEHOLDER = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")
EXAMPLE_FENCE = re.compile(r"```json\s*\n(.*?)```", re.S)
ANGLED = re.compile(r"^<[a-z][a-z0-9 ,'/-]*>$", re.I)  # "<short name of the change>": a template's placeholder
EXAMPLE_KEYS = ("param_a", "param_b")


class TemplateError(UserError):
    pass


def template_dir_user() -> Path:
    return config_dir() / "templates"


def template_text(name: str) -> str:
    if name not in NAMES:
        raise TemplateError(f"unknown prompt template {name!r} (known: {', '.join(NAMES)})")
    user = template_dir_user() / f"{name}.txt"
    if os.path.lexists(user):  # the user's own, read as a file of text under the cap or refused by name
        try:
            return read_text_file(user, "prompt template", TEMPLATE_MAX)
        except FileRefused as e:
            raise TemplateError(str(e)) from None
    return resources.files("kt_tui.llm").joinpath("templates", f"{name}.txt").read_text(encoding="utf-8")


def render(name: str, **values) -> str:
    return render_text(template_text(name), f"prompt template {name!r}", **values)


def render_text(text: str, what: str, **values) -> str:
    """`text` with each known {placeholder} replaced; any other brace is kept as written."""
    missing = sorted({m.group(1) for m in PLACEHOLDER.finditer(text)} - values.keys())
    if missing:
        raise TemplateError(f"{what} needs a value for " + ", ".join(f"{{{m}}}" for m in missing))
    return PLACEHOLDER.sub(lambda m: _text(values[m.group(1)]), text)


def messages_for(name: str, **values) -> list[dict]:
    return [
        {"role": "system", "content": render("system", **values)},
        {"role": "user", "content": render(name, **values)},
    ]


def rewrite_messages(prompt: str, what: str, **values) -> list[dict]:
    """A kernel rewrite asked with a prompt of its own (a step of a steps file, the one-prompt
    template), followed by the rules and the reply shape every rewrite shares."""
    user = render_text(prompt, what, **values).strip() + "\n\n" + render("rewrite_reply", **values)
    return [{"role": "system", "content": render("system", **values)}, {"role": "user", "content": user}]


def example_values() -> set[str]:
    """The strings in the templates' example replies that no real answer repeats (prose, not names)."""
    found: set[str] = set()
    for name in NAMES:
        try:
            text = template_text(name)
        except TemplateError:
            continue
        for m in EXAMPLE_FENCE.finditer(text):
            try:
                values = {v.strip().lower() for v in _strings(json.loads(m.group(1)))}
                found |= values | {v.strip("<>") for v in values}
            except ValueError:
                continue
    return {v for v in found if " " in v or "..." in v}


def echoed(data) -> list[str]:
    """Problems for a reply that repeats the prompt's example instead of answering."""
    examples, problems = example_values(), []

    def walk(value, where: str) -> None:
        if isinstance(value, str):
            if value.strip().lower() in examples or ANGLED.match(value.strip()):
                problems.append(f"{where or 'top level'}: {value[:60]!r} is the prompt's example, not an answer")
        elif isinstance(value, dict):
            for k, v in value.items():
                if str(k) in EXAMPLE_KEYS or ANGLED.match(str(k).strip()):
                    problems.append(
                        f"{where or 'top level'}: {k!r} is the prompt's example parameter, not one of the kernel's"
                    )
                walk(v, f"{where}.{k}" if where else str(k))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, f"{where}.{i}" if where else str(i))

    walk(data, "")
    return problems


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _text(value) -> str:
    """Values that are not strings, laid out for reading: dicts as "name: value" lines, lists numbered."""
    if hasattr(value, "model_dump"):
        value = value.model_dump()
    if value is None:
        return "(none)"
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "title" in value:
        return _item(value)
    if isinstance(value, dict):
        return "\n".join(f"  {k}: {_text(v)}" for k, v in value.items()) if value else "(none)"
    if isinstance(value, (list, tuple)):
        if not value:
            return "(none)"
        if all(isinstance(v, (int, float, bool)) for v in value):
            return json.dumps(list(value))
        return "\n".join(f"{i}. {_item(v)}" for i, v in enumerate(value, 1))
    return str(value)


def _item(v) -> str:
    if hasattr(v, "model_dump"):
        v = v.model_dump()
    if isinstance(v, dict) and "title" in v:
        rest = {k: x for k, x in v.items() if k != "title" and x not in (None, "")}
        return str(v["title"]) + ("".join(f"\n   {k}: {x}" for k, x in rest.items()))
    return v if isinstance(v, str) else json.dumps(v, default=str)
