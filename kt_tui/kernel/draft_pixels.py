"""Byte inputs that are intensities (kernel/draft.py): 8-bit unsigned values the kernel scales by a float
constant (`p.x / 255.0f`, `src[i] * (1.0f / 255)`), directly or as a component of a vector read into a
local (`const uchar4 p = src[i]; p.x / 255.0f`). Drawn over all of 0..255, as a pixel's channels are: a
draw of 0 and 1 (bytes taken for flags because a value made from them is compared with 0) leaves every
channel near black, where a conversion's branches and rounding are never reached."""

from __future__ import annotations

import re

from . import cuda_ast
from .cuda_ast import Node, text
from .spec import Arg

_FLOAT_LITERAL = re.compile(r"^\(*\s*(\d+\.\d*|\.\d+|\d+\.?\d*[eE][-+]?\d+)[fF]?\s*\)*$|^\(*\s*\d+[fF]\s*\)*$")
_FLOAT_CASTS = re.compile(r"^\(?\s*(float|double)\s*\)?$")


def _scaled(n: Node) -> bool:
    """Whether the value of `n` is an operand of `*` or `/` by a float literal, or cast to float."""
    up = n.parent
    while up is not None and up.type == "parenthesized_expression":
        n, up = up, up.parent
    if up is None:
        return False
    if up.type == "cast_expression":
        return bool(_FLOAT_CASTS.match(text(up.child_by_field_name("type"))))
    if up.type != "binary_expression" or text(up.child_by_field_name("operator")) not in ("*", "/"):
        return False
    sides = [up.child_by_field_name(f) for f in ("left", "right")]
    other = next((s for s in sides if s is not None and s.start_byte != n.start_byte), None)
    return other is not None and bool(_FLOAT_LITERAL.match(text(other)))


def _names(n: Node | None) -> set[str]:
    return {text(m) for m in cuda_ast.walk(n)} if n is not None else set()


def scaled_bytes(fn: cuda_ast.Function, arrays: set[str]) -> set[str]:
    """The arrays of `arrays` a load of which (or a component of a local declared as one) is scaled by a
    float literal or cast to float."""
    if fn.body is None or not arrays:
        return set()
    nodes = list(cuda_ast.walk(fn.body))
    held: dict[str, set[str]] = {}  # local -> the arrays the load it is declared as reads
    out: set[str] = set()
    for n in nodes:
        if n.type != "subscript_expression":
            continue
        read = arrays & {text(m) for m in cuda_ast.walk(n.child_by_field_name("argument")) if m.type == "identifier"}
        if not read:
            continue
        if _scaled(n):
            out |= read
        decl = n.parent
        if decl is not None and decl.type == "init_declarator":
            local = decl.child_by_field_name("declarator")
            if local is not None and local.type == "identifier":
                held.setdefault(text(local), set()).update(read)
    for n in nodes:
        if n.type == "field_expression":
            arg = n.child_by_field_name("argument")
            if arg is not None and arg.type == "identifier" and text(arg) in held and _scaled(n):
                out |= held[text(arg)]
    return out


def intensities(fn: cuda_ast.Function, args: list[Arg], guesses: list[tuple[str, str]]) -> None:
    """uint8 inputs drawn as flags (0 or 1) whose values are scaled as intensities: drawn over 0..255."""
    flagged = {a.name for a in args if a.is_array and not a.output and a.type == "uint8" and (a.low, a.high) == (0, 2)}
    scaled = scaled_bytes(fn, flagged)
    for a in args:
        if a.name in scaled:
            a.low, a.high = 0, 256
            guesses[:] = [g for g in guesses if g[0] != f"args.{a.name}" or not g[1].startswith("values 0 or 1")]
            guesses.append(
                (
                    f"args.{a.name}",
                    "values in [0, 256): bytes scaled by a float constant (`p.x / 255.0f`: intensities), over "
                    "all of their range",
                )
            )
