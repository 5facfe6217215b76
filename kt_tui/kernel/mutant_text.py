"""The text-scanning helpers kernel/mutant.py finds its sites with: where each `__global__` function
is defined in a source (comments, strings and dead code skipped), and a kernel's tokens read as C: a
token's line and source line, where a term or a bracket ends, what is read, the kernel's parameters
and its shared arrays, the locals set from threadIdx alone."""

from __future__ import annotations

import re

from .syntax import Token, code_text

_BINARY_BEFORE = {"ident", "number"}
_TERM_END = {"+", "-", ";", ",", ")", "]", "?", ":", "<", ">", "<=", ">=", "==", "!=", "&&", "||", "=", "}", "{"}
_TERM_END |= {"+=", "-=", "*=", "/=", "&", "|", "^", "<<", ">>", "%="}
_QUALIFIERS = ("const", "__restrict__", "restrict", "volatile")


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


_ATTRIBUTES = {"__launch_bounds__", "__cluster_dims__", "__maxnreg__", "__attribute__", "__declspec"}


def definitions(source: str) -> list[tuple[str, int, int, int]]:
    """(name, parameter list start, body start, body end) of every __global__ function defined."""
    clean = code_text(source)  # comments, strings and dead code blanked, offsets kept
    out = []
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*(<[^;{}()]*>\s*)?\(", clean):
        if m.group(1) in _ATTRIBUTES:  # `__launch_bounds__(256) k(...)`: the name comes after it
            continue
        before = clean[max(0, m.start() - 400) : m.start()]
        if "__global__" not in before.split(";")[-1].split("}")[-1].split("{")[-1]:
            continue  # a call, or a loop's head (`for (...) {` first in a kernel's body)
        close = _match(clean, m.end() - 1, "(", ")")
        if close < 0:
            continue
        brace = re.match(r"[^;{}]*\{", clean[close + 1 :])  # qualifiers or attributes, then the body
        if not brace:
            continue  # a declaration
        start = close + 1 + brace.end()
        end = _match(clean, start - 1, "{", "}")
        if end > 0:
            out.append((m.group(1), m.end() - 1, start, end))
    return out


class KernelText:
    """A kernel's tokens, read as C. Set by kernel/mutant.py's sites: `toks` are the source's up to the
    kernel's end, other kernels' bodies left out; `params_at` is the offset of its parameter list's
    `(` and `body` of its body's first character."""

    source: str
    toks: list[Token]
    params_at: int
    body: int

    def line_of(self, pos: int) -> int:
        return self.source.count("\n", 0, pos) + 1

    def where(self, pos: int) -> str:
        return f"line {self.line_of(pos)}:{pos - self.source.rfind(chr(10), 0, pos)}"

    def context(self, pos: int) -> str:
        start = self.source.rfind("\n", 0, pos) + 1
        end = self.source.find("\n", pos)
        text = " ".join(self.source[start : end if end >= 0 else None].split())
        return text if len(text) <= 70 else text[:67] + "..."

    def in_body(self, t: Token) -> bool:
        return t.pos >= self.body or t.pos < self.params_at  # the kernel's body, or a helper before it

    def shared_line(self, t: Token) -> bool:
        return "__shared__" in self.context(t.pos) or "__constant__" in self.context(t.pos)

    def binary(self, i: int) -> bool:
        prev = self.toks[i - 1] if i else None
        return prev is not None and (prev.kind in _BINARY_BEFORE or prev.text in (")", "]"))

    def term_end(self, i: int) -> int:
        """The index of the token after the multiplicative term that starts at token i."""
        depth = 0
        for j in range(i, len(self.toks)):
            t = self.toks[j].text
            if t in ("(", "["):
                depth += 1
            elif t in (")", "]") and depth:
                depth -= 1
            elif depth == 0 and t in _TERM_END and j > i:
                return j
        return len(self.toks)

    def closing(self, i: int, open_: str, close: str) -> int:
        depth = 0
        for j in range(i, len(self.toks)):
            if self.toks[j].text == open_:
                depth += 1
            elif self.toks[j].text == close:
                depth -= 1
                if depth == 0:
                    return j
        return -1

    def span(self, i: int, j: int) -> str:
        """The source text of tokens i .. j-1."""
        end = self.toks[j - 1]
        return self.source[self.toks[i].pos : end.pos + len(end.text)]

    def load_at(self, j: int) -> bool:
        """Whether token j starts a subscript read (`p[...]` not assigned to)."""
        if j + 1 >= len(self.toks) or self.toks[j].kind != "ident" or self.toks[j + 1].text != "[":
            return False
        close = self.closing(j + 1, "[", "]")
        return close > 0 and (close + 1 >= len(self.toks) or self.toks[close + 1].text != "=")

    def reads(self, name: str) -> bool:
        for k, t in enumerate(self.toks):
            if t.text != name or t.pos < self.body:
                continue
            before = self.toks[k - 1].text
            if before == "&" or (before == "(" and self.toks[k - 2].text.startswith("atomic")):
                continue
            if self.toks[k + 1].text == "[" and not self.load_at(k):
                continue  # stored to
            return True
        return False

    def body_index(self) -> int:
        return next((j for j, t in enumerate(self.toks) if t.pos >= self.body), len(self.toks))

    def thread_names(self) -> set[str]:
        """Locals set from threadIdx alone (`unsigned int tid = threadIdx.x;`)."""
        out = set()
        for j in range(self.body_index(), len(self.toks) - 1):
            if self.toks[j].kind == "ident" and self.toks[j + 1].text == "=":
                end = next((k for k in range(j, len(self.toks)) if self.toks[k].text == ";"), len(self.toks))
                words = {t.text for t in self.toks[j + 2 : end]}
                if "threadIdx" in words and "blockIdx" not in words:
                    out.add(self.toks[j].text)
        return out

    def shared_names(self) -> set[str]:
        toks = self.toks
        return {
            t.text
            for j, t in enumerate(toks[:-1])
            if t.kind == "ident"
            and (toks[j + 1].text == "[" or (toks[j + 1].text in (";", ",") and j and toks[j - 1].kind == "ident"))
            and self.shared_line(t)
        }  # arrays and scalars (`__shared__ int count;`)

    def param_spans(self) -> list[tuple[str, int, str, bool]]:
        """(name, index of its first type word, base type, pointer?) of each kernel parameter."""
        out = []
        depth, part = 0, list[int]()
        for k, t in enumerate(self.toks):
            if t.pos < self.params_at or t.pos >= self.body:
                continue
            if t.text == "(":
                depth += 1
                if depth == 1:
                    continue
            if t.text == ")":
                depth -= 1
            if depth == 0 or (depth == 1 and t.text == ","):
                words = [j for j in part if self.toks[j].kind == "ident"]
                base = [j for j in words[:-1] if self.toks[j].text not in _QUALIFIERS]
                if words and base:
                    text = " ".join(self.toks[j].text for j in base)
                    out.append((self.toks[words[-1]].text, base[0], text, any(self.toks[j].text == "*" for j in part)))
                part = []
                continue
            part.append(k)
        return out

    def params(self) -> list[tuple[str, str, bool]]:
        """(name, base type, pointer?) of each kernel parameter."""
        return [(name, base, ptr) for name, _, base, ptr in self.param_spans()]
