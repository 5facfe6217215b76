"""Which groups of a kernel's files the preprocessor reads: `#if`, `#ifdef`, `#ifndef`, `#elif`, `#else`
chains decided with the macros the files define before them (`#define`, `#undef`), the -D options a spec
gives, the names kernel_tuner defines before the kernel (block and grid sizes, `kernel_tuner`) and those
the compiler defines (`__CUDACC__`, `__CUDA_ARCH__`, `__cplusplus`). A name defined nowhere else is
undefined, as nvcc reads it, and an identifier left in an `#if` is 0. A condition on a
value only a launch gives (`#if block_size_x > 128`), on a function-like macro, or in syntax read here
(no `?:`, no character literals) is undecided: the first group whose condition is not false is read as
if it held, and said so.

Why not `cpp -E` or `nvcc -E`: they follow every include (system headers, paths out of the kernel's
folder), past kernel/headers.py's bounds; they need a toolchain where only a draft is made; they expand the
macros the drafter reads unexpanded; and nvcc's own predefined macros differ from cpp's. Nothing here is
evaluated as Python: the expression is parsed by the small reader below."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .parsed import Preprocessed

if TYPE_CHECKING:
    from .spec_model import Spec

Macros = dict[str, str | None]  # name -> its body; None: defined, value not known here (a launch's)
# kernel_tuner defines these before the kernel (each configuration's values) and `kernel_tuner` as 1
KERNEL_TUNER: Macros = {
    **{f"{k}_size_{a}": None for k in ("block", "grid") for a in "xyz"},
    "kernel_tuner": "1",
}
# nvcc and NVRTC define these in the device pass, the one that lays out a kernel's parameters: the arch
# compiled for (not known here) and the language's year (kernel/text.py STANDARD, C++17, unless -std= says)
COMPILER: Macros = {"__CUDACC__": "1", "__CUDA_ARCH__": None, "__cplusplus": "201703L"}
PREDEFINED: Macros = {**COMPILER, **KERNEL_TUNER}
MAX_EXPRESSION = 2000  # characters of one condition read; a longer one is undecided
MAX_NESTING = 16  # macros inside macros, and parentheses, followed
MAX_TOKENS = 4000  # tokens read for one condition, its macros' bodies included
# the preprocessor's arithmetic is intmax_t's and uintmax_t's: a value past both is not read here
WIDTH = (-(1 << 63), 1 << 64)
MAX_READ_TOKENS = 100_000  # tokens read for all the conditions of one read (a kernel and its headers): about 1 s
_TOKEN = re.compile(
    r"\s*(?:(0[xX][0-9A-Fa-f]+|\d+)[uUlL]*\b|([A-Za-z_]\w*)|(\|\||&&|==|!=|<=|>=|<<|>>|[-+*/%<>!~&|^()])|(\S))"
)
_BINARY = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="), ("<<", ">>"),
           ("+", "-"), ("*", "/", "%")]  # fmt: skip


class _Undecided(Exception):
    """A condition this reader cannot decide."""


@dataclass
class Spent:
    """Tokens read for the conditions of one read of a kernel's files, and for the condition now read."""

    read: int = 0
    condition: int = 0

    def take(self, tokens: int) -> None:
        self.read, self.condition = self.read + tokens, self.condition + tokens
        if self.condition > MAX_TOKENS or self.read > MAX_READ_TOKENS:
            raise _Undecided


def _tokens(text: str) -> list[str]:
    if len(text) > MAX_EXPRESSION:
        raise _Undecided
    out = []
    for m in _TOKEN.finditer(text):
        if m[4]:
            raise _Undecided  # a character literal, `?:`, `#`: not read here
        out.append(m[1] if m[1] is not None else m[2] or m[3])
    return out


@dataclass
class _Reader:
    """An `#if` expression's value: an int, or None where it rests on a value not known here."""

    toks: list[str]
    macros: Macros
    depth: int = 0
    at: int = 0
    spent: Spent = field(default_factory=Spent)  # shared with the macros' readers
    closed: bool = True  # a name not in `macros` is undefined; else it may be (a header not read defines it)

    def value(self) -> int | None:
        v = self._binary(0)
        if self.at != len(self.toks):
            raise _Undecided
        return v

    def _peek(self) -> str:
        return self.toks[self.at] if self.at < len(self.toks) else ""

    def _take(self) -> str:
        if self.at >= len(self.toks):
            raise _Undecided
        self.at += 1
        return self.toks[self.at - 1]

    def _binary(self, level: int) -> int | None:
        if level == len(_BINARY):
            return self._unary()
        left = self._binary(level + 1)
        while self._peek() in _BINARY[level]:
            op = self._take()
            left = _apply(op, left, self._binary(level + 1))
        return left

    def _unary(self) -> int | None:
        op = self._take()
        if op in ("!", "~", "-", "+"):
            v = self._unary()
            return None if v is None else _fits({"!": int(not v), "~": ~v, "-": -v, "+": v}[op])
        if op == "(":
            self._nest()
            v = self._binary(0)
            self.depth -= 1
            if self._take() != ")":
                raise _Undecided
            return v
        if op == "defined":
            paren = self._peek() == "("
            name = self._take() if not paren else (self._take(), self._take())[1]
            if paren and self._take() != ")":
                raise _Undecided
            return int(name in self.macros) if self.closed or name in self.macros else None
        if op[0].isdigit():
            return _fits(int(op, 0) if not re.fullmatch(r"0\d+", op) else int(op, 8))
        if re.fullmatch(r"[A-Za-z_]\w*", op):
            return self._name(op)
        raise _Undecided

    def _name(self, name: str) -> int | None:
        if name in ("true", "false"):
            return int(name == "true")
        if name not in self.macros:
            return 0 if self.closed else None  # an identifier no macro names is 0 in an #if
        body = self.macros[name]
        if body is None or self._peek() == "(":
            return None  # a launch's value, or a function-like macro's
        self._nest()
        toks = _tokens(body)
        self.spent.take(len(toks))
        v = _Reader(toks, self.macros, self.depth, spent=self.spent, closed=self.closed).value()
        self.depth -= 1
        return v

    def _nest(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise _Undecided


def _apply(op: str, a: int | None, b: int | None) -> int | None:
    if op == "||":
        return 1 if a or b else None if a is None or b is None else 0
    if op == "&&":
        return 0 if a == 0 or b == 0 else None if a is None or b is None else 1
    if a is None or b is None or op in ("/", "%") and b == 0 or op in ("<<", ">>") and not 0 <= b < 64:
        return None
    ops: dict[str, Callable[[int, int], int]] = {
        "|": lambda x, y: x | y, "^": lambda x, y: x ^ y, "&": lambda x, y: x & y,
        "==": lambda x, y: int(x == y), "!=": lambda x, y: int(x != y), "<": lambda x, y: int(x < y),
        ">": lambda x, y: int(x > y), "<=": lambda x, y: int(x <= y), ">=": lambda x, y: int(x >= y),
        "<<": lambda x, y: x << y, ">>": lambda x, y: x >> y, "+": lambda x, y: x + y, "-": lambda x, y: x - y,
        "*": lambda x, y: x * y, "/": _quotient, "%": lambda x, y: x - y * _quotient(x, y),
    }  # fmt: skip
    return _fits(ops[op](a, b))


def _fits(v: int) -> int:
    """`v`, where it is within 64 bits (WIDTH); else the condition is undecided."""
    if not WIDTH[0] <= v < WIDTH[1]:
        raise _Undecided
    return v


def _quotient(x: int, y: int) -> int:
    """x / y as C divides integers: toward 0."""
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def condition(name: str, rest: str, macros: Macros, spent: Spent | None = None, closed: bool = True) -> bool | None:
    """Whether the group of `#if rest` (`#ifdef`, `#ifndef`, `#elif`) is read; None where undecided, or
    where `spent` (the read's tokens so far) has reached its bound. `closed`: the names `macros` lacks
    are undefined (else a header not read here may define them: a condition on one is undecided)."""
    if name in ("ifdef", "ifndef"):
        m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*", rest)
        if not m:
            return None
        return (m[1] in macros) == (name == "ifdef") if closed or m[1] in macros else None
    spent = spent if spent is not None else Spent()
    spent.condition = 0
    try:
        toks = _tokens(rest)
        spent.take(len(toks))
        v = _Reader(toks, macros, spent=spent, closed=closed).value()
    except (_Undecided, ValueError, RecursionError):
        return None
    return None if v is None else v != 0


def define(rest: str, macros: Macros) -> None:
    """`#define NAME body` into `macros` (a function-like one as of no known value)."""
    m = re.match(r"([A-Za-z_]\w*)(\()?\s*(.*)$", rest, re.S)
    if m:
        macros[m[1]] = None if m[2] else m[3].strip()


def spec_names(tune: Iterable[str], defines: Mapping[str, object], defines_only: bool = False) -> Macros:
    """The names kernel_tuner defines before the kernel from a spec: each tune parameter (a configuration's
    value, not known here; none with `defines_only`, where only the defines are) and each define (its
    value where a whole number, else not known here)."""
    out: Macros = {} if defines_only else {name: None for name in tune}
    for name, v in defines.items():
        out[name] = str(v) if isinstance(v, int) and not isinstance(v, bool) else None
    return out


def names_of(spec: Spec) -> Macros:
    """spec_names of a spec read."""
    return spec_names(spec.tune_params or {}, spec.defines or {}, bool(spec.defines_only))


def with_options(macros: Macros, options: list[str]) -> Macros:
    """`macros` with a spec's compiler options' -DNAME (as 1), -DNAME=VALUE and -UNAME applied in order; a
    -std= other than C++17 or C++20 leaves __cplusplus's year unknown."""
    out = dict(macros)
    for option in options:
        if m := re.fullmatch(r"-D([A-Za-z_]\w*)(?:=(.*))?", option):
            out[m[1]] = "1" if m[2] is None else m[2]
        elif m := re.fullmatch(r"-U([A-Za-z_]\w*)", option):
            out.pop(m[1], None)
        elif option.startswith(("-std=", "--std=")) and "__cplusplus" in out:
            m = re.fullmatch(r"--?std=(?:c|gnu)\+\+(17|20)", option)
            out["__cplusplus"] = {"17": "201703L", "20": "202002L"}[m[1]] if m else None
    return out


@dataclass
class Live:
    """A file's text with the groups the preprocessor skips blanked, and each undecided condition said."""

    text: str
    undecided: list[str]
    skipped: bool = False  # a group was blanked


def live_groups(
    text: str,
    macros: Macros,
    where: str,
    include: Callable[[str], None] = lambda rest: None,
    spent: Spent | None = None,
    closed: bool = True,
) -> Live:
    """`text` (the file `where`) read as the preprocessor reads it, in order: `macros` gains what its read
    groups define (and loses what they undefine), and `include(rest)` is called at each `#include` read,
    where the header it names is read before the rest. `spent`: the tokens its conditions read, shared by
    the files of one read (MAX_READ_TOKENS). `closed`: as condition's."""
    spent = spent if spent is not None else Spent()
    frames: list[list[bool]] = []  # [outer read, a group of the chain taken]
    read = True
    dead: list[list[int]] = []  # [first line, last line] blanked; last 0 while open
    undecided: list[str] = []
    for line, name, rest in Preprocessed(text).directives():
        if name in ("if", "ifdef", "ifndef", "elif", "else", "endif"):
            if name.startswith("if"):
                frames.append([read, False])
            elif not frames:
                continue
            outer, taken = frames[-1]
            if name == "endif":
                now = frames.pop()[0]
            else:
                held = (
                    False
                    if not outer or taken
                    else True
                    if name == "else"
                    else condition(name, rest, macros, spent, closed)
                )
                now = held is not False
                if held is None:
                    shown = " ".join(rest.split())
                    shown = shown if len(shown) <= 80 else shown[:77] + "..."
                    undecided.append(f"{where}:{line}: `#{name} {shown}` is not decided here: read as if it held")
                frames[-1][1] = taken or now
            if read and not now:
                dead.append([line + 1, 0])
            elif now and not read:
                dead[-1][1] = line - 1
            read = now
        elif not read:
            continue
        elif name == "define":
            define(rest, macros)
        elif name == "undef":
            macros.pop(rest.strip(), None)
        elif name == "include":
            include(rest)
    lines = re.split(r"\r\n?|\n", text)  # lines as Preprocessed counts them: a lone CR ends one
    for first, last in dead:
        for i in range(first - 1, min(last or len(lines), len(lines))):
            lines[i] = " " * len(lines[i])
    return Live("\n".join(lines), undecided, bool(dead))


def compiled_text(source: str, options: Sequence[str] = (), names: Macros | None = None) -> str | None:
    """`source` with the groups the compile skips blanked (None where it skips none), decided with the spec's
    compiler `options`, the names kernel_tuner defines from it (`names`: spec_names) or of its own, and the
    compiler's. Where the source includes a file, a name defined nowhere here may be defined there: a
    condition on one reads its first group."""
    closed = not re.search(r"^[ \t]*#[ \t]*include\b", source, re.MULTILINE)
    macros = with_options({**PREDEFINED, **(names or {})}, list(options or ()))  # a spec's options: None if none
    live = live_groups(source, macros, "kernel", closed=closed)
    return live.text if live.skipped else None
