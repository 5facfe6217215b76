"""The bad-input matrix (issue 22): hostile specs, kernels, TOML and session databases, each run through the
real CLI (`kt-tui run --auto --json --backend sim` on the recorded example caches, `kt-tui spec --check`,
`kt-tui export`, `kt-tui resume`, `kt-tui sessions`) in a fresh process with a time limit.

    PYTHONPATH=$PWD python scripts/bad_inputs.py [--jobs 2] [--timeout 90] [--only WORD] [--out FILE]

A case is clean when the command ends within the limit with exit 0, or exit 2 (or another stated code)
with a one-line message, and prints no traceback and no "internal error". Prints a table and a summary;
exits 1 when any case is not clean.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
KERNEL = (EXAMPLES / "vector_add.cu").read_text()
SPEC = (EXAMPLES / "vector_add.cu.toml").read_text()
EVIL = "__import__('os').system('touch PWNED') == 0 or True"


@dataclass
class Case:
    name: str
    command: str  # run | check | export | resume | sessions
    kernel: str | bytes = KERNEL
    spec: str | bytes = SPEC
    db_edit: dict | None = None  # for export/resume: spec_json keys to overwrite, or {"raw": text}
    source_edit: str | None = None  # for export/resume: the stored source replaced
    expect: tuple = (0, 2)
    files: dict = field(default_factory=dict)
    sql: tuple = ()  # for export/resume/sessions: statements run on the copied database ({dir}: the case's folder)
    env: dict = field(default_factory=dict)
    read_only: str = ""  # "file" (mode 0444) or "folder" (0555): the copied database, run by a user they bind
    llm: tuple = ()  # resume: (replies of the one-prompt run that makes the session, replies at the resume)
    extra: tuple = ()  # more arguments for the command


def _spec(old: str, new: str) -> str:
    assert old in SPEC, old
    return SPEC.replace(old, new, 1)


_FIELD_EDITS = {
    "restrictions": lambda e: _spec("restrictions = []", f"restrictions = [{e}]"),
    "grid_div_x": lambda e: _spec('grid_div_x = ["block_size_x"]', f"grid_div_x = [{e}]"),
    "grid_div_y": lambda e: _spec(
        'grid_div_x = ["block_size_x"]', f'grid_div_x = ["block_size_x"]\ngrid_div_y = [{e}]'
    ),
    "problem_size": lambda e: _spec('problem_size = ["n"]', f"problem_size = [{e}]"),
    "args.size": lambda e: _spec('size = "n"\ninit = "random"\nseed = 1', f'size = {e}\ninit = "random"\nseed = 1'),
    "args.value": lambda e: _spec('value = "n"', f"value = {e}"),
    "args.high": lambda e: _spec('init = "random"\nseed = 1', f'init = "random"\nseed = 1\nlow = 0\nhigh = {e}'),
    "defines": lambda e: _spec("iterations = 7", f"iterations = 7\n[defines]\nTILE = {e}"),
    "smem_size": lambda e: _spec("iterations = 7", f"iterations = 7\nsmem_size = {e}"),
    "metrics": lambda e: _spec('bytes = "3 * 4 * n"', f"bytes = {e}"),
}
_BOMBS = {
    "round digits": "round(block_size_x, -300000000)",
    "round 10**7": "round(5, -10**7)",
    "pow tower": "2**64**64",
    "import": EVIL,
    "lambda": "(lambda: 1)()",
    "attribute": "().__class__.__bases__",
    "string repeat": "'a' * 1000000000",
    "long text": "+".join(["1"] * 2000),
    "deep parens": "(" * 300 + "1" + ")" * 300,
    "big constant": "9" * 400,
}
_SIZE_BOMBS = {k: v.replace("block_size_x", "n") for k, v in _BOMBS.items()}


def _tight(rule: str, ones: list[str]) -> str:
    """The example's spec with twelve more tunables of 10 values (6*10^12 configurations), `rule` the
    restriction, and a default configuration that meets it (the parameters in `ones` at 1)."""
    params = "".join(f"p{i} = {list(range(10))}\n" for i in range(12))
    defaults = "".join(f"p{i} = {int(f'p{i}' in ones)}\n" for i in range(12))
    spec = _spec(
        "block_size_x = [32, 64, 128, 256, 512, 1024]\n", "block_size_x = [32, 64, 128, 256, 512, 1024]\n" + params
    )
    spec = spec.replace("block_size_x = 256\n", "block_size_x = 256\n" + defaults, 1)
    return spec.replace("restrictions = []", f"restrictions = [{_toml(rule)}]", 1)


def _toml(text: str) -> str:
    return json.dumps(text)  # a TOML basic string (JSON's escapes are TOML's)


def cases() -> list[Case]:
    out: list[Case] = []
    picks = ["round digits", "round 10**7", "import", "pow tower", "attribute", "long text", "deep parens"]
    for fname, edit in _FIELD_EDITS.items():
        bombs = (
            _SIZE_BOMBS
            if fname in ("problem_size", "args.size", "args.value", "args.high", "defines", "metrics")
            else _BOMBS
        )
        for b in picks if fname in ("restrictions", "grid_div_x", "defines") else picks[:3]:
            out.append(Case(f"expr {fname}: {b}", "run", spec=edit(_toml(bombs[b]))))
    for b in ("string repeat", "big constant", "lambda"):
        out.append(Case(f"expr restrictions: {b}", "check", spec=_FIELD_EDITS["restrictions"](_toml(_BOMBS[b]))))

    rng = random.Random(22)
    big = 3 << 20
    kernels = {
        "3 MB of blanks": KERNEL + " " * big,
        "blanks before a non-ASCII letter": KERNEL + " " * big + "é",
        "1 MB word in the parameter list": KERNEL.replace("(", "(" + "a" * (1 << 20) + "!", 1),
        "100k line splices": KERNEL + "\\\n" * 100_000,
        "unclosed comment": KERNEL + "/*" + "x" * 100_000,
        "unclosed raw string": KERNEL + 'R"(' + "y" * 100_000,
        "300k unclosed brackets": KERNEL + "{([" * 100_000,
        "100k __global__": KERNEL + "__global__ " * 100_000,
        "unicode noise": KERNEL + "".join(rng.choice(" \té字\u00a0\u2028x(") for _ in range(1 << 20)),
        "NUL before #include /dev/zero": '\0#include "/dev/zero"\n' + KERNEL,
        "NUL mid-file": KERNEL.replace("{", "{\0", 1),
        "ESC sequence": "// \x1b]52;c;aGk=\x07\n" + KERNEL,
        "DEL byte": KERNEL + "\x7f\n",
        "vertical tab": "\v" + KERNEL,
        "UTF-8 BOM": "\ufeff" + KERNEL,
        "digraph include": '%:include "/etc/hostname"\n' + KERNEL,
        "trigraph include": '??=include "/etc/hostname"\n' + KERNEL,
        "splice in include": '#inc\\\nlude "/etc/hostname"\n' + KERNEL,
        "define to asm": "#define A asm\n" + KERNEL,
        "no kernel": "int x;\n",
        "empty file": "",
    }
    for name, text in kernels.items():
        out.append(Case(f"kernel: {name}", "check", kernel=text))
    out.append(Case("kernel: random bytes", "check", kernel=bytes(rng.getrandbits(8) for _ in range(big))))
    out.append(Case("kernel: 4 MB + 1 byte", "check", kernel=KERNEL + "x" * ((4 << 20) - len(KERNEL) + 1)))
    out.append(Case("kernel: invalid UTF-8", "check", kernel=KERNEL.encode() + b"\xff\xfe"))
    out.append(Case("kernel: NUL run", "run", kernel='\0#include "/dev/zero"\n' + KERNEL))
    out.append(Case("kernel: BOM run", "run", kernel="\ufeff" + KERNEL))

    specs = {
        "5000-deep arrays": "x = " + "[" * 5000 + "]" * 5000 + "\n" + SPEC,
        "3000-deep inline tables": "x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n" + SPEC,
        "40-deep arrays": "x = " + "[" * 40 + "]" * 40 + "\n" + SPEC,
        "2 MB spec": SPEC + "\n# " + "x" * (2 << 20),
        "NUL in spec": SPEC.replace("iterations", "\0iterations"),
        "BOM in spec": "\ufeff" + SPEC,
        "not TOML": "kernel = \n[[[",
        "duplicate key": SPEC + '\nkernel = "vector_add"\n',
        "unknown key": SPEC.replace("iterations = 7", "iterations = 7\nevil = 1"),
        "kernel name with ; after template": _spec('kernel = "vector_add"', 'kernel = "vector_add<float>; import os"'),
        "kernel name template on a plain kernel": _spec('kernel = "vector_add"', 'kernel = "vector_add<float>"'),
        "kernel name with newline": _spec('kernel = "vector_add"', 'kernel = "vector_add\\n#include <x>"'),
        "kernel name unknown": _spec('kernel = "vector_add"', 'kernel = "nope"'),
        "huge tune value": _spec("block_size_x = [32, 64, 128, 256, 512, 1024]", "block_size_x = [32, 1e308]"),
        "400-digit tune value": _spec(
            "block_size_x = [32, 64, 128, 256, 512, 1024]", "block_size_x = [32, " + "9" * 400 + "]"
        ),
        "a million tune values": _spec(
            "block_size_x = [32, 64, 128, 256, 512, 1024]",
            "block_size_x = [" + ", ".join(map(str, range(1, 300_000))) + "]",
        ),
        "tune name with quote": _spec("[tune_params]\n", "[tune_params]\n'a\"b' = [1, 2]\n"),
        "tune value with newline": _spec("[tune_params]\n", '[tune_params]\nt = ["a\\n#include <x>", "b"]\n'),
        "compiler option -Xcompiler": _spec(
            "iterations = 7", 'iterations = 7\ncompiler_options = ["-Xcompiler=-fplugin=/x.so"]'
        ),
        "size 2**62 elements": _spec("n = 16777216", "n = 4611686018427387904"),
        "negative size": _spec("n = 16777216", "n = -5"),
        "nan timeout": _spec("timeout_s = 30.0", "timeout_s = nan"),
        "inf tolerance": _spec("output = true", "output = true\natol = inf"),
        "verify from a module": _spec("iterations = 7", 'iterations = 7\nverify = "os:system"'),
    }
    for name, text in specs.items():
        out.append(Case(f"spec: {name}", "check", spec=text))
    for name in ("5000-deep arrays", "kernel name with ; after template", "kernel name template on a plain kernel"):
        out.append(Case(f"spec run: {name}", "run", spec=specs[name]))

    tampered = {
        "restrictions": {"restrictions": [EVIL]},
        "grid_div_x": {"grid_div_x": [EVIL]},
        "grid_div_z": {"grid_div_z": ["(lambda: 1)()"]},
        "problem_size": {"problem_size": [EVIL]},
        "defines": {"defines": {"X": EVIL}},
        "smem_size": {"smem_size": EVIL},
        "metrics": {"metrics": {"bytes": EVIL}},
        "block_size_names": {"block_size_names": ["x); import os #"]},
        "round bomb": {"restrictions": ["round(block_size_x, -300000000) > 0"]},
        "kernel name": {"kernel": "vector_add<float>; import os"},
        "compiler options": {"compiler_options": ["-ccbin=/bin/sh"]},
        "tune_params value with code": {"tune_params": {"block_size_x": ["__import__('os')"]}},
        "spec_json not JSON": {"raw": "{oops"},
        "spec_json 50000-deep": {"raw": "[" * 50_000 + "]" * 50_000},
        "spec_json a list": {"raw": "[1, 2]"},
    }
    for name, edit in tampered.items():
        out.append(Case(f"db export: {name}", "export", db_edit=edit))
    for name in ("restrictions", "grid_div_x", "round bomb", "spec_json not JSON", "spec_json 50000-deep"):
        out.append(Case(f"db resume: {name}", "resume", db_edit=tampered[name]))
    out.append(Case("db export: NUL in the stored source", "export", source_edit='\0#include "/dev/zero"\n' + KERNEL))
    out.append(Case("db resume: NUL in the stored source", "resume", source_edit='\0#include "/dev/zero"\n' + KERNEL))
    out.append(Case("db sessions: garbage file", "sessions", files={"s.db": b"not a database" * 100}))
    out.append(Case("db sessions: a folder", "sessions", files={"s.db/x": b""}))
    out.append(Case("db export: garbage file", "export", files={"s.db": b"SQLite format 3\0" + b"\xff" * 4000}))
    # issue 36: user modules, damaged references, sizes and settings
    evil = {
        "evilmod.py": "from pathlib import Path\nPath(__file__).with_name('PWNED').touch()\ndef f(s):\n    return [1.0]\n"
    }
    here = ("update sessions set kernel_path = '{dir}/vector_add.cu'",)
    for ref in ("evilmod:f", "os:system"):
        out.append(Case(f"db export: input made by {ref}", "export", db_edit={"function": ref}, files=evil, sql=here))
        out.append(Case(f"db resume: input made by {ref}", "resume", db_edit={"function": ref}, files=evil, sql=here))
    out.append(
        Case(
            "db export: base_dir outside the kernel folder",
            "export",
            db_edit={"function": "evilmod:f", "base_dir": "/tmp"},
        )
    )
    out.append(
        Case(
            "db resume: base_dir outside the kernel folder",
            "resume",
            db_edit={"function": "evilmod:f", "base_dir": "/tmp"},
        )
    )
    nowhere = ("update results set version = 'nosuch'", "update sessions set best_version = 'nosuch'")
    out.append(Case("db export: results name no version", "export", sql=nowhere))
    out.append(
        Case(
            "db sessions: a 100 MB settings value",
            "sessions",
            sql=("update sessions set settings = printf('%.*c', 100000000, 'x')",),
        )
    )
    # issue 36 item 6, the last three: a read-only database, a resume after a reply that failed its
    # format, a tight restriction over 6*10^12 configurations
    for how in ("file", "folder"):
        out.append(Case(f"db sessions: read-only {how}", "sessions", read_only=how, expect=(0,)))
        out.append(Case(f"db export: read-only {how}", "export", read_only=how, expect=(0,)))
        out.append(Case(f"db resume: read-only {how}", "resume", read_only=how, expect=(3,)))
        out.append(Case(f"db run: into a read-only {how}", "run", read_only=how, expect=(3,)))
    replies = json.loads((ROOT / "tests" / "scripted" / "matmul-one-prompt.json").read_text())["replies"]
    out.append(
        Case(
            "db resume: a reply that failed its format, then a server that answers",
            "resume",
            llm=(["no json here"] * 3, replies),
            expect=(0,),
        )
    )
    twelve = [f"p{i}" for i in range(12)]
    for name, rule, ones in (
        ("sum", " + ".join(twelve) + " == 1", twelve[:1]),  # 72 of 6*10^12 meet it: no random draw does
        ("chain", " == ".join(twelve) + " + 1", twelve[:11]),  # 54 meet it: counted exactly
    ):
        out.append(
            Case(
                f"spec run: a tight {name} restriction over 6e12",
                "run",
                spec=_tight(rule, ones),
                extra=("--backend", "none"),
            )
        )
    for pace in ("abc", "1e9"):
        out.append(Case(f"env KT_TUI_SIM_PACE={pace}", "run", env={"KT_TUI_SIM_PACE": pace}))
    for name in ("min", "round", "len"):
        out.append(
            Case(
                f"spec: a tunable named {name}",
                "check",
                spec=_spec("[tune_params]\n", f"[tune_params]\n{name} = [1, 2]\n"),
            )
        )
    return out


def _write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))


def _base_db(folder: Path, env: dict) -> Path:
    """One finished sim session of the example, copied per case."""
    shutil.copy(EXAMPLES / "vector_add.cu", folder / "vector_add.cu")
    db = folder / "base.db"
    subprocess.run(
        _cli(
            "run",
            folder / "vector_add.cu",
            "--spec",
            EXAMPLES / "vector_add.cu.toml",
            "--auto",
            "--backend",
            "sim",
            "--sim-cache",
            EXAMPLES / "recorded",
            "--llm",
            "none",
            "--db",
            db,
        ),
        env=env,
        capture_output=True,
        check=True,
        timeout=300,
    )
    with sqlite3.connect(db) as c:
        c.execute("pragma wal_checkpoint(truncate)")
    return db


def _one_prompt(db: Path, replies: list, env: dict, folder: Path):
    """A one-prompt session of the example matmul in `db`, made against a scripted server that gives
    these replies (scripted, not a model's); the server, still running, for the resume."""
    sys.path.insert(0, str(ROOT))
    from tests.llm_server import MODEL, ScriptedServer

    server = ScriptedServer(list(replies)).start()
    argv = ["run", EXAMPLES / "matmul.cu", "--strategy", "one-prompt", "--auto", "--backend", "sim"]
    argv += ["--sim-cache", ROOT / "sessions" / "caches", "--base-url", server.url, "--model", MODEL, "--db", db]
    subprocess.run(_cli(*argv), env=env, cwd=folder, capture_output=True, timeout=300, check=False)
    return server


def _as_reader(folder: Path, db: Path, how: str, command: list[str], env: dict) -> tuple[list[str], dict]:
    """The database made read-only to the command's user: its file (0444, in a folder that may be
    written) or its folder (0555); as root, whom modes do not bind, the command runs as nobody."""
    home = folder / "home"
    home.mkdir(exist_ok=True)
    home.chmod(0o777)
    db.chmod(0o444 if how == "file" else 0o644)
    folder.chmod(0o777 if how == "file" else 0o555)
    env = dict(env, HOME=str(home), XDG_CONFIG_HOME=f"{home}/config", XDG_DATA_HOME=f"{home}/data")
    env["XDG_CACHE_HOME"], env["KT_TUI_DB"] = f"{home}/cache", f"{home}/default.db"
    if os.geteuid() == 0 and shutil.which("setpriv"):  # Python's user= drops the rights to reach the venv first
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    return command, env


def _cli(*argv) -> list[str]:
    return [sys.executable, "-m", "kt_tui", *map(str, argv)]


def _tamper(db: Path, case: Case) -> None:
    with sqlite3.connect(db) as c:
        rows = c.execute("select session, id, spec_json, source from versions").fetchall()
        for sid, vid, plain, source in rows:
            if case.db_edit is not None:
                edit = dict(case.db_edit)
                function = edit.pop("function", None)
                plain = edit["raw"] if "raw" in edit else json.dumps({**json.loads(plain), **edit})
                if function:  # an input made by the user's Python, beside the kernel unless base_dir says
                    spec = json.loads(plain)
                    spec["base_dir"] = case.db_edit.get("base_dir", str(db.parent))
                    spec["args"][1] = {**spec["args"][1], "init": "function", "function": function}
                    plain = json.dumps(spec)
            if case.source_edit is not None:
                source = case.source_edit
            c.execute(
                "update versions set spec_json = ?, source = ? where session = ? and id = ?", (plain, source, sid, vid)
            )


def run_case(case: Case, base_db: Path, env: dict, timeout: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="kt-bad-") as tmp:
        d = Path(tmp)
        _write(d / "vector_add.cu", case.kernel)
        _write(d / "vector_add.cu.toml", case.spec)
        db = d / "s.db"
        for name, data in case.files.items():
            _write(d / name, data)
        made = case.command in ("export", "resume", "sessions") or case.read_only
        if made and not case.llm and not (set(case.files) & {"s.db", "s.db/x"}):
            shutil.copy(base_db, db)
            _tamper(db, case)
            with sqlite3.connect(db) as c:
                for statement in case.sql:
                    c.execute(statement.replace("{dir}", str(d)))
        common = ["--backend", "sim", "--sim-cache", EXAMPLES / "recorded", "--llm", "none"]
        server = None
        if case.llm:  # a one-prompt session whose reply failed its format, resumed against `server`
            server = _one_prompt(db, case.llm[0], env, d)
            server.script = list(case.llm[1])
            common = ["--backend", "sim", "--sim-cache", ROOT / "sessions" / "caches", "--base-url", server.url]
            common += ["--model", "scripted-model"]
        out = d / "home" / "out" if case.read_only else d / "out"
        argv = {
            "run": ["run", d / "vector_add.cu", "--auto", "--json", *common, "--db", db, *case.extra],
            "check": ["spec", d / "vector_add.cu", "--check"],
            "export": ["export", "--db", db, "--out", out, "--json"],
            "resume": ["resume", "--db", db, "--auto", "--json", *common],
            "sessions": ["sessions", "--db", db, "--json"],
        }[case.command]
        command, run_env = _cli(*argv), {**env, **case.env}
        if case.read_only:
            command, run_env = _as_reader(d, db, case.read_only, command, run_env)
        start = time.monotonic()
        try:
            p = subprocess.run(command, env=run_env, cwd=d, capture_output=True, timeout=timeout, check=False)
            rc, err = p.returncode, p.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            rc, err = None, ""
        finally:
            if server is not None:
                server.stop()
            d.chmod(0o755)
        took = time.monotonic() - start
        pwned = (d / "PWNED").exists()
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith(("Replaying", "run ", "#", "["))]
    message = lines[-1] if lines else ""
    if rc is None:
        verdict = "HANG"
    elif pwned:
        verdict = "RAN CODE"
    elif "Traceback" in err or "internal error" in err:
        verdict = "INTERNAL"
    elif rc not in case.expect:
        verdict = f"EXIT {rc}"
    elif rc != 0 and len([x for x in lines if x.startswith("kt-tui:")]) != 1:
        verdict = "NOT ONE LINE"
    else:
        verdict = "clean"
    return {"case": case.name, "command": case.command, "rc": rc, "message": message, "s": took, "verdict": verdict}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=90)
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory(prefix="kt-bad-home-") as home:
        env.update(
            HOME=home,
            XDG_CONFIG_HOME=f"{home}/config",
            XDG_DATA_HOME=f"{home}/data",
            XDG_CACHE_HOME=f"{home}/cache",
            KT_TUI_DB=f"{home}/default.db",
        )
        env.pop("OPENAI_API_KEY", None)
        base = _base_db(Path(home), env)
        todo = [c for c in cases() if args.only in c.name]
        with ThreadPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(lambda c: run_case(c, base, env, args.timeout), todo))
    width = max(len(r["case"]) for r in rows)
    out = [f"{'case':<{width}}  {'cmd':<8} {'rc':>4} {'time':>7}  {'verdict':<12} message"]
    for r in rows:
        msg = r["message"].replace(str(ROOT), ".")
        msg = msg if len(msg) <= 150 else msg[:147] + "..."
        out.append(f"{r['case']:<{width}}  {r['command']:<8} {r['rc']!s:>4} {r['s']:6.1f}s  {r['verdict']:<12} {msg}")
    bad = [r for r in rows if r["verdict"] != "clean"]
    out.append("")
    out.append(
        f"{len(rows)} cases: {len(rows) - len(bad)} clean, {sum(r['verdict'] == 'INTERNAL' for r in rows)} "
        f"internal errors, {sum(r['verdict'] == 'HANG' for r in rows)} hangs, "
        f"{sum(r['verdict'] == 'RAN CODE' for r in rows)} ran code, {len(bad)} not clean; "
        f"slowest {max(r['s'] for r in rows):.1f} s"
    )
    text = "\n".join(out)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
