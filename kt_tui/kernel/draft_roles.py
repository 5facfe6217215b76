"""Roles of a kernel's scalar arguments that its syntax tree shows and its index math does not, for the
values kernel/draft.py gives them:

- bounds: a scalar one side of a clamp (`s < lo ? lo : s`, `max(lo, min(hi, v))`, `if (v > hi) v = hi`)
  or of a range test (`v >= lo && v < hi`): "lower" or "upper". Drafted as an ordered pair that lies
  inside the values clamped, so the clamp changes some of them and not all.
- stencil: a float scalar that multiplies differences of three or more reads of one array (a discrete
  Laplacian or gradient): the coefficient of an explicit step, drafted small so the step is stable.
- epsilons: a float scalar added under a root or a denominator (`rsqrtf(ss / n + eps)`), drafted small.
- tested: an int array whose values the kernel tests below a size or a sentinel (`l < nlabels`,
  `d >= INF`), drafted below the size or on both sides of the sentinel.
- exponentials: a float scalar that multiplies a term of what an exponential takes, drafted below 1 so
  exp stays finite over the data; one that multiplies a square there (`d * d`, `dx * dx + dy * dy`: a
  Gaussian weight's 1 / (2 sigma^2)) smaller still.

and the template parameters of a kernel, which a draft must instantiate for it to be launched.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator
from typing import Any

from . import cuda_ast
from .bounds import Analysis
from .cuda_ast import text
from .kernels import split_params
from .syntax import code_text, global_head, lex, strip_comments

Node = Any  # a syntax tree node of cuda_ast's parse (only cuda_ast.py reads the tree-sitter API)
_LESS = ("<", "<=")
_MORE = (">", ">=")
_MIN = ("min", "fminf", "fmin", "umin", "llmin", "ullmin")
_MAX = ("max", "fmaxf", "fmax", "umax", "llmax", "ullmax")
SENTINEL = 1 << 16  # a #define'd bound at least this large marks a special value (infinity, unreached), no count
STENCIL_READS = 3  # reads of one array at distinct indices: fewer is no stencil


def strip_parens(n: Node | None) -> Node | None:
    while n is not None and n.type in ("parenthesized_expression", "condition_clause"):
        inner = [c for c in n.named_children if c.type != "comment"]
        n = inner[-1] if inner else None
    return n


def unwrapped(n: Node | None) -> Node | None:
    """n without the parentheses and casts around it (`(long long)(i)` -> `i`)."""
    while n is not None and n.type in ("parenthesized_expression", "cast_expression"):
        if n.type == "cast_expression":
            n = n.child_by_field_name("value")
        else:
            kids = [c for c in n.named_children if c.type != "comment"]
            n = kids[-1] if kids else None
    return n


def _compare(n: Node | None) -> tuple[str, str, str] | None:
    """(left text, operator, right text) of a relational binary expression, else None."""
    n = strip_parens(n)
    if n is None or n.type != "binary_expression":
        return None
    op = text(n.child_by_field_name("operator"))
    if op not in _LESS + _MORE:
        return None
    left, right = strip_parens(n.child_by_field_name("left")), strip_parens(n.child_by_field_name("right"))
    return text(left).replace(" ", ""), op, text(right).replace(" ", "")


def _side(cmp: tuple[str, str, str], name: str, picked: bool) -> str | None:
    """`x < name ? name : ...` (picked: the branch taken when the test holds is `name`): the side of the
    clamp `name` is on; with picked False the branch taken is the other value (a min or a max)."""
    left, op, right = cmp
    if right == name:
        below = op in _LESS  # x < name
    elif left == name:
        below = op in _MORE  # name > x
    else:
        return None
    if not picked:
        below = not below
    return "lower" if below else "upper"


def clamp_bounds(fn: cuda_ast.Function, scalars: set[str]) -> dict[str, str]:
    """Scalar arguments that bound a clamp or a range test: name -> "lower" or "upper"."""
    out: dict[str, str] = {}
    if fn.body is None:
        return out
    for n in cuda_ast.walk(fn.body):
        if n.type == "conditional_expression":
            cmp = _compare(n.child_by_field_name("condition"))
            if cmp is None:
                continue
            for branch, picked in (("consequence", True), ("alternative", False)):
                b = strip_parens(n.child_by_field_name(branch))
                if b is not None and b.type == "identifier" and text(b) in scalars:
                    side = _side(cmp, text(b), picked)
                    if side:
                        out.setdefault(text(b), side)
        elif n.type == "call_expression":
            name = text(n.child_by_field_name("function"))
            kind = "upper" if name in _MIN else "lower" if name in _MAX else None
            args = n.child_by_field_name("arguments")
            if kind is None or args is None or len(args.named_children) != 2:
                continue
            for a in args.named_children:
                a = strip_parens(a)
                if a is not None and a.type == "identifier" and text(a) in scalars:
                    out.setdefault(text(a), kind)
        elif n.type == "if_statement":
            cmp = _compare(n.child_by_field_name("condition"))
            target = _assigned_one(n.child_by_field_name("consequence"))
            if cmp is None or target is None:
                continue
            var, value = target
            if value in scalars and var in (cmp[0], cmp[2]):
                side = _side(cmp, value, True)
                if side:
                    out.setdefault(value, side)
        elif n.type == "binary_expression" and text(n.child_by_field_name("operator")) == "&&":
            _range(n, scalars, out)
    return out


def _assigned_one(stmt: Node | None) -> tuple[str, str] | None:
    """`v = P;` (alone, or the one statement of a block): (v, P) as text."""
    while stmt is not None and stmt.type == "compound_statement" and len(stmt.named_children) == 1:
        stmt = stmt.named_children[0]
    if stmt is None or stmt.type != "expression_statement" or not stmt.named_children:
        return None
    e = strip_parens(stmt.named_children[0])
    if e is None or e.type != "assignment_expression" or text(e.child_by_field_name("operator")) != "=":
        return None
    return (
        text(e.child_by_field_name("left")).replace(" ", ""),
        text(strip_parens(e.child_by_field_name("right"))).replace(" ", ""),
    )


def _range(n: Node, scalars: set[str], out: dict[str, str]) -> None:
    """`v >= lo && v < hi`: lo and hi bound the same value from either side."""
    sides: dict[str, dict[str, str]] = {}
    stack: list[Node | None] = [n]
    while stack:
        m = strip_parens(stack.pop())
        if m is None:
            continue
        if m.type == "binary_expression" and text(m.child_by_field_name("operator")) == "&&":
            stack += [m.child_by_field_name("left"), m.child_by_field_name("right")]
            continue
        cmp = _compare(m)
        if cmp is None:
            continue
        left, op, right = cmp
        for name, other in ((right, left), (left, right)):
            if name in scalars:
                side = _side(cmp, name, False)  # `v < hi`: hi is above
                if side:
                    sides.setdefault(other, {})[name] = side
    for found in sides.values():
        if set(found.values()) == {"lower", "upper"}:
            for name, side in found.items():
                out.setdefault(name, side)


def _locals(fn: cuda_ast.Function) -> dict[str, list[Node]]:
    """Each local the kernel declares with a value, to the value of each declaration of that name (a
    name declared in two scopes has two)."""
    found: dict[str, list[Node]] = {}
    for n in cuda_ast.walk(fn.body):
        if n.type == "init_declarator":
            d, v = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            if d is not None and d.type == "identifier" and v is not None:
                found.setdefault(text(d), []).append(v)
    return found


def stencil_coefficients(fn: cuda_ast.Function, floats: set[str]) -> set[str]:
    """Float scalars multiplying differences of at least STENCIL_READS reads of one array."""
    out: set[str] = set()
    if fn.body is None:
        return out
    locals_ = _locals(fn)
    for n in cuda_ast.walk(fn.body):
        if n.type != "binary_expression" or text(n.child_by_field_name("operator")) != "*":
            continue
        for a, b in (("left", "right"), ("right", "left")):
            k = strip_parens(n.child_by_field_name(a))
            if k is not None and k.type == "identifier" and text(k) in floats:
                if _differences(n.child_by_field_name(b), locals_):
                    out.add(text(k))
    return out


def _differences(node: Node | None, locals_: dict[str, list[Node]], depth: int = 0) -> bool:
    """Whether `node` (locals followed once) subtracts reads of one array at STENCIL_READS or more
    distinct indices."""
    reads: dict[str, set[str]] = {}
    minus = False
    stack: list[tuple[Node | None, int]] = [(node, depth)]
    while stack:
        m, d = stack.pop()
        if m is None:
            continue
        if m.type == "identifier" and text(m) in locals_ and d < 2:
            stack += [(v, d + 1) for v in locals_[text(m)]]
            continue
        if m.type == "subscript_expression":  # a minus inside an index is an offset, not a difference
            arr = text(m.child_by_field_name("argument"))
            reads.setdefault(arr, set()).add(text(m).replace(" ", ""))
            continue
        if m.type == "binary_expression" and text(m.child_by_field_name("operator")) == "-":
            minus = True
        stack += [(c, d) for c in m.children]
    return minus and any(len(r) >= STENCIL_READS for r in reads.values())


def tested_below(
    an: Analysis, name: str, top: int, defines: dict[str, int], sizes: dict[str, int]
) -> tuple[str | int, str] | None:
    """The values of an int array the kernel tests below S (`if (l < nlabels)`, `if (d >= INF) return`):
    below a size S, [0, S) (a label, a bin: every one counts); below a number as large as a sentinel
    (an unreached vertex's distance, `INF`), [0, 2 S) (no more than `top`), on both sides of it; None
    when not tested."""
    bound = an.ranged.get(name)
    if bound is None or not bound.names() or not bound.names() <= set(sizes) | set(defines):
        return None
    if (c := sentinel(an, name, defines)) is not None:
        return min(2 * c, top), f"the kernel tests them against {bound.text()} = {c} (a sentinel): both sides"
    return bound.text(), "the kernel tests them below it, then uses them"


def sentinel(an: Analysis, name: str, defines: dict[str, int]) -> int | None:
    """The value an int array's values are tested against when it is a #define at least SENTINEL (`d >=
    INF`: infinity, unreached), else None."""
    bound = an.ranged.get(name)
    if bound is None or not bound.names() or not bound.names() <= set(defines):
        return None
    c = int(bound.value(defines))
    return c if c >= SENTINEL else None


def offered_weights(fn: cuda_ast.Function, distances: set[str], ints: set[str]) -> set[str]:
    """Int arrays whose values are added to a distance (an array tested against a sentinel, `distances`)
    in what an atomicMin or atomicMax offers (`atomicMin(&d[v], du + w[e])`, through locals): the
    weights of a relaxation, drawn not negative so the sum neither wraps nor undercuts a shortest path."""
    out: set[str] = set()
    if fn.body is None or not distances:
        return out
    locals_ = _locals(fn)
    for n in cuda_ast.walk(fn.body):
        if n.type != "call_expression" or text(n.child_by_field_name("function")) not in ("atomicMin", "atomicMax"):
            continue
        args = n.child_by_field_name("arguments")
        offered = [c for c in args.named_children][1:] if args is not None else []
        read = {
            text(r.child_by_field_name("argument"))
            for o in offered
            for r in _through(o, locals_)
            if r.type == "subscript_expression"
        }
        if read & distances:
            out |= (read - distances) & ints
    return out


@functools.lru_cache(maxsize=2)
def stripped(src: str) -> str:
    """strip_comments(src), kept for the template steps that each read the file's heads."""
    return strip_comments(src)


def template_params(src: str, name: str) -> list[tuple[str, str]] | None:
    """The template parameters of kernel `name` in `src` as (kind, name), kind "type" or the type of a
    value parameter; None when the kernel is no template."""
    clean = stripped(src)
    head = global_head(clean, name)
    if head is None:
        return None
    t = re.search(r"template\s*<([^;{}]*)>\s*(?:extern\s*)?$", clean[max(0, head[0] - 400) : head[0]])
    if not t:
        return None
    out = []
    for part in t.group(1).split(","):
        words = re.findall(r"[A-Za-z_]\w*", part.split("=")[0])
        if len(words) < 2:
            return None
        out.append(("type" if words[0] in ("typename", "class") else " ".join(words[:-1]), words[-1]))
    return out


def template_types(
    src: str, name: str, body: str, params: list[tuple[str, str]], known: dict[str, str]
) -> dict[str, str]:
    """The C type each type parameter of template kernel `name` is meant for, where `src` says it: an
    explicit instantiation (`template __global__ void k<unsigned char>(...)`), else a helper that `body`
    calls with `T()` (or `T(0)`, `(T)0`) as an argument to choose its overload: the number type of that
    argument in the helper's first definition. `known`: the C number types (spec.DTYPES)."""
    clean = strip_comments(src)
    types = [p for kind, p in params if kind == "type"]
    out: dict[str, str] = {}
    inst = re.search(rf"\btemplate\s+(?:__global__\s+)?void\s+{re.escape(name)}\s*<([^<>;{{}}]*)>", clean)
    if inst:
        given = [" ".join(a.split()) for a in inst.group(1).split(",")]
        if len(given) == len(params):
            out = {p: a for (kind, p), a in zip(params, given, strict=True) if kind == "type" and a in known}
    for t in types:
        if t in out:
            continue
        tag = rf"(?:\b{t}\s*\(\s*0?\s*\)|\(\s*{t}\s*\)\s*0\b)"
        for call in re.finditer(rf"(?=\b(\w+)\s*\(([^;{{}}]*?{tag}[^;{{}}]*?)\))", body):  # nested calls too
            args = split_params(call.group(2))
            at = next((i for i, a in enumerate(args) if re.fullmatch(tag, a.strip())), None)
            helper = re.search(rf"\b{re.escape(call.group(1))}\s*\(([^(){{}};]*)\)\s*\{{", clean)
            if at is None or not helper:
                continue
            declared = split_params(helper.group(1))
            if at < len(declared):
                words = [w for w in re.findall(r"[A-Za-z_]\w*", declared[at]) if w not in ("const", "volatile")]
                ctype = " ".join(words if " ".join(words) in known else words[:-1])
                if ctype in known:
                    out[t] = ctype
                    break
    return out


def instantiated_values(
    src: str, name: str, params: list[tuple[str, str]], values: dict[str, int]
) -> tuple[dict[str, int], bool]:
    """`values` (template_values' picks) moved onto the file's explicit instantiations of kernel `name`, where
    it has some with integer value arguments (`template __global__ void k<4>(...)`): the one nearest the
    picks (by the ratio of each value to its pick), the first of equals, and whether one was. A value the
    author never compiled is not what the kernel is meant for (upsample_flow<32> where <1>, <2> and <4> are
    instantiated)."""
    best: tuple[float, dict[str, int]] | None = None
    for given in instantiations(src, name, len(params)):
        taken = {
            p: v for (kind, p), a in zip(params, given, strict=True) if p in values and (v := _c_int(a)) is not None
        }
        if len(taken) != len(values) or not taken:
            continue
        far = sum(abs(math.log2(max(v, 1)) - math.log2(max(values[p], 1))) for p, v in taken.items())
        if best is None or far < best[0]:
            best = (far, taken)
    return (best[1], True) if best else (values, False)


def instantiations(src: str, name: str, n: int) -> list[list[str]]:
    """The argument lists, as written, of the file's explicit instantiations of kernel `name` with `n`
    arguments (`template __global__ void k<unsigned char, true>(...)`), in the file's order; not in
    comments, strings or `#if 0` groups."""
    pattern = rf"\btemplate\s+(?:__global__\s+)?void\s+{re.escape(name)}\s*<([^<>;{{}}]*)>"
    lexemes = list(lex(src))
    if not re.search(pattern, strip_comments(src, lexemes)):
        return []  # the dead groups are sought only where one could hide an instantiation
    found = ([a.strip() for a in m.group(1).split(",")] for m in re.finditer(pattern, code_text(src, lexemes=lexemes)))
    return [given for given in found if len(given) == n]


def _c_int(text: str) -> int | None:
    """A C integer literal's value (decimal, hex, octal, a u/l suffix), or None for anything else."""
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)[uUlL]{0,3}", text)
    if m is None:
        return None
    digits = m.group(1)
    return int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits, 8) if digits[0] == "0" else int(digits)


TEMPLATE_BLOCK = 128  # a value template parameter that sizes a block (a shared array, blockIdx * B)
TEMPLATE_TILE = 16  # one that sizes a block on two axes (a TILE x TILE tile): 256 threads, a small shared tile
TEMPLATE_GROUP = 32  # one that an index is divided by: elements in groups (quantised blocks of 32 weights)
TEMPLATE_VALUE = 4  # one that does not: an unroll factor, items per thread, a radius; warps a block
_WARP_NUMBER = re.compile(r"threadIdx\s*\.\s*x\s*(/\s*(32|warpSize|WARP_SIZE)\b|>>\s*5\b)")  # a warp's number


def _scales_blockidx(n: str) -> str:
    return rf"blockIdx\s*\.\s*[xyz]\s*\*\s*\(?\s*{n}\b|\b{n}\s*\*\s*blockIdx"


def template_values(body: str, params: list[tuple[str, str]]) -> dict[str, int]:
    """A value for each integer value parameter of a template kernel, from what `body` does with it:
    what sizes a `__shared__` array (`[B]`, `[B + 2]`) or scales blockIdx is a block size, the rest a small count
    (a radius beside the block size in a shared extent, `[BLOCK + 2 * RADIUS]`, too)."""
    out = {}
    scaling = {name for kind, name in params if re.search(_scales_blockidx(re.escape(name)), body)}
    for kind, name in params:
        if kind == "type" or not re.search(r"\b(int|unsigned|size_t|short|long)\b", kind):
            continue
        n = re.escape(name)
        shared = re.findall(rf"__shared__[^;]*\[([^\];]*\b{n}\b[^\];]*)\]", body)
        halo = any(set(re.findall(r"\w+", e)) & (scaling - {name}) for e in shared)  # [BLOCK + 2 * RADIUS]
        block = name in scaling or (shared and not halo)
        # blockIdx.x * n + threadIdx.x / 32: n counts a block's warps, not its threads
        warps = _WARP_NUMBER.search(body) and re.search(rf"blockIdx\s*\.\s*x\s*\*\s*{n}\b|\b{n}\s*\*\s*blockIdx", body)
        axes = set(re.findall(rf"blockIdx\s*\.\s*([xyz])\s*\*\s*{n}\b|\b{n}\s*\*\s*blockIdx\s*\.\s*([xyz])", body))
        tile = len(axes) > 1 or re.search(rf"__shared__[^;]*\[[^\];]*\b{n}\b[^\];]*\]\s*\[[^\];]*\b{n}\b", body)
        group = re.search(rf"[/%]\s*\(?\s*{n}\b", body)  # i / (QK / 2), i % QK: elements in groups of QK
        value = TEMPLATE_BLOCK if block and not warps else TEMPLATE_GROUP if group else TEMPLATE_VALUE
        out[name] = TEMPLATE_TILE if tile else value
    return out


_POSITIVE_ONLY = {"logf", "log", "log2f", "log2", "log10f", "log10", "sqrtf", "sqrt", "rsqrtf", "rsqrt", "__logf"}
_POWERS = {"powf", "pow", "__powf", "expf", "exp", "__expf", "exp2f", "exp2", "exp10f", "exp10"}


def exponents(fn: cuda_ast.Function, scalars: set[str]) -> set[str]:
    """Scalar arguments in what a power or an exponential takes (`powf(s, negative_beta)`, through
    locals, three deep; not through other calls)."""
    out: set[str] = set()
    if fn.body is None:
        return out
    locals_ = _locals(fn)
    for n in cuda_ast.walk(fn.body):
        if n.type != "call_expression" or text(n.child_by_field_name("function")) not in _POWERS:
            continue
        stack: list[tuple[Node | None, int]] = [(n.child_by_field_name("arguments"), 0)]
        while stack:
            m, depth = stack.pop()
            if m is None:
                continue
            if m.type == "identifier" and text(m) in scalars:
                out.add(text(m))
            elif m.type == "identifier" and text(m) in locals_ and depth < 3:
                stack += [(v, depth + 1) for v in locals_[text(m)]]
            elif m.type != "call_expression" or m is n:
                stack += [(c, depth) for c in m.children]
    return out


_TO_INT = re.compile(r"\b(int|unsigned|long|short|size_t|u?int\d+_t)\b")


def fraction_inputs(fn: cuda_ast.Function, floats: set[str]) -> set[str]:
    """Float array arguments whose values, converted to an integer, index an array (`bins[(int)(v[i] *
    nbins)]`, through locals): drawn in [0, 1), a fraction of what they index, since a negative value
    indexes before it."""
    out: set[str] = set()
    if fn.body is None:
        return out
    locals_ = _locals(fn)
    for n in cuda_ast.walk(fn.body):
        if n.type != "subscript_expression":
            continue
        for m in _through(cuda_ast.subscript_index(n), locals_):
            callee = text(m.child_by_field_name("function")) if m.type == "call_expression" else ""
            if m.type == "cast_expression" and _TO_INT.search(text(m.child_by_field_name("type"))):
                value = m.child_by_field_name("value")
            elif re.match(r"__(float|double)2u?(int|ll)|static_cast\s*<\s*(unsigned|int|long|size_t)", callee):
                value = m.child_by_field_name("arguments")
            else:
                continue
            out |= {
                text(r.child_by_field_name("argument"))
                for r in _through(value, locals_)
                if r.type == "subscript_expression"
            }
    return out & floats


def _through(node: Node | None, locals_: dict[str, list[Node]]) -> list[Node]:
    """Every node under `node`, a local's name followed into the value it was declared with (3 deep)."""
    out: list[Node] = []
    stack: list[tuple[Node | None, int]] = [(node, 0)]
    while stack and len(out) < 10_000:
        m, depth = stack.pop()
        if m is None:
            continue
        out.append(m)
        if m.type == "identifier" and text(m) in locals_ and depth < 3:
            stack += [(v, depth + 1) for v in locals_[text(m)]]
        stack += [(c, depth) for c in m.children]
    return out


_EXPS = {"expf", "exp", "__expf", "exp2f", "exp2", "exp10f", "exp10", "__exp10f"}


def exp_factors(fn: cuda_ast.Function, floats: set[str], squares: bool = False) -> set[str]:
    """Float scalars that multiply a term of what an exponential takes (`__expf(dot * scale - m)`, through
    locals); `squares`: only those that multiply a square (a product of one value with itself, `d * d`,
    through locals and casts: `__expf(-(dx * dx + dy * dy) * w - d * d * wc)`), a Gaussian weight's
    inverse width."""
    out: set[str] = set()
    locals_ = _locals(fn)
    for m in _exp_products(fn, locals_):
        for a, b in (("left", "right"), ("right", "left")):
            k = strip_parens(m.child_by_field_name(a))
            if k is not None and k.type == "identifier" and text(k) in floats:
                if not squares or any(_square(x) for x in _through(m.child_by_field_name(b), locals_)):
                    out.add(text(k))
    return out


def _exp_products(fn: cuda_ast.Function, locals_: dict[str, Node]) -> Iterator[Node]:
    """The products (`a * b`) in what the kernel's exponentials take, through locals."""
    for n in cuda_ast.walk(fn.body) if fn.body is not None else ():
        if n.type == "call_expression" and text(n.child_by_field_name("function")) in _EXPS:
            for m in _through(n.child_by_field_name("arguments"), locals_):
                if m.type == "binary_expression" and text(m.child_by_field_name("operator")) == "*":
                    yield m


def _square(n: Node) -> bool:
    if n.type != "binary_expression" or text(n.child_by_field_name("operator")) != "*":
        return False
    a, b = strip_parens(n.child_by_field_name("left")), strip_parens(n.child_by_field_name("right"))
    return a is not None and b is not None and text(a).replace(" ", "") == text(b).replace(" ", "")


def exp_data(fn: cuda_ast.Function, arrays: set[str]) -> set[str]:
    """Int arrays of `arrays` loaded (through locals) as a factor of a product, with another load, inside
    what an exponential takes (`expf(-2 * beta * s * h)`, s and h sums of spins): values of a few units
    only, since products of wide ints overflow the exponential, and every output past it is the same."""
    out: set[str] = set()
    if not arrays:
        return out
    locals_ = _locals(fn)
    for m in _exp_products(fn, locals_):
        sides = [
            {
                text(r.child_by_field_name("argument"))
                for r in _through(m.child_by_field_name(k), locals_)
                if r.type == "subscript_expression"
            }
            for k in ("left", "right")
        ]
        if sides[0] and sides[1]:
            out |= (sides[0] | sides[1]) & arrays
    return out
