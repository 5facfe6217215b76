"""The one reader of CUDA source: a lexer (comments, string and raw-string literals, identifiers,
numbers, operators, `#` directives) that kernel discovery, the safety review, the parameter fixer and
the editors' colours all use, so they cannot disagree about what is code.

Why a lexer and not the tree-sitter-cuda tree (issue 15, item 5; tests/kernel/test_syntax.py holds the
cases). Both readers were run over templates, macros, `#if 0`, comments and strings holding
`__global__`, asm, raw strings, line continuations and kernel_tuner's examples:
- tree-sitter reads code the way it is written, not the way the compiler reads it: no
  splices inside words or `%:` digraphs, and `#if 0` blocks parse as live code; the review needs those
  read as nvcc reads them (kernel/directives.py), so it would keep a second reader anyway.
- on code still being typed (an unclosed `{` or `(`) tree-sitter turns the whole file into one ERROR
  node and loses every kernel in it; a lexer loses nothing after the broken spot.
- it names `KERNEL(k)` from a function-like macro as a kernel, and finds no kernel in an explicit
  instantiation `template __global__ void vector_add<float>(...)`.
- what it got right that the old regexes got wrong (`__global__` inside a string or raw string, a
  `"/*"` string hiding code from the kernel finder, the instantiation named `float`) is fixed here by
  lexing strings as strings.
So tree-sitter and its three grammars are dropped; the editors colour from `highlights()` below.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from itertools import accumulate
from typing import NamedTuple

_LEX = re.compile(
    r"""(?:
    (?P<blank>\s+)
  | (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<string>(?<!\w)(?:u8|[uUL])?R"(?P<delim>[^()\\ \n]{0,16})\(.*?(?:\)(?P=delim)"|\Z)
              |(?<!\w)(?:u8|[uUL])?"(?:\\.|[^"\\\n])*"?
              |(?<!\w)(?:u8|[uUL])?'(?:\\.|[^'\\\n])*'?)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<number>\.?\d(?:[eEpP][+-]|'(?=\w)|[\w.])*)
  | (?P<op>::|->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\#\#|\\\n|[^\s\w]))
""",
    re.S | re.X,
)  # blanks are a lexeme of their own: a run of them is read once, never retried


class Lexeme(NamedTuple):
    kind: str  # comment | string | ident | number | op
    text: str
    pos: int


class Token(NamedTuple):
    kind: str  # ident | number | op
    text: str
    pos: int
    directive: str | None  # the preprocessor directive this token is part of ("define", "if", ...)
    place: int  # index within its directive: 0 is "#", 1 the directive's name; -1 outside directives


def lex(source: str) -> Iterator[Lexeme]:
    """Every lexeme in order, comments and literals included; never fails, whatever the text."""
    for m in _LEX.finditer(source):
        if m.lastgroup != "blank":
            kind = str(m.lastgroup)
            yield Lexeme(kind, m.group(kind), m.start(kind))


def tokens(source: str, lexemes: list[Lexeme] | None = None) -> list[Token]:
    """C++ tokens without comments and string literals; tokens on `#...` lines carry the directive."""
    out: list[Token] = []
    directive, place, line_start, end = None, -1, True, 0
    for kind, text, pos in lexemes if lexemes is not None else lex(source):
        if "\n" in source[end:pos] or (kind == "comment" and "\n" in text):
            directive, place, line_start = None, -1, True
        end = pos + len(text)
        if kind == "comment" or text == "\\\n":
            continue
        if kind == "string":
            place += 0 if directive is None else 1
            line_start = False
            continue
        if text == "#" and line_start:
            directive, place = "", 0
        elif directive is not None:
            place += 1
            if place == 1:
                directive = text
        out.append(Token(kind, text, pos, directive, place))
        line_start = False
    return out


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def _blanked(src: str, kinds: tuple[str, ...], lexemes: list[Lexeme] | None = None) -> str:
    parts, last = [], 0
    for kind, text, pos in lexemes if lexemes is not None else lex(src):
        if kind in kinds:
            parts += [src[last:pos], _blank(text)]
            last = pos + len(text)
    return "".join(parts) + src[last:]


def strip_comments(src: str, lexemes: list[Lexeme] | None = None) -> str:
    """Blank out comments (not `//` or `/*` inside a string) but keep line numbers and offsets."""
    return _blanked(src, ("comment",), lexemes)


def code_text(
    src: str, unread: bool = False, lexemes: list[Lexeme] | None = None, toks: list[Token] | None = None
) -> str:
    """What the compiler reads as C++: comments, literals, directive lines and `#if 0` groups blanked
    (`unread`: only comments and literals), offsets and line numbers kept. `lexemes`, `toks`: `src`
    already lexed (kernel/parsed.py)."""
    chars = list(_blanked(src, ("comment", "string"), lexemes))
    if unread:
        return "".join(chars)
    toks = tokens(src, lexemes) if toks is None else toks
    for start, end in _directive_spans(toks, src) + dead_spans(src, toks):
        chars[start:end] = _blank(src[start:end])
    return "".join(chars)


def _directive_spans(toks: list[Token], src: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for t in toks:
        if t.directive is None:
            continue
        if t.place == 0:
            spans.append((t.pos, t.pos + 1))
        spans[-1] = (spans[-1][0], t.pos + len(t.text))
    # a directive's trailing string (#include "x") is not a token: run to the end of its line
    return [(a, _line_end(src, b)) for a, b in spans]


def _line_end(src: str, pos: int) -> int:
    end = src.find("\n", pos)
    while end > 0 and src[end - 1] == "\\":
        end = src.find("\n", end + 1)
    return len(src) if end < 0 else end


def dead_spans(src: str, toks: list[Token] | None = None) -> list[tuple[int, int]]:
    """(start, end) of the groups the preprocessor skips for sure: `#if 0` ..., `#if 1` ... `#else` ...
    A condition other than the literal 0 or 1 may be true: its group counts as live."""
    spans, frames, dead, dead_from = [], [], False, 0  # frame: [outer dead, a group taken, all false]
    toks = tokens(src) if toks is None else toks
    for i, t in enumerate(toks):
        if t.directive is None or t.place != 1 or t.text not in ("if", "ifdef", "ifndef", "elif", "else", "endif"):
            continue
        rest = [x.text for x in toks[i + 1 : i + 3] if x.directive is not None and x.place >= 2]
        value = rest[0] if len(rest) == 1 and rest[0] in ("0", "1") and t.text in ("if", "elif") else None
        if t.text.startswith("if"):
            frames.append([dead, value == "1", value == "0"])
            now = dead or value == "0"
        elif not frames:
            continue
        elif t.text == "endif":
            now = frames.pop()[0]
        else:
            outer, taken, all_false = frames[-1]
            now = outer or taken or value == "0"
            frames[-1] = [outer, taken or all_false and (t.text == "else" or value == "1"), all_false and value == "0"]
        if now and not dead:
            dead_from = toks[i - 1].pos
        elif dead and not now:
            spans.append((dead_from, toks[i - 1].pos))
        dead = now
    if dead:
        spans.append((dead_from, len(src)))
    return spans


KEYWORDS = set(
    """
alignas alignof asm auto break case catch class const const_cast constexpr continue decltype default
delete do dynamic_cast else enum explicit extern false for friend goto if inline mutable namespace new
noexcept nullptr operator private protected public register reinterpret_cast return sizeof static
static_assert static_cast struct switch template this throw true try typedef typename union using
virtual volatile while restrict __restrict__ __restrict __global__ __device__ __host__ __shared__
__constant__ __managed__ __forceinline__ __noinline__ __launch_bounds__ __asm__ __volatile__
""".split()
)
TYPES = set(
    """
bool char short int long float double void signed unsigned size_t half half2 __half __half2
nv_bfloat16 __nv_bfloat16 dim3
""".split()
)
BUILTINS = {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"}
_VECTOR = re.compile(r"(u?(char|short|int|long|longlong)|float|double)[1-4]|u?int\d+_t")


def highlights(source: str) -> list[tuple[int, int, int | None, str]]:
    """(row, start byte, end byte or None for the line's end, style name) for an editor, from lex();
    groups the compiler skips (`#if 0`) look like comments."""
    rows = [0] + [i + 1 for i, c in enumerate(source) if c == "\n"]
    out: list[tuple[int, int, int | None, str]] = []
    directive_line = -1
    lexemes = list(lex(source))
    at = _byte_offset(source)
    dead = dead_spans(source, tokens(source, lexemes))
    starts = [a for a, _ in dead]
    for n, (kind, text, pos) in enumerate(lexemes):
        row = bisect.bisect_right(rows, pos) - 1
        name = _style(kind, text, lexemes[n + 1].text if n + 1 < len(lexemes) else "")
        k = bisect.bisect_right(starts, pos) - 1
        if k >= 0 and pos < dead[k][1] and source.find("\n", dead[k][0]) < pos:
            name = "comment"  # inside a skipped group, after its `#if` line
        if kind == "op" and text == "#" and not source[rows[row] : pos].strip():
            directive_line, name = row, "keyword"
        elif kind == "ident" and row == directive_line and lexemes[n - 1].text == "#":
            name = "keyword"
        if name is None:
            continue
        end = pos + len(text)
        end_row = bisect.bisect_right(rows, end - 1) - 1 if text else row
        for r in range(row, end_row + 1):
            a = pos if r == row else rows[r]
            b = end if r == end_row else None
            end_byte = at(b) - at(rows[r]) if b is not None else None
            out.append((r, at(a) - at(rows[r]), end_byte, name))
    return out


def _byte_offset(source: str) -> Callable[[int], int]:
    """The UTF-8 byte offset of a character offset, in O(1) after one pass."""
    if source.isascii():
        return lambda pos: pos
    offsets = list(accumulate((len(c.encode()) for c in source), initial=0))
    return offsets.__getitem__


def _style(kind: str, text: str, following: str) -> str | None:
    if kind in ("comment", "string", "number"):
        return kind
    if kind != "ident":
        return None
    if text in KEYWORDS:
        return "keyword"
    if text in TYPES or _VECTOR.fullmatch(text):
        return "type.builtin"
    if text in BUILTINS:
        return "variable.builtin"
    return "function.call" if following == "(" else None


def global_head(clean: str, name: str) -> tuple[int, int] | None:
    """Where in `clean` (comments blanked) the first `__global__` that heads `name(` starts, and where that
    `name(` ends (no `;` or `{` between them). Each `;`, `{` and `__global__` is found once: a search from
    each `__global__` on to the next `;` takes time quadratic in a string of them."""
    stops = [m.start() for m in re.finditer(r"[;{]", clean)]
    heads = [m.start() for m in re.finditer("__global__", clean)]
    for m in re.finditer(rf"\b{re.escape(name)}\s*\(", clean):
        i = bisect.bisect_left(stops, m.start())
        j = bisect.bisect_left(heads, stops[i - 1] + 1 if i else 0)
        if j < len(heads) and heads[j] + len("__global__") <= m.start():
            return heads[j], m.end()
    return None
