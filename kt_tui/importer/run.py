"""Run a kernel_tuner script in a child process (scrubbed environment, its own folder, a time limit)
and convert what it asked kernel_tuner to do."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from ..errors import UserError
from ..files import check_out_dir, check_regular
from ..gpu.env import scrubbed_env
from ..gpu.supervise import run_supervised
from .convert import Batch, CallError, Imported, convert_call

TIMEOUT_S = 300.0
SCRIPT_MAX = 4 << 20


class ImportFailed(UserError):
    pass


def script_env() -> dict:
    env = scrubbed_env()
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join([root, *(p for p in sys.path if p)])
    env["MPLBACKEND"] = "Agg"
    env["CUDA_VISIBLE_DEVICES"] = env["HIP_VISIBLE_DEVICES"] = ""  # the script sees no GPU
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def default_out_dir(script: Path) -> Path:
    return script.parent / f"{script.stem}_kt"


def record_calls(script: Path, staging: Path, timeout_s: float = TIMEOUT_S) -> dict:
    """The recorded calls of one run of `script` (see importer/child.py)."""
    cmd = [sys.executable, "-m", "kt_tui.importer.child", str(script), str(staging)]
    code, log = run_supervised(cmd, timeout_s, cwd=script.parent, env=script_env())
    path = staging / "calls.json"
    stopped = (
        f"did not finish within {timeout_s:g} s and was stopped, with every process it started "
        "(kt-tui import runs the script with tune_kernel recorded, not tuned)"
    )
    if code is None:
        try:  # each call is written as it is made: what the script asked for before it hung is kept
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            record = None
        if not isinstance(record, dict) or not record.get("calls"):
            raise ImportFailed(f"{script}: {stopped}")
        return {**record, "script_error": f"it {stopped}"}
    if not path.is_file():
        tail = " / ".join(line.strip() for line in (log or "").strip().splitlines()[-3:]) or "no output"
        raise ImportFailed(f"{script}: the script could not be run ({tail})")
    return json.loads(path.read_text())


def import_script(
    script: str | Path, out_dir: str | Path | None = None, timeout_s: float = TIMEOUT_S, force: bool = False
) -> tuple[list[Imported], list[str], list[str]]:
    """(imported kernels, problems, notes). ImportFailed when nothing could be imported. Files that
    exist are not overwritten unless `force`."""
    script = Path(script).resolve()
    check_regular(script, "script", SCRIPT_MAX)
    if script.suffix != ".py":
        raise ImportFailed(f"{script}: expected a Python script that calls kernel_tuner")
    out = check_out_dir(out_dir).resolve() if out_dir is not None else default_out_dir(script)
    # staged arrays are moved into the output folder: on its disk, that is a rename, not a copy
    near = next((p for p in (out, *out.parents) if p.is_dir()), None)
    with tempfile.TemporaryDirectory(
        prefix=".kt-import-", dir=near if near and os.access(near, os.W_OK) else None
    ) as tmp:
        staging = Path(tmp)
        record = record_calls(script, staging, timeout_s)
        calls = record["calls"]
        notes = (
            [
                f"the script stopped after its kernel_tuner calls: {record['script_error']} "
                "(tune_kernel returns no results during an import)"
            ]
            if record["script_error"] and calls
            else []
        )
        if not calls:
            why = f": {record['script_error']}" if record["script_error"] else ""
            raise ImportFailed(f"{script}: made no tune_kernel or run_kernel call{why}")
        done, problems = [], []
        batch = Batch(staging=staging, out_dir=out, calls=calls, force=force)
        for i, call in enumerate(calls):
            call["script"], call["script_stem"] = str(script), script.stem
            try:
                done.append(convert_call(call, i, batch))
            except CallError as e:
                problems.append(f"call {i + 1} ({call['kernel_name']}): {e}")
    return done, problems, notes


def import_command(args) -> int:
    """`kt-tui import SCRIPT.py [--out DIR]`: exit 0 when every call imported, 2 otherwise."""
    done, problems, notes = import_script(args.script, args.out, args.timeout or TIMEOUT_S, args.force)
    for item in done:
        print(f"{item.kernel}: wrote " + ", ".join(str(f) for f in item.files))
        for n in item.notes:
            print(f"  note: {n}")
        for n in item.losses:
            print(f"  not kept: {n}")
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    for p in problems:
        print(f"kt-tui: import: {p}", file=sys.stderr)
    if done:
        search = "".join(
            f" --search {d.search}" + "".join(f" --search-option {k}={v}" for k, v in d.search_options.items())
            for d in done[:1]
            if d.search
        )
        print(f"next: kt-tui {done[0].kernel_path}{search}   (check first: kt-tui spec {done[0].kernel_path} --check)")
    return 2 if problems or not done else 0
