"""One count-noun helper for every message: 1 step, 2 steps; no "1 configurations" anywhere."""

from __future__ import annotations

import re
from pathlib import Path

from kt_tui.words import counted, plural

ROOT = Path(__file__).resolve().parents[2]


def test_one_is_singular_and_every_other_count_plural():
    assert counted(1, "step") == "1 step" and counted(2, "step") == "2 steps" and counted(0, "step") == "0 steps"
    assert counted(1, "guess") == "1 guess" and counted(3, "guess") == "3 guesses"
    assert plural(1, "configuration") == "configuration" and plural(1.5, "configuration") == "configurations"


def test_no_message_writes_a_noun_with_s_in_brackets():
    """`error(s)`, `step(s)`: the helper says it instead (compare.py, which imports nothing of kt_tui, aside)."""
    found = []
    for path in (ROOT / "kt_tui").rglob("*.py"):
        if path.name == "compare.py":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"f[\"'].*\b[a-z]+\((s|es)\)", line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_space_as_the_llm_and_the_user_read_it_counts_one_value_and_one_configuration():
    from dataclasses import replace

    from kt_tui.kernel.spec import load_spec
    from kt_tui.search.space import render

    from ..conftest import EXAMPLES

    spec = load_spec(EXAMPLES / "vector_add.cu.toml")
    text = render(replace(spec, tune_params={"block_size_x": [256]}, restrictions=[]))
    assert "block_size_x (int, 1 value): [256]" in text and "Search space of vector_add: 1 parameter." in text, text
    assert "Size: 1 configuration before restrictions" in text, text
