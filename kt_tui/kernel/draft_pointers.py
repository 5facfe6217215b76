"""Local pointers into a kernel's array arguments, and the local a load is the whole value of."""

from __future__ import annotations

from . import cuda_ast
from .bounds import strip_parens
from .cuda_ast import Node, text


def pointer_aliases(fn: cuda_ast.Function, arrays: set[str]) -> dict[str, str]:
    """Local pointers declared into an array of `arrays` (`const float *var = vars + k * dim`, `&a[i]`)
    -> that array."""
    out: dict[str, str] = {}
    for n in cuda_ast.walk(fn.body):
        if n.type != "init_declarator":
            continue
        d, v = n.child_by_field_name("declarator"), strip_parens(n.child_by_field_name("value"))
        if d is None or d.type != "pointer_declarator" or (name := d.child_by_field_name("declarator")) is None:
            continue
        while v is not None and v.type == "cast_expression":
            v = strip_parens(v.child_by_field_name("value"))
        if v is not None and v.type == "binary_expression" and text(v.child_by_field_name("operator")) == "+":
            v = strip_parens(v.child_by_field_name("left"))
        elif v is not None and v.type == "pointer_expression" and text(v.child_by_field_name("operator")) == "&":
            v = strip_parens(v.child_by_field_name("argument"))
            v = v.child_by_field_name("argument") if v is not None and v.type == "subscript_expression" else None
        if v is not None and v.type == "identifier" and text(v) in arrays:
            out[text(name)] = text(v)
    return out


def declared_local(n: Node) -> Node | None:
    """The local `n` is the whole value of (`const float t = (float)targets[i];`): its declarator, else None."""
    up = n.parent
    while up is not None and up.type in ("parenthesized_expression", "cast_expression"):
        up = up.parent
    d = up.child_by_field_name("declarator") if up is not None and up.type == "init_declarator" else None
    return d if d is not None and d.type == "identifier" else None
