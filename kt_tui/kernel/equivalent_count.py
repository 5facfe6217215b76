"""A mutant equivalent within the spec's launch (issue 35): an edit of the expression that computes a
local count only compared with a block index, where the spec launches exactly that many blocks on the
axis (one block per item) and the edit makes the count no smaller at any size the check or the tuning
runs. Every block's index then stays below the count before and after the edit, and every comparison
of it with the count comes out as before:

    const int nframes = (n - frame_len) / hop + 1;   // problem_size = ["(n - frame_len) // hop + 1"]
    if (blockIdx.x >= nframes) return;               // `- frame_len` dropped: a larger count, no block reaches it

The counts are evaluated at the spec's size and every check size with C's integer arithmetic."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from .equivalent_launch import _block_axis
from .expr import evaluate
from .syntax import Token

if TYPE_CHECKING:
    from .spec_model import Spec

MAX_TEXT = 300  # a count's expression longer than this is not evaluated
_DECLARED = re.compile(
    r"(?:const\s+)?(unsigned\s+|signed\s+)?(int|long|long\s+long|size_t|int64_t)\s+([A-Za-z_]\w*)\s*="
)
_SIGNED_INTS = {"int": 32, "signed int": 32, "signed": 32, "long": 64, "long long": 64, "int64_t": 64}


def count_past_launch(
    toks: list[Token],
    i: int,
    source: str,
    edit: tuple[int, int, str],
    spec: Spec | None,
    params: list[tuple[str, str]],
    body: int,
) -> str:
    """Why the edit (start, end, text) at token i is equivalent as the module docstring says, or ""."""
    if spec is None or toks[i].pos < body:
        return ""
    first = i
    while first > 0 and toks[first - 1].text not in (";", "{", "}"):
        first -= 1
    last = i
    while last < len(toks) and toks[last].text != ";":
        last += 1
    if last >= len(toks) or toks[first].pos < body:
        return ""
    start, end = toks[first].pos, toks[last].pos
    m = _DECLARED.match(source[start:end])
    if not m or edit[0] < start + m.end() or edit[1] > end:
        return ""
    name = m.group(3)
    unsigned = bool(m.group(1) and m.group(1).startswith("unsigned")) or m.group(2) == "size_t"
    before = source[start + m.end() : end].strip()
    after = (source[start + m.end() : edit[0]] + edit[2] + source[edit[1] : end]).strip()
    axis = _only_compared_with_blocks(toks, name, first, last)
    launched = _launched(spec, axis) if axis else None
    if launched is None or max(len(before), len(after)) > MAX_TEXT:
        return ""
    for sizes in [spec.sizes] + [e["sizes"] for e in spec.extra_sizes()]:
        values = _param_values(spec, params, sizes)
        blocks = _c_value(launched, sizes, py=True)
        was, now = (
            _c_value(before, values, unsigned=unsigned),
            _c_value(after, values, unsigned=unsigned),
        )
        if blocks is None or was is None or now is None or was != blocks or now < was:
            return ""
    return (
        f"`{name}` is the number of blocks the spec launches on {axis} (one block per item), and the edit "
        f"makes it no smaller at every size the check and the tuning run: no block reaches it before or "
        f"after, so each comparison of the block's index with `{name}` comes out as before"
    )


def _only_compared_with_blocks(toks: list[Token], name: str, first: int, last: int) -> str:
    """The block axis every other use of `name` is compared with (`blockIdx.x >= name`), or "" where
    `name` is used otherwise or with several axes."""
    axes = set()
    for k, t in enumerate(toks):
        if t.text != name or first <= k <= last:
            continue
        if k + 1 < len(toks) and toks[k + 1].text in ("<", "<=", ">", ">=", "==", "!="):
            near = toks[k + 2] if k + 2 < len(toks) else None
            ends = k + 3 >= len(toks) or toks[k + 3].text in (")", "||", "&&", ";")
            ends = ends and (k == 0 or toks[k - 1].text in ("(", "||", "&&"))
        elif k >= 2 and toks[k - 1].text in ("<", "<=", ">", ">=", "==", "!="):
            near = toks[k - 2]
            ends = k + 1 >= len(toks) or toks[k + 1].text in (")", "||", "&&", ";")
            ends = ends and (k < 3 or toks[k - 3].text in ("(", "||", "&&"))
        else:
            return ""
        axis = _block_axis(toks, near.text) if near is not None and ends else ""
        if not axis:
            return ""
        axes.add(axis)
    return axes.pop() if len(axes) == 1 else ""


def _launched(spec: Spec, axis: str) -> str | None:
    """The size expression the spec launches exactly that many blocks of on the axis, or None."""
    k = "xyz".index(axis)
    if k >= len(spec.problem_size) or getattr(spec, f"grid_div_{axis}") != []:
        return None
    size = spec.problem_size[k]
    return size if isinstance(size, str) else str(size)


def _param_values(spec: Spec, params: list[tuple[str, str]], sizes: dict[str, int]) -> dict[str, int]:
    """Each signed integer kernel parameter's value at `sizes` (the spec passes parameters in order); an
    unsigned or floating one is left out, as C's arithmetic on it is not the spec's."""
    out = {}
    for (name, base), a in zip(params, spec.args, strict=False):
        bits = _SIGNED_INTS.get(base)
        if not a.is_array and bits:
            try:
                v = evaluate(a.value, sizes) if isinstance(a.value, str) else a.value
            except Exception:  # noqa: BLE001  not a number here: not used
                continue
            if isinstance(v, int) and not isinstance(v, bool) and -(1 << (bits - 1)) <= v < 1 << (bits - 1):
                out[name] = v
    return out


def _c_value(text: str, names: dict[str, int], py: bool = False, unsigned: bool = False) -> int | None:
    """The integer value of `text` (names, integer literals, + - * / % and parentheses) with C's
    truncating division (`py`: the spec's own `//`, floor), or None where it is anything else or a
    step leaves a 32-bit int (below 0 where `unsigned`): C computes int parameters and literals in int,
    whatever type the count is declared with, and would wrap it."""
    if re.search(r"\b\d+[uUlL]|\b0[xXbB]|\((?:int|unsigned|size_t|long)\b|\+\+|--", text):
        return None  # a suffix or cast changes the type C computes in; ++ and -- change a name
    low, high = (0 if unsigned else -(1 << 31)), 1 << 31
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return None

    def value(n: ast.AST) -> int | None:
        if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool):
            return n.value
        if isinstance(n, ast.Name):
            v = names.get(n.id)
            return v if isinstance(v, int) else None
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            v = bounded(n.operand)
            return None if v is None else -v
        if isinstance(n, ast.BinOp):
            a, b = bounded(n.left), bounded(n.right)
            if a is None or b is None or abs(a) > 1 << 62 or abs(b) > 1 << 62:
                return None
            if isinstance(n.op, ast.Add):
                return a + b
            if isinstance(n.op, ast.Sub):
                return a - b
            if isinstance(n.op, ast.Mult):
                return a * b
            if (
                isinstance(n.op, (ast.Div, ast.FloorDiv, ast.Mod))
                and b != 0
                and (py or not isinstance(n.op, ast.FloorDiv))
            ):
                if py and isinstance(n.op, ast.Div):  # the spec's `/` is a true division: whole or nothing
                    return a // b if a % b == 0 else None
                if py:
                    return a // b if isinstance(n.op, ast.FloorDiv) else a % b
                q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C truncates toward zero
                return q if isinstance(n.op, ast.Div) else a - q * b
        return None

    def bounded(n: ast.AST) -> int | None:
        v = value(n)
        return v if py or v is None or low <= v < high else None

    return bounded(tree.body)
