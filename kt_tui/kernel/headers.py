"""The local headers a kernel includes (`#include "params.h"` next to the kernel), read so that the
drafter knows the types they define (a struct passed by value, kernel/draft_types.py). Only a plain
quoted name is followed, outside the groups the preprocessor skips (`#if 0`), found in the including
file's folder and inside the kernel's folder; not a path out of it (kernel/directives.py's rule), not
a system header (`<...>`), not a link out of the folder. At most MAX_DEPTH includes deep, MAX_HEADERS
files of MAX_HEADER_BYTES each; a header that breaks a rule, is missing, too large, not UTF-8 or
holds a control character is skipped (the compile says what is wrong with it)."""

from __future__ import annotations

import re
from pathlib import Path

from ..files import FileRefused, read_text_file
from .directives import plain_local_name
from .parsed import parsed
from .syntax import dead_spans
from .text import KernelTextError, kernel_text

MAX_HEADER_BYTES = 256 * 1024
MAX_HEADERS = 16
MAX_DEPTH = 4


def local_headers(source: str, kernel_path: str | Path) -> list[tuple[Path, str]]:
    """(path, text) of each local header `source` (the file at `kernel_path`) includes, and of those they
    include, each once, in the order a compiler first reads them."""
    root = Path(kernel_path).resolve().parent
    found: list[tuple[Path, str]] = []
    seen: set[Path] = set()

    def visit(text: str, folder: Path, depth: int) -> None:
        for _, name, rest in parsed(_live(text)).preprocessed.directives():
            if name != "include" or len(found) >= MAX_HEADERS:
                continue
            local = plain_local_name(rest)
            if local is None:
                continue
            path = (folder / local).resolve()
            if path in seen or not path.is_relative_to(root) or not path.is_file():
                continue
            seen.add(path)
            try:
                header = kernel_text(read_text_file(path, "header", MAX_HEADER_BYTES), str(path))
            except (FileRefused, KernelTextError):
                continue
            found.append((path, header))
            if depth < MAX_DEPTH:
                visit(header, path.parent, depth + 1)

    visit(source, root, 1)
    return found


def _live(text: str) -> str:
    """`text` with the groups the preprocessor skips for sure (`#if 0`, `#if 1 ... #else`) blanked."""
    parts, last = [], 0
    for start, end in dead_spans(text):
        parts += [text[last:start], re.sub(r"[^\n]", " ", text[start:end])]
        last = end
    return "".join(parts) + text[last:]
