"""A do-nothing mutant of a kernel: the same source with the named kernel's body emptied. A check
that this mutant passes cannot tell a working kernel from one that does nothing."""

from __future__ import annotations

import re

from .syntax import code_text


class NoMutant(ValueError):
    """The kernel's definition (its body) was not found in the source."""


def _match(text: str, at: int, open_: str, close: str) -> int:
    depth = 0
    for i in range(at, len(text)):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i
    return -1


def body_span(source: str, kernel: str) -> tuple[int, int]:
    """Offsets of the text between the braces of `kernel`'s definition (a declaration has none)."""
    clean = code_text(source)  # comments, strings and dead code blanked, offsets kept
    for m in re.finditer(rf"\b{re.escape(kernel)}\s*(<[^;{{}}()]*>\s*)?\(", clean):
        if "__global__" not in clean[max(0, m.start() - 400) : m.start()].split(";")[-1].split("}")[-1]:
            continue
        close = _match(clean, m.end() - 1, "(", ")")
        if close < 0:
            continue
        rest = clean[close + 1 :]
        brace = re.match(r"[^;{}]*\{", rest)  # qualifiers or attributes, then the body
        if not brace:
            continue  # a declaration
        start = close + 1 + brace.end()
        end = _match(clean, start - 1, "{", "}")
        if end > 0:
            return start, end
    raise NoMutant(f"no definition of the kernel {kernel!r} found in the source")


def do_nothing(source: str, kernel: str) -> str:
    """The source with `kernel`'s body emptied (line numbers after it shift; nothing else changes)."""
    start, end = body_span(source, kernel)
    return source[:start] + " /* emptied by kt-tui: a do-nothing mutant */ " + source[end:]
