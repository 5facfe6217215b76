"""A plan as text the user edits: one step per numbered (or dashed) line, its description indented
below. Deleting, reordering, rewording and adding steps are all plain text edits."""

from __future__ import annotations

import re

_HEAD = re.compile(r"^\s*(?:\d+[.)]\s*(?=[^\d\s])|\d+[.)]\s+|[-*#]+\s+)(.*\S)\s*$")
_MARKS = re.compile(r"^(?:#+\s*|\d+[.)]\s*|[-*]\s+|step\s+[\w.-]+\s*:\s*)+", re.IGNORECASE)


def clean_title(title: str) -> str:
    """A step's title as a person typed it, without the list number, `Step 3:`, heading marks or
    bold stars an editor or a pasted plan leaves in front: "2. **Step 2: Tile**" -> "Tile"."""
    title = " ".join(title.replace("**", "").replace("__", "").split())
    return _MARKS.sub("", title).strip() or title


def plan_text(steps: list[tuple[str, str]]) -> str:
    out = []
    for i, (title, text) in enumerate(steps, 1):
        out.append(f"{i}. {title}")
        out += [f"   {line}" for line in text.strip().splitlines() if line.strip()]
    return "\n".join(out) + "\n"


PERFORMANCE_MARK = "--- what every prompt is told of performance (kt-tui's measurements; edit to change it) ---"


def with_performance(plan: str, block: str) -> str:
    """The plan gate's text: the plan, then the performance block the prompts carry."""
    return plan.rstrip("\n") + "\n\n" + PERFORMANCE_MARK + "\n" + block.strip() + "\n" if block else plan


def split_performance(text: str) -> tuple[str, str | None]:
    """(the plan, the performance block after the mark or None when the mark is gone)."""
    plan, mark, block = text.partition(PERFORMANCE_MARK)
    return plan, block.strip() if mark else None


def plan_from_text(text: str) -> list[tuple[str, str]]:
    steps: list[tuple[str, list[str]]] = []
    for line in split_performance(text)[0].splitlines():
        m = _HEAD.match(line)
        if m and not line.startswith((" ", "\t")):
            steps.append((clean_title(m.group(1)), []))
        elif line.strip() and steps:
            steps[-1][1].append(line.strip())
        elif line.strip():
            steps.append((clean_title(line), []))
    return [(title, "\n".join(lines)) for title, lines in steps]
