"""benchmarks/tui.py --first-frame: `kt-tui resume ID` to its first frame, each run a new process
(imports included), beside a minimal Textual app and `import textual.app` alone; --versus another
checkout, alternating runs."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TUI = Path(__file__).with_name("tui.py")  # its --first-frame-of SID: the first frame in this process's child


# `kt-tui resume ID` as a user starts it, the app run headless, in a new `python -c` process: Textual
# is patched once kt-tui itself imports it (nothing is imported before its main() but this hook), and
# the first frame of the session screen with rows in its table prints: time.time() then, the seconds
# from making the app to it, and the CPU seconds the process spent to it.
CLI_CHILD = r"""
import importlib.machinery, os, sys, time


class AfterImport:
    def find_spec(self, name, path, target=None):
        if name != "textual.app":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            patch(module.App)

        spec.loader.exec_module = exec_module
        return spec


def patch(App):
    made, real_init, real_display, real_run = [], App.__init__, App._display, App.run

    def init(self, *a, **k):
        made.append(time.time())
        real_init(self, *a, **k)

    def display(self, screen, renderable):
        real_display(self, screen, renderable)
        table = next((w for w in screen.walk_children() if type(w).__name__ == "ResultsTable"), None)
        if table is not None and (table.row_count or os.environ.get("KT_BENCH_NO_ROWS")):  # a new session has none
            now, cpu = time.time(), time.process_time()
            print(now, now - made[0], cpu, flush=True)
            os._exit(0)

    App.__init__, App._display = init, display
    App.run = lambda self, **k: real_run(self, headless=True, size=(150, 45))


sys.meta_path.insert(0, AfterImport())
os.environ["KT_TUI_BACKEND"] = "none"  # the engine thread, if it starts, runs nothing
from kt_tui.cli import main
from kt_tui.front import commands

commands.check_terminal = lambda headless: None  # the headless app above stands in for the terminal

main(sys.argv[1:])
"""

# The floor: a Textual app of a header, a line, a table of 40 rows and a footer, to its first frame
# (time.time() then, 0, the CPU seconds spent), and `import textual.app` alone.
MINIMAL_APP = r"""
import os, time
from textual.app import App
from textual.widgets import DataTable, Footer, Header, Static


class Minimal(App):
    def compose(self):
        yield Header()
        yield Static("x" * 50)
        yield DataTable()
        yield Footer()

    def on_mount(self):
        table = self.query_one(DataTable)
        table.add_columns("a", "b", "c", "d")
        for i in range(40):
            table.add_row(i, i * 2, "ok", 1.5 * i)


def display(self, screen, renderable):
    real(self, screen, renderable)
    if screen.query(DataTable) and screen.query_one(DataTable).row_count:
        print(time.time(), 0, time.process_time(), flush=True)
        os._exit(0)


real, App._display = App._display, display
Minimal().run(headless=True, size=(150, 45))
"""
IMPORT_TEXTUAL = "import time, textual.app; print(time.time(), 0, time.process_time())"


def child_env() -> dict:
    """The environment of a measured child process: this one's, but with bytecode caching on. An
    installed kt-tui has its .pyc files (pip writes them); with PYTHONDONTWRITEBYTECODE set, as in some
    sandboxes, every child compiled ~60 of kt-tui's modules from source again: ~480 M instructions,
    ~90 ms of CPU, that no user pays."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def compiled(tree: Path) -> None:
    """tree's kt_tui/ compiled to .pyc files (as pip installs it), before any run is timed."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "kt_tui")], env=child_env(), check=True)


def process_first_frame(sid: str, db: Path, env: dict, cli: bool = False) -> tuple[float, float, float]:
    """From starting a Python process to the session's first frame: the imports a user waits for too;
    in that process, from making the app to that frame; and the CPU it spent to that frame.
    cli: through `kt-tui resume ID`'s main()."""
    if cli:
        return child_first_frame(CLI_CHILD, env, "resume", sid, "--db", str(db))
    return child_first_frame(None, env, "--first-frame-of", sid, "--db", str(db))


def child_first_frame(code: str | None, env: dict, *args: str) -> tuple[float, float, float]:
    """A new process (`python -c code args`, or this file with args): from its start to the time it
    prints, and the two numbers it prints after that time."""
    t0 = time.time()
    out = subprocess.run(
        [sys.executable, *(["-c", code] if code else [str(TUI)]), *args],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    drawn, in_process, cpu = map(float, out.stdout.split()[-3:])
    return drawn - t0, in_process, cpu


def versus(results: int, n: int, other: Path, fill: Callable[[Path, int], str]) -> None:
    """--first-frame N --versus DIR: `kt-tui resume ID`'s first frame from process start, N times with
    this checkout's kt_tui and N times with DIR's (another checkout: its kt_tui/), one of each in
    turn, so that both meet the same load; the wall, the CPU and the load average at each run."""
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(KT_TUI_DATA_DIR=tmp, KT_TUI_CONFIG_DIR=tmp)
        db = Path(tmp) / "big.db"
        sid = fill(db, results)
        got: dict[Path, list[tuple[float, float, float]]] = {ROOT: [], other: []}
        for tree in got:
            compiled(tree)
        for _ in range(n):
            for tree in (other, ROOT):
                load = os.getloadavg()[0]
                t0 = time.time()
                out = subprocess.run(
                    [sys.executable, "-c", CLI_CHILD, "resume", sid, "--db", str(db)],
                    env=child_env(),
                    capture_output=True,
                    text=True,
                    cwd=tree,  # `python -c` imports kt_tui from its working directory first
                    check=True,
                )
                drawn, _, cpu = map(float, out.stdout.split()[-3:])
                got[tree].append((drawn - t0, cpu, load))
    print(
        f"# benchmarks/tui.py --first-frame {n} --versus {other}: {platform.node()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {results} results; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    print(
        "`kt-tui resume ID` to its first frame, from process start; runs alternate between the two checkouts;"
        " both compiled to .pyc first, as installed (child_env)"
    )
    for tree, label in ((other, f"{other}"), (ROOT, "this checkout")):
        walls, cpus, loads = (sorted(r[i] for r in got[tree]) for i in range(3))
        print(f"{label}:")
        print(f"  wall: median {statistics.median(walls):.3f} s, {_spread(walls)}")
        print(f"  CPU:  median {statistics.median(cpus):.3f} s, {_spread(cpus)}")
        print(f"  1-min load average at each start: median {statistics.median(loads):.2f}, {_spread(loads)}")
        ratios = sorted(r[0] / r[1] for r in got[tree])
        print(f"  wall over CPU: median {statistics.median(ratios):.2f}, {_spread(ratios)}")


def first_frames(results: int, n: int, fill: Callable[[Path, int], str]) -> None:
    """--first-frame N: the first frame of a resumed session of `results` results, N times, each in a
    new process: from its start, and from making the app; the load average before and after."""
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(KT_TUI_DATA_DIR=tmp, KT_TUI_CONFIG_DIR=tmp)
        db = Path(tmp) / "big.db"
        sid = fill(db, results)
        compiled(ROOT)
        load_before = Path("/proc/loadavg").read_text().split()[:3]
        runs = [process_first_frame(sid, db, child_env()) for _ in range(n)]
        cli = [process_first_frame(sid, db, child_env(), cli=True) for _ in range(n)]
        floor = [child_first_frame(MINIMAL_APP, child_env()) for _ in range(n)]
        textual_only = [child_first_frame(IMPORT_TEXTUAL, child_env()) for _ in range(n)]
        for name in ("vector_add.cu", "vector_add.cu.toml"):  # `kt-tui KERNEL.cu`: a new session, its screen
            (Path(tmp) / name).write_bytes((ROOT / "examples" / name).read_bytes())
        fresh = dict(child_env(), KT_BENCH_NO_ROWS="1")
        new = [child_first_frame(CLI_CHILD, fresh, str(Path(tmp) / "vector_add.cu")) for _ in range(n)]
        load_after = Path("/proc/loadavg").read_text().split()[:3]
    starts, ins, cpus = (sorted(r[i] for r in runs) for i in range(3))
    cli_starts, cli_ins, cli_cpus = (sorted(r[i] for r in cli) for i in range(3))
    print(
        f"# benchmarks/tui.py --first-frame {n}: {platform.node()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {results} results; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    print(f"load average (1, 5, 15 min) before {' '.join(load_before)}, after {' '.join(load_after)}")
    print(f"first frame from a new process's start: median {statistics.median(starts):.3f} s, {_spread(starts)}")
    print(f"first frame from making the app:        median {statistics.median(ins):.3f} s, {_spread(ins)}")
    print(f"CPU the process spent to it:            median {statistics.median(cpus):.3f} s, {_spread(cpus)}")
    print("the same through `kt-tui resume ID` (its main(), the app run headless):")
    print(
        f"  from a new process's start:           median {statistics.median(cli_starts):.3f} s, {_spread(cli_starts)}"
    )
    print(f"  from making the app:                  median {statistics.median(cli_ins):.3f} s, {_spread(cli_ins)}")
    print(f"  CPU the process spent to it:          median {statistics.median(cli_cpus):.3f} s, {_spread(cli_cpus)}")
    print(
        "  wall over CPU (process start to the frame, each run): "
        + " ".join(f"{r[0] / r[2]:.2f}" for r in cli)
        + f" (median {statistics.median(r[0] / r[2] for r in cli):.2f})"
    )
    walls, cpus_ = sorted(r[0] for r in new), sorted(r[2] for r in new)
    print(
        f"`kt-tui KERNEL.cu` (a new session's screen): from process start median {statistics.median(walls):.3f} s, {_spread(walls)}"
    )
    print(f"  CPU: median {statistics.median(cpus_):.3f} s, {_spread(cpus_)}")
    for label, rows in (
        ("a minimal Textual app (table of 40 rows)", floor),
        ("`import textual.app` alone", textual_only),
    ):
        walls, cpus_ = sorted(r[0] for r in rows), sorted(r[2] for r in rows)
        print(f"the floor, {label}: from process start median {statistics.median(walls):.3f} s, {_spread(walls)}")
        print(f"  CPU: median {statistics.median(cpus_):.3f} s, {_spread(cpus_)}")


def _spread(values: list[float]) -> str:
    return "min {:.3f} max {:.3f} (all: {})".format(min(values), max(values), " ".join(f"{v:.2f}" for v in values))
