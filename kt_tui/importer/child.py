"""Runs in the child process: the user's script with kernel_tuner's tune_kernel / run_kernel recorded.

Usage: python -m kt_tui.importer.child SCRIPT STAGING_DIR. Nothing is tuned and no GPU is touched:
each call is written to STAGING_DIR (calls.json + each distinct array once, as a .npy) and returns empty
results, so the script's own post-processing may fail afterwards; that is reported, not fatal.
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import runpy
import sys
import textwrap
import traceback
import zlib
from pathlib import Path
from typing import Any

import kernel_tuner
import kernel_tuner.interface
import numpy as np

from .lambdas import as_expression, callable_name

CALLS: list[dict] = []
RUN_OUTPUTS: dict[int, tuple[int, int]] = {}  # id(array returned by run_kernel) -> (call, arg index)
KEEP: list = []  # keeps staged arrays and run_kernel outputs alive, so that their ids stay unique


STAGED: dict[tuple, list[str]] = {}  # (dtype, size, adler32) -> the staged .npy files with that key
MAX_STAGED = 2 << 30  # bytes of distinct arrays an import takes (kt-tui then reads them to write the inputs)
STAGED_BYTES = [0]
SEEN: dict[int, tuple[tuple, str]] = {}  # id(array) -> (its key, its file); KEEP holds the arrays


def _stage(a: np.ndarray) -> str:
    """The array written once to the staging folder as a flat .npy; the same contents again (another
    call's argument, an array passed twice) reuse that file. A checksum finds candidates; an array
    other than the one staged is compared in full before its file is reused."""
    flat = np.ascontiguousarray(a).reshape(-1)
    key = (str(flat.dtype), flat.size, zlib.adler32(flat.data.cast("B")))
    if id(a) in SEEN and SEEN[id(a)][0] == key:
        return SEEN[id(a)][1]
    for name in STAGED.get(key, []):
        if np.array_equal(np.load(Path(STAGING, name), mmap_mode="r"), flat):
            break
    else:
        STAGED_BYTES[0] += flat.nbytes
        if STAGED_BYTES[0] > MAX_STAGED:
            raise MemoryError(
                f"kt-tui import takes at most {MAX_STAGED >> 30} GiB of arrays in all; this script passes "
                f"more ({STAGED_BYTES[0] / 2**30:.2f} GiB with this {flat.nbytes / 2**20:.0f} MiB array): "
                "import it at a smaller size"
            )
        name = f"a{sum(map(len, STAGED.values()))}.npy"
        np.save(Path(STAGING, name), flat)
        STAGED.setdefault(key, []).append(name)
    SEEN[id(a)] = (key, name)
    KEEP.append(a)
    return name


def _plain(v):
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    return v


def _generated(fn, values: dict) -> dict:
    """A code generator's output with each parameter's name in place of its value (kernel_tuner defines
    the names as macros); kept only when substituting real values gives what the generator gives."""
    name = callable_name(fn)
    marks = {k: f"__kt_param_{i}__" for i, k in enumerate(values)}
    try:
        marked = str(fn(dict(marks)))
        samples = [({k: v[0] for k, v in values.items()}), ({k: v[-1] for k, v in values.items()})]
        real = [str(fn(dict(s))) for s in samples]
    except Exception as e:  # noqa: BLE001 - the user's generator: its failure is the reason
        return {"generator": name, "why": f"it fails when given parameter names for values ({type(e).__name__}: {e})"}
    for s, text in zip(samples, real):
        filled = marked
        for k, mark in marks.items():
            filled = filled.replace(mark, str(s[k]))
        if filled.split() != text.split():
            return {"generator": name, "why": "it does more than put parameter values into the code"}
    symbolic = marked
    for k, mark in marks.items():
        symbolic = symbolic.replace(mark, k)
    return {"text": symbolic, "generated": name}


def _function_module(fn) -> tuple[str | None, str]:
    """A module holding the script's imports and this function's source (copied, so that the worker
    never imports the script itself), or (None, why)."""
    if fn.__code__.co_freevars:
        return None, f"it reads {', '.join(fn.__code__.co_freevars)} from the function around it"
    try:
        text = textwrap.dedent(inspect.getsource(fn))
        where = inspect.getsourcefile(fn)
        if where is None:
            raise OSError("no source file")
        script = Path(where).read_text()
        tree = ast.parse(script)
    except (OSError, TypeError, SyntaxError) as e:
        return None, f"its source cannot be read ({e})"
    if not text.lstrip().startswith("def "):
        return None, "it is not a def (a lambda or a callable object)"
    imports = [ast.get_source_segment(script, n) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    head = "# copied by kt-tui import: the script's imports and its verify function\n"
    return head + "\n".join(i for i in imports if i) + "\n\n\n" + text, ""


def _source(kernel_source, values: dict) -> dict:
    if callable(kernel_source):
        return _generated(kernel_source, values)
    if isinstance(kernel_source, (list, tuple)):
        files = [str(Path(f).resolve()) for f in kernel_source]
        return {"files": files}
    text = str(kernel_source)
    if "\n" not in text and len(text) < 1000 and Path(text).is_file():
        return {"files": [str(Path(text).resolve())]}
    return {"text": text}


def _exprs(value, what: str, call: dict):
    """A string, a list of strings, or a callable (as an expression); problems go to call['errors']."""
    if value is None:
        return None
    if callable(value):
        expr, why = as_expression(value)
        if expr is None:
            call["errors"].append(f"{what} is a Python function: write it as an expression ({why})")
        return expr
    if isinstance(value, (list, tuple)):
        return [_exprs(v, f"{what}[{i}]", call) for i, v in enumerate(value)]
    return _plain(value)


def _record(kind: str, kernel_name, kernel_source, problem_size, arguments, params, kw: dict) -> dict:
    values = {str(k): list(v) if kind == "tune" else [v] for k, v in params.items()}
    call: dict[str, Any] = {
        "kind": kind,
        "kernel_name": str(kernel_name),
        "source": _source(kernel_source, values),
        "errors": [],
        "notes": [],
        "losses": [],
        "args": [],
    }
    if "generated" in call["source"]:
        call["notes"].append(
            f"the source is {call['source']['generated']}'s output with the parameter names "
            "in place of their values (kernel_tuner defines them as macros)"
        )
    for a in arguments:
        if isinstance(a, np.ndarray):
            call["args"].append(
                {"array": _stage(a), "dtype": str(a.dtype), "size": int(a.size), "shape": list(a.shape)}
            )
        elif isinstance(a, np.generic) and a.dtype.kind in "cV":  # a complex or a struct: a vector by value?
            call["args"].append({"bytes": a.tobytes()[:64].hex(), "dtype": str(a.dtype)})
        elif isinstance(a, (np.generic, int, float)) and not isinstance(a, bool):
            dtype = str(a.dtype) if isinstance(a, np.generic) else ("int32" if isinstance(a, int) else "float32")
            call["args"].append({"value": _plain(a), "dtype": dtype})
            if isinstance(a, np.generic):  # a uint64 packing a float2's lanes: a vector by value (convert.py)
                call["args"][-1]["bytes"] = a.tobytes()[:64].hex()
        else:
            call["args"].append({"unsupported": type(a).__name__})
    if callable(problem_size):
        call["problem_size"] = _exprs(problem_size, "problem_size", call)
    else:
        call["problem_size"] = _plain(problem_size)
    call["tune_params"] = {str(k): _plain(list(v) if kind == "tune" else [v]) for k, v in params.items()}
    answer = kw.get("answer")
    if answer is not None:
        call["answer"] = []
        for i, a in enumerate(answer):
            if a is None:
                call["answer"].append(None)
                continue
            call["answer"].append(_stage(np.asarray(a)))
            if id(answer[i]) in RUN_OUTPUTS:
                c, j = RUN_OUTPUTS[id(answer[i])]
                call.setdefault("chained", []).append(i)
                call.setdefault("chained_from", {})[str(i)] = [c, j]
    for key in ("grid_div_x", "grid_div_y", "grid_div_z", "restrictions"):
        if kw.get(key) is not None:
            v = kw[key]
            call[key] = _exprs([v] if callable(v) or isinstance(v, str) else v, key, call)
    for key in ("block_size_names", "compiler_options", "iterations", "atol", "objective", "lang"):
        if kw.get(key) is not None:
            call[key] = _plain(kw[key])
    if kw.get("defines") is not None:  # even {}: kernel_tuner then defines nothing of its own
        call["defines"] = {str(k): _exprs(v, f"defines.{k}", call) for k, v in kw["defines"].items()}
    if kw.get("cmem_args"):
        call["cmem_args"] = []
        for k, v in kw["cmem_args"].items():
            call["cmem_args"].append([str(k), _stage(np.asarray(v)), list(np.shape(v))])
    if kw.get("texmem_args"):
        call["errors"].append(f"texmem_args is not supported by kt-tui yet ({', '.join(map(str, kw['texmem_args']))})")
    if kw.get("smem_args"):
        smem = dict(kw["smem_args"])
        if set(smem) - {"size"}:
            call["errors"].append(f'smem_args: only "size" is supported (got {", ".join(map(str, smem))})')
        elif "size" in smem:
            call["smem_size"] = _exprs(smem["size"], "smem_args size", call)
    if kw.get("verify") is not None:
        call["verify"] = callable_name(kw["verify"])
        call["verify_source"], why = _function_module(kw["verify"])
        if why:
            call["verify_why"] = why
    if kw.get("_unknown"):
        call["losses"].append(f"not imported: {', '.join(kw['_unknown'])}")
    if kw.get("metrics"):
        call["losses"].append(f"metrics not imported (kt-tui reports time): {', '.join(map(str, kw['metrics']))}")
    _strategy(kw, call)
    CALLS.append(call)
    _save()
    return call


def _save() -> None:
    Path(STAGING, "calls.json").write_text(json.dumps({"calls": CALLS, "script_error": SCRIPT_ERROR}))


def _strategy(kw: dict, call: dict) -> None:
    """kernel_tuner's strategy by name (a name, or one of its strategy modules), and its options."""
    strategy = kw.get("strategy")
    if strategy is None:
        return
    if isinstance(strategy, str):
        call["strategy"] = strategy
    elif inspect.ismodule(strategy) and strategy.__name__.startswith("kernel_tuner.strategies."):
        call["strategy"] = strategy.__name__.rpartition(".")[2]
    else:
        call["strategy"] = {"custom": callable_name(strategy) if callable(strategy) else type(strategy).__name__}
    options = kw.get("strategy_options") or {}
    call["strategy_options"] = {
        str(k): _plain(v) for k, v in dict(options).items() if isinstance(_plain(v), (int, float, str, bool))
    }
    dropped = sorted(str(k) for k in dict(options) if str(k) not in call["strategy_options"])
    if dropped:
        call["losses"].append(f"strategy_options not imported (not a number or a word): {', '.join(dropped)}")


IGNORED = {"verbose", "quiet", "log", "device", "platform", "compiler", "cache", "simulation_mode", "parallel", "seed"}
HANDLED = {
    "grid_div_x",
    "grid_div_y",
    "grid_div_z",
    "restrictions",
    "answer",
    "atol",
    "verify",
    "lang",
    "smem_args",
    "cmem_args",
    "texmem_args",
    "compiler_options",
    "defines",
    "iterations",
    "block_size_names",
    "metrics",
    "objective",
    "strategy",
    "strategy_options",
}


def _bind(original, args: tuple, kw: dict) -> dict:
    """The call's arguments by name, as kernel_tuner's own signature reads them."""
    bound = inspect.signature(original).bind(*args, **kw)
    return {k: v for k, v in bound.arguments.items() if v is not None}


def _split(kind: str, args: tuple, kw: dict) -> tuple[list, dict]:
    named = _bind(ORIGINAL[kind], args, kw)
    first = ("kernel_name", "kernel_source", "problem_size", "arguments", "tune_params" if kind == "tune" else "params")
    head = [named.pop(k, None) for k in first]
    skipped = sorted(k for k in named if k not in HANDLED and k not in IGNORED)
    kept = {k: v for k, v in named.items() if k in HANDLED}
    kept["_unknown"] = skipped
    return head, kept


def tune_kernel(*args, **kw):
    head, kept = _split("tune", args, kw)
    _record("tune", *head, kept)
    _save()  # on disk now: a script that waits or hangs afterwards keeps what it asked for
    return [], {}


def run_kernel(*args, **kw):
    head, kept = _split("run", args, kw)
    arguments = head[3]
    _record("run", *head, kept)
    _save()
    out = [np.copy(a) if isinstance(a, np.ndarray) else a for a in arguments]
    for j, a in enumerate(out):
        if isinstance(a, np.ndarray):
            RUN_OUTPUTS[id(a)] = (len(CALLS) - 1, j)
    KEEP.append(out)
    return out


STAGING = ""
SCRIPT_ERROR = None
ORIGINAL: dict = {}


def main(script: str, staging: str) -> int:
    global STAGING, SCRIPT_ERROR
    STAGING = staging
    ORIGINAL.update(tune=kernel_tuner.interface.tune_kernel, run=kernel_tuner.interface.run_kernel)
    for module in (kernel_tuner, kernel_tuner.interface):
        module.tune_kernel = tune_kernel
        module.run_kernel = run_kernel
    sys.argv = [script]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            SCRIPT_ERROR = f"the script exited with status {e.code}"
    except BaseException as e:  # noqa: BLE001 - the user's script: report, keep what was recorded
        tb = traceback.extract_tb(e.__traceback__)
        where = next(
            (
                f"{Path(f.filename).name}:{f.lineno}"
                for f in reversed(tb)
                if os.path.abspath(f.filename) == os.path.abspath(script)
            ),
            Path(script).name,
        )
        SCRIPT_ERROR = f"{where}: {type(e).__name__}: {e}"
    _save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1], sys.argv[2]))
