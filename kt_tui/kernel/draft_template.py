"""A template kernel's name in a draft: kernel_tuner instantiates the kernel from the arguments the
spec's `kernel` gives it (`convert_scale<unsigned char, true>`), and no backend compiles it by its
bare name."""

from __future__ import annotations

import re
from typing import Any

from . import draft_roles
from .syntax import global_head

VALUE_WHY = "a block size where it sizes one, 32 where an index is divided by it, else a small count"


def template_name(
    src: str, name: str, values: dict[str, int], types: dict[str, str], compiled: bool
) -> tuple[str | None, str] | None:
    """(the kernel named with its arguments, the guess that says how), None for a kernel that is no
    template: each type parameter the type the source means it for (draft_roles.template_types), else
    float (as its arrays are then drafted), each value parameter the value the draft took for it
    (draft_roles.template_values) or else as the file's instantiation writes it; the name None where a
    value parameter is left for the user, said in the guess."""
    params = draft_roles.template_params(src, name)
    if not params:
        return None
    written = written_values(src, name, params, values, types)
    if written is None:
        left = ", ".join(p for kind, p in params if kind != "type" and p not in values)
        first = _defaulted_tail(src, name, params, values, types)
        if first is None:
            return None, f'template parameters {left}: give their values in kernel = "{name}<...>"'
        kept = params[:first]
        named = f"{name}<{', '.join(types.get(p, 'float') if kind == 'type' else str(values[p]) for kind, p in kept)}>"
        return named, (
            f"kernel {named}: template parameters {left} left at their defaults (the file instantiates none); "
            f'give their values in kernel = "{name}<...>" where you mean others'
        )
    named = f"{name}<{', '.join(types.get(p, 'float') if kind == 'type' else str(written[p]) for kind, p in params)}>"
    taken = [f"{p} = {written[p]}" for kind, p in params if kind != "type"]
    typed = [f"{p} = {types[p]} (as the source instantiates it or calls a helper for it)" for p in types]
    floats = [p for kind, p in params if kind == "type" and p not in types]
    why = (
        "as the file instantiates it, nearest what the kernel does with it"
        if compiled or written != values
        else VALUE_WHY
    )
    said = typed + ([f"template type {', '.join(floats)} taken as float, as its arrays are drafted"] if floats else [])
    said += [f"{', '.join(taken)} ({why})"] if taken else []
    return named, f"kernel {named}: " + "; ".join(said)


def written_values(
    src: str, name: str, params: list[tuple[str, str]], values: dict[str, int], types: dict[str, str]
) -> dict[str, Any] | None:
    """`values`, with each value parameter they leave (a bool, an enum) as the file's first explicit
    instantiation of kernel `name` writes it, one with the drafted types first; None where one is left
    and the file instantiates none."""
    left = [p for kind, p in params if kind != "type" and p not in values]
    if not left:
        return dict(values)
    insts = draft_roles.instantiations(src, name, len(params))
    same = [a for a in insts if all(kind != "type" or x == types.get(p) for (kind, p), x in zip(params, a))]
    if not insts:
        return None
    return {**values, **{p: x for (_, p), x in zip(params, (same or insts)[0]) if p in left}}


def _defaulted_tail(
    src: str, name: str, params: list[tuple[str, str]], values: dict[str, int], types: dict[str, str]
) -> int | None:
    """The index of the first value parameter the draft leaves, where it and every parameter after it
    has a default and is left too (`template <typename T, bool CLAMP = false>`: the kernel is named
    `k<float>`), at least one parameter before it; else None."""
    clean = draft_roles.stripped(src)
    head = global_head(clean, name)
    t = re.search(r"template\s*<([^;{}]*)>\s*(?:extern\s*)?$", clean[max(0, head[0] - 400) : head[0]]) if head else None
    parts = t.group(1).split(",") if t else []
    if len(parts) != len(params):
        return None
    first = next((i for i, (kind, p) in enumerate(params) if kind != "type" and p not in values), 0)
    tail = zip(params[first:], parts[first:], strict=True)
    left = all("=" in part and p not in values and p not in types for (_, p), part in tail)
    return first if first >= 1 and left else None
