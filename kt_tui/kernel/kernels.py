"""The `__global__` kernels in CUDA text whose comments, literals and skipped groups are blanked
(kernel/parsed.py makes that text): their names, parameters and lines."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from ..errors import UserError


class SourceError(UserError):
    """The kernel file cannot be used; the message says why, for the user."""


@dataclass(frozen=True)
class Param:
    name: str
    ctype: str  # as written, without the name: "const float * __restrict__"

    @property
    def is_pointer(self) -> bool:
        return "*" in self.ctype

    @property
    def base_type(self) -> str:
        """The scalar type with qualifiers and stars removed: "float", "int", "unsigned int"."""
        words = re.sub(r"\*|&", " ", self.ctype).split()
        drop = {"const", "volatile", "__restrict__", "__restrict", "restrict"}
        return " ".join(w for w in words if w not in drop)


@dataclass(frozen=True)
class Kernel:
    name: str
    params: tuple[Param, ...]
    line: int  # 1-based line of the __global__ keyword
    templated: bool = False


_GLOBAL = re.compile(r"__global__")


def split_params(text: str) -> list[str]:
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip() and p.strip() != "void"]


_TYPE_WORDS = {
    "const",
    "volatile",
    "unsigned",
    "signed",
    "short",
    "long",
    "int",
    "char",
    "float",
    "double",
    "bool",
    "void",
    "size_t",
    "half",
    "__half",
    "__restrict__",
    "__restrict",
    "restrict",
}
# type names that are no C++ keywords: after a type they are a parameter's name (`int half`)
_TYPEDEF_WORDS = {"half", "__half", "size_t"}
_QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict"}


def _is_name(word: str, before: str) -> bool:
    """`word`, following `before`, is the parameter's name rather than the last word of its type."""
    if word not in _TYPE_WORDS:
        return True
    typed = "*" in before or "&" in before or any(w not in _QUALIFIERS for w in re.findall(r"\w+", before))
    return word in _TYPEDEF_WORDS and typed


MAX_HEAD = 1000  # characters between `__global__` and its "(": a longer head is no kernel's
MAX_PARAM = 1000  # characters of one kernel parameter; the regexes below are quadratic in it


def parse_param(text: str) -> Param:
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) > MAX_PARAM:
        raise SourceError(f"a kernel parameter is longer than {MAX_PARAM} characters: {text[:40]!r}...")
    text = re.sub(r"\s*=.*$", "", text)  # default values
    m = re.match(r"^(.*?)([A-Za-z_]\w*)\s*(\[\s*\w*\s*\])?$", text)
    if not m or not m.group(1).strip() or not _is_name(m.group(2), m.group(1)):
        if re.fullmatch(r"[\w\s:<>,*&]+", text):
            return Param(name="", ctype=text)  # unnamed, as in a declaration
        raise SourceError(f"cannot read kernel parameter {text!r}")
    ctype = m.group(1).strip() + (" *" if m.group(3) else "")
    return Param(name=m.group(2), ctype=ctype)


def kernels_in(clean: str) -> list[Kernel]:
    """All `__global__` functions (definitions and declarations) in `clean` (source with what the
    compiler does not read blanked, offsets kept) in source order, by name once."""
    closing, newlines = _closing_parens(clean), [m.start() for m in re.finditer("\n", clean)]
    kernels: dict[str, Kernel] = {}
    inside = 0  # a __global__ before this offset lies in an earlier kernel's parameter list
    for m in _GLOBAL.finditer(clean):
        if m.start() < inside:
            continue
        pos = m.end()
        paren = clean.find("(", pos)
        while 0 <= paren - pos <= MAX_HEAD and re.search(r"__launch_bounds__\s*$", clean[pos:paren]):
            pos = closing.get(paren, -1) + 1
            paren = clean.find("(", pos) if pos > 0 else -1
        if paren < 0:
            break  # no "(" after this one: none after the later ones either
        if paren - pos > MAX_HEAD:
            continue
        head = _drop_template_args(clean[pos:paren])  # vector_add<float>: an explicit instantiation
        names = re.findall(r"[A-Za-z_]\w*", head)
        if not names:
            continue
        name = names[-1]
        close = closing.get(paren, -1)
        if close < 0:
            raise SourceError(f"kernel {name}: unbalanced parentheses in its parameter list")
        inside = close
        params = tuple(parse_param(p) for p in split_params(clean[paren + 1 : close]))
        before = clean[max(0, m.start() - 200) : m.start()]
        templated = bool(re.search(r"template\s*<[^;{}]*>\s*(extern\s*)?$", before))
        line = bisect.bisect_left(newlines, m.start()) + 1
        known = kernels.get(name)
        if known is None or (any(not p.name for p in known.params) and all(p.name for p in params)):
            kernels[name] = Kernel(name, params, known.line if known else line, templated)
    return list(kernels.values())


def match_paren(text: str, open_at: int) -> int:
    """The index of the `)` closing the `(` at `open_at`, or -1: one pass from there."""
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _closing_parens(text: str) -> dict[int, int]:
    """Offset of each "(" -> offset of the ")" closing it (an unclosed one is absent); one pass."""
    out, stack = {}, []
    for m in re.finditer(r"[()]", text):
        if m[0] == "(":
            stack.append(m.start())
        elif stack:
            out[stack.pop()] = m.start()
    return out


def _drop_template_args(head: str) -> str:
    head, depth = head.rstrip(), 0
    if not head.endswith(">"):
        return head
    for i in range(len(head) - 1, -1, -1):
        depth += {">": 1, "<": -1}.get(head[i], 0)
        if depth == 0:
            return head[:i]
    return head
