"""The expressions of a kernel for kernel/extents.py: the bounds of each value, and every access to a
pointer argument (read, written, accumulated) with the bound of its index."""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction

from . import cuda_ast
from .bounds import (
    ACCUMULATING,
    ATOMICS,
    AXES,
    MAX_CALLS,
    MAX_DEPTH,
    UNKNOWN,
    Env,
    Val,
    add,
    as_number,
    block,
    clamp,
    const,
    div,
    grid,
    integral,
    load,
    loads,
    mul,
    multiple,
    neg,
    nonneg,
    number,
    offset,
    one_name,
    plain_type,
    quotient_bound,
    quotient_of_numbers,
    rescale_of,
    strip_parens,
    sum_key,
    sum_terms,
    terms_nodes,
    top_of_product,
    union,
)
from .cuda_ast import Node, text
from .extents_scalars import ScalarRoles
from .extents_tables import LANES, one_load, stage
from .poly import Poly, TooBig, at_least, pmin

FLOORS = {"floorf", "floor", "__float2int_rd", "__double2int_rd", "__float2ll_rd", "__double2ll_rd"}
TO_INT = re.compile(r"(?:unsigned\s+|signed\s+)?(?:int|long|long long|short|size_t|u?int\d+_t)")


class Expressions(ScalarRoles):
    tops: dict[tuple[int, int], Poly]  # a product's top where its bottom is not known (bounds.top_of_product)
    staged: dict[str, Val | None]  # a shared table's values: what stage found stored into it, None for any
    named_conds: dict[str, Node]  # tests held in bool locals (extents_conds.py), the function's own

    def expr(self, n: Node, env: Env) -> Val:
        if n is None:
            return UNKNOWN
        self.tick()
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                return UNKNOWN
            return self._expr(n, env)
        except TooBig:  # float arithmetic on loaded values, say: no bound, the rest goes on
            return UNKNOWN
        finally:
            self.depth -= 1

    def _expr(self, n: Node, env: Env) -> Val:
        kind = n.type
        if kind in ("parenthesized_expression", "condition_clause"):
            inner = [c for c in n.named_children if c.type != "comment"]
            return self.expr(inner[-1], env) if inner else UNKNOWN
        if kind == "number_literal":
            return number(text(n))
        if kind in ("true", "false"):
            return const(1 if kind == "true" else 0)
        if kind == "identifier":
            return self.ident(text(n), env)
        if kind == "field_expression":
            if any(k.startswith("#") for k in env):  # `if (threadIdx.x < nbins)`
                known = env.get(sum_key(n))
                if known is not None:
                    return known
            return self.field(n, env)
        if kind == "binary_expression":
            return self.binary(n, env)
        if kind == "unary_expression":
            op = text(n.child_by_field_name("operator"))
            v = self.expr(n.child_by_field_name("argument"), env)
            if op == "-":
                return Val(
                    -v.hi if v.hi is not None else None,
                    -v.lo if v.lo is not None else None,
                    axes=v.axes,
                    params=v.params,
                )
            if op == "!":
                self._test(v)  # `!done[i]`: values tested as true or false
                return Val(Poly.const(0), Poly.const(1), params=v.params)
            return v if op == "+" else Val(axes=v.axes, params=v.params)
        if kind == "cast_expression":
            return self.cast(n, self.expr(n.child_by_field_name("value"), env))
        if kind == "subscript_expression":
            return self.subscript(n, env)
        if kind == "pointer_expression":
            return self.pointer(n, env)
        if kind == "conditional_expression":
            cond = n.child_by_field_name("condition")
            self._test(self.expr(cond, env))  # `done[i] ? 0.0f : 1.0f`: values tested as true or false
            yes, no = dict(env), dict(env)
            self.constrain(cond, True, yes)
            self.constrain(cond, False, no)
            return union(
                [
                    self.expr(n.child_by_field_name("consequence"), yes),
                    self.expr(n.child_by_field_name("alternative"), no),
                ]
            )
        if kind == "assignment_expression":
            return self.assign(n, env)
        if kind == "update_expression":
            target = n.child_by_field_name("argument")
            self.write(target, env, plain=False)
            if target is not None and target.type == "identifier" and text(target) in env:
                v = env[text(target)]
                env[text(target)] = Val(axes=v.axes, params=v.params)
                if text(n).strip().startswith(text(target)) and v.base is None:  # k++: the value before
                    return v
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

    def cast(self, n: Node, v: Val) -> Val:
        """`(char *)p + bytes`: a pointer cast to another element type counts its offset in that type."""
        kind = plain_type(text(n.child_by_field_name("type")))
        if v.base is None and TO_INT.fullmatch(kind):
            self._truncated(v)
        return self.retyped(kind, v)

    def retyped(self, kind: str, v: Val) -> Val:
        """v cast to the type `kind` (`(float4 *)p`, `reinterpret_cast<const float4 *>(p)`)."""
        kind = plain_type(kind)
        if v.base is None or "*" not in kind:
            return v
        to = cuda_ast.type_bytes(kind.split("*")[0], self.unit)
        have = v.unit or cuda_ast.type_bytes(self.ptypes.get(v.base, ""), self.unit)
        if to is None or have is None or to == have:
            return v
        scale = Poly.const(Fraction(have, to))
        lo, hi = (p * scale if p is not None else None for p in (v.lo, v.hi))
        return Val(lo, hi, v.base, v.axes, v.params, unit=to)

    def ident(self, name: str, env: Env) -> Val:
        if name in self.scalars:
            self.out.read.add(name)
        if name in env:
            return env[name]
        if name in self.unit.defines:
            v = Poly.var(name)
            return Val(v, v, params=frozenset([name]))
        if name.startswith("block_size_") and name[-1] in AXES:
            v = Poly.var(block(AXES.index(name[-1])))
            return Val(v, v)
        if name in self.unit.tunable_defaults:  # a tuned #define: no size, but a block size when it scales blockIdx
            v = Poly.var("%" + name)
            return Val(v, v)
        if name in ("warpSize",):
            return const(32)
        return UNKNOWN

    def field(self, n: Node, env: Env) -> Val:
        arg, fld = n.child_by_field_name("argument"), text(n.child_by_field_name("field"))
        name = text(arg)
        if fld in AXES and name in ("threadIdx", "blockIdx", "blockDim", "gridDim") and name not in env:
            axis = AXES.index(fld)
            self.out.used_axes.add(axis)
            if name in ("blockIdx", "gridDim"):
                self.out.grid_axes.add(axis)
            elif name == "blockDim":
                self.out.block_read.add(axis)
            else:
                self.out.thread_read.add(axis)
            g, b = Poly.var(grid(axis)), Poly.var(block(axis))
            one = Poly.const(1)
            return {
                "threadIdx": Val(Poly.const(0), b - one, axes=frozenset([axis])),
                "blockIdx": Val(Poly.const(0), g - one, axes=frozenset([axis])),
                "blockDim": Val(b, b),
                "gridDim": Val(g, g),
            }[name]
        v = self.expr(arg, env)
        if fld in LANES and v.base is None and one_load(v):  # tri.x, tri = faces[f]: a value of faces
            return v
        return Val(axes=v.axes, params=v.params) if v.base is None else UNKNOWN

    def binary(self, n: Node, env: Env) -> Val:
        op = text(n.child_by_field_name("operator"))
        if op in ("+", "-") and any(k.startswith("#") for k in env):
            known = self.guarded_sum(n, env)
            if known is not None:
                return known
        a = self.expr(n.child_by_field_name("left"), env)
        b = self.expr(n.child_by_field_name("right"), env)
        axes, params = a.axes | b.axes, a.params | b.params
        if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
            if op not in ("&&", "||"):
                self._compared(a, b, op)
            else:
                for v in (a, b):
                    for name in loads(v.hi) if v.hi is not None else ():
                        self.out.uses[name[1:]].compared = True
            return Val(Poly.const(0), Poly.const(1), params=params)
        self._roles(op, n, a, b)
        if op in ("+", "-") and self.counters:
            self.window(n, env)
        if op in ("+", "-"):
            if a.base is not None and b.base is None:  # pointer arithmetic
                right = strip_parens(n.child_by_field_name("right"))
                top = self.tops.get((right.start_byte, right.end_byte)) if right is not None else None
                if a.unit and op == "+" and b.hi is None and top is not None:  # (char *)p + row * pitch
                    b = Val(Poly.const(0), top, axes=b.axes, params=b.params)  # rows a helper reflects inside
                return offset(a, b if op == "+" else neg(b))
            if b.base is not None and op == "+":
                return offset(b, a)
            if (
                op == "+"
                and a.split
                and b.split
                and {a.split[0], b.split[0]} == {"qw", "r"}
                and a.split[1:4] == b.split[1:4]
            ):  # (i / w) * w + i % w is i; c * (i / w) * w + i % w = c * i - (c - 1) * (i % w): at most c * i
                g = as_number(Val(a.split[3], a.split[3]), self.unit.defines).hi  # groups of g: whole groups
                if axes and g is not None and g.is_const() and g.value() > 1 == g.value().denominator:
                    self.out.groups.setdefault(min(axes), int(g.value()))
                c = max(a.split[4], b.split[4])
                if c == 1:
                    return Val(a.split[1], a.split[2], axes=axes, params=params)
                if a.split[2] is not None and nonneg(a.split[1]):
                    return Val(Poly.const(0), a.split[2] * Poly.const(c), axes=axes, params=params)
            if op == "-":
                b = neg(b)
            return Val(add(a.lo, b.lo), add(a.hi, b.hi), axes=axes, params=params)
        if op == "*":
            for x, y in ((a, b), (b, a)):
                self._block_const(x, y)
                scalar = one_name(y)
                if scalar in self.scalars:  # what a scalar argument multiplies (a stride: an index)
                    self.out.scales.setdefault(scalar, set()).update(x.axes or {-1})
                if (
                    x.axes
                    and not y.axes
                    and y.hi is not None
                    and not y.hi.is_const()
                    and y.hi == y.lo
                    and y.hi not in self.out.strides
                ):
                    self.out.strides.append(y.hi)
            lo, hi = mul(a, b)
            if hi is None and (top := top_of_product(a, b)) is not None:  # for pitched: a pitch times a row
                self.tops[(n.start_byte, n.end_byte)] = top
            split = None
            for x, y in ((a, b), (b, a)):
                if x.split is None or x.split[0] == "r" or y.hi is None or y.hi != y.lo:
                    continue
                kind, i_lo, i_hi, w, c = x.split
                k = multiple(y.hi, w) if kind == "q" else None
                if k is None and kind == "q":  # (i / 16) * QK, QK a #define or template value: a number
                    k = multiple(as_number(y, self.unit.defines).hi or y.hi, w)
                if k is not None and k.denominator == 1:  # (i / w) * k * w: at most k * i
                    kind = "qw"
                    if i_hi is not None and nonneg(i_lo):
                        lo, hi = Poly.const(0), i_hi * Poly.const(c * k)
                elif y.hi.is_const() and y.hi.value() > 0:  # 2 * (i / w)
                    k = y.hi.value()
                else:
                    continue
                split = (kind, i_lo, i_hi, w, c * k)
            return Val(lo, hi, axes=axes, params=params, split=split)
        if op == "/" and (quotient := self._quotient(n, a, b)) is not None:
            return quotient
        if op == "/" and (rescaled := self._rescaled(a, b)) is not None:
            return Val(Poly.const(0), rescaled, axes=axes, params=params)
        if op == "/" and (folded := quotient_of_numbers(a, b, self.unit.defines)) is not None:
            return folded
        if op == "/" and (half := self._part(a, b)) is not None:
            return half
        if op == "/" and b.hi is not None and b.hi == b.lo:
            a = self._multiples(a, b.hi)
        if op in ("/", ">>"):
            d = (
                as_number(b, self.unit.defines)  # i / TILE, TILE a #define: a number
                if op == "/"
                else (
                    const(2 ** int(b.hi.value()))
                    if b.hi is not None and b.hi.is_const() and 0 <= b.hi.value() < 32
                    else UNKNOWN
                )
            )
            if op == ">>":
                self._nonneg(a)
            split = ("q", a.lo, a.hi, b.hi, Fraction(1)) if op == "/" and b.hi is not None and b.hi == b.lo else None
            if op == "/" and (onto := rescale_of(a, d)) is not None:
                self.out.rescales.setdefault(*onto)
            elif op == "/" and d.lo is not None and a.hi is not None and a.axes and len(d.lo.names()) == 1:
                (cells,) = d.lo.names()  # `((o + 1) * A + B - 1) / B`: a window's end, A * B in its bound
                if d.lo == Poly.var(cells) and any(cells in m and len(m) > 1 for m in a.hi.terms):
                    self.out.window_ends.add(cells)
            return Val(div(a.lo, d.hi, low=True), quotient_bound(a, d), axes=axes, params=params, split=split)
        if op == "%":
            self._nonneg(a)
            hi = b.hi - Poly.const(1) if b.hi is not None else None
            if a.hi is not None and hi is not None and a.lo is not None and at_least(a.lo, Poly.const(0)):
                hi = pmin(a.hi, hi) or hi
            split = ("r", a.lo, a.hi, b.hi, Fraction(1)) if b.hi is not None and b.hi == b.lo else None
            return Val(Poly.const(0), hi, axes=axes, params=params, split=split)
        if op == "<<" and b.hi is not None and b.hi.is_const() and 0 <= b.hi.value() < 32:
            lo, hi = mul(a, const(2 ** int(b.hi.value())))
            return Val(lo, hi, axes=axes, params=params)
        if op == "&" and b.hi is not None and nonneg(b.lo):  # x & mask: at most the mask (`t & (span - 1)`)
            self._nonneg(a)
            return Val(Poly.const(0), b.hi, axes=axes, params=params)
        if (
            op in ("|", "^") and a.hi is not None and b.hi is not None and nonneg(a.lo) and nonneg(b.lo)
        ):  # at most a + b
            return Val(Poly.const(0), a.hi + b.hi, axes=axes, params=params)
        return Val(axes=axes, params=params)

    def guarded_sum(self, n: Node, env: Env) -> Val | None:
        """a + b + c where a guard bounded b + c (`if (t * TILE + tx < K)`): the guard's bound for that part."""
        terms = sum_terms(n)
        for key, bound in env.items():
            if not key.startswith("#"):
                continue
            want = key[1:].split("|")
            rest = list(terms)
            try:
                for t in want:
                    rest.remove(t)
            except ValueError:
                continue
            total = bound
            for t in rest:
                v = self.expr(terms_nodes(n)[t], env)
                total = Val(
                    add(total.lo, v.lo if t[0] == "+" else neg(v).lo),
                    add(total.hi, v.hi if t[0] == "+" else neg(v).hi),
                    axes=total.axes | v.axes,
                    params=total.params | v.params,
                )
            return total
        return None

    def _block_const(self, x: Val, y: Val) -> None:
        """blockIdx.x * TILE with TILE a #define (or `* (TILE * 2)`: two items a thread): the block must be
        TILE threads wide."""
        if (
            len(x.axes) == 1
            and x.lo == Poly.const(0)
            and y.hi is not None
            and y.hi == y.lo
            and len(y.hi.terms) == 1
            and len(next(iter(y.hi.terms))) == 1
        ):
            (axis,) = x.axes
            (name,) = y.hi.names()
            value = self.unit.defines.get(name, self.unit.tunable_defaults.get(name.lstrip("%")))
            per = next(iter(y.hi.terms.values()))  # blockIdx.x * (B * 2): B threads, two items each
            if x.hi == Poly.var(grid(axis)) - Poly.const(1) and per >= 1 and per.denominator == 1 and value:
                self.out.block_consts[axis] = value

    def _nonneg(self, v: Val) -> None:
        for name in loads(v.hi) if v.hi is not None else ():
            self.out.uses[name[1:]].nonneg = True

    def _test(self, v: Val) -> None:
        """`if (grid[i])`, `!done[i]`, `m[i] ? a : b`: values tested as true or false."""
        for name in loads(v.hi) if v.hi is not None else ():
            self.out.uses[name[1:]].compared = True

    def _compared(self, a: Val, b: Val, op: str) -> None:
        for x, y in ((a, b), (b, a)):
            if y.hi is not None and y.hi.is_const() and abs(y.hi.value()) <= 8 and x.hi is not None:
                for name in loads(x.hi):
                    self.out.uses[name[1:]].compared = True
                    if op in ("<", "<=", ">", ">=") and y.hi.value() == 0:
                        self.out.uses[name[1:]].sign = True

    def access(
        self, ptr: Val, index: Val, write: bool = False, plain: bool = False, read: bool = True, atomic: bool = False
    ) -> Val:
        """Records ptr[index] (and at each argument the pointer may also be); the value loaded."""
        for other in sorted(ptr.also):
            self.access(replace(ptr, base=other, also=frozenset()), index, write, plain, read, atomic)
        name = ptr.base
        use = (self.out.uses.get(name) or self.out.shared.get(name)) if name else None
        if name is None or use is None:
            return Val(axes=frozenset(), params=index.params & frozenset())
        hi, lo = add(ptr.hi, index.hi), add(ptr.lo, index.lo)
        own = cuda_ast.type_bytes(self.ptypes.get(name, ""), self.unit)
        if ptr.unit and own and ptr.unit != own:  # ((char *)p)[k]: k bytes into elements of p's type
            hi, lo = (x * Poly.const(Fraction(ptr.unit, own)) if x is not None else None for x in (hi, lo))
            if hi is not None and ptr.unit > own:  # ((float *)bytes)[k] reaches the last byte of element k
                hi = hi + Poly.const(Fraction(ptr.unit, own) - 1)
        use.accesses.append(hi)
        use.lows.append(lo)
        use.written |= write
        use.assigned |= plain
        use.atomic |= atomic
        use.compound |= write and not plain and not atomic
        use.read |= read
        if name in self.out.shared:  # a table of values staged from one array: a load of that array
            if write and (atomic or not plain):  # picked[t]++, atomicExch(&picked[t], v): not a staged value
                self.staged[name] = None
            staged = self.staged.get(name) if read and not write else None
            return staged if staged is not None and integral(self.ptypes.get(name, "")) else UNKNOWN
        if not integral(self.ptypes.get(name, "")):
            return UNKNOWN
        v = Poly.var(load(name))
        return Val(Poly.const(0), v)

    def subscript(self, n: Node, env: Env, write: bool = False, plain: bool = False, read: bool = True) -> Val:
        ptr = self.expr(n.child_by_field_name("argument"), env)
        idx_node = n.child_by_field_name("indices") or n.child_by_field_name("index")
        if idx_node is not None and idx_node.type == "subscript_argument_list":  # each part once (`a[k++]`)
            parts = [self.expr(c, env) for c in idx_node.named_children if c.type != "comment"]
            index = parts[-1] if parts else UNKNOWN
        else:
            index = self.expr(idx_node, env) if idx_node is not None else UNKNOWN
        local = text(n.child_by_field_name("argument"))
        if ptr.base is None and local in self.staged and local not in self.out.shared:
            if write and not plain:  # corner[1]++
                self.staged[local] = None
            return (self.staged[local] or UNKNOWN) if read and not write else UNKNOWN  # corner[k]
        return self.access(ptr, index, write, plain, read)

    def pointer(self, n: Node, env: Env, write: bool = False, plain: bool = False, read: bool = True) -> Val:
        op = text(n.child_by_field_name("operator"))
        arg = n.child_by_field_name("argument")
        if op == "&":
            return self.address(arg, env)
        ptr = self.expr(arg, env)
        return self.access(ptr, const(0), write, plain, read) if ptr.base else UNKNOWN

    def address(self, n: Node, env: Env) -> Val:
        """&a[i]: a pointer into a at i (the access is counted where it is used)."""
        n = strip_parens(n)
        if n is not None and n.type == "subscript_expression":
            ptr = self.expr(n.child_by_field_name("argument"), env)
            idx_node = n.child_by_field_name("indices") or n.child_by_field_name("index")
            parts = [self.expr(c, env) for c in (idx_node.named_children if idx_node is not None else [])]
            if ptr.base is not None and parts:
                return offset(ptr, parts[-1])
            return UNKNOWN
        if n is not None and n.type == "field_expression":
            inner = strip_parens(n.child_by_field_name("argument"))
            if inner is not None and inner.type == "subscript_expression":
                return self.address(inner, env)
            if inner is not None and text(n.child_by_field_name("operator")) == "->":  # &p->x: p's element
                ptr = self.expr(inner, env)
                if ptr.base is not None:
                    return ptr
        return self.expr(n, env) if n is not None else UNKNOWN

    def write(self, target: Node, env: Env, plain: bool) -> None:
        target = strip_parens(target)
        if target is None:
            return
        if target.type == "subscript_expression":
            self.subscript(target, env, write=True, plain=plain, read=not plain)
        elif target.type == "pointer_expression":
            self.pointer(target, env, write=True, plain=plain, read=not plain)
        elif target.type == "field_expression":  # a[i].x = ...
            inner = strip_parens(target.child_by_field_name("argument"))
            if inner is not None and inner.type in ("subscript_expression", "pointer_expression"):
                self.write(inner, env, plain)
            elif inner is not None:
                self.expr(inner, env)

    def assign(self, n: Node, env: Env) -> Val:
        op = text(n.child_by_field_name("operator"))
        left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        value = self.expr(right, env)
        left = strip_parens(left)
        if left is not None and left.type == "identifier":
            name = text(left)
            if name in self.out.uses or name not in env:
                return value
            cur = env[name]
            if op == "=":
                env[name] = value
            elif op == "+=" and cur.base is not None:
                env[name] = offset(cur, value)
            elif op in ("+=", "-="):
                v = value if op == "+=" else neg(value)
                env[name] = Val(
                    add(cur.lo, v.lo), add(cur.hi, v.hi), cur.base, cur.axes | value.axes, cur.params | value.params
                )
            else:
                env[name] = Val(base=cur.base, axes=cur.axes | value.axes, params=cur.params | value.params)
            return env[name]
        self.write(left, env, plain=op == "=")
        if left is not None and left.type in ("subscript_expression", "pointer_expression"):
            table = left.child_by_field_name("argument")
            local = text(table) if table is not None and text(table) in self.staged else None
            stored = value if op == "=" and left.type == "subscript_expression" else UNKNOWN  # not *(ids + t) = v
            stage(self.staged, local or self.expr(table, env).base, stored, self.out.shared)
        return value

    def call(self, n: Node, env: Env) -> Val:
        name = text(n.child_by_field_name("function")).split("<")[0].strip()
        self.out.shuffles |= name.startswith("__shfl")
        args_node = n.child_by_field_name("arguments")
        arg_nodes = list(args_node.named_children) if args_node is not None else []
        if name in ATOMICS and arg_nodes:
            ptr = self.expr(arg_nodes[0], env)
            rest = [self.expr(a, env) for a in arg_nodes[1:]]
            if ptr.base:
                self.access(ptr, const(0), write=True, plain=name not in ACCUMULATING, atomic=True)
                if (use := self.out.uses.get(ptr.base)) is not None:
                    use.summed |= name.startswith(("atomicAdd", "atomicSub"))
            return Val(params=frozenset().union(*(v.params for v in rest))) if rest else UNKNOWN
        vals = [self.expr(a, env) for a in arg_nodes]
        cast = n.child_by_field_name("function")
        if name in ("reinterpret_cast", "static_cast", "const_cast") and len(vals) == 1 and cast is not None:
            return self.retyped(text(cast).split("<", 1)[-1].rsplit(">", 1)[0], vals[0])  # as `(float4 *)p`
        if name in ("__ldg", "__ldcs", "__ldcg", "__ldca", "__ldlu") and vals and vals[0].base:
            return self.access(vals[0], const(0))
        if name in FLOORS and len(vals) == 1 and vals[0].base is None:  # floor(x) <= x; at least 0 where x is
            self._truncated(vals[0])
            x = vals[0]
            return Val(x.lo if x.lo == const(0).lo else None, x.hi, axes=x.axes, params=x.params)
        if name in ("min", "umin", "fminf", "fmin", "max", "umax", "fmaxf", "fmax") and len(vals) == 2:
            upper = name.endswith(("min", "minf"))
            return clamp(*self._unfloated(vals[0], vals[1], upper), upper=upper)
        fn = self.unit.devices.get(name)
        if fn is not None and self.calls < MAX_CALLS:
            return self.inline(fn, vals)
        macro = self.unit.macros.get(name)
        if macro is not None and len(macro.params) == len(vals) and self.calls < MAX_CALLS:
            inner = {**env, **dict(zip(macro.params, vals))}
            self.calls += 1
            try:
                return self.expr(macro.body, inner)
            finally:
                self.calls -= 1
        for v in vals:  # a pointer to an argument passed where it cannot be followed: read, maybe written
            use = (self.out.uses.get(v.base) or self.out.shared.get(v.base)) if v.base else None
            if use is not None:
                use.read = True
                use.accesses.append(None)
        return Val(
            axes=frozenset().union(*(v.axes for v in vals)) if vals else frozenset(),
            params=frozenset().union(*(v.params for v in vals)) if vals else frozenset(),
        )

    def inline(self, fn: cuda_ast.Function, vals: list[Val]) -> Val:
        env = {p.name: (vals[i] if i < len(vals) else UNKNOWN) for i, p in enumerate(fn.params) if p.name}
        saved_returned, saved_fn, saved_ptypes = self.returned, self.fn, self.ptypes
        saved_conds = dict(self.named_conds)  # a helper's `bool ok` is not the caller's
        self.returned, self.calls = [], self.calls + 1
        ptypes = dict(self.ptypes)
        for i, p in enumerate(fn.params):
            base = vals[i].base if i < len(vals) else None
            if base:
                ptypes[base] = self.ptypes.get(base, p.type)
        self.ptypes = ptypes
        try:
            self.block(fn.body, env)
            result = union(self.returned) if self.returned else UNKNOWN
        finally:
            self.returned, self.fn, self.ptypes = saved_returned, saved_fn, saved_ptypes
            self.named_conds = saved_conds
            self.calls -= 1
        return result
