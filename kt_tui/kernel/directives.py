"""What the preprocessor would do with a source that touches files: #include and its kin, #line file
names, __has_include probes, file-reading pragmas. The source is read the way a compiler reads it
(C++17: no trigraphs; every line-end spelling, line splices, string-aware comments, the `%:` digraph) so that
no spelling hides a directive from the review."""

from __future__ import annotations

import re
from collections import Counter

from .parsed import ParsedKernel, Preprocessed, parsed

_READS = {"include", "include_next", "import", "embed"}
_PROBE = re.compile(r"(?<!\w)(?:\w*has_(?:include|embed)\w*|__has_\w*)")  # tried at word starts only
_PRAGMA_OP = re.compile(r"\b(_Pragma|__pragma)\s*\(([^)\n]*)\)?")
_HARMLESS_PRAGMA = re.compile(r'^\s*"\s*(unroll(\s+\d+)?|nounroll)\s*"\s*$')
_FILE_PRAGMA = re.compile(r"\b(dependency|include\w*|embed|system_header)\b")
_PLAIN_HEADER = re.compile(r"^(<[^<>]*>|\"[^\"]*\")$")
_PATHLIKE = re.compile(r"^[<\"]\s*(/|~|\\)|\.\.|^[<\"][A-Za-z]:")


def file_flags(original: str | ParsedKernel, generated: str | ParsedKernel) -> list[tuple[int, str]]:
    """(line, message) for what `generated` adds that could make the compiler read or probe a file."""
    old, new = _findings(parsed(original).preprocessed), _findings(parsed(generated).preprocessed)
    seen, out = Counter(what for _, what in old), []
    for line, what in new:
        seen[what] -= 1
        if seen[what] < 0:
            out.append((line, what))
    return out


def plain_local_name(rest: str) -> str | None:
    """The name an `#include "name"` reads from the kernel's own folder; None for a system header
    (`<...>`), a macro, or a path out of the folder (absolute, `~`, `..`, a drive)."""
    if not _PLAIN_HEADER.match(rest) or _PATHLIKE.search(rest) or not rest.startswith('"'):
        return None
    return rest[1:-1].strip() or None


def _findings(src: Preprocessed) -> list[tuple[int, str]]:
    found = []
    for line, name, rest in src.directives():
        what = f"#{name} {rest}".strip()
        if name in _READS:
            if not _PLAIN_HEADER.match(rest):
                found.append((line, f"{what}: not a plain header name; it could read any file"))
            elif _PATHLIKE.search(rest):
                found.append((line, f"{what}: a path outside the kernel; the compiler would read it"))
            else:
                found.append((line, f"new {what}"))
        elif name == "line" and not re.fullmatch(r"\d+", rest) or name.isdigit() and rest:
            found.append((line, f"{what}: names a file; compiler messages would blame it"))
        elif name == "pragma" and _FILE_PRAGMA.search(rest):
            found.append((line, f"{what}: a pragma that reads or names a file"))
        elif name == "define" and ("##" in rest or "%:%:" in rest):
            found.append((line, f"{what}: token pasting could build a file probe or a directive"))
    for m in _PROBE.finditer(src.text):
        found.append((src.line(m.start()), f"{m[0]}: probes whether a file exists"))
    for m in _PRAGMA_OP.finditer(src.text):
        if not _HARMLESS_PRAGMA.match(m[2] or ""):
            found.append((src.line(m.start()), f"{m[0]}: a pragma operator; it could read or name a file"))
    return found
