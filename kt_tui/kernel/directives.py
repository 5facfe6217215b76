"""What the preprocessor would do with a source that touches files: #include and its kin, #line file
names, __has_include probes, file-reading pragmas. The source is read the way a compiler reads it
(trigraphs, every line-end spelling, line splices, string-aware comments, the `%:` digraph) so that
no spelling hides a directive from the review."""

from __future__ import annotations

import bisect
import re
from collections import Counter

from .syntax import strip_comments

_TRIGRAPHS = {"=": "#", "/": "\\", "'": "^", "(": "[", ")": "]", "!": "|", "<": "{", ">": "}", "-": "~"}
_SPLICE = re.compile(r"\\[ \t\f\v]*\n")
_DIRECTIVE = re.compile(r"(?m)^[ \t\f\v]*(?:#|%:)[ \t\f\v]*([A-Za-z_]\w*|\d+)?[ \t\f\v]*(.*)$")
_READS = {"include", "include_next", "import", "embed"}
_PROBE = re.compile(r"(?<!\w)(?:\w*has_(?:include|embed)\w*|__has_\w*)")  # tried at word starts only
_PRAGMA_OP = re.compile(r"\b(_Pragma|__pragma)\s*\(([^)\n]*)\)?")
_HARMLESS_PRAGMA = re.compile(r'^\s*"\s*(unroll(\s+\d+)?|nounroll)\s*"\s*$')
_FILE_PRAGMA = re.compile(r"\b(dependency|include\w*|embed|system_header)\b")
_PLAIN_HEADER = re.compile(r"^(<[^<>]*>|\"[^\"]*\")$")
_PATHLIKE = re.compile(r"^[<\"]\s*(/|~|\\)|\.\.|^[<\"][A-Za-z]:")


class Preprocessed:
    """The text after phases 1-3 of translation, with offsets mapped back to source lines."""

    def __init__(self, source: str):
        text = re.sub(r"\?\?([=/'()!<>-])", lambda m: _TRIGRAPHS[m[1]], source)
        text = text.replace("\r\n", "\n").replace("\r", "\n")  # a lone CR ends a line for nvcc too
        self.spliced, parts, last, size = [], [], 0, 0
        for m in _SPLICE.finditer(text):
            parts.append(text[last : m.start()])
            size += m.start() - last
            last = m.end()
            self.spliced.append(size)
        text = "".join(parts) + text[last:]
        self.text = strip_comments(text)
        self.newlines = [m.start() for m in re.finditer("\n", self.text)]

    def line(self, pos: int) -> int:
        return bisect.bisect_left(self.newlines, pos) + bisect.bisect_right(self.spliced, pos) + 1

    def directives(self):
        """(line, name, rest) for every directive; `%:` spells `#`."""
        for m in _DIRECTIVE.finditer(self.text):
            yield self.line(m.start()), m[1] or "", m[2].rstrip(" \t\f\v")


def file_flags(original: str, generated: str) -> list[tuple[int, str]]:
    """(line, message) for what `generated` adds that could make the compiler read or probe a file."""
    old, new = _findings(Preprocessed(original)), _findings(Preprocessed(generated))
    seen, out = Counter(what for _, what in old), []
    for line, what in new:
        seen[what] -= 1
        if seen[what] < 0:
            out.append((line, what))
    return out


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
