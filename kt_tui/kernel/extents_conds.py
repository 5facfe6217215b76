"""The conditions of kernel/extents.py's walk: what a test (`if (i < n)`, a loop's condition, an early
return) says of the values it compares, the problem size a thread index's guard gives, and the scalars
that bound a window, an escape-time loop or a value in a check."""

from __future__ import annotations

from . import cuda_ast
from .bounds import (
    MAX_STEPS,
    Env,
    Val,
    block,
    changed_in,
    grid,
    grid_names,
    loads,
    per_item,
    spread,
    strip_parens,
    sum_key,
    warps_per_block,
)
from .cuda_ast import Node, text
from .extents_expr import Expressions
from .poly import Poly, pmax, pmin

CONDITION_OPS = ("<", "<=", ">", ">=", "&&", "||", "==", "!=")
MAX_GUARDED = 64  # guards kept for the layout warnings (a hostile kernel has thousands)


def by_reference(fn: cuda_ast.Function) -> set[int]:
    """The places of `fn`'s parameters taken by reference (`bool &flag`)."""
    decl = fn.body.parent.child_by_field_name("declarator") if fn.body.parent is not None else None
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    plist = decl.child_by_field_name("parameters") if decl is not None else None
    params = [p for p in (plist.named_children if plist is not None else []) if p.type == "parameter_declaration"]
    return {k for k, p in enumerate(params) if "reference_declarator" in {c.type for c in cuda_ast.walk(p, 64)}}


def escaped(body: Node | None, helpers: dict[str, set[int] | None]) -> set[str]:
    """The locals in `body` a pointer or a helper could change: `&ok`, or `ok` passed by reference (to a
    helper at the places `helpers` gives, to a function-like macro, None there, at any)."""
    out: set[str] = set()
    for n in cuda_ast.walk(body, MAX_STEPS) if body is not None else ():
        if n.type == "pointer_expression" and text(n.child_by_field_name("operator")) == "&":
            arg = strip_parens(n.child_by_field_name("argument"))
            out |= {text(arg)} if arg is not None and arg.type == "identifier" else set()
        elif n.type == "call_expression" and (name := text(n.child_by_field_name("function"))) in helpers:
            refs, args = helpers[name], n.child_by_field_name("arguments")
            named = args.named_children if args is not None else []
            out |= {text(a) for k, a in enumerate(named) if (refs is None or k in refs) and a.type == "identifier"}
    return out


class Conditions(Expressions):
    named_conds: dict[str, Node]  # name_condition's tests held in locals
    assigned: dict[str, set[str]]  # "": the names assigned after their declaration in any function
    expanded: set[tuple[str, bool]]  # _held_test's locals already constrained by, in the test at hand
    expanding: int  # _held_test's depth

    def _fold(self, index: Poly, bound: Poly) -> bool:
        """`blockIdx.A * blockDim.B + threadIdx.B` (A != B; or `blockIdx.A * ROWS + threadIdx.B`, ROWS a
        #define) below `bound`: `bound` items on grid axis A, numbered by the threads of block axis B
        (a warp per row on 2-D blocks), so many of them a block (ROWS threads on B)."""
        one = Poly.const(1)
        for a in range(3):
            if a in self.out.axes:  # a tile's transposed write (`blockIdx.y * TILE + threadIdx.x`): no fold
                continue
            for b in range(3):
                g = Poly.var(grid(a))
                if a != b and index == g * Poly.var(block(b)) - one:
                    per = None
                elif a != b and len(names := index.names() - {grid(a), block(b)}) == 1:
                    (name,) = names
                    per, rows = self.unit.defines.get(name), Poly.var(name)
                    if per is None or index != g * rows + Poly.var(block(b)) - rows - one:
                        continue
                else:
                    continue
                self.out.axes.setdefault(a, bound + one)
                self.out.folded.setdefault(a, b)
                if per is not None:  # ROWS is the block's size on B, not on A
                    if self.out.block_consts.get(a) == per:
                        del self.out.block_consts[a]
                    self.out.block_consts[b] = per
                return True
        return False

    # -- conditions ----------------------------------------------------------------------
    def name_condition(self, name: str, value: Node | None) -> None:
        """`const bool inside = x < w && y < h;`: a test held in a local, which an `if (inside)` later means,
        so long as neither the local nor a name it reads is assigned again in the function, has its address
        taken or is passed to a helper (which may take it by reference)."""
        value = strip_parens(value)
        self.named_conds.pop(name, None)
        if value is None or not (
            (value.type == "binary_expression" and text(value.child_by_field_name("operator")) in CONDITION_OPS)
            or (value.type == "unary_expression" and text(value.child_by_field_name("operator")) == "!")
        ):
            return
        if not self.assigned:  # every function's: a helper's locals are walked as the kernel's are
            bodies = [self.fn.body, *(f.body for f in self.unit.devices.values())]
            helpers: dict[str, set[int] | None] = {name: None for name in self.unit.macros}  # SET(ok): ok = true
            helpers |= {name: by_reference(f) for name, f in self.unit.devices.items()}
            self.assigned[""] = set().union(*(changed_in(b, self.tick) | escaped(b, helpers) for b in bodies))
        read = {text(n) for n in cuda_ast.walk(value, MAX_STEPS) if n.type == "identifier"}
        if not (read | {name}) & self.assigned[""]:
            self.named_conds[name] = value

    def _held_test(self, name: str, truth: bool, env: Env, loop: bool) -> None:
        """Constrains by the test a bool local holds, each local once a test: `c2 = c1 && c1` does not
        double the work at each level, and `a = b && x` with `b = a && y` (a redeclared) does not loop."""
        if not self.expanding:
            self.expanded = set()
        if (name, truth) in self.expanded:
            return
        self.expanded.add((name, truth))
        self.expanding += 1
        try:
            self.constrain(self.named_conds[name], truth, env, loop)
        finally:
            self.expanding -= 1

    def constrain(self, cond: Node, truth: bool, env: Env, loop: bool = False) -> None:
        cond = strip_parens(cond)
        if cond is None:
            return
        if cond.type == "identifier" and text(cond) in self.named_conds:
            self._held_test(text(cond), truth, env, loop)
            return
        if cond.type == "unary_expression" and text(cond.child_by_field_name("operator")) == "!":
            self.constrain(cond.child_by_field_name("argument"), not truth, env, loop)
            return
        if cond.type != "binary_expression":
            return
        op = text(cond.child_by_field_name("operator"))
        left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
        if (op == "&&" and truth) or (op == "||" and not truth):
            self.constrain(left, truth, env, loop)
            self.constrain(right, truth, env, loop)
            if loop:
                self._escape(left, right, env)
                self._co_bounds(left, right, env)
            return
        if op not in ("<", "<=", ">", ">="):
            return
        if not truth:
            op = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}[op]
        for var_node, other, o in ((left, right, op), (right, left, {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op])):
            var_node = strip_parens(var_node)
            spread = _spread(var_node, o)  # `max(p, q) < n`: p < n and q < n
            if spread:
                for part in spread:
                    self._side(part, other, o, env, loop)
                continue
            if self._side(var_node, other, o, env, loop):
                return

    def _side(self, var_node: Node | None, other: Node, o: str, env: Env, loop: bool) -> bool:
        """Constrains by `var_node o other`; whether it was a test of a value the walk follows."""
        if (
            var_node is not None
            and o in ("<", "<=")
            and (
                var_node.type == "field_expression"
                or (
                    var_node.type == "binary_expression"
                    and text(var_node.child_by_field_name("operator")) in ("+", "-")
                )
            )
        ):
            name = sum_key(var_node)  # a guard on a sum: kept for the same sum in an index
            env.setdefault(name, self.expr(var_node, env))
        elif var_node is not None and var_node.type == "subscript_expression" and o in ("<", "<="):
            array = text(strip_parens(var_node.child_by_field_name("argument")))
            bound = self.expr(other, env)
            if array in self.out.uses and bound.hi is not None and not loads(bound.hi) | grid_names(bound.hi):
                self.out.ranged.setdefault(array, bound.hi + Poly.const(1 if o == "<=" else 0))  # `d[i] < INF`
            return False
        elif var_node is None or var_node.type != "identifier" or text(var_node) not in env:
            return False
        else:
            name = text(var_node)
        bound = self.expr(other, env)
        if not loop and o in ("<", "<="):
            self.out.guard_bounds.update(p for p in bound.params if p in self.scalars)
            reached = env[name].hi
            if bound.hi is not None and reached is not None and len(self.out.guarded) < MAX_GUARDED:
                top = bound.hi - Poly.const(1) if o == "<" else bound.hi
                if (reached, top) not in self.out.guarded:
                    self.out.guarded.append((reached, top))
        if loop:
            self.out.loop_bounds.update(p for p in bound.params if p in self.scalars)
            self.out.loop_loads.update(x[1:] for x in (loads(bound.hi) if bound.hi is not None else ()))
            self.out.loop_loads.update(bound.capped)
        cur = env[name]
        if not loop and o == "<" and cur.hi is not None and not loads(cur.hi) | grid_names(cur.hi):
            if bound.hi is not None and len(read := loads(bound.hi)) == 1 and bound.hi == Poly.var(min(read)):
                self.out.lengths.setdefault(min(read)[1:], cur.hi + Poly.const(1))  # `t < len[b]`, t <= T
        if o in ("<", "<=") and bound.hi is not None:
            hi = bound.hi - Poly.const(1) if o == "<" else bound.hi
            tested = loads(cur.hi) if cur.hi is not None else set()
            if len(tested) == 1 and cur.hi == Poly.var(min(tested)) and not loads(hi) and not grid_names(hi):
                self.out.ranged.setdefault(min(tested)[1:], hi + Poly.const(1))  # `l < nlabels`, l = labels[i]
            self._axis_bound(cur, hi)
            if cur.hi is None or grid_names(cur.hi) or loads(cur.hi):
                new_hi = hi
            elif loads(hi):  # `t < len`, len = min(lengths[b], frames), inside `t < frames`: that one holds
                new_hi = pmin(cur.hi, hi) or cur.hi
            else:
                new_hi = pmin(cur.hi, hi) or hi
            env[name] = Val(cur.lo, new_hi, cur.base, cur.axes, cur.params, unit=cur.unit)
        elif o in (">", ">=") and bound.lo is not None:
            lo = bound.lo + Poly.const(1) if o == ">" else bound.lo
            env[name] = Val(
                lo if cur.lo is None else pmax(cur.lo, lo) or cur.lo, cur.hi, cur.base, cur.axes, cur.params
            )
        return True

    def _co_bounds(self, left: Node, right: Node, env: Env) -> None:
        """`h < size && h < channels` in a loop's condition: the scalars that bound one counter on each side."""
        sides = [self._upper(strip_parens(n), env) for n in (left, right)]
        if sides[0] is None or sides[1] is None or sides[0][0] != sides[1][0]:
            return
        self.out.co_bounds.update((a, b) for a in sides[0][1] for b in sides[1][1] if a != b)

    def _upper(self, cond: Node | None, env: Env) -> tuple[str, set[str]] | None:
        """(counter, the scalars of its bound) for `counter < bound` or `counter <= bound`."""
        if cond is None or cond.type != "binary_expression":
            return None
        op = text(cond.child_by_field_name("operator"))
        var, other = strip_parens(cond.child_by_field_name("left")), cond.child_by_field_name("right")
        if op in (">", ">="):
            var, other = strip_parens(other), var
        elif op not in ("<", "<="):
            return None
        if var is None or var.type != "identifier" or text(var) not in env or other is None:
            return None
        return text(var), {p for p in self.expr(other, env).params if p in self.scalars}

    def _axis_bound(self, cur: Val, hi: Poly) -> None:
        """`if (x < w)` on a thread index: w is the problem size on x's axis (a block index alone:
        one block per element of that axis; `blockIdx.x * blockDim.y + threadIdx.y`: w items on x,
        blockDim.y of them a block)."""
        if cur.hi is not None and not grid_names(hi) and self._fold(cur.hi, hi):
            return
        one = Poly.const(1)
        if cur.hi == Poly.var(grid(0)) * Poly.var(grid(1)) - one and not grid_names(hi):
            self.out.axes.setdefault(0, hi + one)  # blockIdx.y * gridDim.x + blockIdx.x: items on x's blocks
            self.out.axes.setdefault(1, one)
            self.out.block_axes |= {0, 1}
            return
        if len(cur.axes) != 1 or cur.hi is None or grid_names(hi):
            return
        (axis,) = cur.axes
        g = grid(axis)
        if g not in cur.hi.names() or not grid_names(cur.hi) <= {g, block(axis)}:
            return
        start = cur.hi - (Poly.var(g) * Poly.var(block(axis)) - Poly.const(1))  # x = thread + R: R
        shift = cur.lo if not grid_names(start) and cur.lo is not None and cur.lo == start else Poly.const(0)
        warps = warps_per_block(cur.hi, axis, self.unit.defines)
        if warps:  # blockIdx.x * WARPS + threadIdx.x / 32: WARPS items a block, a warp each
            self.out.axes.setdefault(axis, (hi + Poly.const(1)) * Poly.const(32))
            self.out.per_item.setdefault(axis, 32)
            self.out.block_consts[axis] = 32 * warps
            return
        per = per_item(cur.hi, axis)
        if per > 1:  # (thread) / 32: 32 threads per item (a warp)
            self.out.axes.setdefault(axis, (hi + Poly.const(1)) * Poly.const(per))
            self.out.per_item.setdefault(axis, per)
            return
        every = spread(cur.hi, axis, self.unit.defines)
        self.out.axes.setdefault(axis, (hi + Poly.const(1) - shift) * Poly.const(1 / every))
        if cur.hi == Poly.var(g) - Poly.const(1):
            self.out.block_axes.add(axis)

    def _escape(self, left: Node, right: Node, env: Env) -> None:
        """A loop `while (x*x + y*y < 4 && it < max_iter)`: max_iter bounds an escape-time loop."""
        sides = [strip_parens(left), strip_parens(right)]
        floaty = [s for s in sides if s is not None and ("." in text(s) or "float" in text(s))]
        if floaty:
            for s in sides:
                if s is not None and s not in floaty:
                    for ident in cuda_ast.walk(s, 200):
                        if ident.type == "identifier" and text(ident) in self.scalars - self.floats:
                            self.out.escape_bounds.add(text(ident))


def _spread(n: Node | None, o: str) -> list[Node]:
    """The arguments of a max below a bound or a min above one (`max(p, q) < n`, `min(p, q) >= 0`): each
    argument holds the test; [] for another value."""
    if n is None or n.type != "call_expression":
        return []
    f = text(n.child_by_field_name("function"))
    args = n.child_by_field_name("arguments")
    if args is None or not (f in ("max", "::max") and o in ("<", "<=") or f in ("min", "::min") and o in (">", ">=")):
        return []
    return [strip_parens(a) for a in args.named_children if a is not None]
