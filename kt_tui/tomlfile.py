"""Reading and writing the TOML files kt-tui knows (config, launch spec, steps file, seed rules):
one error class whose message is always `file: a.b: problem`, the one way pydantic's errors are
worded for the user, and TOML written by tomlkit, never by hand. (tomli-w writes every array over
several lines and [[args]] as inline tables: a drafted spec would be hard to read and edit.)
A file the user edits in kt-tui (the spec editor) is saved as the user's text, comments and all."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .errors import UserError


class TomlError(UserError, ValueError):
    """A problem in a TOML file or setting; `field` is the dotted place in it (may be empty)."""

    def __init__(self, field_name: str, problem: str, path: str | Path | None = None):
        self.field = field_name
        self.problem = problem
        self.path = str(path) if path else None
        super().__init__(": ".join(p for p in (self.path, field_name, problem) if p))


MAX_DEPTH = 32  # tables and arrays within one another; no kt-tui file needs more than a few


def load_toml(text: str, path: str | Path | None = None) -> dict:
    try:
        data = tomllib.loads(text.removeprefix("\ufeff"))  # a BOM, as some editors write one
    except tomllib.TOMLDecodeError as e:
        raise TomlError("", f"not valid TOML: {e}", path) from None
    except RecursionError:  # tomllib reads nested arrays and inline tables recursively
        raise TomlError("", f"nested more than {MAX_DEPTH} levels deep", path) from None
    check_depth(data, path)
    return data


def check_depth(data: dict, path) -> None:
    """Every later reader (pydantic, json, the spec checks) recurses too: refuse deep nesting here."""
    todo = [(data, 0, "")]
    while todo:
        value, depth, where = todo.pop()
        if depth > MAX_DEPTH:
            raise TomlError(where.lstrip("."), f"nested more than {MAX_DEPTH} levels deep", path)
        if isinstance(value, dict):
            todo += [(v, depth + 1, f"{where}.{k}") for k, v in value.items()]
        elif isinstance(value, list):
            todo += [(v, depth + 1, f"{where}[{i}]") for i, v in enumerate(value)]


def dumps(data: dict) -> str:
    """TOML for a fresh file; None values are left out (TOML has no null)."""
    import tomlkit  # here: only the writers need it, not the readers (the TUI's first frame)

    return tomlkit.dumps(_drop_none(data))


def literal(text: str):
    """`text` as a TOML literal string ('kt') when it can be one, else a basic string ("it's")."""
    import tomlkit  # here: only the writers need it, not the readers (the TUI's first frame)

    return tomlkit.string(text, literal="'" not in text and text.isprintable())


def inline_tables(rows: list[dict]):
    """A list of tables written on one line, `[{n = 1000}, {n = 37}]`, not as [[name]] sections."""
    import tomlkit  # here: only the writers need it, not the readers (the TUI's first frame)

    out = tomlkit.array()
    for row in rows:
        t = tomlkit.inline_table()
        t.update(row)
        out.append(t)
    return out


def _drop_none(v):
    import tomlkit  # here: only the writers need it, not the readers (the TUI's first frame)

    if isinstance(v, tomlkit.items.Item):
        return v
    if isinstance(v, dict):
        return {k: _drop_none(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_drop_none(x) for x in v]
    return v


MAX_PROBLEM = 300  # characters of one problem's text: a file's 200 KB value is not echoed whole


def problem_text(err: Mapping[str, Any], words: dict | None = None) -> str:
    """One of pydantic's errors in kt-tui's words: `must be an integer, not 'ten'`; `words`: by error type."""
    text = _problem_text(err, words)
    return text if len(text) <= MAX_PROBLEM else text[: MAX_PROBLEM - 1] + "…"


def _problem_text(err: Mapping[str, Any], words: dict | None = None) -> str:
    kind, ctx, value = err["type"], err.get("ctx") or {}, err.get("input")
    if words and kind in words:
        return words[kind]
    if kind == "value_error":
        return str(getattr(ctx.get("error"), "problem", None) or ctx.get("error", err["msg"]))
    if kind == "missing":
        return "missing"
    if kind == "extra_forbidden":
        return "unknown key"
    if kind in ("string_too_long", "too_long"):  # the value itself may be huge: its length, not its text
        size = len(value) if isinstance(value, (str, bytes, list, dict, tuple)) else "more"
        return f"must be at most {ctx.get('max_length')} {'characters' if kind.startswith('string') else 'items'} long, not {size}"
    words = {
        "int": "an integer",
        "bool": "true or false",
        "float": "a number",
        "string": "a string",
        "dict": "a table",
        "list": "a list",
        "finite_number": "a finite number",
    }
    for prefix, word in words.items():
        if kind.startswith(prefix):
            return f"must be {word}, not {value!r}"
    if kind == "greater_than":
        return f"must be more than {_num(ctx['gt'])}, not {value!r}"
    if kind == "greater_than_equal":
        low = "must not be negative" if ctx["ge"] == 0 else f"must be at least {_num(ctx['ge'])}"
        return f"{low}, not {value!r}"
    if kind == "less_than":
        return f"must be below {_num(ctx['lt'])}, not {value!r}"
    if kind == "less_than_equal":
        return f"must be at most {_num(ctx['le'])}, not {value!r}"
    if kind == "literal_error":
        return f"must be one of {ctx['expected']}, not {value!r}"
    return f"{err['msg'][:1].lower()}{err['msg'][1:]}, not {value!r}"


def _num(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def place(loc) -> str:
    """pydantic's location as the user writes it: args[2].type, tune_params.block_size_x."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def first_error(
    e: ValidationError, path: str | Path | None = None, prefix: str = "", words: dict | None = None
) -> TomlError:
    """The first of pydantic's errors as a TomlError at `prefix`.loc; a validator's BadValue or
    TomlError names its own place below the field it checked."""
    err = e.errors()[0]
    loc = list(err["loc"])
    inner = (err.get("ctx") or {}).get("error")
    field = getattr(inner, "field", None)
    if field:
        loc = loc[:-1] + [field]
    where = place(loc)
    return TomlError(f"{prefix}.{where}" if prefix and where else prefix or where, problem_text(err, words), path)
