"""The local headers a kernel includes (`#include "params.h"` next to the kernel), read so that the
drafter knows the types they define (a struct passed by value, kernel/draft_types.py). Only a plain
quoted name is followed, outside the groups the preprocessor skips (`#if 0`, `#ifdef X` with X defined
nowhere: kernel/conditions.py), found in the including
file's folder and inside the kernel's folder; not a path out of it (kernel/directives.py's rule), not
a system header (`<...>`), not a link out of the folder. At most MAX_DEPTH includes deep, MAX_HEADERS
files of MAX_HEADER_BYTES each; a header that breaks a rule, is missing, too large, not UTF-8 or
holds a control character is skipped (the compile says what is wrong with it)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..files import FileRefused, read_text_file
from .conditions import PREDEFINED, Macros, Spent, live_groups, with_options
from .directives import plain_local_name
from .text import KernelTextError, kernel_text

MAX_HEADER_BYTES = 256 * 1024
MAX_HEADERS = 16
MAX_DEPTH = 4


def local_headers(
    source: str,
    kernel_path: str | Path,
    options: Sequence[str] = (),
    undecided: list[str] | None = None,
    names: Macros | None = None,
) -> list[tuple[Path, str]]:
    """(path, text) of each local header `source` (the file at `kernel_path`) includes, and of those they
    include, each once, in the order a compiler first reads them; each text with the groups the
    preprocessor skips blanked (kernel/conditions.py), decided with the macros the files define before
    them, a spec's compiler `options` (-D, -U), kernel_tuner's (`names`: those of the spec, conditions.spec_names)
    and the compiler's. `undecided` gains a line for each
    condition not decided here (its first group whose condition is not false is read)."""
    root = Path(kernel_path).resolve().parent
    found: list[tuple[Path, str]] = []
    seen: set[Path] = set()
    macros = with_options({**PREDEFINED, **(names or {})}, list(options))
    said = undecided if undecided is not None else []
    spent = Spent()  # the conditions of every file read share one bound

    def visit(text: str, path: Path, depth: int) -> str:
        def include(rest: str) -> None:
            local = plain_local_name(rest)
            if local is None or len(found) >= MAX_HEADERS or depth > MAX_DEPTH:
                return
            header_path = (path.parent / local).resolve()
            if header_path in seen or not header_path.is_relative_to(root) or not header_path.is_file():
                return
            seen.add(header_path)
            try:
                header = kernel_text(read_text_file(header_path, "header", MAX_HEADER_BYTES), str(header_path))
            except (FileRefused, KernelTextError):
                return
            at = len(found)
            found.append((header_path, header))
            found[at] = (header_path, visit(header, header_path, depth + 1))

        live = live_groups(text, macros, path.name, include, spent)
        said.extend(live.undecided)
        return live.text

    visit(source, Path(kernel_path).resolve(), 1)
    return found
