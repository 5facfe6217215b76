"""Which pointer arguments a kernel writes: in its own body, through local pointers made from them,
and through the functions it passes them to (__device__ functions and templates defined in the same
source, followed to any depth). A pointer handed to a function whose body is not in the source is
reported as unknown, never guessed."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..kernel.source import Kernel, SourceError, code_text, match_paren, parse_param, split_params, strip_comments

_NOT_FUNCTIONS = {
    "if",
    "for",
    "while",
    "switch",
    "catch",
    "return",
    "sizeof",
    "decltype",
    "alignof",
    "defined",
    "__launch_bounds__",
    "__attribute__",
    "__align__",
    "__declspec",
    "static_assert",
}
# functions that only read through the pointers they are given (or take no pointers)
_READERS = {
    "__ldg",
    "__ldcg",
    "__ldca",
    "__ldcs",
    "__ldlu",
    "__ldcv",
    "min",
    "max",
    "fmin",
    "fmax",
    "abs",
    "fabs",
    "fabsf",
    "sqrt",
    "sqrtf",
    "printf",
    "assert",
    "static_cast",
    "reinterpret_cast",
    "const_cast",
    "__syncthreads",
    "__shfl_sync",
    "__shfl_down_sync",
    "__shfl_xor_sync",
    "__shfl_up_sync",
}
_WRITERS = {
    "memcpy": 0,
    "memset": 0,
    "cudaMemcpy": 0,
    "cudaMemcpyAsync": 0,
    "cudaMemset": 0,
    "cudaMemsetAsync": 0,
}  # name -> the argument written
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*(?:<[^;{}()]*>)?\s*\(")
_MACRO = re.compile(
    r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^()]*)\)([^\n]*)", re.MULTILINE
)  # function-like macros
_OP = r"(?:[-+*/%&|^]|<<|>>)?=(?!=)"


@dataclass
class Function:
    name: str
    params: list[str]
    body: str


@dataclass
class Writes:
    written: list[str] = field(default_factory=list)
    unknown: dict[str, str] = field(default_factory=dict)  # pointer -> the function it is passed to


def functions(src: str) -> dict[str, list[Function]]:
    """Every function defined in the source, by name (overloads: each of them)."""
    clean = code_text(src)
    out: dict[str, list[Function]] = {}
    for m in _CALL.finditer(clean):
        name = m.group(1)
        if name in _NOT_FUNCTIONS:
            continue
        close = match_paren(clean, m.end() - 1)
        if close < 0:
            continue
        after = re.match(r"\s*(?:const\s*|noexcept\s*)*\{", clean[close + 1 :])
        if not after:
            continue
        start = close + 1 + after.end() - 1
        end = _match_brace(clean, start)
        try:
            params = [parse_param(p).name for p in split_params(clean[m.end() : close])]
        except SourceError:
            params = []
        out.setdefault(name, []).append(Function(name, params, clean[start : end + 1]))
    for name, params, body in _MACRO.findall(strip_comments(src).replace("\\\n", " ")):
        out.setdefault(name, []).append(Function(name, [p.strip() for p in params.split(",")], body))
    return out


def _match_brace(text: str, at: int) -> int:
    depth = 0
    for i in range(at, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return i
    return len(text) - 1


def _writes_directly(body: str, name: str) -> bool:
    n = re.escape(name)
    return bool(
        re.search(rf"\b{n}\s*\[[^;]*?\]\s*{_OP}", body)
        or re.search(rf"(?:^|[;{{}})])\s*\*\s*\(?\s*{n}\b[^;=]*?\)?\s*{_OP}", body)  # not `T *p = ...`
        or re.search(rf"\(\s*{n}\s*(?:\+[^;()]*)?\)\s*\[[^;]*?\]\s*{_OP}", body)
        or re.search(rf"\b{n}\s*->\s*\w+(?:\s*\[[^;]*?\])?\s*{_OP}", body)
        or re.search(rf"atomic\w*\s*\(\s*&?\s*\(?\s*{n}\b", body)
    )


def _aliases(body: str, name: str) -> set[str]:
    """Local pointers made from `name`: `T *p = name + i;`, `auto p = reinterpret_cast<T*>(name);`."""
    n = re.escape(name)
    found = set(re.findall(rf"\*\s*(?:const\s+|__restrict__\s+)*([A-Za-z_]\w*)\s*=\s*[^;]*?\b{n}\b", body))
    found |= set(re.findall(rf"\bauto\s*\*?\s*([A-Za-z_]\w*)\s*=\s*[^;]*?\b{n}\b", body))
    return found - {name}


def _passes(arg: str, name: str) -> bool:
    """Whether a call argument hands on the pointer `name` (`name`, `name + i`, `&name[i]`, a cast of it)."""
    a = arg.strip()
    n = re.escape(name)
    return bool(
        re.fullmatch(rf"(?:\([^()]*\*\s*\)\s*)?{n}(?:\s*[-+][^,]*)?", a)
        or re.fullmatch(rf"&\s*{n}\s*\[.*\]", a, re.DOTALL)
        or re.fullmatch(rf"\w+_cast\s*<[^<>]*\*\s*>\s*\(\s*{n}(?:\s*[-+][^()]*)?\s*\)", a)
    )


def _follow(body: str, name: str, defined: dict, seen: set, out: Writes, top: str) -> bool:
    names = {name} | _aliases(body, name)
    if any(_writes_directly(body, n) for n in names):
        return True
    for m in _CALL.finditer(body):
        callee = m.group(1)
        if callee in _NOT_FUNCTIONS or callee in _READERS:
            continue
        close = match_paren(body, m.end() - 1)
        if close < 0:
            continue
        args = split_params(body[m.end() : close])
        for k, arg in enumerate(args):
            if not any(_passes(arg, n) for n in names):
                continue
            if callee in _WRITERS:
                if k == _WRITERS[callee]:
                    return True
                continue
            if callee not in defined:
                if not re.match(r"atomic", callee):
                    out.unknown.setdefault(top, callee)
                continue
            for fn in defined[callee]:
                if k >= len(fn.params) or not fn.params[k] or (callee, k) in seen:
                    continue
                seen.add((callee, k))
                if _follow(fn.body, fn.params[k], defined, seen, out, top):
                    return True
    return False


def kernel_writes(src: str, kernel: Kernel) -> Writes:
    """The kernel's pointer parameters that it writes, and those it hands to code kt-tui cannot see."""
    defined = functions(src)
    bodies = [f for f in defined.get(kernel.name, []) if len(f.params) == len(kernel.params)]
    out = Writes()
    if not bodies:
        return out
    for p in kernel.params:
        if p.is_pointer and p.name and _follow(bodies[-1].body, p.name, defined, set(), out, p.name):
            out.written.append(p.name)
            out.unknown.pop(p.name, None)
    return out
