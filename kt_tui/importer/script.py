"""What a kernel_tuner script's own text says about its tunable parameters (read, never run): which
of them it reads to size its data (`max(tune_params["filter_width"])`, an array allocated for the
smallest block size). Such a parameter sets the problem, not only the launch: configurations at
different values of it compute different results."""

from __future__ import annotations

import ast
from pathlib import Path


def _tune_dicts(tree: ast.AST) -> set[str]:
    """The variables the script hands to tune_kernel as its tune_params."""
    out = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if name != "tune_kernel":
            continue
        arg = (
            node.args[4]
            if len(node.args) > 4
            else next((k.value for k in node.keywords if k.arg == "tune_params"), None)
        )
        if isinstance(arg, ast.Name):
            out.add(arg.id)
    return out


def _parents(tree: ast.AST) -> dict:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def sizing_params(script: str | Path, tuned: set[str]) -> dict[str, str]:
    """{parameter: "line N: text"} for each tuned parameter whose values the script reads to compute
    something other than another parameter's values."""
    try:
        text = Path(script).read_text(encoding="utf-8")
        tree = ast.parse(text)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return {}
    dicts = _tune_dicts(tree)
    parents = _parents(tree)
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and isinstance(node.value, ast.Name)
            and node.value.id in dicts
            and isinstance(node.slice, ast.Constant)
            and node.slice.value in tuned
        ):
            continue
        stmt = node
        while stmt in parents and not isinstance(stmt, ast.stmt):
            stmt = parents[stmt]
        if isinstance(stmt, ast.Assign) and all(
            isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in dicts for t in stmt.targets
        ):
            continue  # tune_params["a"] = tune_params["b"][:]: one parameter's values given to another
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Subscript) and stmt.value is node:
            continue  # values = tune_params["a"]: kept aside, read later (counted where that is read)
        name = node.slice.value
        said = " ".join((ast.get_source_segment(text, stmt) or "").split())
        out.setdefault(name, f"line {stmt.lineno}: {said[:100]}{'...' if len(said) > 100 else ''}")
    return out
