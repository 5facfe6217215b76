"""One kernel source, read once: the lexer's tokens (kernel/syntax.py), the text the compiler reads,
the `__global__` kernels, the text the preprocessor sees and, on demand, the tree-sitter-cuda tree
(kernel/cuda_ast.py). Parameters (params.py), the review (review.py), file flags (directives.py) and
kernel discovery (source.py) take a ParsedKernel, so a generated kernel is lexed once however many of
them read it (engine/kernel_step.py parses it once and passes it on).

Tokens come from the lexer, not from the tree: the tree reads `#if 0` groups as live code, knows no
splices, and loses every kernel after an unclosed bracket (syntax.py's docstring)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from functools import cached_property

from . import cuda_ast, syntax
from .kernels import Kernel, kernels_in
from .syntax import Lexeme, Token, code_text, strip_comments, tokens
from .text import BOM, folded

_SPLICE = re.compile(r"\\[ \t\f\v]*\n")
_DIRECTIVE = re.compile(r"(?m)^[ \t\f\v]*(?:#|%:)[ \t\f\v]*([A-Za-z_]\w*|\d+)?[ \t\f\v]*(.*)$")


class ParsedKernel:
    """`source` and what is read from it, each computed at its first use and kept."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._kernels: dict[bool, list[Kernel]] = {}

    @cached_property
    def lexemes(self) -> list[Lexeme]:
        return list(syntax.lex(self.source))

    @cached_property
    def tokens(self) -> list[Token]:
        """C++ tokens without comments and literals (syntax.tokens)."""
        return tokens(self.source, self.lexemes)

    @cached_property
    def identifiers(self) -> frozenset[str]:
        return frozenset(t.text for t in self.tokens if t.kind == "ident")

    @cached_property
    def comment_free(self) -> str:
        """The source with comments blanked, offsets kept."""
        return strip_comments(self.source, self.lexemes)

    def code_text(self, unread: bool = False) -> str:
        """syntax.code_text of the source."""
        return self._unread_code if unread else self._code

    @cached_property
    def _unread_code(self) -> str:
        return code_text(self.source, True, self.lexemes)

    @cached_property
    def _code(self) -> str:
        return code_text(self.source, False, self.lexemes, self.tokens)

    def kernels(self, unread: bool = False) -> list[Kernel]:
        """The `__global__` kernels as the compiler sees them (`unread`: also in macro bodies and `#if 0`
        groups); SourceError for a kernel whose parameter list does not close."""
        if unread not in self._kernels:
            self._kernels[unread] = kernels_in(self.code_text(unread))
        return self._kernels[unread]

    @cached_property
    def folded(self) -> ParsedKernel:
        """The source after splices and `%:` (text.folded), without a BOM: itself when that
        changes nothing."""
        text = folded(self.source.removeprefix(BOM))
        return self if text == self.source else ParsedKernel(text)

    @cached_property
    def preprocessed(self) -> Preprocessed:
        return Preprocessed(self.source, self)

    @cached_property
    def unit(self) -> cuda_ast.Unit:
        """The tree-sitter-cuda reading: functions, defines, macros and structs (the drafter's input)."""
        return cuda_ast.parse(self.source)


def parsed(source: str | ParsedKernel) -> ParsedKernel:
    """`source` parsed, or as it is when it already was."""
    return source if isinstance(source, ParsedKernel) else ParsedKernel(source)


class Preprocessed:
    """The text after phases 1-3 of translation in C++17 (every line-end spelling, splices, comments;
    no trigraphs: kernel/text.py STANDARD), with offsets mapped back to source lines."""

    def __init__(self, source: str, parsed_source: ParsedKernel | None = None) -> None:
        text = source.replace("\r\n", "\n").replace("\r", "\n")  # a lone CR ends a line for nvcc too
        self.spliced: list[int] = []
        parts, last, size = [], 0, 0
        for m in _SPLICE.finditer(text):
            parts.append(text[last : m.start()])
            size += m.start() - last
            last = m.end()
            self.spliced.append(size)
        text = "".join(parts) + text[last:]
        same = parsed_source is not None and text == parsed_source.source
        self.text = parsed_source.comment_free if same and parsed_source else strip_comments(text)
        self.newlines = [m.start() for m in re.finditer("\n", self.text)]

    def line(self, pos: int) -> int:
        return bisect.bisect_left(self.newlines, pos) + bisect.bisect_right(self.spliced, pos) + 1

    def directives(self) -> Iterator[tuple[int, str, str]]:
        """(line, name, rest) for every directive; `%:` spells `#`."""
        for m in _DIRECTIVE.finditer(self.text):
            yield self.line(m.start()), m[1] or "", m[2].rstrip(" \t\f\v")
