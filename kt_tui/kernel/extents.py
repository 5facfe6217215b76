"""What a kernel's index math reaches: per pointer argument, the largest index it can touch, as a
polynomial over the scalar arguments and #defines, read from the syntax tree (kernel/cuda_ast.py).

Thread indices are bounded by the conditions that guard them (`if (i < n)`, early returns), loop
variables by their loop conditions; a value loaded from an int array and used in another array's
subscript makes that array an index array (the conditions: kernel/extents_conds.py, the expressions:
kernel/extents_expr.py). What cannot be bounded is left None: the draft guesses it and says so."""

from __future__ import annotations

import re

from . import cuda_ast
from .bounds import (
    AXES,
    MAX_DEPTH,
    MAX_STEPS,
    UNKNOWN,
    Analysis,
    Env,
    Stop,
    Use,
    Val,
    add,
    bisection,
    block,
    changed_in,
    cond_of,
    const,
    declared_name,
    direction,
    grid,
    grid_names,
    loads,
    names_of,
    neg,
    nonneg,
    per_item,
    plain_type,
    product,
    same_value,
    strip_parens,
    sum_terms,
    terms_nodes,
    union,
)
from .cuda_ast import Node, text
from .extents_conds import Conditions
from .extents_tables import local_table, reloaded_in_loop, restored_in_loop, rotated_in_loop
from .poly import Poly, TooBig, at_least

__all__ = ["AXES", "Analysis", "Use", "analyse", "block", "grid"]


class Walker(Conditions):
    def __init__(self, unit: cuda_ast.Unit, fn: cuda_ast.Function) -> None:
        self.unit, self.fn = unit, fn
        self.out = Analysis(uses={p.name: Use() for p in fn.params if p.pointer and p.name})
        self.ptypes = {p.name: plain_type(p.type) for p in fn.params}
        self.scalars = {p.name for p in fn.params if not p.pointer and p.name}
        self.floats = {p.name for p in fn.params if not p.pointer and p.type in ("float", "double", "half", "__half")}
        self.steps = 0
        self.calls = 0
        self.depth = 0
        self.loop_depth = 0
        self.trip = [Poly.const(1)]
        self.returned: list[Val] = []
        self.counters: dict[str, frozenset[str]] = {}
        self.loop_names: set[str] = set()
        self.named_conds: dict[str, Node] = {}
        self.expanded: set[tuple[str, bool]] = set()
        self.expanding = 0
        self.assigned: dict[str, set[str]] = {}
        self.staged: dict[str, Val | None] = {}
        self.tops: dict[tuple[int, int], Poly] = {}

    # -- statements ----------------------------------------------------------------------
    def run(self) -> Analysis:
        env: Env = {}
        for p in self.fn.params:
            if p.pointer:
                env[p.name] = Val(Poly.const(0), Poly.const(0), base=p.name)
            elif p.name:
                v = Poly.var(p.name)
                env[p.name] = Val(v, v, params=frozenset([p.name]))
        for name, (kind, extern) in self.unit.shared.items():  # `extern __shared__ float s[];` outside the kernel
            self.shared(name, kind, extern, env)
        try:
            self._divisions(env)
            self.block(self.fn.body, env)
        except (Stop, TooBig, RecursionError):
            self.out.ok = False
        return self.out

    def _divisions(self, env: Env) -> None:
        """The sizes by division of int arguments anywhere in the kernel (`head_size / x`), taken before the
        walk, so that an index divided by the same divisor before them (`(i % head_size) / x`) is exact."""
        names = (self.scalars - self.floats) | set(self.unit.defines)
        plain = ("identifier", "number_literal", "binary_expression", "parenthesized_expression")
        for node in cuda_ast.walk(self.fn.body, MAX_STEPS):
            self.tick()
            if node.type in ("for_statement", "while_statement", "do_statement") and (c := cond_of(node)) is not None:
                self.loop_names |= {text(x) for x in cuda_ast.walk(c, 200) if x.type == "identifier"}
        done = 0  # the end of the last division taken: divisions inside it were taken with it
        for node in cuda_ast.walk(self.fn.body, MAX_STEPS):
            self.tick()
            if node.start_byte < done or node.type != "binary_expression":
                continue
            if text(node.child_by_field_name("operator")) != "/" or node.end_byte - node.start_byte > 400:
                continue
            parts = list(cuda_ast.walk(node, 200))
            if all(not c.is_named or c.type in plain for c in parts) and all(
                text(c) in names for c in parts if c.type == "identifier"
            ):
                self.expr(node, dict(env))
                done = node.end_byte

    def tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise Stop

    def block(self, node: Node, env: Env) -> bool:
        """Runs the statements; True when the block ends in a return, a break or a continue."""
        for child in node.named_children:
            if self.stmt(child, env):
                return True
        return False

    def stmt(self, n: Node, env: Env) -> bool:
        self.tick()
        self.depth += 1
        try:
            return False if self.depth > MAX_DEPTH or n is None else self._stmt(n, env)
        finally:
            self.depth -= 1

    def _stmt(self, n: Node, env: Env) -> bool:
        kind = n.type
        if kind == "compound_statement":  # its own scope: what it declares ends with it, the rest goes on
            inner = dict(env)
            ended = self.block(n, inner)
            local = {
                declared_name(d)
                for c in n.named_children
                if c.type == "declaration"
                for d in c.children_by_field_name("declarator")
            }
            for name, v in inner.items():
                if name not in local or name not in env:
                    env[name] = v
            return ended
        if kind == "declaration":
            self.declare(n, env)
        elif kind == "expression_statement":
            for c in n.named_children:
                self.expr(c, env)
        elif kind == "if_statement":
            return self.if_stmt(n, env)
        elif kind == "for_statement":
            self.for_stmt(n, env)
        elif kind in ("while_statement", "do_statement"):
            self.while_stmt(n, env)
        elif kind == "return_statement":
            for c in n.named_children:
                self.returned.append(self.expr(c, env))
            return True
        elif kind in ("continue_statement", "break_statement"):  # the rest of the loop body runs without it
            return True
        elif kind in (
            "switch_statement",
            "case_statement",
            "labeled_statement",
            "preproc_if",
            "preproc_ifdef",
            "preproc_else",
            "preproc_elif",
        ):
            for c in n.named_children:
                if c.type.endswith("statement") or c.type in ("declaration", "compound_statement"):
                    self.stmt(c, env)
                elif c.type in ("condition_clause", "parenthesized_expression"):
                    self.expr(c, env)
        return False

    def shared(self, name: str, kind: str, extern: bool, env: Env) -> None:
        """A one-dimensional `__shared__` array: accessed as a pointer argument is (its extent is the
        block's shared memory, or a table a count bounds)."""
        env[name] = Val(Poly.const(0), Poly.const(0), base=name)
        self.out.shared[name] = Use()
        self.ptypes[name] = kind
        if extern:
            self.out.shared_bytes[name] = cuda_ast.type_bytes(kind, self.unit) or 0  # 0: not known

    def declare(self, n: Node, env: Env) -> None:
        shared = cuda_ast.shared_arrays(n)
        for d in n.children_by_field_name("declarator"):
            if declared_name(d) in shared:
                self.shared(declared_name(d), *shared[declared_name(d)], env)
            elif d.type == "init_declarator":
                name = declared_name(d)
                value = d.child_by_field_name("value")
                env[name] = self.expr(value, env) if value is not None else UNKNOWN
                self.name_condition(name, value)
                self.staged.pop(name, None)
                if value is not None and value.type == "initializer_list":
                    local_table(self.staged, name, [self.expr(c, env) for c in value.named_children])
            else:
                env[declared_name(d)] = UNKNOWN

    def if_stmt(self, n: Node, env: Env) -> bool:
        cond = cond_of(n)
        self._test(self.expr(cond, env))
        yes, no = dict(env), dict(env)
        self.constrain(cond, True, yes)
        self.constrain(cond, False, no)
        then_ends = self.stmt(n.child_by_field_name("consequence"), yes)
        alt = n.child_by_field_name("alternative")
        else_ends = False
        if alt is not None:
            body = alt.named_children[-1] if alt.type == "else_clause" and alt.named_children else alt
            else_ends = self.stmt(body, no)
        if then_ends and not else_ends:
            env.clear()
            env.update(no)
        elif else_ends and not then_ends:
            env.clear()
            env.update(yes)
        else:  # what a branch assigned is either branch's value; what it only tested is as before
            changed = changed_in(n.child_by_field_name("consequence"), self.tick) | changed_in(alt, self.tick)
            for name in changed & set(env):
                env[name] = union([yes.get(name, env[name]), no.get(name, env[name])])
        return then_ends and else_ends

    def _widen(self, body: Node, env: Env, keep: str | None = None) -> None:
        swapped = rotated_in_loop(body, env)
        for name in changed_in(body, self.tick):
            if name in swapped and name != keep:
                env[name] = swapped[name]
            elif name in env and name != keep and not reloaded_in_loop(body, name, env[name]):
                v = env[name]
                env[name] = Val(
                    base=v.base,
                    axes=v.axes,
                    params=v.params,
                    unit=v.unit,
                    lo=Poly.const(0) if v.lo is not None and at_least(v.lo, Poly.const(0)) else None,
                )

    def for_stmt(self, n: Node, env: Env) -> None:
        inner = dict(env)
        init = n.child_by_field_name("initializer")
        var = None
        if init is not None:
            if init.type == "declaration":
                self.declare(init, inner)
                decls = init.children_by_field_name("declarator")
                var = declared_name(decls[0]) if decls else None
            else:
                self.expr(init, inner)
                if init.type == "assignment_expression":
                    var = text(init.child_by_field_name("left"))
        cond = n.child_by_field_name("condition")
        update = n.child_by_field_name("update")
        start = inner.get(var, UNKNOWN) if var else UNKNOWN
        if start.hi is not None:  # `for (i = begin[s]; ...)`: begin's values bound a loop too
            self.out.loop_loads.update(x[1:] for x in loads(start.hi))
        start_env = dict(inner)
        self._widen(n.child_by_field_name("body"), inner, keep=var)
        if var and update is not None:
            self._widen(update, inner, keep=var)
        up = direction(update, var)
        step = (
            self.expr(update.child_by_field_name("right"), inner)
            if update is not None
            and update.type == "assignment_expression"
            and update.child_by_field_name("right") is not None
            else UNKNOWN
        )
        if var:
            inner[var] = Val(
                start.lo if up else None, start.hi if up is False else None, start.base, start.axes, start.params
            )
        if cond is not None:
            self.expr(cond, inner)
            self.constrain(cond, True, inner, loop=True)
        if var and update is not None:
            self._follow(update, var, start_env, inner)
        strided = bool(var and start.axes and any(v.startswith("@") for v in names_of(step)))
        if var and strided:
            self._grid_stride(start, step, inner.get(var, UNKNOWN).hi)
        self._block_step(start, step)
        counter = const(0) if strided else inner.get(var, UNKNOWN) if var else UNKNOWN  # strided: ~1 trip
        span = self._span(init, cond, var, start_env) if var and not strided else None
        trips = counter if span is None else span
        if var and not strided and trips.hi is not None and trips.lo is not None and not grid_names(trips.hi):
            inner.update(self._stepped(n, var, start_env, trips.hi - trips.lo + Poly.const(1)))
        saved = dict(self.counters)
        name = re.escape(var or "")
        step_one = rf"(\+\+|--){name}|{name}(\+\+|--|[-+]=1|={name}[-+]1)"
        if var and update is not None and re.fullmatch(step_one, re.sub(r"\s+", "", text(update))):
            self.counters[var] = frozenset(names_of(inner.get(var, UNKNOWN)) & self.scalars)  # a step of 1
        self._loop_body(n.child_by_field_name("body"), inner, counter if span is None else span)
        self.counters = saved
        if update is not None:
            self.expr(update, inner)
        self._after_loop(n, env, inner)

    def _span(self, init: Node, cond: Node | None, var: str, env: Env) -> Val | None:
        """`for (h = s; h < s + len; h++)`: len trips whatever s is (the counter's values from 0)."""
        first = init.child_by_field_name("right") if init.type == "assignment_expression" else None
        if init.type == "declaration":
            decls = init.children_by_field_name("declarator")
            first = decls[0].child_by_field_name("value") if decls and decls[0].type == "init_declarator" else None
        test = strip_parens(cond)
        if first is None or test is None or test.type != "binary_expression":
            return None
        op = text(test.child_by_field_name("operator"))
        if op not in ("<", "<=") or text(strip_parens(test.child_by_field_name("left"))) != var:
            return None
        right = test.child_by_field_name("right")
        rest = sum_terms(right)
        try:
            for t in sum_terms(first):
                rest.remove(t)
        except ValueError:
            return None
        nodes = terms_nodes(right)
        total = const(1 if op == "<=" else 0)
        for t in rest:
            v = self.expr(nodes[t], dict(env))
            total = Val(
                add(total.lo, v.lo if t[0] == "+" else neg(v).lo), add(total.hi, v.hi if t[0] == "+" else neg(v).hi)
            )
        if not rest or total.hi is None:
            return None
        return Val(Poly.const(0), total.hi - Poly.const(1))

    def _stepped(self, loop: Node, var: str, env: Env, trips: Poly) -> Env:
        """Locals the loop only steps up (`p += s`, `k++`; in it, its update or loops inside it of counted
        trips; s not negative and unchanged in the loop): within it they stay in [start, start + all the
        steps of its `trips` trips] (a pitch walked slice by slice, a column buffer filled row by row)."""
        body, update = loop.child_by_field_name("body"), loop.child_by_field_name("update")
        changed = changed_in(body, self.tick) | changed_in(update, self.tick)
        steps: dict[str, Poly | None] = {}
        todo: list[tuple[Node, Poly | None]] = [(c, trips) for c in (body, update) if c is not None]
        while todo:
            node, times = todo.pop()
            self.tick()
            kind = node.type
            if kind == "for_statement":
                inner = self._counted(node, env, changed)
                todo += [(c, None if times is None or inner is None else times * inner) for c in node.children]
                continue
            if kind in ("while_statement", "do_statement"):
                times = None
            name, by = self._step_of(node)
            if name is None:
                todo += [(c, times) for c in node.children]
                continue
            if name == var or name not in env or name in self.out.uses:
                continue
            step = self._invariant(by, env, changed) if by is not None else const(1)
            total = steps.get(name, Poly.const(0))
            if total is None or times is None or step is None or step.hi is None or not nonneg(step.lo):
                steps[name] = None
            else:
                steps[name] = total + times * step.hi
            if by is not None:
                todo += [(c, times) for c in by.children]
        out: Env = {}
        for name, total in steps.items():
            start = env[name]
            if total is not None and start.hi is not None and start.lo is not None:
                out[name] = Val(start.lo, start.hi + total, start.base, start.axes, start.params, unit=start.unit)
        return out

    def _step_of(self, node: Node) -> tuple[str | None, Node | None]:
        """(x, s) for `x += s`, (x, None) for `x++`/`++x`; ("", None) for another change of x (then x is
        not a stepped local: recorded with an unknown step), (None, None) for anything else."""
        if node.type == "assignment_expression":
            left = strip_parens(node.child_by_field_name("left"))
            if left is None or left.type != "identifier":
                return None, None
            if text(node.child_by_field_name("operator")) == "+=":
                return text(left), node.child_by_field_name("right")
            return text(left), left  # any other assignment: the step is the name itself, never invariant
        if node.type == "update_expression":
            arg = strip_parens(node.child_by_field_name("argument"))
            if arg is not None and arg.type == "identifier":
                return text(arg), (None if text(node).replace(" ", "").count("++") else arg)
        return None, None

    def _invariant(self, by: Node, env: Env, changed: set[str]) -> Val | None:
        """The value of a step that reads no memory, calls nothing and names nothing the loop changes."""
        for c in cuda_ast.walk(by, 200):
            self.tick()
            if c.type in ("subscript_expression", "call_expression", "pointer_expression", "field_expression"):
                return None
            if c.type in ("assignment_expression", "update_expression", "comma_expression"):
                return None
            if c.type == "identifier" and text(c) in changed:
                return None
        return self.expr(by, dict(env))

    def _counted(self, loop: Node, env: Env, changed: set[str]) -> Poly | None:
        """The trips of `for (j = a; j < b; j++)` (or `<=`), a and b unchanged in the loop around."""
        init, cond, update = (loop.child_by_field_name(f) for f in ("initializer", "condition", "update"))
        test = strip_parens(cond)
        if init is None or update is None or test is None or test.type != "binary_expression":
            return None
        op = text(test.child_by_field_name("operator"))
        left, right = strip_parens(test.child_by_field_name("left")), test.child_by_field_name("right")
        if op not in ("<", "<=") or left is None or left.type != "identifier" or right is None:
            return None
        var = text(left)
        if direction(update, var) is not True or re.sub(r"\s+", "", text(update)) not in (
            f"{var}++",
            f"++{var}",
            f"{var}+=1",
        ):
            return None
        first = None
        if init.type == "declaration":
            decls = init.children_by_field_name("declarator")
            if decls and decls[0].type == "init_declarator" and declared_name(decls[0]) == var:
                first = decls[0].child_by_field_name("value")
        elif init.type == "assignment_expression" and text(init.child_by_field_name("left")) == var:
            first = init.child_by_field_name("right")
        if first is None:
            return None
        a, b = self._invariant(first, env, changed), self._invariant(right, env, changed)
        if a is None or b is None or a.lo is None or b.hi is None:
            return None
        trips = b.hi - a.lo + Poly.const(1 if op == "<=" else 0)
        return trips if at_least(trips, Poly.const(0)) else None

    def _grid_stride(self, start: Val, step: Val, bound: Poly | None) -> None:
        """A loop from a thread index up to `bound` by a step of the grid: the problem axis is `bound`,
        and a loop from blockIdx by gridDim alone takes an item per block."""
        if not start.axes or bound is None or grid_names(bound) or not any(v.startswith("@g") for v in names_of(step)):
            return
        if start.hi is not None and self._fold(start.hi, bound):
            return
        axis = min(start.axes)
        g = grid(axis)
        per = per_item(start.hi, axis) if start.hi is not None else 1
        self.out.axes.setdefault(axis, (bound + Poly.const(1)) * Poly.const(per))
        if per > 1:
            self.out.per_item.setdefault(axis, per)
        if start.hi == Poly.var(g) - Poly.const(1) and step.hi == Poly.var(g):
            self.out.block_axes.add(axis)

    def _block_step(self, start: Val, step: Val) -> None:
        """`for (c = threadIdx.x; ...; c += 32)`: the block's threads on that axis step together by 32, so the
        kernel was written for blocks of exactly 32 threads there."""
        if len(start.axes) != 1 or step.hi is None or step.hi != step.lo or step.hi.names() - set(self.unit.defines):
            return
        (axis,) = start.axes
        k = step.hi.value(self.unit.defines)
        if start.lo == Poly.const(0) and start.hi == Poly.var(block(axis)) - Poly.const(1) and k > 1 == k.denominator:
            self.out.block_consts.setdefault(axis, int(k))

    def _follow(self, update: Node, var: str, start_env: Env, inner: Env) -> None:
        """`l = k++` in a loop's update: l is its start or a value of k (the edge before k, say)."""
        for a in cuda_ast.walk(update, 200):
            if a.type != "assignment_expression" or text(a.child_by_field_name("operator")) != "=":
                continue
            name = text(a.child_by_field_name("left"))
            if name == var or name not in inner or name not in start_env or start_env[name].base is not None:
                continue
            value = self.expr(a.child_by_field_name("right"), dict(inner))
            if value.lo is not None and value.hi is not None:
                inner[name] = union([start_env[name], value])

    def _after_loop(self, n: Node, env: Env, inner: Env) -> None:
        """After a loop, what it assigned is its value before or in the loop; the rest is as before."""
        for name in changed_in(n, self.tick) & set(env):
            if name in inner and not same_value(inner[name], env[name]):
                env[name] = union([env[name], inner[name]])

    def _while_stride(self, cond: Node, body: Node | None, before: Env, inner: Env) -> None:
        """`while (i < n) { ...; i += blockDim.x * gridDim.x; }` with i a thread index: a grid-stride loop."""
        test = strip_parens(cond)
        if body is None or test is None or test.type != "binary_expression":
            return
        left = strip_parens(test.child_by_field_name("left"))
        if left is None or left.type != "identifier" or text(test.child_by_field_name("operator")) not in ("<", "<="):
            return
        var = text(left)
        for a in cuda_ast.walk(body, 2000):
            if (
                a.type == "assignment_expression"
                and text(a.child_by_field_name("operator")) == "+="
                and text(strip_parens(a.child_by_field_name("left"))) == var
            ):
                step = self.expr(a.child_by_field_name("right"), dict(inner))
                self._grid_stride(before.get(var, UNKNOWN), step, inner.get(var, UNKNOWN).hi)
                return

    def _loop_body(self, body: Node, env: Env, counter: Val) -> None:
        trip = None
        if counter.hi is not None and counter.lo is not None and not grid_names(counter.hi):
            trip = counter.hi - counter.lo + Poly.const(1)
        self.trip.append(trip if trip is not None else Poly.const(16))
        self.out.trips.append(product(self.trip))
        restored_in_loop(self.staged, body)
        if body is not None:
            self.stmt(body, env)
        self.trip.pop()

    def while_stmt(self, n: Node, env: Env) -> None:
        inner = dict(env)
        body = n.child_by_field_name("body")
        self._widen(body, inner)
        cond = cond_of(n)
        if (pair := bisection(cond, body)) is not None:  # a binary search: both ends stay within their start
            first, last = env.get(pair[0], UNKNOWN), env.get(pair[1], UNKNOWN)
            if first.lo is not None and last.hi is not None:
                inner[pair[0]] = inner[pair[1]] = Val(lo=first.lo, hi=last.hi, params=first.params | last.params)
        if cond is not None:
            self.expr(cond, inner)
            self.constrain(cond, True, inner, loop=True)
            self._while_stride(cond, body, env, inner)
        self._loop_body(body, inner, UNKNOWN)
        self._after_loop(n, env, inner)

    def window(self, n: Node, env: Env) -> None:
        """A sum of a thread's coordinate and the counter of a loop bounded by scalar arguments (`x + i - kw / 2`,
        `y + dy`, `i - k`, `i * decim + t`): those scalars bound a window around each thread (a filter, a
        radius, taps), not a length of the data."""
        parent = n.parent
        while parent is not None and parent.type == "parenthesized_expression":
            parent = parent.parent
        if parent is not None and parent.type == "binary_expression":
            if text(parent.child_by_field_name("operator")) in ("+", "-"):
                return  # a part of a larger sum: that sum is looked at whole
        found: set[str] = set()
        coordinate = False
        for node in terms_nodes(n).values():
            name = text(node)
            if node.type == "identifier" and name in self.counters and not env.get(name, UNKNOWN).axes:
                found |= self.counters[name]
            else:
                coordinate = coordinate or self._coordinate(node, env)
        if coordinate:
            self.out.windows |= found

    def _coordinate(self, node: Node, env: Env) -> bool:
        """A thread's own coordinate: `threadIdx.x`, or a local of a thread axis at unit scale (`x`, not
        `row * ncols`), or one scaled by a number or by the divisor of a size by division (`i * decim`)."""
        node = strip_parens(node)
        if node is None:
            return False
        if node.type == "binary_expression" and text(node.child_by_field_name("operator")) == "*":
            factors = {x for _, f, _ in self.out.quotients.values() for x in f}
            sides = [strip_parens(node.child_by_field_name(s)) for s in ("left", "right")]
            scaled = [s is not None and (s.type == "number_literal" or text(s) in factors) for s in sides]
            return scaled.count(True) == 1 and self._coordinate(sides[scaled.index(False)], env)
        if node.type == "field_expression":
            return text(node.child_by_field_name("argument")) == "threadIdx"
        v = env.get(text(node)) if node.type == "identifier" else None
        if v is None or not v.axes or v.hi is None or v.base is not None or v.hi.is_const():
            return False
        for m in v.hi.terms:
            sizes = [x for x in m if not x.startswith("@")]
            launch = {x[2:] for x in m if x.startswith("@")}  # @gx * @bx: the grid's threads on an axis
            if len(sizes) > 1 or len(launch) > 1 or len(m) - len(sizes) not in (0, 2):
                return False
        return True


def analyse(unit: cuda_ast.Unit, name: str) -> Analysis | None:
    fn = unit.kernels.get(name)
    if fn is None:
        return None
    return Walker(unit, fn).run()
