"""Kernel text checked and normalised before anything reads it (issue 22, item 3): a leading UTF-8 BOM
is dropped (kernel_tuner puts its #defines first, and nvcc rejects a BOM after them); NUL and other
control characters (all but tab, newline, carriage return and form feed) are refused with their line,
because gcc's preprocessor skips a NUL that hides a directive from a reader of the raw text; and
`folded()` gives the review the text after the preprocessor's first phases."""

from __future__ import annotations

import re

from ..errors import UserError

BOM = "\ufeff"
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_TRIGRAPHS = {"=": "#", "/": "\\", "'": "^", "(": "[", ")": "]", "!": "|", "<": "{", ">": "}", "-": "~"}


class KernelTextError(UserError, ValueError):
    """Kernel text that is refused; the message names where and the line."""


def control_character(text: str) -> tuple[int, str] | None:
    """(1-based line, description) of the first refused control character, or None."""
    m = _CONTROL.search(text)
    if m is None:
        return None
    name = "a NUL byte" if m[0] == "\0" else f"the control character U+{ord(m[0]):04X}"
    return text.count("\n", 0, m.start()) + 1, name


def kernel_text(text: str, where: str = "kernel") -> str:
    """`text` without a leading BOM; KernelTextError when it holds a refused control character."""
    text = text.removeprefix(BOM)
    found = control_character(text)
    if found:
        line, name = found
        raise KernelTextError(
            f"{where}: line {line}: {name}; CUDA source must be plain text "
            "(only tab, newline, carriage return and form feed are allowed)"
        )
    return text


def folded(text: str) -> str:
    """What the preprocessor reads after trigraphs (nvcc honours them under -std=c++14), line splices
    and the `%:` digraph of `#`, with line numbers kept: a spliced line is joined and the newlines it
    lost follow it, so everything after it stays on its own line."""
    text = re.sub(r"\?\?([=/'()!<>-])", lambda m: _TRIGRAPHS[m[1]], text).replace("\r\n", "\n")
    out, pending, lines = [], 0, text.split("\n")
    for i, line in enumerate(lines):
        last = i == len(lines) - 1  # a backslash at the very end splices nothing
        kept = line.rstrip(" \t\f\v")
        if not last and kept.endswith("\\"):
            out.append(kept[:-1])
            pending += 1
        else:
            out.append(line + "\n" * pending + ("" if last else "\n"))
            pending = 0
    return "".join(out).replace("%:%:", "##").replace("%:", "#")
