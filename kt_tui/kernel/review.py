"""Safety review of a generated kernel: what it adds or changes compared with the original."""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate

from ..words import counted
from .directives import file_flags
from .kernels import Kernel, SourceError
from .macros import MADE, Macro, directives, expand
from .parsed import ParsedKernel, parsed
from .syntax import Token
from .text import control_character


@dataclass(frozen=True)
class Flag:
    kind: str
    line: int  # 1-based in the generated source; 0 when no line applies
    message: str


HOST_API = (
    r"system|popen|fopen|freopen|fwrite|fread|fputs|fprintf|remove|unlink|malloc|calloc|realloc|free"
    r"|exit|_exit|abort|getenv|setenv|putenv|fork|exec[lv]p?e?|dlopen|cudaMalloc\w*|cudaMemcpy\w*"
    r"|cudaMemset\w*|cudaFree\w*|cudaDeviceReset|cudaSetDevice|cudaDeviceSetLimit|cudaHostAlloc|cudaLaunch\w*"
)
_ATTRIBUTES = {"__launch_bounds__", "__attribute__", "__align__", "alignas", "__declspec", "decltype", "noexcept"}
_THREAD_SEEDS = {"threadIdx", "blockIdx", "blockDim", "gridDim"}
_COMPARE = {"<", ">", "<=", ">=", "==", "!="}
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="}
_OPENER = {")": "(", "]": "[", "}": "{"}
_STOP = {"&&", "||", ";", ",", "?", ":", "{", "}", "return"} | _ASSIGN


class _Code:
    def __init__(self, source: ParsedKernel):
        code = source.folded  # what the preprocessor reads: `a\<newline>sm` is asm
        self.parsed = code
        text = code.source
        self.text = code.comment_free
        self.all_toks = code.tokens
        self.expansion = expand(self.all_toks)  # the code tokens the compiler gets: macros expanded
        self.toks = self.expansion.tokens
        self.newlines = [i for i, c in enumerate(text) if c == "\n"]
        self.closing: dict[int, int] = {}  # token index of a bracket -> index of the one closing it
        self.semicolon = [len(self.toks) - 1] * (len(self.toks) + 1)  # index of the first ";" from i on
        stacks: dict[str, list[int]] = {"(": [], "[": [], "{": []}
        for i, t in enumerate(self.toks):
            if t.text in stacks:
                stacks[t.text].append(i)
            elif t.text in _OPENER and stacks[_OPENER[t.text]]:
                self.closing[stacks[_OPENER[t.text]].pop()] = i
        for i in range(len(self.toks) - 1, -1, -1):
            self.semicolon[i] = i if self.toks[i].text == ";" else self.semicolon[i + 1]

    def line(self, pos: int) -> int:
        return bisect.bisect_left(self.newlines, pos) + 1

    def match(self, i: int) -> int:
        """Index of the bracket closing the one at toks[i] (or the last token)."""
        return self.closing.get(i, len(self.toks) - 1)

    def body(self, i: int) -> tuple[int, int]:
        """The token range of the statement or block starting at toks[i]."""
        if i < len(self.toks) and self.toks[i].text == "{":
            return i, self.match(i)
        return i, self.semicolon[min(i, len(self.toks))]

    def span(self, i: int, j: int) -> str:
        if any(t.place == MADE for t in self.toks[i : j + 1]):
            return " ".join(t.text for t in self.toks[i : j + 1])
        end = self.toks[j].pos + len(self.toks[j].text)
        return " ".join(self.text[self.toks[i].pos : end].split())


def review(original: str | ParsedKernel, generated: str | ParsedKernel, kernel_name: str) -> list[Flag]:
    """Flags for what `generated` adds or changes relative to `original` that a human should look at."""
    original, generated = parsed(original), parsed(generated)
    old, new = _Code(original), _Code(generated)
    flags = _includes(original, generated) + _top_level(old, new) + _calls(old, new) + _kernels(old, new, kernel_name)
    flags += _macros(old, new) + _expansion(old, new, {(f.kind, f.line) for f in flags}) + _control(generated.source)
    return sorted(flags, key=lambda f: (f.line, f.kind))


def summarize(flags: list[Flag]) -> str:
    if not flags:
        return "review: nothing to flag"
    head = ", ".join(f"{n} {kind}" for kind, n in Counter(f.kind for f in flags).items())
    lines = [f"review: {len(flags)} flag{'s' * (len(flags) != 1)} ({head})"]
    return "\n".join(lines + [f"  line {f.line}: {f.message}" if f.line else f"  {f.message}" for f in flags])


def _includes(original: ParsedKernel, generated: ParsedKernel) -> list[Flag]:
    """Every file-touching directive the original lacks (any spelling); flagged code is compiled only
    after approval, so a path or a probe never reaches the compiler unseen."""
    return [Flag("include", line, message) for line, message in file_flags(original, generated)]


def _items(code: _Code) -> Iterator[tuple[str, str, set[str], str, int]]:
    """Namespace-scope items as ("function" | "variable", name, qualifiers, text, position)."""
    toks, i, start = code.toks, 0, 0
    while i < len(toks):
        t = toks[i].text
        if t == "{":
            head = [x.text for x in toks[start:i]]
            if "namespace" in head or head == ["extern"]:
                start = i = i + 1
                continue
            end = code.match(i)
            fn = next(
                (
                    j - 1
                    for j in range(start + 1, i)
                    if toks[j].text == "("
                    and toks[j - 1].kind == "ident"
                    and toks[j - 1].text not in _ATTRIBUTES
                    and "=" not in head[: j - start]
                ),
                None,
            )
            if fn is not None:
                yield "function", toks[fn].text, set(head[: fn - start]), "", toks[fn].pos
                start = end + 1
            elif "=" not in head:  # struct/class/enum: what follows the body up to ";" declares objects
                semi = next((k for k in range(end + 1, len(toks)) if toks[k].text == ";"), len(toks) - 1)
                names = [toks[k] for k in range(end + 1, semi) if toks[k].kind == "ident"]
                if names:
                    text = " ".join(head) + " {...} " + code.span(end + 1, semi)
                    yield "variable", names[0].text, set(head), text, names[0].pos
                start, end = semi + 1, semi
            i = end + 1
            continue
        if t == "}":
            start = i + 1
        elif t == ";":
            item = _variable(code, start, i)
            if item:
                yield item
            start = i + 1
        i += 1


def _variable(code: _Code, start: int, end: int) -> tuple[str, str, set[str], str, int] | None:
    words = [t.text for t in code.toks[start:end]]
    if not words or words[0] in ("using", "typedef", "template", "static_assert", "namespace", "friend"):
        return None
    stop = next((k for k, w in enumerate(words) if w in ("=", "[", ",", "{", "(")), len(words))
    if stop < len(words) and words[stop] == "(" and not any(t.kind == "number" for t in code.toks[start + stop : end]):
        return None  # a function declaration, not an object built by a constructor
    if stop == 0 or code.toks[start + stop - 1].kind != "ident":
        return None
    return "variable", words[stop - 1], set(words[: stop - 1]), code.span(start, end), code.toks[start + stop - 1].pos


def _top_level(old: _Code, new: _Code) -> list[Flag]:
    old_items = list(_items(old))
    host_before = {name for kind, name, quals, _, _ in old_items if kind == "function" and _is_host(quals)}
    vars_before = {text for kind, _, _, text, _ in old_items if kind == "variable"}
    flags = []
    for kind, name, quals, text, pos in _items(new):
        if kind == "function" and _is_host(quals) and name not in host_before:
            what = "__host__ __device__" if "__host__" in quals and "__device__" in quals else "host"
            flags.append(Flag("host_function", new.line(pos), f"new {what} function {name}()"))
        elif kind == "variable" and text not in vars_before:
            why = _state_problem(quals, text)
            if why:
                flags.append(Flag("global_state", new.line(pos), f"{why}: {text}"))
    return flags


def _is_host(quals: set[str]) -> bool:
    return "__global__" not in quals and ("__device__" not in quals or "__host__" in quals)


def _state_problem(quals: set[str], text: str) -> str | None:
    init = text.split("=", 1)[1] if "=" in text else ""
    calls = bool(re.search(r"[A-Za-z_]\w*\s*\(", init.replace("sizeof", "")))
    if "__managed__" in quals:
        return "new __managed__ global variable"
    if quals & {"__device__", "__constant__", "__shared__"} or (quals & {"const", "constexpr"} and not calls):
        return "device global initialized by a call" if calls else None
    return "new static global object" if "static" in quals else "new host global variable"


def _call_sites(code: _Code, names: re.Pattern[str]) -> list[tuple[str, str, int]]:
    """(name, normalized call text, token index) for calls of the matching names."""
    toks, out = code.toks, []
    for i, t in enumerate(toks):
        if t.kind != "ident" or not names.fullmatch(t.text) or (i and toks[i - 1].text in (".", "->")):
            continue
        j = i + 1
        while j < len(toks) and toks[j].text in ("volatile", "__volatile__"):
            j += 1
        if j < len(toks) and toks[j].text == "(":
            out.append((t.text, code.span(i, code.match(j)), i))
    return out


def _new_sites(old: _Code, new: _Code, names: str) -> Iterator[tuple[str, str, int]]:
    pattern = re.compile(names)
    seen = Counter(text for _, text, _ in _call_sites(old, pattern))
    for name, text, i in _call_sites(new, pattern):
        seen[text] -= 1
        if seen[text] < 0:
            yield name, text if len(text) <= 80 else text[:77] + "...", i


def _calls(old: _Code, new: _Code) -> list[Flag]:
    toks = new.toks
    loops = [
        new.body(new.match(i + 1) + 1 if t.text != "do" else i + 1)
        for i, t in enumerate(toks)
        if t.text == "do" or (t.text in ("for", "while") and i + 1 < len(toks) and toks[i + 1].text == "(")
    ]
    flags = [
        Flag("inline_asm", new.line(toks[i].pos), f"new inline assembly: {text}")
        for _, text, i in _new_sites(old, new, r"asm|__asm__|__asm")
    ]
    depth = [0] * (len(toks) + 1)  # loops opened minus loops closed before each token
    for a, b in loops:
        depth[a] += 1
        depth[b + 1] -= 1
    depth = list(accumulate(depth))
    for _, text, i in _new_sites(old, new, r"printf"):
        where = " in a loop" if depth[i] > 0 else ""
        flags.append(Flag("printf", new.line(toks[i].pos), f"new printf{where}: {text}"))
    return flags + [
        Flag("host_api", new.line(toks[i].pos), f"new call to {name}: {text}")
        for name, text, i in _new_sites(old, new, HOST_API)
    ]


def _control(text: str) -> list[Flag]:
    found = control_character(text)
    if found is None:
        return []
    line, name = found
    why = "" if "bidirectional" in name else ": the compiler skips it and reads what follows"
    return [Flag("control", line, f"{name}{why}; such code is refused")]


def _risk(name: str) -> str | None:
    if name in ("asm", "__asm__", "__asm"):
        return "inline assembly"
    return "a call to " + name if re.fullmatch(HOST_API, name) else None


def _macros(old: _Code, new: _Code) -> list[Flag]:
    """A new macro that expands to inline assembly or a host call (`#define A asm` then `A volatile(...)`
    is inline assembly under another name); macros that expand to such macros count too, whichever
    definition the compiler keeps. Linear: each macro's body is read once, and a risky name marks
    the macros that use it once."""
    defines = [(name, m) for _, name, m in directives(new.all_toks) if m is not None]
    users: dict[str, set[str]] = {}
    risky: dict[str, str] = {}
    for name, m in defines:
        for t in m.body:
            users.setdefault(t.text, set()).add(name)
            what = _risk(t.text)
            if what and t.text != name:
                risky.setdefault(name, what)
    todo = list(risky)
    while todo:
        name = todo.pop()
        for user in users.get(name, ()):
            if user not in risky and _risk(user) is None:
                risky[user] = risky[name]
                todo.append(user)
    before = Counter(_define_text(name, m) for _, name, m in directives(old.all_toks) if m is not None)
    flags = []
    for name, m in defines:
        key = _define_text(name, m)
        before[key] -= 1
        if name in risky and before[key] < 0:
            kind = "inline_asm" if risky[name] == "inline assembly" else "host_api"
            pos = m.body[0].pos if m.body else 0
            flags.append(Flag(kind, new.line(pos), f"new macro {name} expands to {risky[name]}: #define {key}"[:160]))
    return flags


def _define_text(name: str, m: Macro) -> str:
    params = "(" + ", ".join(m.params) + ") " if m.params is not None else ""
    return name + " " + params + " ".join(t.text for t in m.body)


def _expansion(old: _Code, new: _Code, taken: set[tuple[str, int]]) -> list[Flag]:
    """Expansion the review refused (too big, too deep: the code is flagged and read unexpanded), and
    risky words handed to a function-like macro, which some definition the review did not pick
    (another `#if` group) could make into code."""
    flags = []
    if new.expansion.refused:
        line = new.line(new.expansion.refused_at)
        flags.append(Flag("macro_expansion", line, f"{new.expansion.refused}: such code is refused"))
    seen = Counter((name, t.text) for name, t in old.expansion.arguments if _risk(t.text))
    for name, t in new.expansion.arguments:
        what = _risk(t.text)
        kind = "inline_asm" if what == "inline assembly" else "host_api"
        if what and seen[(name, t.text)] <= 0 and (kind, new.line(t.pos)) not in taken:
            flags.append(
                Flag(kind, new.line(t.pos), f"{t.text} is handed to the macro {name}: it could expand to {what}")
            )
        seen[(name, t.text)] -= 1
    return flags


def _kernels(old: _Code, new: _Code, name: str) -> list[Flag]:
    """Extra kernels are looked for in macro bodies and `#if 0` groups too; the kernel itself must be
    where the compiler reads it."""
    before, after = _kernel_map(old.parsed), _kernel_map(new.parsed)
    known = before | _kernel_map(old.parsed, unread=True)
    flags = [
        Flag("extra_kernel", k.line, f"new __global__ function {k.name}()")
        for k in (_kernel_map(new.parsed, unread=True) | after).values()
        if k.name not in known and k.name != name
    ]
    if name not in after:
        return flags + [Flag("missing_kernel", 0, f"the kernel {name} is not in the generated code")]
    if name in before:
        flags += _signature(before[name], after[name])
        flags += _bounds(old, new, before[name], after[name])
    return flags


def _kernel_map(code: ParsedKernel, unread: bool = False) -> dict[str, Kernel]:
    try:
        return {k.name: k for k in code.kernels(unread)}
    except SourceError:
        return {}


def _param_type(ctype: str) -> str:
    words = re.sub(r"\*|&", lambda m: f" {m.group()} ", ctype).split()
    drop = {"const", "volatile", "__restrict__", "__restrict", "restrict"}
    return " ".join(w for w in words if w not in drop).replace("* *", "**")


def _signature(old: Kernel, new: Kernel) -> list[Flag]:
    changes = []
    if len(old.params) != len(new.params):
        changes.append(f"{counted(len(new.params), 'parameter')} instead of {len(old.params)}")
    for k, (a, b) in enumerate(zip(old.params, new.params), 1):
        if a.name != b.name or _param_type(a.ctype) != _param_type(b.ctype):
            changes.append(f"parameter {k} `{a.ctype} {a.name}` became `{b.ctype} {b.name}`")
    return (
        [Flag("signature", new.line, f"{new.name}: the parameter list changed: " + "; ".join(changes))]
        if changes
        else []
    )


def _bounds(old: _Code, new: _Code, before: Kernel, after: Kernel) -> list[Flag]:
    body = _body(old, before.name)
    thread_vars = _derived(old.toks[body[0] : body[1]], _THREAD_SEEDS)
    flags = []
    for k, p in enumerate(before.params):
        if p.is_pointer or re.search(r"float|double|half|bool|bfloat", p.base_type):
            continue
        checks = [
            (lhs, rhs, pos)
            for lhs, rhs, pos in _comparisons(old.toks, *body)
            if (p.name in lhs and rhs & thread_vars) or (p.name in rhs and lhs & thread_vars)
        ]
        if not checks:
            continue
        now = after.params[k].name if k < len(after.params) else p.name
        sizes = _derived(new.toks, {now}, exclude=_derived(new.toks, _THREAD_SEEDS))
        if not any((lhs | rhs) & sizes for lhs, rhs, _ in _comparisons(new.toks, 0, len(new.toks))):
            line = old.line(checks[0][2])
            flags.append(
                Flag(
                    "bounds_check",
                    after.line,
                    f"{after.name}: the original compares a thread index "
                    f"with {p.name} (line {line}); the generated code never compares anything with {now}",
                )
            )
    return flags


def _body(code: _Code, name: str) -> tuple[int, int]:
    toks = code.toks
    for i in range(len(toks) - 1):
        if toks[i].text == name and toks[i + 1].text == "(":
            j = next((k for k in range(code.match(i + 1), len(toks)) if toks[k].text in ("{", ";")), 0)
            if toks[j].text == "{":
                return j, code.match(j)
    return 0, 0


def _derived(toks: list[Token], seeds: set[str], exclude: frozenset[str] | set[str] = frozenset()) -> set[str]:
    """`seeds` and the variables assigned from expressions that use them (transitively)."""
    names, assigns = set(seeds), []
    for i, t in enumerate(toks):
        if t.text in _ASSIGN and i and toks[i - 1].kind == "ident" and toks[i - 1].text not in exclude:
            rhs = _operand(toks, i + 1, 1, len(toks))
            if not rhs & exclude:
                assigns.append((toks[i - 1].text, rhs))
    size = -1
    while size != len(names):
        size = len(names)
        names |= {target for target, rhs in assigns if rhs & names}
    return names


def _operand(toks: list[Token], i: int, step: int, end: int) -> set[str]:
    """Identifiers from toks[i] on (step 1) or back (step -1) until the end of the operand."""
    names: set[str] = set()
    depth, lo = 0, 0
    while lo <= i < end:
        t = toks[i].text
        if t in ("(", "["):
            depth += step
        elif t in (")", "]"):
            depth -= step
        if depth < 0 or (depth == 0 and (t in _STOP or (t in _COMPARE and step == 1 and names))):
            break
        if toks[i].kind == "ident":
            names.add(t)
        i += step
    return names


def _comparisons(toks: list[Token], start: int, end: int) -> Iterator[tuple[set[str], set[str], int]]:
    """(identifiers on the left, identifiers on the right, position) for each comparison."""
    for i in range(start, end):
        if toks[i].text in _COMPARE:
            yield _operand(toks, i - 1, -1, end), _operand(toks, i + 1, 1, end), toks[i].pos
