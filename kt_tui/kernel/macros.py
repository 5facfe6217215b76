"""The review's macro expansion (issue 36, item 2): the code tokens as the preprocessor would hand
them to the compiler, so that `#define A(x) x` then `A(asm) volatile("trap;")` is read as inline
assembly. Object-like and function-like macros (variadic ones, `##` pasting) are expanded with
rescanning and a macro never expanding inside itself; `#define` and `#undef` take effect where they
stand; conditional groups are all read (the review cannot know which the compiler keeps, so every
raw macro argument is reported too: `arguments`).

Bounded: at most MAX_WORK tokens made or read as a macro's arguments and MAX_DEPTH nested
expansions, each such token costing O(1) apart from one hide set per expansion; beyond that
`Expansion.refused` says why and the review reads the tokens unexpanded (a 2**33-token macro bomb
stops after MAX_WORK tokens, a 10 000-deep chain after MAX_DEPTH levels). Stringizing (`#x`) makes a string literal, which the review's tokens
leave out, so it makes nothing here."""

from __future__ import annotations

from dataclasses import dataclass, field

from .syntax import Token

MAX_WORK = 500_000  # tokens made or read as arguments, all expansions together
MAX_DEPTH = 200
MADE = -2  # Token.place of a token a macro made (its pos is where the outermost macro was used)
_TOP: frozenset[str] = frozenset()  # the hide set of a token of the text itself
_OPEN, _CLOSE = {"(", "[", "{"}, {")", "]", "}"}


@dataclass(frozen=True)
class Macro:
    params: tuple[str, ...] | None  # None: object-like
    body: tuple[Token, ...]
    variadic: bool = False


@dataclass
class Expansion:
    tokens: list[Token]
    arguments: list[tuple[str, Token]] = field(default_factory=list)  # (macro name, a raw argument token)
    refused: str = ""
    refused_at: int = 0  # the position of the macro where expansion stopped


class _Refused(Exception):
    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.pos = pos


def directives(all_toks: list[Token]) -> list[tuple[int, str, Macro | None]]:
    """(position, name, macro or None for #undef) for each #define and #undef, in order."""
    out: list[tuple[int, str, Macro | None]] = []
    group: list[Token] = []
    for t in [*all_toks, Token("op", "#", -1, "", 0)]:
        if t.directive is not None and t.place == 0 and group:
            if len(group) > 2 and group[2].kind == "ident" and group[1].text in ("define", "undef"):
                macro = _macro(group[2], group[3:]) if group[1].text == "define" else None
                out.append((group[0].pos, group[2].text, macro))
            group = []
        if t.directive is not None:
            group.append(t)
    return out


def _macro(name: Token, rest: list[Token]) -> Macro:
    if not rest or rest[0].text != "(" or rest[0].pos != name.pos + len(name.text):
        return Macro(None, tuple(rest))
    params: list[str] = []
    variadic, i = False, 1
    while i < len(rest) and rest[i].text != ")":
        if rest[i].kind == "ident":
            params.append(rest[i].text)
        elif rest[i].text == ".":
            variadic = True
        i += 1
    if variadic:
        params.append("__VA_ARGS__")
    return Macro(tuple(params), tuple(rest[i + 1 :]), variadic)


def expand(all_toks: list[Token]) -> Expansion:
    """The non-directive tokens of `all_toks` with their macros expanded."""
    return _Expander(all_toks).run()


class _Expander:
    def __init__(self, all_toks: list[Token]) -> None:
        self.code = [t for t in all_toks if t.directive is None]
        self.pending = directives(all_toks)[::-1]  # applied as the text passes them
        self.table: dict[str, Macro] = {}
        self.work = 0
        self.arguments: list[tuple[str, Token]] = []

    def run(self) -> Expansion:
        try:
            out = self.scan([(t, _TOP) for t in reversed(self.code)], 0)
        except _Refused as e:
            return Expansion(self.code, self.arguments, str(e), e.pos)
        return Expansion(out, self.arguments)

    def _apply(self, pos: int) -> None:
        while self.pending and self.pending[-1][0] < pos:
            _, name, macro = self.pending.pop()
            if macro is None:
                self.table.pop(name, None)
            else:
                self.table[name] = macro

    def _pop(self, stack: list[tuple[Token, frozenset[str]]]) -> tuple[Token, frozenset[str]]:
        t, hide = stack.pop()
        if hide is _TOP:
            self._apply(t.pos)
        return t, hide

    def scan(self, stack: list[tuple[Token, frozenset[str]]], level: int) -> list[Token]:
        """Everything on `stack` (top last) expanded and rescanned."""
        if level > MAX_DEPTH:
            raise _Refused(f"macro arguments nest deeper than {MAX_DEPTH} levels", stack[-1][0].pos if stack else 0)
        out: list[Token] = []
        while stack:
            t, hide = self._pop(stack)
            macro = self.table.get(t.text) if t.kind == "ident" and t.text not in hide else None
            if macro is None:
                out.append(t)
                continue
            if len(hide) >= MAX_DEPTH:
                raise _Refused(f"macros nest deeper than {MAX_DEPTH} levels (at {t.text})", t.pos)
            if macro.params is None:
                made = list(macro.body)
            else:
                if not stack or stack[-1][0].text != "(":
                    out.append(t)
                    continue
                args = self._arguments(stack, macro)
                if args is None:
                    out.append(t)
                    continue
                if level == 0:  # deeper, they are the same tokens again
                    self.arguments += [(t.text, a) for arg in args for a, _ in arg if a.place != MADE]
                made = self._substitute(macro, args, level)
            self._spend(len(made) + 1, t)
            inner = hide | {t.text}
            stack += [(Token(m.kind, m.text, t.pos, None, MADE), inner) for m in reversed(made)]
        return out

    def _spend(self, tokens: int, at: Token) -> None:
        self.work += tokens
        if self.work > MAX_WORK:
            raise _Refused(f"expanding the macros takes more than {MAX_WORK} tokens (at {at.text})", at.pos)

    def _arguments(
        self, stack: list[tuple[Token, frozenset[str]]], macro: Macro
    ) -> list[list[tuple[Token, frozenset[str]]]] | None:
        """The arguments after a function-like macro's name, taken off `stack` (None: no `)` closes)."""
        taken = [self._pop(stack)]  # "("
        args: list[list[tuple[Token, frozenset[str]]]] = [[]]
        depth = 1
        while stack:
            item = self._pop(stack)
            self._spend(1, item[0])
            taken.append(item)
            text = item[0].text
            if text in _OPEN:
                depth += 1
            elif text in _CLOSE:
                depth -= 1
                if depth == 0:
                    return args
            if text == "," and depth == 1 and not (macro.variadic and len(args) >= len(macro.params or ())):
                args.append([])
            else:
                args[-1].append(item)
        stack += reversed(taken)  # unclosed: the text goes on as it is
        return None

    def _substitute(self, macro: Macro, args: list[list[tuple[Token, frozenset[str]]]], level: int) -> list[Token]:
        params = macro.params or ()
        raw = {p: [t for t, _ in args[k]] if k < len(args) else [] for k, p in enumerate(params)}
        done: dict[str, list[Token]] = {}
        body, out = macro.body, list[Token]()
        i = 0
        while i < len(body):
            t = body[i]
            if t.text == "#" and i + 1 < len(body) and body[i + 1].text in raw:
                i += 2  # `#x` is a string literal
                continue
            pasting = (i + 1 < len(body) and body[i + 1].text == "##") or (out and i and body[i - 1].text == "##")
            if t.text == "##":
                i += 1
                continue
            if t.text in raw:
                if pasting:
                    part = raw[t.text]
                else:
                    if t.text not in done:
                        arg = args[params.index(t.text)] if params.index(t.text) < len(args) else []
                        done[t.text] = self.scan(list(reversed(arg)), level + 1)
                    part = done[t.text]
            else:
                part = [t]
            if i and body[i - 1].text == "##" and out and part:
                glued = out[-1].text + part[0].text
                out[-1] = Token("ident" if glued.isidentifier() else out[-1].kind, glued, out[-1].pos, None, MADE)
                part = part[1:]
            out += part
            i += 1
        return out
