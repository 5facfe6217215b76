"""What a kernel's index math reaches: per pointer argument, the largest index it can touch, as a
polynomial over the scalar arguments and #defines, read from the syntax tree (kernel/cuda_ast.py).

Thread indices are bounded by the conditions that guard them (`if (i < n)`, early returns), loop
variables by their loop conditions; a value loaded from an int array and used in another array's
subscript makes that array an index array. What cannot be bounded is left None: the draft guesses it
and says so."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import cuda_ast
from .cuda_ast import text
from .poly import Poly, TooBig, at_least, pmax, pmin

AXES = "xyz"
ATOMICS = {"atomicAdd", "atomicSub", "atomicMax", "atomicMin", "atomicInc", "atomicDec", "atomicAnd",
           "atomicOr", "atomicXor", "atomicExch", "atomicCAS", "atomicAdd_block", "atomicAdd_system"}
ACCUMULATING = {"atomicAdd", "atomicSub", "atomicInc", "atomicDec", "atomicOr", "atomicAdd_block",
                "atomicAdd_system", "atomicMax", "atomicMin"}
MAX_DEPTH = 150  # nested expressions / statements followed; deeper is unknown
MAX_STEPS = 200_000
MAX_CALLS = 3  # __device__ calls followed inside one another


def grid(axis: int) -> str:
    return "@g" + AXES[axis]


def block(axis: int) -> str:
    return "@b" + AXES[axis]


def load(array: str) -> str:
    return "$" + array


@dataclass(frozen=True)
class Val:
    lo: Poly | None = None
    hi: Poly | None = None
    base: str | None = None  # a pointer into this argument, at offset [lo, hi]
    axes: frozenset = frozenset()  # thread axes the value derives from
    params: frozenset = frozenset()  # scalar arguments it derives from


UNKNOWN = Val()


def _const(c) -> Val:
    p = Poly.const(c)
    return Val(p, p)


@dataclass
class Use:
    accesses: list = field(default_factory=list)  # upper bounds (Poly, or None: not bounded) of indices
    lows: list = field(default_factory=list)
    written: bool = False
    assigned: bool = False  # `a[i] = ...` (not only accumulated into)
    read: bool = False
    compared: bool = False  # its values are compared with small constants or tested as true/false
    nonneg: bool = False  # its values go through `%` or a shift into an index
    atomic: bool = False  # written by an atomic
    compound: bool = False  # written by `+=` and the like, or `++`


@dataclass
class Analysis:
    uses: dict[str, Use] = field(default_factory=dict)
    axes: dict[int, Poly] = field(default_factory=dict)  # thread axis -> its bound (problem size)
    used_axes: set[int] = field(default_factory=set)
    loop_bounds: set[str] = field(default_factory=set)  # scalars that bound a loop
    loop_loads: set[str] = field(default_factory=set)  # arrays whose values bound a loop (row pointers)
    escape_bounds: set[str] = field(default_factory=set)  # ... of a loop that also stops on a float test
    trips: list[Poly] = field(default_factory=list)  # nested loop trip counts (the work per thread)
    strides: list[Poly] = field(default_factory=list)  # what thread indices are multiplied by (row lengths)
    roles: dict[str, tuple[str, int]] = field(default_factory=dict)  # float scalar -> (origin|step|end, axis)
    ok: bool = True  # False: the kernel was not found in the tree


class _Stop(Exception):
    pass


class Walker:
    def __init__(self, unit: cuda_ast.Unit, fn: cuda_ast.Function):
        self.unit, self.fn = unit, fn
        self.out = Analysis(uses={p.name: Use() for p in fn.params if p.pointer and p.name})
        self.ptypes = {p.name: p.type for p in fn.params}
        self.scalars = {p.name for p in fn.params if not p.pointer and p.name}
        self.floats = {p.name for p in fn.params if not p.pointer and p.type in ("float", "double", "half", "__half")}
        self.steps = 0
        self.calls = 0
        self.depth = 0
        self.loop_depth = 0
        self.trip = [Poly.const(1)]
        self.returned: list[Val] = []

    # -- statements ----------------------------------------------------------------------
    def run(self) -> Analysis:
        env: dict[str, Val] = {}
        for p in self.fn.params:
            if p.pointer:
                env[p.name] = Val(Poly.const(0), Poly.const(0), base=p.name)
            elif p.name:
                v = Poly.var(p.name)
                env[p.name] = Val(v, v, params=frozenset([p.name]))
        try:
            self.block(self.fn.body, env)
        except (_Stop, TooBig, RecursionError):
            self.out.ok = False
        return self.out

    def tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _Stop

    def block(self, node, env: dict) -> bool:
        """Runs the statements; True when the block ends in a return."""
        for child in node.named_children:
            if self.stmt(child, env):
                return True
        return False

    def stmt(self, n, env: dict) -> bool:
        self.tick()
        kind = n.type
        if kind == "compound_statement":
            inner = dict(env)
            ended = self.block(n, inner)
            self._merge_into(env, [inner])
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
        elif kind in ("switch_statement", "case_statement", "labeled_statement", "preproc_if", "preproc_ifdef",
                      "preproc_else", "preproc_elif"):
            for c in n.named_children:
                if c.type.endswith("statement") or c.type in ("declaration", "compound_statement"):
                    self.stmt(c, env)
                elif c.type in ("condition_clause", "parenthesized_expression"):
                    self.expr(c, env)
        return False



    def declare(self, n, env: dict) -> None:
        for d in n.children_by_field_name("declarator"):
            if d.type == "init_declarator":
                name = _declared_name(d)
                value = d.child_by_field_name("value")
                env[name] = self.expr(value, env) if value is not None else UNKNOWN
            else:
                env[_declared_name(d)] = UNKNOWN

    def if_stmt(self, n, env: dict) -> bool:
        cond = _cond(n)
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
        else:
            self._merge_into(env, [yes, no])
        return then_ends and else_ends

    def _merge_into(self, env: dict, branches: list[dict]) -> None:
        for name, before in list(env.items()):
            vals = [b.get(name, before) for b in branches]
            if all(_same_value(v, before) for v in vals):
                continue
            env[name] = _union(vals + [before]) if len(branches) == 1 else _union(vals)

    def _widen(self, body, env: dict, keep: str | None = None) -> None:
        for name in _changed_in(body):
            if name in env and name != keep:
                v = env[name]
                env[name] = Val(base=v.base, axes=v.axes, params=v.params,
                                lo=Poly.const(0) if v.lo is not None and at_least(v.lo, Poly.const(0)) else None)

    def for_stmt(self, n, env: dict) -> None:
        inner = dict(env)
        init = n.child_by_field_name("initializer")
        var = None
        if init is not None:
            if init.type == "declaration":
                self.declare(init, inner)
                decls = init.children_by_field_name("declarator")
                var = _declared_name(decls[0]) if decls else None
            else:
                self.expr(init, inner)
                if init.type == "assignment_expression":
                    var = text(init.child_by_field_name("left"))
        cond = n.child_by_field_name("condition")
        update = n.child_by_field_name("update")
        start = inner.get(var, UNKNOWN) if var else UNKNOWN
        self._widen(n.child_by_field_name("body"), inner, keep=var)
        if var and update is not None:
            self._widen(update, inner, keep=var)
        up = _direction(update, var)
        step = self.expr(update.child_by_field_name("right"), inner) if update is not None and \
            update.type == "assignment_expression" and update.child_by_field_name("right") is not None else UNKNOWN
        if var:
            inner[var] = Val(start.lo if up else None, start.hi if up is False else None, start.base,
                             start.axes, start.params)
        if cond is not None:
            self.expr(cond, inner)
            self.constrain(cond, True, inner, loop=True)
        strided = bool(var and start.axes and any(v.startswith("@") for v in _names(step)))
        if strided and any(v.startswith("@g") for v in _names(step)):  # a grid-stride loop
            bound = inner.get(var, UNKNOWN).hi
            if bound is not None and not _grid_names(bound):
                self.out.axes.setdefault(min(start.axes), bound + Poly.const(1))
        counter = _const(0) if strided else inner.get(var, UNKNOWN) if var else UNKNOWN  # strided: ~1 trip
        self._loop_body(n.child_by_field_name("body"), inner, counter)
        if update is not None:
            self.expr(update, inner)
        for name in env:
            if name in inner and not _same_value(inner[name], env[name]):
                env[name] = _union([env[name], inner[name]])

    def _loop_body(self, body, env: dict, counter: Val) -> None:
        trip = None
        if counter.hi is not None and counter.lo is not None and not _grid_names(counter.hi):
            trip = counter.hi - counter.lo + Poly.const(1)
        self.trip.append(trip if trip is not None else Poly.const(16))
        self.out.trips.append(_product(self.trip))
        if body is not None:
            self.stmt(body, env)
        self.trip.pop()

    def while_stmt(self, n, env: dict) -> None:
        inner = dict(env)
        body = n.child_by_field_name("body")
        self._widen(body, inner)
        cond = _cond(n)
        if cond is not None:
            self.expr(cond, inner)
            self.constrain(cond, True, inner, loop=True)
        self._loop_body(body, inner, UNKNOWN)
        for name in env:
            if name in inner and not _same_value(inner[name], env[name]):
                env[name] = _union([env[name], inner[name]])

    # -- conditions ----------------------------------------------------------------------
    def constrain(self, cond, truth: bool, env: dict, loop: bool = False) -> None:
        cond = _strip(cond)
        if cond is None:
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
            return
        if op not in ("<", "<=", ">", ">="):
            return
        if not truth:
            op = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}[op]
        for var_node, other, o in ((left, right, op), (right, left, {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op])):
            var_node = _strip(var_node)
            if var_node is None or var_node.type != "identifier" or text(var_node) not in env:
                continue
            name = text(var_node)
            bound = self.expr(other, env)
            if loop:
                self.out.loop_bounds.update(p for p in bound.params if p in self.scalars)
                self.out.loop_loads.update(x[1:] for x in (_loads(bound.hi) if bound.hi is not None else ()))
            cur = env[name]
            if o in ("<", "<=") and bound.hi is not None:
                hi = bound.hi - Poly.const(1) if o == "<" else bound.hi
                if cur.axes and cur.hi is not None and _grid_names(cur.hi) and not _grid_names(hi) \
                        and _pure_thread(cur.hi):
                    self.out.axes.setdefault(min(cur.axes), hi + Poly.const(1))
                if cur.hi is None or _grid_names(cur.hi) or _loads(cur.hi):
                    new_hi = hi
                else:
                    new_hi = pmin(cur.hi, hi) or hi
                env[name] = Val(cur.lo, new_hi, cur.base, cur.axes, cur.params)
            elif o in (">", ">=") and bound.lo is not None:
                lo = bound.lo + Poly.const(1) if o == ">" else bound.lo
                env[name] = Val(lo if cur.lo is None else pmax(cur.lo, lo) or cur.lo, cur.hi, cur.base,
                                cur.axes, cur.params)
            return

    def _escape(self, left, right, env: dict) -> None:
        """A loop `while (x*x + y*y < 4 && it < max_iter)`: max_iter bounds an escape-time loop."""
        sides = [_strip(left), _strip(right)]
        floaty = [s for s in sides if s is not None and ("." in text(s) or "float" in text(s))]
        if floaty:
            for s in sides:
                if s is not None and s not in floaty:
                    for ident in cuda_ast.walk(s, 200):
                        if ident.type == "identifier" and text(ident) in self.scalars - self.floats:
                            self.out.escape_bounds.add(text(ident))

    def _test(self, v: Val) -> None:
        """`if (grid[i])`: values tested as true or false."""
        for name in _loads(v.hi) if v.hi is not None else ():
            self.out.uses[name[1:]].compared = True

    # -- expressions ---------------------------------------------------------------------
    def expr(self, n, env: dict) -> Val:
        if n is None:
            return UNKNOWN
        self.tick()
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                return UNKNOWN
            return self._expr(n, env)
        finally:
            self.depth -= 1

    def _expr(self, n, env: dict) -> Val:
        kind = n.type
        if kind in ("parenthesized_expression", "condition_clause"):
            inner = [c for c in n.named_children if c.type != "comment"]
            return self.expr(inner[-1], env) if inner else UNKNOWN
        if kind == "number_literal":
            return _number(text(n))
        if kind in ("true", "false"):
            return _const(1 if kind == "true" else 0)
        if kind == "identifier":
            return self.ident(text(n), env)
        if kind == "field_expression":
            return self.field(n, env)
        if kind == "binary_expression":
            return self.binary(n, env)
        if kind == "unary_expression":
            op = text(n.child_by_field_name("operator"))
            v = self.expr(n.child_by_field_name("argument"), env)
            if op == "-":
                return Val(-v.hi if v.hi is not None else None, -v.lo if v.lo is not None else None,
                           axes=v.axes, params=v.params)
            if op == "!":
                return Val(Poly.const(0), Poly.const(1), params=v.params)
            return v if op == "+" else Val(axes=v.axes, params=v.params)
        if kind == "cast_expression":
            return self.expr(n.child_by_field_name("value"), env)
        if kind == "subscript_expression":
            return self.subscript(n, env)
        if kind == "pointer_expression":
            return self.pointer(n, env)
        if kind == "conditional_expression":
            self.expr(n.child_by_field_name("condition"), env)
            return _union([self.expr(n.child_by_field_name("consequence"), env),
                           self.expr(n.child_by_field_name("alternative"), env)])
        if kind == "assignment_expression":
            return self.assign(n, env)
        if kind == "update_expression":
            target = n.child_by_field_name("argument")
            self.write(target, env, plain=False)
            if target is not None and target.type == "identifier" and text(target) in env:
                v = env[text(target)]
                env[text(target)] = Val(axes=v.axes, params=v.params)
            return UNKNOWN
        if kind == "call_expression":
            return self.call(n, env)
        if kind in ("comma_expression", "initializer_list", "argument_list"):
            vals = [self.expr(c, env) for c in n.named_children]
            return vals[-1] if vals else UNKNOWN
        for c in n.named_children:  # sizeof, templates, lambdas: the accesses inside still count
            if c.type.endswith("expression") or c.type == "identifier":
                self.expr(c, env)
        return UNKNOWN

    def ident(self, name: str, env: dict) -> Val:
        if name in env:
            return env[name]
        if name in self.unit.defines:
            v = Poly.var(name)
            return Val(v, v, params=frozenset([name]))
        if name.startswith("block_size_") and name[-1] in AXES:
            v = Poly.var(block(AXES.index(name[-1])))
            return Val(v, v)
        if name in ("warpSize",):
            return _const(32)
        return UNKNOWN

    def field(self, n, env: dict) -> Val:
        arg, fld = n.child_by_field_name("argument"), text(n.child_by_field_name("field"))
        name = text(arg)
        if fld in AXES and name in ("threadIdx", "blockIdx", "blockDim", "gridDim") and name not in env:
            axis = AXES.index(fld)
            self.out.used_axes.add(axis)
            g, b = Poly.var(grid(axis)), Poly.var(block(axis))
            one = Poly.const(1)
            return {"threadIdx": Val(Poly.const(0), b - one, axes=frozenset([axis])),
                    "blockIdx": Val(Poly.const(0), g - one, axes=frozenset([axis])),
                    "blockDim": Val(b, b), "gridDim": Val(g, g)}[name]
        v = self.expr(arg, env)
        return Val(axes=v.axes, params=v.params) if v.base is None else UNKNOWN

    def binary(self, n, env: dict) -> Val:
        op = text(n.child_by_field_name("operator"))
        a = self.expr(n.child_by_field_name("left"), env)
        b = self.expr(n.child_by_field_name("right"), env)
        axes, params = a.axes | b.axes, a.params | b.params
        if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
            if op not in ("&&", "||"):
                self._compared(a, b)
            else:
                for v in (a, b):
                    for name in _loads(v.hi) if v.hi is not None else ():
                        self.out.uses[name[1:]].compared = True
            return Val(Poly.const(0), Poly.const(1), params=params)
        self._roles(op, n, a, b)
        if op in ("+", "-"):
            if a.base is not None and b.base is None:  # pointer arithmetic
                return _offset(a, b if op == "+" else _neg(b))
            if b.base is not None and op == "+":
                return _offset(b, a)
            if op == "-":
                b = _neg(b)
            return Val(_add(a.lo, b.lo), _add(a.hi, b.hi), axes=axes, params=params)
        if op == "*":
            for x, y in ((a, b), (b, a)):
                if x.axes and not y.axes and y.hi is not None and not y.hi.is_const() and y.hi == y.lo \
                        and y.hi not in self.out.strides:
                    self.out.strides.append(y.hi)
            lo, hi = _mul(a, b)
            return Val(lo, hi, axes=axes, params=params)
        if op in ("/", ">>"):
            d = b if op == "/" else (_const(2 ** int(b.hi.value())) if b.hi is not None and b.hi.is_const()
                                     and 0 <= b.hi.value() < 32 else UNKNOWN)
            if op == ">>":
                self._nonneg(a)
            return Val(_div(a.lo, d.hi, low=True), _div(a.hi, d.lo), axes=axes, params=params)
        if op == "%":
            self._nonneg(a)
            hi = b.hi - Poly.const(1) if b.hi is not None else None
            if a.hi is not None and hi is not None and a.lo is not None and at_least(a.lo, Poly.const(0)):
                hi = pmin(a.hi, hi) or hi
            return Val(Poly.const(0), hi, axes=axes, params=params)
        if op == "<<" and b.hi is not None and b.hi.is_const() and 0 <= b.hi.value() < 32:
            lo, hi = _mul(a, _const(2 ** int(b.hi.value())))
            return Val(lo, hi, axes=axes, params=params)
        if op == "&" and b.hi is not None and b.hi.is_const() and b.hi.value() >= 0:
            self._nonneg(a)
            return Val(Poly.const(0), b.hi, axes=axes, params=params)
        return Val(axes=axes, params=params)

    def _nonneg(self, v: Val) -> None:
        for name in _loads(v.hi) if v.hi is not None else ():
            self.out.uses[name[1:]].nonneg = True

    def _compared(self, a: Val, b: Val) -> None:
        for x, y in ((a, b), (b, a)):
            if y.hi is not None and y.hi.is_const() and abs(y.hi.value()) <= 8 and x.hi is not None:
                for name in _loads(x.hi):
                    self.out.uses[name[1:]].compared = True

    def _roles(self, op: str, n, a: Val, b: Val) -> None:
        """Float scalars that place a thread on a coordinate: `x0 + i * dx`, `xmin + i*(xmax - xmin)/w`."""
        roles = self.out.roles
        if op == "-" and len(a.params) == 1 and len(b.params) == 1 and not a.axes and not b.axes:
            (pa,), (pb,) = a.params, b.params
            if pa in self.floats and pb in self.floats:
                roles.setdefault(pa, ("end", -1))
                roles.setdefault(pb, ("origin", -1))
        for x, y in ((a, b), (b, a)):
            if not x.axes or y.axes:
                continue
            axis = min(x.axes)
            for p in y.params & self.floats:
                if op in ("*", "/"):
                    role = roles.get(p)
                    if role is None:
                        roles[p] = ("step", axis)
                    elif role[1] < 0:
                        roles[p] = (role[0], axis)
                elif op in ("+", "-") and len(y.params) == 1:
                    role = roles.get(p)
                    roles[p] = ("origin", axis) if role is None or role[1] < 0 else role

    # -- memory ----------------------------------------------------------------------------
    def access(self, ptr: Val, index: Val, write: bool = False, plain: bool = False, read: bool = True,
               atomic: bool = False) -> Val:
        """Records ptr[index]; the value loaded."""
        name = ptr.base
        use = self.out.uses.get(name) if name else None
        if use is None:
            return Val(axes=frozenset(), params=index.params & frozenset())
        hi = _add(ptr.hi, index.hi)
        use.accesses.append(hi)
        use.lows.append(_add(ptr.lo, index.lo))
        use.written |= write
        use.assigned |= plain
        use.atomic |= atomic
        use.compound |= write and not plain and not atomic
        use.read |= read
        if not _integral(self.ptypes.get(name, "")):
            return UNKNOWN
        v = Poly.var(load(name))
        return Val(Poly.const(0), v)

    def subscript(self, n, env: dict, write: bool = False, plain: bool = False, read: bool = True) -> Val:
        ptr = self.expr(n.child_by_field_name("argument"), env)
        idx_node = n.child_by_field_name("indices") or n.child_by_field_name("index")
        index = self.expr(idx_node, env) if idx_node is not None else UNKNOWN
        if idx_node is not None and idx_node.type == "subscript_argument_list":
            parts = [self.expr(c, env) for c in idx_node.named_children]
            index = parts[-1] if parts else UNKNOWN
        return self.access(ptr, index, write, plain, read)

    def pointer(self, n, env: dict, write: bool = False, plain: bool = False, read: bool = True) -> Val:
        op = text(n.child_by_field_name("operator"))
        arg = n.child_by_field_name("argument")
        if op == "&":
            return self.address(arg, env)
        ptr = self.expr(arg, env)
        return self.access(ptr, _const(0), write, plain, read) if ptr.base else UNKNOWN

    def address(self, n, env: dict) -> Val:
        """&a[i]: a pointer into a at i (the access is counted where it is used)."""
        n = _strip(n)
        if n is not None and n.type == "subscript_expression":
            ptr = self.expr(n.child_by_field_name("argument"), env)
            idx_node = n.child_by_field_name("indices") or n.child_by_field_name("index")
            parts = [self.expr(c, env) for c in (idx_node.named_children if idx_node is not None else [])]
            if ptr.base is not None and parts:
                return _offset(ptr, parts[-1])
            return UNKNOWN
        if n is not None and n.type == "field_expression":
            inner = _strip(n.child_by_field_name("argument"))
            if inner is not None and inner.type == "subscript_expression":
                return self.address(inner, env)
        return self.expr(n, env) if n is not None else UNKNOWN

    def write(self, target, env: dict, plain: bool) -> None:
        target = _strip(target)
        if target is None:
            return
        if target.type == "subscript_expression":
            self.subscript(target, env, write=True, plain=plain, read=not plain)
        elif target.type == "pointer_expression":
            self.pointer(target, env, write=True, plain=plain, read=not plain)
        elif target.type == "field_expression":  # a[i].x = ...
            inner = _strip(target.child_by_field_name("argument"))
            if inner is not None and inner.type in ("subscript_expression", "pointer_expression"):
                self.write(inner, env, plain)
            elif inner is not None:
                self.expr(inner, env)

    def assign(self, n, env: dict) -> Val:
        op = text(n.child_by_field_name("operator"))
        left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        value = self.expr(right, env)
        left = _strip(left)
        if left is not None and left.type == "identifier":
            name = text(left)
            if name in self.out.uses or name not in env:
                return value
            cur = env[name]
            if op == "=":
                env[name] = value
            elif op == "+=" and cur.base is not None:
                env[name] = _offset(cur, value)
            elif op in ("+=", "-="):
                v = value if op == "+=" else _neg(value)
                env[name] = Val(_add(cur.lo, v.lo), _add(cur.hi, v.hi), cur.base, cur.axes | value.axes,
                                cur.params | value.params)
            else:
                env[name] = Val(base=cur.base, axes=cur.axes | value.axes, params=cur.params | value.params)
            return env[name]
        self.write(left, env, plain=op == "=")
        return value

    def call(self, n, env: dict) -> Val:
        name = text(n.child_by_field_name("function")).split("<")[0].strip()
        args_node = n.child_by_field_name("arguments")
        arg_nodes = list(args_node.named_children) if args_node is not None else []
        if name in ATOMICS and arg_nodes:
            ptr = self.expr(arg_nodes[0], env)
            rest = [self.expr(a, env) for a in arg_nodes[1:]]
            if ptr.base:
                self.access(ptr, _const(0), write=True, plain=name not in ACCUMULATING, atomic=True)
            return Val(params=frozenset().union(*(v.params for v in rest))) if rest else UNKNOWN
        vals = [self.expr(a, env) for a in arg_nodes]
        if name in ("__ldg", "__ldcs", "__ldcg", "__ldca", "__ldlu") and vals and vals[0].base:
            return self.access(vals[0], _const(0))
        if name in ("min", "umin", "fminf", "fmin") and len(vals) == 2:
            a, b = vals
            his = [v.hi for v in (a, b) if v.hi is not None]
            hi = (pmin(*his) or his[0]) if len(his) == 2 else (his[0] if his else None)
            lo = pmin(a.lo, b.lo) if a.lo is not None and b.lo is not None else None
            return Val(lo, hi, axes=a.axes | b.axes, params=a.params | b.params)
        if name in ("max", "umax", "fmaxf", "fmax") and len(vals) == 2:
            return _union(vals)
        fn = self.unit.devices.get(name)
        if fn is not None and self.calls < MAX_CALLS:
            return self.inline(fn, vals)
        for v in vals:  # a pointer to an argument passed where it cannot be followed: read, maybe written
            if v.base:
                use = self.out.uses[v.base]
                use.read = True
                use.accesses.append(None)
        return Val(axes=frozenset().union(*(v.axes for v in vals)) if vals else frozenset(),
                   params=frozenset().union(*(v.params for v in vals)) if vals else frozenset())

    def inline(self, fn: cuda_ast.Function, vals: list[Val]) -> Val:
        env = {p.name: (vals[i] if i < len(vals) else UNKNOWN) for i, p in enumerate(fn.params) if p.name}
        saved_returned, saved_fn, saved_ptypes = self.returned, self.fn, self.ptypes
        self.returned, self.calls = [], self.calls + 1
        ptypes = dict(self.ptypes)
        for i, p in enumerate(fn.params):
            if i < len(vals) and vals[i].base:
                ptypes[vals[i].base] = self.ptypes.get(vals[i].base, p.type)
        self.ptypes = ptypes
        try:
            self.block(fn.body, env)
            result = _union(self.returned) if self.returned else UNKNOWN
        finally:
            self.returned, self.fn, self.ptypes = saved_returned, saved_fn, saved_ptypes
            self.calls -= 1
        return result


# -- helpers --------------------------------------------------------------------------------
def _strip(n):
    while n is not None and n.type in ("parenthesized_expression", "condition_clause"):
        inner = [c for c in n.named_children if c.type != "comment"]
        n = inner[-1] if inner else None
    return n


def _cond(n):
    c = n.child_by_field_name("condition")
    return c


def _declared_name(d) -> str:
    while d is not None and d.type != "identifier":
        nxt = d.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in d.named_children if c.type.endswith(("declarator", "identifier"))), None)
        d = nxt
    return text(d) if d is not None else ""


def _changed_in(node) -> set[str]:
    out: set[str] = set()
    if node is None:
        return out
    for n in cuda_ast.walk(node, 50_000):
        if n.type == "assignment_expression":
            left = _strip(n.child_by_field_name("left"))
            if left is not None and left.type == "identifier":
                out.add(text(left))
        elif n.type == "update_expression":
            arg = _strip(n.child_by_field_name("argument"))
            if arg is not None and arg.type == "identifier":
                out.add(text(arg))
    return out


def _direction(update, var) -> bool | None:
    """True: the loop variable grows, False: it shrinks, None: not known."""
    if update is None or var is None:
        return None
    t = text(update).replace(" ", "")
    if t in (f"{var}++", f"++{var}") or t.startswith((f"{var}+=", f"{var}*=", f"{var}<<=")):
        return True
    if t in (f"{var}--", f"--{var}") or t.startswith((f"{var}-=", f"{var}/=", f"{var}>>=")):
        return False
    if t.startswith(f"{var}={var}+"):
        return True
    return None


def _number(t: str) -> Val:
    t = t.lower().rstrip("ul")
    try:
        v = int(t, 0)
    except ValueError:
        try:
            f = float(t.rstrip("f"))
        except ValueError:
            return UNKNOWN
        return _const(f) if abs(f) < 1e15 else UNKNOWN
    return _const(v)


def _integral(ctype: str) -> bool:
    words = ctype.replace("const", "").split()
    return bool(words) and (words[-1] in ("int", "short", "char", "long", "unsigned", "signed", "size_t")
                            or ctype.startswith(("int", "uint", "unsigned", "size_t", "long")))


def _names(v: Val) -> set[str]:
    return (v.hi.names() if v.hi is not None else set()) | (v.lo.names() if v.lo is not None else set())


def _grid_names(p: Poly) -> set[str]:
    return {n for n in p.names() if n.startswith("@")}


def _loads(p: Poly) -> set[str]:
    return {n for n in p.names() if n.startswith("$")}


def _pure_thread(hi: Poly) -> bool:
    """hi is gridDim*blockDim - 1 for one axis: the value is the global thread index."""
    for axis in range(3):
        if hi == Poly.var(grid(axis)) * Poly.var(block(axis)) - Poly.const(1):
            return True
    return False


def _same_value(a: Val, b: Val) -> bool:
    return a is b or (a.lo == b.lo and a.hi == b.hi and a.base == b.base)


def _union(vals: list[Val]) -> Val:
    vals = [v for v in vals if v is not None]
    if not vals:
        return UNKNOWN
    lo, hi = vals[0].lo, vals[0].hi
    for v in vals[1:]:
        lo = pmin(lo, v.lo) if lo is not None and v.lo is not None else None
        hi = pmax(hi, v.hi) if hi is not None and v.hi is not None else None
    bases = {v.base for v in vals}
    return Val(lo, hi, bases.pop() if len(bases) == 1 else None,
               frozenset().union(*(v.axes for v in vals)), frozenset().union(*(v.params for v in vals)))


def _add(a: Poly | None, b: Poly | None) -> Poly | None:
    return a + b if a is not None and b is not None else None


def _neg(v: Val) -> Val:
    return Val(-v.hi if v.hi is not None else None, -v.lo if v.lo is not None else None, axes=v.axes, params=v.params)


def _offset(ptr: Val, by: Val) -> Val:
    return Val(_add(ptr.lo, by.lo), _add(ptr.hi, by.hi), ptr.base, ptr.axes, ptr.params)


def _nonneg_poly(p: Poly | None) -> bool:
    return p is not None and at_least(p, Poly.const(0))


def _mul(a: Val, b: Val) -> tuple:
    if _nonneg_poly(a.lo) and _nonneg_poly(b.lo):
        return (a.lo * b.lo, a.hi * b.hi if a.hi is not None and b.hi is not None else None)
    for x, y in ((a, b), (b, a)):  # a constant times an interval
        if x.hi is not None and x.hi == x.lo and x.hi.is_const() and y.lo is not None and y.hi is not None:
            c = x.hi
            return (c * y.lo, c * y.hi) if c.value() >= 0 else (c * y.hi, c * y.lo)
    return None, None


def _div(a: Poly | None, d: Poly | None, low: bool = False) -> Poly | None:
    if a is None or d is None:
        return None
    if d.is_const():
        c = d.value()
        if c <= 0:
            return None
        q = a * Poly.const(1 / c)
        return q if not low else (q if q.is_const() and q.value() == int(q.value()) else None)
    if low:
        return Poly.const(0) if at_least(a, Poly.const(0)) else None
    return a.divide(d)


def _product(polys: list) -> Poly:
    out = Poly.const(1)
    for p in polys:
        out = out * p
    return out


def analyse(unit: cuda_ast.Unit, name: str) -> Analysis | None:
    fn = unit.kernels.get(name)
    if fn is None:
        return None
    return Walker(unit, fn).run()
