"""CUDA source as a syntax tree (tree-sitter's CUDA grammar): the `__global__` kernels, the `__device__`
functions, their parameters and bodies, and the `#define`d integers. Parsing never raises: the grammar
recovers from errors, so a file with syntax it does not know still gives the functions it can read."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .vectors import vector_bytes, vector_scalar

Node = Any  # a tree_sitter.Node; tree_sitter loads only when a source is parsed

MAX_SOURCE = 2**20  # bytes parsed at most (a few seconds); kernel/draft.py cuts a larger file to the kernel
MAX_NODES = 400_000  # nodes looked at per walk
MAX_MACROS, MAX_MACRO = 500, 2000  # function-like macros kept, and the length of one
_CONTAINERS = {
    "translation_unit",
    "linkage_specification",
    "template_declaration",
    "declaration_list",
    "namespace_definition",
    "preproc_if",
    "preproc_ifdef",
    "preproc_else",
    "preproc_elif",
}

_PARSER: Any = None


def _parser() -> Any:
    global _PARSER
    if _PARSER is None:
        import tree_sitter_cuda  # here: the grammar loads only when a draft is made
        from tree_sitter import Language, Parser  # here: as above

        _PARSER = Parser(Language(tree_sitter_cuda.language()))
    return _PARSER


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # the base type as written: "float", "unsigned int", "float4", "T"
    pointer: bool


@dataclass
class Function:
    name: str
    params: list[Param]
    body: Node  # the compound_statement node
    is_kernel: bool


@dataclass
class Macro:
    params: list[str]
    body: Node  # the expression node of its body, parsed on its own
    tree: Any = None  # keeps the body's tree alive


@dataclass
class Unit:
    kernels: dict[str, Function] = field(default_factory=dict)
    devices: dict[str, Function] = field(default_factory=dict)
    defines: dict[str, int] = field(default_factory=dict)  # `#define N 1024` (not under #ifndef N), `constexpr int`
    tunables: set[str] = field(default_factory=set)  # names defined under `#ifndef NAME` (kernel_tuner's style)
    tunable_defaults: dict[str, int] = field(default_factory=dict)  # their values there
    macros: dict[str, Macro] = field(default_factory=dict)  # `#define IDX(x, y) ((y) * W + (x))`
    structs: dict[str, tuple[str, int]] = field(default_factory=dict)  # name -> (dtype, count) or ("", bytes)
    shared: dict[str, tuple[str, bool]] = field(default_factory=dict)  # file-scope __shared__: (type, extern)
    macro_threads: set[int] = field(
        default_factory=set
    )  # thread axes a #define's body reads (`#define TY threadIdx.y`)
    unread: str = ""  # where the parser first could not read the source (`unread`), "" for nowhere


def text(node: Node) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def subscript_index(n: Node | None) -> Node | None:
    """The expression inside the brackets of a subscript `a[i - off]` (the grammar wraps it in a
    subscript_argument_list; of `a[i, j]` the last, as C's comma reads it); None for no subscript."""
    if n is None or n.type != "subscript_expression":
        return None
    index = n.child_by_field_name("indices") or n.child_by_field_name("index")
    if index is not None and index.type == "subscript_argument_list":
        kids = [c for c in index.named_children if c.type != "comment"]
        return kids[-1] if kids else None
    return index


def unread(node: Node | None, names: set[str] | frozenset[str] = frozenset()) -> str:
    """Where the parser first could not read the source under `node` (an ERROR node, or a token it had
    to make up: a missing brace), as `line L (`text`)`, and which of `names` the unread parts name (they
    size nothing); "" where it read all of it."""
    if node is None or not node.has_error:
        return ""
    bad = [n for n in walk(node) if n.type == "ERROR" or n.is_missing]
    if not bad:
        return ""
    said = " ".join(text(bad[0]).split())
    said = said if len(said) <= 40 else said[:37] + "..."
    out = f"line {bad[0].start_point[0] + 1}" + (f" (`{said}`)" if said else f" (a missing `{bad[0].type}`)")
    named = sorted({text(c) for b in bad for c in walk(b, 10_000) if c.type == "identifier"} & set(names))
    return out + (f": what it names there ({', '.join(named)}) sizes nothing" if named else "")


def unread_params(fn: Function, names: list[str]) -> str:
    """Where `fn`'s parameters as the parser reads them are not `names` (the signature's, split at its
    commas: `const float *z int n` is one parameter there, two here), said as the reason the body's
    names cannot be matched to the arguments; "" where they are the same."""
    read = [p.name or "?" for p in fn.params]
    if read == [n or "?" for n in names]:
        return ""
    at = f", first at {unread(fn.body.parent)}" if unread(fn.body.parent) else ""
    return (
        f" (its parameter list does not read as C{at}: the parser reads {', '.join(read) or 'none'} where the "
        f"signature's commas give {', '.join(n or '?' for n in names) or 'none'})"
    )


def walk(node: Node, budget: int = MAX_NODES) -> Iterator[Node]:
    """Every node under `node`, depth first, at most `budget` of them; no recursion."""
    stack = [node]
    while stack and budget > 0:
        n = stack.pop()
        budget -= 1
        yield n
        stack.extend(reversed(n.children))


def parse(src: str) -> Unit:
    """The functions and defines of `src`; an empty Unit for input too large or not parsable."""
    unit = Unit()
    data = src.encode("utf-8", "replace")
    if len(data) > MAX_SOURCE:
        return unit
    try:
        tree = _parser().parse(data)
    except (ValueError, RuntimeError, OSError):
        return unit
    unit.unread = unread(tree.root_node)
    if unit.unread and (opened := data.count(b"{")) != (closed := data.count(b"}")):
        unit.unread += f"; its braces do not balance: {opened} {{ and {closed} }}"
    for n in _top_level(tree.root_node):
        kind = n.type
        if kind in ("preproc_def", "preproc_function_def"):
            body = text(n.child_by_field_name("value"))
            unit.macro_threads.update("xyz".index(a) for a in re.findall(r"\bthreadIdx\s*\.\s*([xyz])\b", body))
        if kind == "preproc_def":
            _define(n, unit)
        elif kind == "preproc_function_def" and len(unit.macros) < MAX_MACROS:
            _macro(n, unit)
        elif kind in ("struct_specifier", "type_definition", "declaration"):
            _struct(n, unit)
            unit.defines.update(constants(n, unit.defines))
            unit.shared.update(shared_arrays(n))
        elif kind == "preproc_ifdef" and n.children and n.children[0].type == "#ifndef":
            unit.tunables.add(text(n.child_by_field_name("name")))
        elif kind == "function_definition":
            fn = _function(n)
            if fn is not None and (fn.is_kernel or _has(n, "__device__")):
                (unit.kernels if fn.is_kernel else unit.devices).setdefault(fn.name, fn)
    for name in unit.tunables:
        if name in unit.defines:
            unit.tunable_defaults[name] = unit.defines.pop(name)
    return unit


def _top_level(root: Node) -> Iterator[Node]:
    """The declarations outside function bodies (in namespaces, extern "C", templates, #if groups)."""
    stack, budget = [root], MAX_NODES
    while stack and budget > 0:
        n = stack.pop()
        budget -= 1
        yield n
        if n.type in _CONTAINERS:
            stack.extend(reversed(n.named_children))


_SCALARS = {
    "float": ("float32", 4),
    "double": ("float64", 8),
    "int": ("int32", 4),
    "unsigned int": ("uint32", 4),
    "unsigned": ("uint32", 4),
    "char": ("int8", 1),
    "unsigned char": ("uint8", 1),
    "short": ("int16", 2),
    "long long": ("int64", 8),
    "unsigned long long": ("uint64", 8),
    "size_t": ("uint64", 8),
}
_SCALARS_BY_DTYPE = {dtype: size for dtype, size in _SCALARS.values()}
_VECTOR = {"float": "float", "double": "double", "int": "int", "uint": "unsigned int"}


def _field_type(name: str, unit: Unit) -> tuple[str, int, int] | None:
    """(dtype, count, bytes) of a field's type, or None when unknown."""
    name = " ".join(name.replace("const", "").replace("struct ", "").split())
    if name in _SCALARS:
        dtype, size = _SCALARS[name]
        return dtype, 1, size
    if name[-1:] in "234" and name[:-1] in _VECTOR:
        dtype, size = _SCALARS[_VECTOR[name[:-1]]]
        return dtype, int(name[-1]), size * int(name[-1])
    if name in unit.structs:
        dtype, count = unit.structs[name]
        return (dtype, count, count * _SCALARS_BY_DTYPE[dtype]) if dtype else ("", 0, count)
    if (vector := vector_scalar(name.removeprefix("__"))) is not None:  # uchar4, short2, half2, longlong2
        return vector[0], vector[1], vector_bytes(name.removeprefix("__"))
    return None


def type_bytes(name: str, unit: Unit) -> int | None:
    """The bytes of one element of a C type name (`const unsigned char`, `float4`, a struct), or None."""
    words = [w for w in name.replace("*", " ").split() if w not in ("const", "volatile", "__restrict__", "restrict")]
    if not words:
        return None
    alias = {"uint8_t": "unsigned char", "int8_t": "char", "signed char": "char", "unsigned short": "short"}
    joined = " ".join(words)
    t = _field_type(alias.get(joined, joined), unit)
    return t[2] if t is not None and t[2] else None


def _struct(n: Node, unit: Unit) -> None:
    """`struct P { float x, y, z; };` (also in a typedef): as `count` values of one dtype, or its bytes."""
    spec = n if n.type == "struct_specifier" else n.child_by_field_name("type")
    if spec is None or spec.type != "struct_specifier" or spec.child_by_field_name("body") is None:
        return
    names = [text(spec.child_by_field_name("name"))] if spec.child_by_field_name("name") is not None else []
    if n.type == "type_definition":
        names += [text(d) for d in n.children_by_field_name("declarator") if d.type == "type_identifier"]
    dtypes, count, size, align = set(), 0, 0, 1
    for f in spec.child_by_field_name("body").named_children:
        if f.type != "field_declaration":
            continue
        t = _field_type(text(f.child_by_field_name("type")), unit)
        if t is None:
            return
        for d in f.children_by_field_name("declarator"):
            k = 1
            if d.type == "array_declarator":
                length = text(d.child_by_field_name("size"))
                if not length.isdigit():
                    return
                k = int(length)
            step = t[2] // max(t[1], 1) if t[0] else 8
            size = -(-size // step) * step + t[2] * k
            align = max(align, step)
            dtypes.add(t[0])
            count += t[1] * k
    if not count and not size:
        return
    size = -(-size // align) * align
    value = (dtypes.pop(), count) if len(dtypes) == 1 and "" not in dtypes else ("", size)
    for name in names:
        if name:
            unit.structs[name] = value


def _macro(n: Node, unit: Unit) -> None:
    """A function-like macro whose body is one expression, kept to be evaluated where it is used."""
    name, params = text(n.child_by_field_name("name")), n.child_by_field_name("parameters")
    body = text(n.child_by_field_name("value")).strip()
    if not body or len(body) > MAX_MACRO or params is None:
        return
    tree = _parser().parse(f"int macro_value = ({body});".encode("utf-8", "replace"))
    decl = next((c for c in tree.root_node.named_children if c.type == "declaration"), None)
    init = decl.child_by_field_name("declarator") if decl is not None else None
    value = init.child_by_field_name("value") if init is not None and init.type == "init_declarator" else None
    if value is not None and not value.has_error:
        names = [text(p) for p in params.named_children if p.type == "identifier"]
        unit.macros[name] = Macro(names, value, tree)


def _define(n: Node, unit: Unit) -> None:
    name, value = text(n.child_by_field_name("name")), text(n.child_by_field_name("value")).strip()
    word = value.strip("() \t").rstrip("uUlL")
    if word.isdigit():
        number: int | None = int(word)
    elif len(value) <= 200 and re.fullmatch(r"[\w\s()+\-*/%<>]+", value):  # `(2 * TILE + 1)`
        tree = _parser().parse(f"int v = ({value});".encode("utf-8", "replace"))
        decl = next((c for c in tree.root_node.named_children if c.type == "declaration"), None)
        init = decl.child_by_field_name("declarator") if decl is not None else None
        number = constant(init.child_by_field_name("value"), unit.defines) if init is not None else None
    else:
        number = None
    if number is not None and number >= 0:
        unit.defines[name] = number


_OPS: dict[str, Callable[[int, int], int | None]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a // b if b else None,
    "%": lambda a, b: a % b if b else None,
    "<<": lambda a, b: a << b if 0 <= b < 63 else None,
    ">>": lambda a, b: a >> b if 0 <= b < 63 else None,
}


def constant(n: Node | None, values: dict[str, int], depth: int = 0) -> int | None:
    """The value of a constant integer expression (numbers, names in `values`, + - * / % << >>,
    parentheses, unary minus); None for anything else."""
    if n is None or depth > 50:
        return None
    kind = n.type
    if kind in ("parenthesized_expression", "condition_clause") and n.named_children:
        return constant(n.named_children[-1], values, depth + 1)
    if kind == "number_literal":
        word = text(n).lower().rstrip("ul")
        try:
            return int(word, 0)
        except ValueError:
            return None
    if kind == "identifier":
        return values.get(text(n))
    if kind == "unary_expression" and text(n.child_by_field_name("operator")) == "-":
        v = constant(n.child_by_field_name("argument"), values, depth + 1)
        return -v if v is not None else None
    if kind == "binary_expression" and text(n.child_by_field_name("operator")) in _OPS:
        a = constant(n.child_by_field_name("left"), values, depth + 1)
        b = constant(n.child_by_field_name("right"), values, depth + 1)
        out = _OPS[text(n.child_by_field_name("operator"))](a, b) if a is not None and b is not None else None
        return out if out is None or abs(out) < 2**62 else None
    return None


def constants(n: Node, values: dict[str, int]) -> dict[str, int]:
    """`constexpr int TILE = 64;` or `const int R = 2 * TILE;`: integer constants a declaration names, as
    a #define names them (above 1)."""
    words = {text(c) for c in n.children if c.type in ("type_qualifier", "storage_class_specifier")}
    kind = text(n.child_by_field_name("type"))
    if n.type != "declaration" or not words & {"constexpr", "const"} or kind not in _INTEGERS:
        return {}
    out: dict[str, int] = {}
    for d in n.children_by_field_name("declarator"):
        name = d.child_by_field_name("declarator") if d.type == "init_declarator" else None
        value = constant(d.child_by_field_name("value"), {**values, **out}) if name is not None else None
        if name is not None and name.type == "identifier" and value is not None and value >= 0:
            out[text(name)] = value
    return out


def shared_arrays(n: Node) -> dict[str, tuple[str, bool]]:
    """The one-dimensional `__shared__` arrays a declaration names: name -> (element type, extern)."""
    words = {text(c) for c in n.children if c.type in ("type_qualifier", "storage_class_specifier")}
    if n.type != "declaration" or "__shared__" not in words:
        return {}
    out = {}
    for d in n.children_by_field_name("declarator"):
        inner = d.child_by_field_name("declarator") if d.type == "array_declarator" else None
        if inner is not None and inner.type == "identifier":
            out[text(inner)] = (text(n.child_by_field_name("type")), "extern" in words)
    return out


_INTEGERS = {"int", "unsigned", "unsigned int", "long", "long long", "size_t", "short", "unsigned long", "int32_t"}


def _has(n: Node, token: str) -> bool:
    return any(c.type == token for c in n.children)


def _function(n: Node) -> Function | None:
    decl = n.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    body = n.child_by_field_name("body")
    if decl is None or body is None:
        return None
    name_node = decl.child_by_field_name("declarator")
    name = text(name_node).split("::")[-1].split("<")[0].strip()
    params = []
    plist = decl.child_by_field_name("parameters")
    for p in plist.named_children if plist is not None else []:
        if p.type == "parameter_declaration":
            params.append(_param(p))
    return Function(name, params, body, _has(n, "__global__"))


def _param(p: Node) -> Param:
    base = text(p.child_by_field_name("type")).replace("struct ", "").strip()
    d = p.child_by_field_name("declarator")
    pointer = False
    while d is not None and d.type != "identifier":
        if d.type in ("pointer_declarator", "array_declarator", "reference_declarator"):
            pointer = pointer or d.type != "reference_declarator"
        nxt = d.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in d.named_children if c.type.endswith(("declarator", "identifier"))), None)
        d = nxt
    return Param(text(d) if d is not None else "", " ".join(base.split()), pointer)
