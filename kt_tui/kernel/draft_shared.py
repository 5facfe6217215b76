"""What a kernel's `__shared__` arrays say about its launch, for a draft (kernel/draft.py): the most
threads a block may have where a shared array of constant extent is indexed by the thread number, the
bytes of dynamic shared memory its `extern __shared__` arrays reach (smem_size), and the counts that
bound a shared table (bins, coefficients), which must fit a block's shared memory."""

from __future__ import annotations

import re

from . import cuda_ast, extents
from .cuda_ast import text
from .draft_roles import Node, strip_parens
from .expr import ExprError, evaluate, names_in
from .poly import Poly
from .spec import Spec


def table_counts(an: extents.Analysis, scalars: set[str]) -> set[str]:
    """The `scalars` that bound an index into a `__shared__` array: the length of a table a block holds."""
    return {n for use in an.shared.values() for h in use.accesses if h is not None for n in h.names()} & scalars


def smem_spans(an: extents.Analysis, unit: cuda_ast.Unit, sizes: set[str]) -> list[Poly] | None:
    """The bytes each access to an `extern __shared__` array reaches, over `sizes` and the block sizes
    (`4*block_size_x` for `red[threadIdx.x]`): every such array starts at the same address, so the
    kernel needs the most of them. [] for a kernel without one; None when one's element type is not known
    or no access to it is bounded."""
    spans: list[Poly] = []
    for name, size in an.shared_bytes.items():
        for h in an.shared[name].accesses:
            r = _per_block(h, unit, sizes)
            if r is not None:
                spans.append((r + Poly.const(1)) * Poly.const(size))
    if an.shared_bytes and (not spans or not all(an.shared_bytes.values())):
        return None
    return spans


DEFAULT_SMEM = 48 * 1024  # bytes of dynamic shared memory a launch gets without opting in to more


def fit_default_smem(spec: Spec, fixed: set[str], guesses: list[tuple[str, str]]) -> None:
    """Sizes that only the dynamic shared memory grows with (a table of M rows a block stages), halved
    until smem_size fits DEFAULT_SMEM at the largest block sizes tuned, at the default sizes and at every
    check size, else the launch fails. Problem sizes and `fixed` (#defines) are left alone."""
    if not isinstance(spec.smem_size, str):
        return
    axes = {n for p in spec.problem_size for n in names_in(p)}
    free = (names_in(spec.smem_size) & set(spec.sizes)) - axes - fixed
    if not free:
        return
    blocks = {k: max(v) for k, v in spec.tune_params.items() if v and all(isinstance(x, int) for x in v)}
    tables: list[dict[str, int]] = [{}] + [dict(t) for t in spec.verify_sizes or []]
    halved: set[str] = set()
    for t in tables:
        at = {**spec.sizes, **t}
        try:
            while evaluate(spec.smem_size, {**blocks, **at}) > DEFAULT_SMEM and any(at[n] > 1 for n in free):
                for n in free:
                    at[n] = max(at[n] // 2, 1)
                    (t if n in t else spec.sizes)[n] = at[n]
                    halved.add(n)
        except ExprError:
            return
    if spec.verify_sizes is not None:
        spec.verify_sizes = tables[1:]
    for n in sorted(halved):
        why = (
            f"{spec.sizes[n]}: it sizes dynamic shared memory (smem_size {spec.smem_size}): small enough that a "
            f"launch fits the {DEFAULT_SMEM // 1024} KiB a block gets by default at every block size tuned; set "
            "the value you use"
        )
        guesses[:] = [g for g in guesses if g[0] != f"sizes.{n}"] + [(f"sizes.{n}", why)]


def _per_block(h: Poly | None, unit: cuda_ast.Unit, sizes: set[str]) -> Poly | None:
    """An index bound of a shared array over `sizes` and block sizes: None when it depends on the grid,
    on values loaded from memory or on names that are no size."""
    if h is None:
        return None
    out = Poly()
    for m, c in h.terms.items():
        term = Poly.const(c)
        for v in m:
            axis = next((a for a in range(3) if v == extents.block(a)), None)
            if axis is not None:
                term = term * Poly.var(f"block_size_{extents.AXES[axis]}")
            elif v in unit.defines:
                term = term * Poly.const(unit.defines[v])
            elif v in sizes and not v.startswith(("@", "$")):
                term = term * Poly.var(v)
            else:
                return None
        out = out + term
    return out


def shared_thread_caps(fn: cuda_ast.Function, unit: cuda_ast.Unit) -> dict[int, int]:
    """Per block axis (0 = x), the most threads a block may have: a `__shared__` array of constant
    extent (a number, #defines, constexpr or template values: `[2 * BLOCK]`, `[TILE + 2 * R]`) indexed by
    `a * threadIdx.<axis> + b` (directly or through locals such as `l = threadIdx.x + R`) holds the
    indices a block's threads reach, so a larger block writes past it. Parts of an index that are not
    constant (a loop's counter, blockDim) are taken as 0; an access only the first threads make (under
    `if (threadIdx.x < RADIUS)`) caps nothing."""
    values = dict(unit.defines)
    affine: dict[str, Affine] = {}
    arrays: dict[str, list[int | None]] = {}
    pointers: dict[str, tuple[str, Affine]] = {}  # `float *p = sh + threadIdx.x * K`: p -> (sh, its offset)
    for n in cuda_ast.walk(fn.body):
        if n.type != "declaration":
            continue
        values.update(cuda_ast.constants(n, values))
        shared = any(c.type == "type_qualifier" and text(c) == "__shared__" for c in n.children)
        for d in n.named_children:
            if shared and d.type == "array_declarator":
                name, dims = _array_dims(d, values)
                if name:
                    arrays[name] = dims
            elif d.type == "init_declarator":
                target, value = d.child_by_field_name("declarator"), d.child_by_field_name("value")
                form = _affine(value, affine, values) if target is not None and target.type == "identifier" else None
                if form is not None and form[0] is not None:
                    affine[text(target)] = form
                elif target is not None and (into := _into_shared(target, value, arrays, affine, values)):
                    pointers[into[0]] = into[1:]
    caps: dict[int, int] = {}
    for n in cuda_ast.walk(fn.body):
        if n.type != "subscript_expression" or n.parent is not None and n.parent.type == "subscript_expression":
            continue
        indices: list[cuda_ast.Node] = []
        base = n
        while base is not None and base.type == "subscript_expression":
            indices.insert(0, cuda_ast.subscript_index(base))
            base = base.child_by_field_name("argument") or base.named_children[0]
        offset: Affine | None = None
        shape: list[int | None] | None
        if base is not None and text(base) in pointers and len(indices) == 1:
            name, offset = pointers[text(base)]
            shape = arrays[name]
        else:
            shape = arrays.get(text(base)) if base is not None else None
        if not shape or len(shape) != len(indices):
            continue
        counters = _counters(n, values)
        for index, extent in zip(indices, shape):
            form = _affine(index, affine, values, counters=counters)
            if offset is not None:  # a pointer's element: its offset plus the index, an unknown index taken as 0
                at = form if form is not None and (form[0] is None or form[0] == offset[0]) else (None, 0, 0)
                form = offset[0], offset[1] + at[1], offset[2] + at[2]
            axis, a, b = form or (None, 0, 0)
            if axis is None or not extent or _guarded(n, axis, affine, values):
                continue
            most = (extent - 1 - b) // a + 1 if a > 0 else b // -a + 1  # threads whose index stays in [0, extent)
            caps[axis] = max(min(caps.get(axis, most), most), 1)
    return caps


def _into_shared(
    target: Node,
    value: Node | None,
    arrays: dict[str, list[int | None]],
    locals_: dict[str, Affine],
    values: dict[str, int],
) -> tuple[str, str, Affine] | None:
    """(pointer, array, offset) for a local pointer declared into a one-dimensional shared array at an offset
    that grows with the thread number (`float *mine = sh + threadIdx.x * K`)."""
    value = strip_parens(value)
    if target.type != "pointer_declarator" or value is None or value.type != "binary_expression":
        return None
    name = target.child_by_field_name("declarator")
    if name is None or name.type != "identifier" or text(value.child_by_field_name("operator")) != "+":
        return None
    for side, other in (("left", "right"), ("right", "left")):
        base = strip_parens(value.child_by_field_name(side))
        if base is not None and base.type == "identifier" and len(arrays.get(text(base)) or []) == 1:
            form = _affine(value.child_by_field_name(other), locals_, values)
            if form is not None and form[0] is not None and form[1] > 0:
                return text(name), text(base), form
    return None


def _guarded(n: Node, axis: int, locals_: dict[str, Affine], values: dict[str, int]) -> bool:
    """Whether `n` runs only where a test bounds the thread number on `axis` by a constant (`if (t < R)`,
    `threadIdx.x < 4 ? ... : ...`, the test's first operand of an `&&`)."""
    child, parent = n, n.parent
    while parent is not None and parent.type != "function_definition":
        branch = parent.child_by_field_name("consequence")
        if parent.type in ("if_statement", "conditional_expression") and branch is not None:
            if (branch.start_byte, branch.end_byte) == (child.start_byte, child.end_byte):
                stack = [parent.child_by_field_name("condition")]
                while stack:
                    c = strip_parens(stack.pop())
                    if c is None or c.type != "binary_expression":
                        continue
                    op = text(c.child_by_field_name("operator"))
                    if op == "&&":
                        stack += [c.child_by_field_name("left"), c.child_by_field_name("right")]
                        continue
                    left, right = c.child_by_field_name("left"), c.child_by_field_name("right")
                    if op in (">", ">="):
                        left, right = right, left
                    form = _affine(left, locals_, values) if op in ("<", "<=", ">", ">=") else None
                    if form is not None and form[0] == axis and form[1] > 0:
                        if cuda_ast.constant(right, values) is not None:
                            return True
        child, parent = parent, parent.parent
    return False


Affine = tuple[int | None, int, int]  # a * threadIdx.<axis> + b: (axis or None for a constant, a, b)


def _affine(
    n: Node | None,
    locals_: dict[str, Affine],
    values: dict[str, int],
    depth: int = 0,
    counters: dict[str, tuple[int, int]] | None = None,
    least: bool = False,
) -> Affine | None:
    """`n` as a * threadIdx.<axis> + b with a, b integers; a part that is neither constant nor a thread's
    number (a variable, blockDim) counts as 0 in a sum; None when `n` is no such form. `counters`: the
    (first, last) values of the loops' counters around `n`, a counter taken at its last value (its first
    where subtracted: `least`), the index's largest."""
    n = strip_parens(n)
    if n is None or depth > 50:
        return None
    word = re.sub(r"\s+", "", text(n))
    if m := re.fullmatch(r"threadIdx\.([xyz])", word):
        return "xyz".index(m.group(1)), 1, 0
    if n.type == "identifier" and counters and word in counters:
        return None, 0, counters[word][0 if least else 1]
    if n.type == "identifier" and word in locals_:
        return locals_[word]
    if (c := cuda_ast.constant(n, values)) is not None:
        return None, 0, c
    if n.type == "cast_expression":
        return _affine(n.child_by_field_name("value"), locals_, values, depth + 1, counters, least)
    if n.type != "binary_expression":
        return None
    op = text(n.child_by_field_name("operator"))
    left = _affine(n.child_by_field_name("left"), locals_, values, depth + 1, counters, least)
    right = _affine(n.child_by_field_name("right"), locals_, values, depth + 1, counters, least != (op == "-"))
    if op in ("+", "-"):
        left, right = left or (None, 0, 0), right or (None, 0, 0)  # an unknown part: taken as 0
        sign = 1 if op == "+" else -1
        if left[0] is not None and right[0] is not None:
            return None
        return left[0] if left[0] is not None else right[0], left[1] + sign * right[1], left[2] + sign * right[2]
    if op == "*" and left is not None and right is not None:
        for (axis, a, b), (other, _, k) in ((left, right), (right, left)):
            if other is None:
                return axis, a * k, b * k
    return None


def _counters(n: Node, values: dict[str, int]) -> dict[str, tuple[int, int]]:
    """The loops around `n` whose counter runs over constants, `for (j = A; j < B; j += S)` (`<=`,
    `++j`, `j++`), to the counter's first and last values."""
    out: dict[str, tuple[int, int]] = {}
    loop = n.parent
    while loop is not None and loop.type != "function_definition":
        if loop.type == "for_statement" and (found := _counted(loop, values)) is not None:
            out.setdefault(found[0], found[1:])
        loop = loop.parent
    return out


def _counted(loop: Node, values: dict[str, int]) -> tuple[str, int, int] | None:
    init, cond, step = (loop.child_by_field_name(f) for f in ("initializer", "condition", "update"))
    cond = strip_parens(cond)
    if init is None or cond is None or step is None or cond.type != "binary_expression":
        return None
    counter, op = text(cond.child_by_field_name("left")).strip(), text(cond.child_by_field_name("operator"))
    end = cuda_ast.constant(cond.child_by_field_name("right"), values)
    first = re.fullmatch(rf"(?:[\w\s]*\s)?{re.escape(counter)}\s*=\s*(.+?);?", text(init).strip(), re.DOTALL)
    said = re.sub(r"\s+", "", text(step))
    by = 1 if said in (f"++{counter}", f"{counter}++") else None
    if m := re.fullmatch(rf"{re.escape(counter)}\+=(\w+)", said):
        by = _number(m[1], values)
    if first is None or end is None or by is None or by < 1 or op not in ("<", "<="):
        return None
    start = _number(first[1].strip(), values)
    last = end - 1 if op == "<" else end
    if start is None or last < start:
        return None
    return counter, start, start + (last - start) // by * by


def _number(word: str, values: dict[str, int]) -> int | None:
    return int(word) if re.fullmatch(r"\d+", word) else values.get(word)


def _array_dims(d: Node, values: dict[str, int]) -> tuple[str, list[int | None]]:
    dims: list[int | None] = []
    while d is not None and d.type == "array_declarator":
        dims.insert(0, cuda_ast.constant(d.child_by_field_name("size"), values))
        d = d.child_by_field_name("declarator")
    return (text(d) if d is not None and d.type == "identifier" else ""), dims
