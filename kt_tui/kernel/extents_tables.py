"""Tables whose elements are values loaded from one array, for kernel/extents.py's walk: an index
staged through shared memory (`ids[t] = list[k]; ... x[ids[j]]`) or gathered into a local array
(`int corner[3] = {tri.x, tri.y, tri.z}`) indexes what the array's own values index; and pointers a loop
swaps (two buffers of one array) reach what either reaches."""

from __future__ import annotations

from typing import Any

from . import cuda_ast
from .bounds import MAX_STEPS, Val, load, loads, strip_parens, union
from .cuda_ast import Node, text
from .poly import Poly

LANES = ("x", "y", "z", "w")  # an integer vector's lanes: each a value of the array it was loaded from
ROUNDS = 16  # rounds that drop pointers given other values from a loop's swapped ones, at most
BUFFERS = 8  # pointers swapped among themselves, at most (two for a double buffer)


def one_load(v: Val) -> bool:
    """Whether `v` is a value loaded from one array, unchanged (`$ids`)."""
    names = loads(v.hi) if v.hi is not None else set()
    return len(names) == 1 and v.hi == Poly.var(min(names))


def local_table(staged: dict[str, Val | None], name: str, vals: list[Val]) -> None:
    """`int corner[3] = {tri.x, tri.y, tri.z}`: a local array each of whose values is a value of one
    array (stage keeps it so while every store into it is one too)."""
    if vals and all(one_load(v) and v.hi == vals[0].hi for v in vals):
        staged[name] = vals[0]


def stage(staged: dict[str, Val | None], table: str | None, value: Val, shared: dict[str, Any]) -> None:
    """`ids[t] = id` with id = list[k], ids in shared memory (or a local table): a later `ids[j]` is a
    value of list, so long as every store into ids is a value loaded from that one array (else None: no
    value is known)."""
    if table is None or (table not in shared and table not in staged):
        return
    one = one_load(value)
    seen = staged.get(table, value) if table in staged or one else None
    staged[table] = value if one and seen is not None and seen.hi == value.hi else None


def reloaded_in_loop(body: Node | None, name: str, v: Val) -> bool:
    """Whether local `name`, holding `v` (a value loaded from one array), is changed in a loop's body only
    by loads of that same array (`v = idx[k + 1]`, a prefetch): it holds one of that array's values on
    every trip, so a table it is stored into stays staged from that array."""
    if body is None or not one_load(v):
        return False
    for n in cuda_ast.walk(body, MAX_STEPS):
        if n.type == "update_expression" and text(strip_parens(n.child_by_field_name("argument"))) == name:
            return False
        left = strip_parens(n.child_by_field_name("left")) if n.type == "assignment_expression" else None
        if left is None or left.type != "identifier" or text(left) != name:
            continue
        right = strip_parens(n.child_by_field_name("right"))
        if text(n.child_by_field_name("operator")) != "=" or right is None or right.type != "subscript_expression":
            return False
        if v.hi != Poly.var(load(text(right.child_by_field_name("argument")))):
            return False
    return True


def restored_in_loop(staged: dict[str, Val | None], body: Node | None) -> None:
    """A table staged before a loop that the loop's body stores another array's values or a computed
    value into, directly or through a local the body gives such a value (`int v = nxt[k]; ids[t] = v`): a
    read in the body before that store sees them on the next trip, so no value is known. (A store of a
    local the body does not give a value is left to stage: it holds what it held before the loop.)"""
    for n in cuda_ast.walk(body, MAX_STEPS) if body is not None else ():
        left = strip_parens(n.child_by_field_name("left")) if n.type == "assignment_expression" else None
        if left is None or left.type != "subscript_expression":
            continue
        table, value = (
            text(left.child_by_field_name("argument")),
            staged.get(text(left.child_by_field_name("argument"))),
        )
        right = strip_parens(n.child_by_field_name("right"))
        if value is None or right is None:
            continue
        for held in _held(body, text(right)) if right.type == "identifier" else [right]:
            source = text(held.child_by_field_name("argument")) if held.type == "subscript_expression" else None
            if source is None or value.hi != Poly.var(load(source)):
                staged[table] = None


def _held(body: Node, name: str) -> list[Node]:
    """What a loop's body gives local `name` (`int v = nxt[k]`, `v = nxt[k]`; `v++` as itself), so that a
    store of it into a table is judged by what it holds. None given in the body: it holds on every trip
    what it held before the loop, which stage sees as the walk reaches the store."""
    out: list[Node] = []
    for n in cuda_ast.walk(body, MAX_STEPS):
        if n.type == "init_declarator" and text(n.child_by_field_name("declarator")) == name:
            given = n.child_by_field_name("value")
        elif n.type == "assignment_expression" and text(strip_parens(n.child_by_field_name("left"))) == name:
            given = n if text(n.child_by_field_name("operator")) != "=" else n.child_by_field_name("right")
        elif n.type == "update_expression" and text(strip_parens(n.child_by_field_name("argument"))) == name:
            given = n
        else:
            continue
        if (given := strip_parens(given)) is not None:
            out.append(given)
    return out


def rotated_in_loop(body: Node | None, env: dict[str, Val]) -> dict[str, Val]:
    """Pointer locals a loop's body gives only one another's values (a double buffer swapped each trip:
    `float *t = cur; cur = nxt; nxt = t`): on any trip each holds what any of those it is swapped with held
    before the loop, so each to the union of their values then (one array's, at either offset). More than
    BUFFERS swapped together are left alone."""
    if body is None:
        return {}
    given: dict[str, list[Node | None]] = {}  # a name the body changes -> the values it gives it
    held: dict[str, str] = {}  # a local the body declares -> the name its value copies
    for n in cuda_ast.walk(body, MAX_STEPS):
        if n.type == "init_declarator":
            d, v = n.child_by_field_name("declarator"), strip_parens(n.child_by_field_name("value"))
            while d is not None and d.type == "pointer_declarator":  # `float *t = cur`
                d = d.child_by_field_name("declarator")
            if d is not None and d.type == "identifier" and v is not None and v.type == "identifier":
                held[text(d)] = text(v)
        elif n.type == "assignment_expression":
            left = strip_parens(n.child_by_field_name("left"))
            if left is not None and left.type == "identifier":
                right = strip_parens(n.child_by_field_name("right"))
                plain = text(n.child_by_field_name("operator")) == "="
                given.setdefault(text(left), []).append(
                    right if plain and right is not None and right.type == "identifier" else None
                )
        elif n.type == "update_expression":
            arg = strip_parens(n.child_by_field_name("argument"))
            if arg is not None and arg.type == "identifier":
                given.setdefault(text(arg), []).append(None)
    swapped = {k for k in given if k in env and env[k].base is not None}
    sources: dict[str, set[str]] = {}
    for _ in range(ROUNDS):
        sources = {}
        for k in swapped:
            copied = [held.get(text(v), text(v)) for v in given[k] if v is not None]
            if len(copied) == len(given[k]) and all(x in swapped for x in copied):
                sources[k] = set(copied)
        if set(sources) == swapped:
            break
        swapped = set(sources)
    else:
        return {}  # not settled: no rule
    groups: dict[str, set[str]] = {k: {k} for k in swapped}
    for k, froms in sources.items():
        merged = set().union(groups[k], *(groups[x] for x in froms))
        for x in merged:
            groups[x] = merged
    out: dict[str, Val] = {}
    for k, group in groups.items():
        if k not in out and 1 < len(group) <= BUFFERS and len({env[x].base for x in group}) == 1:
            joined = union([env[x] for x in sorted(group)])
            out.update(dict.fromkeys(group, joined))
    return out
