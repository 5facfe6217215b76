"""What an edit changed: the proposed value of each field the user edited, beside the value they
gave. Stored with the decision ("before"), shown as a diff in the app and the report."""

from __future__ import annotations

import difflib
import json
from typing import Any

_TEXT_FIELDS = ("text", "code", "prompt", "description")  # where a gate keeps the text an edit replaces


def _as_text(value: object) -> str:
    """A line per parameter, configuration or restriction: the diff shows which one changed."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(f"{k} = {json.dumps(v, default=str)}" for k, v in value.items())
    if isinstance(value, list):
        return "\n".join(json.dumps(v, sort_keys=True, default=str) for v in value)
    return json.dumps(value, default=str)


def edited_fields(body: dict[str, Any], value: object) -> dict[str, object]:
    """field -> the gate's proposed value, for the fields `value` (an edit decision's) replaces."""
    if isinstance(value, dict):
        return {k: body.get(k) for k in value}
    if isinstance(value, list):
        return {"configs": body.get("configs")}
    for name in _TEXT_FIELDS:
        if body.get(name):
            return {name: body[name]}
    return {"text": None}


def decision_record(gate: Any, decision: dict[str, Any]) -> dict[str, Any]:
    """A decision as stored: with the choice as the gate names it ("as": an accept gate's skip is a
    reject), and for an edit what it replaced ("before", the gate's `proposed`)."""
    record = {**decision, "as": gate.choice_name(decision.get("choice"))}
    if decision.get("choice") != "edit":
        return record
    return {**record, "before": gate.proposed(decision.get("value"))}


def edit_diff(before: dict[str, Any], value: object, width: int = 3) -> str:
    """A unified diff per edited field ('' when the edit changed nothing)."""
    after = value if isinstance(value, dict) else {next(iter(before), "text"): value}
    out: list[str] = []
    for name, old in before.items():
        a, b = _as_text(old), _as_text(after.get(name))
        if a == b:
            continue
        out += difflib.unified_diff(
            a.splitlines(), b.splitlines(), f"{name} (proposed)", f"{name} (edited)", n=width, lineterm=""
        )
    return "\n".join(out)
