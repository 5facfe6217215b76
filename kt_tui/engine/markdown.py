"""Markdown pieces for text from the store (an LLM's explanation, a reason, code): what the gates'
summary_md() and the report write with."""

from __future__ import annotations

import re


def md_text(value: object) -> str:
    """Free text from the store (an LLM's explanation, a reason) as a plain paragraph."""
    return re.sub(r"([\\`*_\[\]<>#|])", r"\\\1", " ".join(str(value).split()))


def md_fence(code: str, lang: str = "") -> str:
    ticks = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", code)), default=0))
    return f"{ticks}{lang}\n{code.rstrip()}\n{ticks}"


def md_ms(v: object) -> str:
    return f"{v:.4f} ms" if isinstance(v, (int, float)) else "-"
