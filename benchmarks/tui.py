"""Does the terminal UI keep up? The app, headless (Textual's Pilot), resumes a session that already
holds N results (100,000 by default) while a fake GPU worker streams new results at a given rate;
keys are pressed while it streams.

Reported: resume to first frame (TUI: from making the app to the first frame drawn of the
session screen with rows in its table, and from starting a new Python process to that frame, imports
included; headless: `kt-tui resume --auto --json` of that session,
whole command), the time until the table is filled and the plot drawn, keys pressed while that
happens (latency, and the longest stall of the UI thread's event loop), key-to-screen latency while
results stream (a key posted to the app to the table's cursor moved, p95), the longest UI-thread
event batch (a frame cannot come sooner), peak RSS, `kt-tui sessions` (on a database that also
holds --sessions other sessions), and the store's write rate (one commit per result, and batched).
Targets (issue 14): key p95 <= 50 ms, no batch over 100 ms, RSS <= 300 MB, resume <= 1 s,
sessions <= 0.3 s, storing >= 20,000 results/s batched.

usage: python benchmarks/tui.py [--first-frame N [--versus DIR]] [--results 100000] [--sessions 300] [--rate 200] [--stream-s 10] [--out DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.tui_first_frame import child_env, compiled, first_frames, process_first_frame, versus  # noqa: E402


class FakeGpu:
    """Stands in for kt_tui.gpu.client.GpuWorker: answers the probe, streams made-up results."""

    def __init__(self, rate: float, seconds: float):
        self.rate, self.seconds = rate, seconds
        self.stop = threading.Event()
        self.streamed = 0

    def probe(self, backends, timeout=0):
        return {"backend": "pycuda", "gpu": "FAKE GPU (benchmarks/tui.py)", "errors": {}}

    def run(self, job, on_event, timeout_s):
        import numpy as np

        from kt_tui.gpu.protocol import CheckJob

        if isinstance(job, CheckJob):
            return {"device": "FAKE", "stopped": False}
        names = list(job.spec["tune_params"])
        if job.configs is not None:
            configs = job.configs
        else:
            total = int(self.rate * self.seconds)
            configs = [{n: 2_000_000 + i for n in names} for i in range(total)]
            on_event("space", {"total": len(configs)})
        t0 = time.perf_counter()
        for i, params in enumerate(configs):
            if self.stop.is_set():
                return {"device": "FAKE", "stopped": True}
            wait = t0 + i / self.rate - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            key = ",".join(str(params[n]) for n in names)
            on_event(
                "result",
                {
                    "key": key,
                    "params": params,
                    "time_ms": 1.0 + (i % 97) / 100,
                    "times": [1.0] * 7,
                    "status": "ok",
                    "error": None,
                    "verified": True,
                    "max_abs_err": 0.0,
                    "first_bad": None,
                    "compile_ms": 10.0,
                    "source": "measured",
                    "timestamp": None,
                },
            )
            self.streamed += 1
        if job.capture_reference:
            on_event("reference", {"c": np.zeros(4, np.float32)})
        return {"device": "FAKE", "stopped": False}

    def request_stop(self):
        self.stop.set()

    def pause(self, on):
        pass

    def close(self):
        self.stop.set()

    shutdown = kill = close


def fill(db: Path, n: int) -> str:
    """A session of vector_add holding n results of its original version."""
    from kt_tui.config import load_settings
    from kt_tui.engine.backend import BackendChoice
    from kt_tui.front.session import load_kernel_spec, new_session, read_kernel_file
    from kt_tui.kernel.spec import version_hash
    from kt_tui.store import Store

    store = Store(db)
    kf = read_kernel_file(ROOT / "examples" / "vector_add.cu")
    _, spec = load_kernel_spec(kf, None, None)
    sid = new_session(store, load_settings({"db": str(db)}), kf, spec, BackendChoice("pycuda", "FAKE GPU"))
    vid = version_hash(kf.source, spec)
    batch = []
    for i in range(n):
        batch.append(
            {
                "key": str(1_000_000 + i),
                "params": {"block_size_x": 1_000_000 + i},
                "time_ms": 1.0 + i % 89,
                "times": [1.0] * 7,
                "status": "ok",
                "verified": True,
                "max_abs_err": 0.0,
                "compile_ms": 10.0,
                "source": "measured",
                "verdicts": [{"output": "c", "ok": True, "max_abs_err": 0.0}],
            }
        )
        if len(batch) == 5000:
            store.add_results(sid, vid, "old", batch)
            batch = []
    if batch:
        store.add_results(sid, vid, "old", batch)
    return sid


def more_sessions(db: Path, n: int) -> None:
    """n small sessions beside the big one, as a database used for a while holds them."""
    from kt_tui.store import Store

    store = Store(db)
    for i in range(n):
        sid = store.create_session(
            kernel_path=f"/home/u/kernels/k{i}.cu",
            kernel_name=f"k{i}",
            strategy="sweep",
            backend="pycuda",
            gpu="FAKE GPU",
            simulated=0,
            state="finished",
            baseline_ms=2.0,
            best_ms=1.0 + i / n,
            settings=json.dumps({"db": str(db)}),
        )
        store.add_results(
            sid,
            "v",
            "r",
            [
                {"key": str(k), "params": {"x": k}, "time_ms": 1.0 + k, "status": "ok", "verified": True}
                for k in range(20)
            ],
        )


def store_rate(tmp: str, repeat: int = 3) -> tuple[float, float]:
    """Results stored per second, one commit each and in batches of 500: the median of `repeat`
    runs, each into a fresh database (one run swings by a third on a shared machine)."""
    from kt_tui.store import Store

    def r(i):
        return {
            "key": str(i),
            "params": {"x": i},
            "status": "ok",
            "time_ms": 1.0,
            "times": [1.0] * 7,
            "verified": True,
            "verdicts": [{"output": "c", "ok": True}],
        }

    singles, batched = [], []
    for k in range(repeat):
        store = Store(Path(tmp) / f"rate{k}.db")
        sid = store.create_session(id="r")
        t0 = time.perf_counter()
        for i in range(3000):
            store.add_result(sid, "v", "r", r(i))
        singles.append(3000 / (time.perf_counter() - t0))
        t0 = time.perf_counter()
        for j in range(0, 30000, 500):
            store.add_results(sid, "v", "r", [r(10_000 + j + i) for i in range(500)])
        batched.append(30000 / (time.perf_counter() - t0))
    return statistics.median(singles), statistics.median(batched)


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Stalls:
    """The longest time the event loop (the UI thread) went without running this task: no key can be
    handled and no frame drawn for that long."""

    def __init__(self) -> None:
        self.longest, self.task = 0.0, None

    async def _watch(self) -> None:
        while True:
            t = time.perf_counter()
            await asyncio.sleep(0.002)
            self.longest = max(self.longest, time.perf_counter() - t - 0.002)

    def __enter__(self):
        self.task = asyncio.get_running_loop().create_task(self._watch())
        return self

    def __exit__(self, *exc) -> None:
        self.task.cancel()


async def drive(sid: str, db: Path, gpu: FakeGpu, keys: int) -> dict:
    from textual.app import App

    from kt_tui.config import load_settings
    from kt_tui.front import commands
    from kt_tui.front.commands import tui_app
    from kt_tui.store import Store
    from kt_tui.ui.plot import TuningPlot
    from kt_tui.ui.session_screen import SessionScreen
    from kt_tui.ui.widgets import ResultsTable

    commands.make_worker = lambda settings, start=False: gpu
    first_frame: list[float] = []
    real_display = App._display

    def display(self, screen, renderable):  # headless, a frame is composed and handed to no terminal
        real_display(self, screen, renderable)
        if not first_frame and isinstance(screen, SessionScreen) and screen.query_one(ResultsTable).row_count:
            first_frame.append(time.perf_counter())

    App._display = display
    batches = []
    real_flush = SessionScreen.on_flush

    def timed_flush(self, message):
        t = time.perf_counter()
        real_flush(self, message)
        batches.append(time.perf_counter() - t)

    SessionScreen.on_flush = timed_flush
    settings = load_settings({"db": str(db)})
    t0 = time.perf_counter()
    app = tui_app(settings, Store(db), resume=sid)
    out: dict = {}
    async with app.run_test(size=(150, 45)) as pilot:
        while not first_frame:
            await asyncio.sleep(0.001)
        screen = app.screen
        out["resume_tui_s"] = first_frame[0] - t0
        table, plot = screen.query_one(ResultsTable), screen.query_one(TuningPlot)

        def loaded() -> bool:
            shown = getattr(table, "shown", table.row_count)  # rows added, and rows added when scrolled to
            return shown >= min(table.MAX_ROWS, table.total) and getattr(plot, "reading", None) is None

        loaded_at: list[float] = []

        async def watch() -> None:
            while not loaded():
                await asyncio.sleep(0.002)
            loaded_at.append(time.perf_counter())

        def settled() -> bool:
            return bool(loaded_at) and time.perf_counter() - first_frame[0] > 2.0

        watching = asyncio.get_running_loop().create_task(watch())
        with Stalls() as stalls:  # keys while the rest of the table and the plot arrive, 2 s at least
            fill_keys = await key_latencies(app, table, 1000, until=settled, pause=0.0, gap=0.02)
        await watching
        out["loaded_s"] = loaded_at[0] - t0
        pages = await page_down(app, table, 60)  # through the table: its rows are added as the view nears them
        out["page_p95_ms"] = 1000 * sorted(pages)[int(0.95 * (len(pages) - 1))]
        out["page_max_ms"] = 1000 * max(pages)
        out["rows_paged"] = table.row_count
        table.move_cursor(row=0)
        out["fill_keys"] = len(fill_keys)
        out["fill_key_p95_ms"] = 1000 * sorted(fill_keys)[int(0.95 * (len(fill_keys) - 1))]
        out["fill_key_max_ms"] = 1000 * max(fill_keys)
        out["fill_stall_ms"] = 1000 * stalls.longest
        out["rows_in_table"] = table.row_count
        while screen.gate is None or not screen.bridge.waiting:  # the baseline runs, then the sweep's gate
            await asyncio.sleep(0.02)
        await pilot.press("s")
        while gpu.streamed < 50:
            await asyncio.sleep(0.02)
        latencies = await key_latencies(app, screen.query_one(ResultsTable), keys)
        streamed_at = (gpu.streamed, time.perf_counter())
        await asyncio.sleep(1.0)
        out["rate_seen"] = (gpu.streamed - streamed_at[0]) / (time.perf_counter() - streamed_at[1])
        out["key_p95_ms"] = 1000 * sorted(latencies)[int(0.95 * (len(latencies) - 1))]
        out["key_median_ms"] = 1000 * statistics.median(latencies)
        out["batch_max_ms"] = 1000 * max(batches)
        out["batch_p95_ms"] = 1000 * sorted(batches)[int(0.95 * (len(batches) - 1))]
        out["rows"] = screen.query_one(ResultsTable).row_count
        gpu.request_stop()
        await pilot.press("q")
    out["rss_peak_mb"] = peak_rss_mb()
    return out


async def key_latencies(app, table, keys: int, until=None, pause: float = 0.2, gap: float = 0.05) -> list[float]:
    """From a key posted to the app to its action done (the table's cursor moved): the UI thread's
    queue in between, nothing else. (Pilot.press waits for the app to go idle, which a stream of
    results delays without end: its time is not the user's.) until: stop early once it is true."""
    from textual import events

    table.focus()
    await asyncio.sleep(pause)
    out = []
    for _i in range(keys):
        if out and until is not None and until():
            break
        before = table.cursor_coordinate
        t = time.perf_counter()
        app.post_message(events.Key("down" if before.row == 0 else "up", None))
        while table.cursor_coordinate == before and time.perf_counter() - t < 10:
            await asyncio.sleep(0.001)
        out.append(time.perf_counter() - t)
        await asyncio.sleep(gap)
    return out


async def page_down(app, table, keys: int) -> list[float]:
    """pagedown, each timed from posted to the cursor moved, until the last row."""
    from textual import events

    out = []
    for _ in range(keys):
        before = table.cursor_coordinate
        t = time.perf_counter()
        app.post_message(events.Key("pagedown", None))
        while table.cursor_coordinate == before and time.perf_counter() - t < 2:
            await asyncio.sleep(0.001)
        if table.cursor_coordinate == before:
            break  # the last row
        out.append(time.perf_counter() - t)
        await asyncio.sleep(0.05)
    return out


async def first_frame_only(sid: str, db: Path) -> tuple[float, float, float]:
    """The first frame of the resumed session, in this process: time.time() when it is drawn, the
    seconds from making the app (imports done) to it, and the CPU seconds this process spent to it."""
    from textual.app import App

    from kt_tui.config import load_settings
    from kt_tui.front import commands
    from kt_tui.front.commands import tui_app
    from kt_tui.store import Store
    from kt_tui.ui.session_screen import SessionScreen
    from kt_tui.ui.widgets import ResultsTable

    gpu = FakeGpu(rate=1, seconds=0)
    commands.make_worker = lambda settings, start=False: gpu
    drawn: list[float] = []
    real_display = App._display

    def display(self, screen, renderable):
        real_display(self, screen, renderable)
        if not drawn and isinstance(screen, SessionScreen) and screen.query_one(ResultsTable).row_count:
            drawn.append(time.time())
            drawn.append(time.process_time())

    App._display = display
    made = time.time()
    app = tui_app(load_settings({"db": str(db)}), Store(db), resume=sid)
    async with app.run_test(size=(150, 45)):
        while not drawn:
            await asyncio.sleep(0.001)
        gpu.request_stop()
        app.exit()
    return drawn[0], drawn[0] - made, drawn[1]


def timed(cmd: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, capture_output=True, cwd=ROOT)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", type=int, default=100_000)
    ap.add_argument("--rate", type=float, default=200.0, help="results per second from the fake GPU worker")
    ap.add_argument("--stream-s", type=float, default=30.0, help="how long the fake run lasts at most")
    ap.add_argument("--keys", type=int, default=40)
    ap.add_argument("--sessions", type=int, default=300, help="other sessions in the database, for `kt-tui sessions`")
    ap.add_argument("--out")
    ap.add_argument(
        "--first-frame",
        type=int,
        metavar="N",
        help="only the first frame, from N new processes' start and in them (from making the app), one after the other",
    )
    ap.add_argument(
        "--versus",
        metavar="DIR",
        help="with --first-frame: `kt-tui resume ID` alternately with this checkout and DIR's (e.g. old main)",
    )
    ap.add_argument("--first-frame-of", help=argparse.SUPPRESS)  # a session id: the child of process_first_frame
    ap.add_argument("--db", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.first_frame_of:
        print(*asyncio.run(first_frame_only(a.first_frame_of, Path(a.db))))
        return
    if a.first_frame and a.versus:
        versus(a.results, a.first_frame, Path(a.versus).resolve(), fill)
        return
    if a.first_frame:
        first_frames(a.results, a.first_frame, fill)
        return
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(KT_TUI_DATA_DIR=tmp, KT_TUI_CONFIG_DIR=tmp)
        db = Path(tmp) / "big.db"
        t0 = time.perf_counter()
        sid = fill(db, a.results)
        fill_s = time.perf_counter() - t0
        more_sessions(db, a.sessions)
        env = child_env()
        compiled(ROOT)
        kt = [sys.executable, "-m", "kt_tui"]
        sessions_s = statistics.median(timed([*kt, "sessions", "--db", str(db)], env) for _ in range(3))
        single, batched = store_rate(tmp)
        process_s = statistics.median(process_first_frame(sid, db, env)[0] for _ in range(3))
        rss_before = peak_rss_mb()
        gpu = FakeGpu(a.rate, a.stream_s)
        got = asyncio.run(drive(sid, db, gpu, a.keys))
        # headless: the session now waits at its next gate or is finished; resume it to the end
        resume_headless = timed([*kt, "resume", sid, "--auto", "--json", "--db", str(db), "--backend", "sim"], env)
    rows = [
        ("results in the session", a.results, "", ""),
        ("resume, TUI: first frame of the session screen", got["resume_tui_s"], "s", "<= 1"),
        ("  the same from a new process's start (median of 3)", process_s, "s", "<= 1"),
        ("resume, TUI: table filled and plot drawn", got["loaded_s"], "s", ""),
        (f"  key while they fill in, p95 ({got['fill_keys']} keys)", got["fill_key_p95_ms"], "ms", "<= 50"),
        ("  key while they fill in, slowest", got["fill_key_max_ms"], "ms", ""),
        ("  longest UI-thread stall while they fill in", got["fill_stall_ms"], "ms", "<= 100"),
        (f"pagedown to the table's last row, p95 ({got['rows_paged']} rows)", got["page_p95_ms"], "ms", "<= 50"),
        ("  pagedown, slowest", got["page_max_ms"], "ms", ""),
        ("resume, headless: whole `resume --auto` command", resume_headless, "s", "<= 1"),
        ("key to handled, p95", got["key_p95_ms"], "ms", "<= 50"),
        ("key to handled, median", got["key_median_ms"], "ms", ""),
        ("longest UI event batch", got["batch_max_ms"], "ms", "<= 100"),
        ("UI event batch, p95", got["batch_p95_ms"], "ms", ""),
        ("results/s streamed while keys were pressed", got["rate_seen"], "/s", f">= {a.rate:.0f} asked"),
        ("peak RSS (this process: app + engine)", got["rss_peak_mb"], "MB", "<= 300"),
        ("  of which before the app started", rss_before, "MB", ""),
        (f"`kt-tui sessions` ({a.sessions + 1} sessions)", sessions_s, "s", "<= 0.3"),
        ("store: one commit per result (median of 3)", single, "/s", ""),
        ("store: batches of 500 (median of 3)", batched, "/s", ">= 20000"),
        ("filling the session (batches of 5000)", a.results / fill_s, "/s", ""),
    ]
    head = (
        f"# benchmarks/tui.py: {platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"load {os.getloadavg()[0]:.1f}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    lines = [head] + [f"{name:48} {v:12.3f} {unit:3} {target}" for name, v, unit, target in rows]
    print("\n".join(lines))
    if a.out:
        Path(a.out).mkdir(parents=True, exist_ok=True)
        (Path(a.out) / "tui.txt").write_text("\n".join(lines) + "\n")
        (Path(a.out) / "tui.json").write_text(json.dumps(got, indent=1))


if __name__ == "__main__":
    main()
