"""How long each modal of the session screen takes to open, the first time (cold: nothing of it
drawn yet in this process) and the second (warm). Opened in the app itself, headless (Textual's
Pilot), at the sweep gate of a simulated session; the time runs from the key press (or
push_screen) to the modal's first frame drawn. The load average is reported beside the numbers:
on a shared 2-core machine it moves them more than anything. Target (issue 23): <= 300 ms each.

usage: python benchmarks/modals.py [--repeat 2] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def modals(screen):
    """name -> a function that opens it on the session screen (as its key does)."""
    from kt_tui.ui.confirm import AskScreen
    from kt_tui.ui.editors import KernelEditScreen, TextEditScreen
    from kt_tui.ui.export_screen import ExportScreen
    from kt_tui.ui.gate_view import view_for

    code = screen.source
    return {
        "help (?)": screen.action_help,
        "settings (f2)": screen.action_settings,
        "strategy (w)": screen.action_switch_strategy,
        "export (X)": lambda: screen.app.push_screen(ExportScreen(screen.store, screen.sid)),
        "confirm (k off the panel)": lambda: screen.app.push_screen(AskScreen("Skip: this?")),
        "sweep editor (e)": lambda: screen.app.push_screen(view_for(screen.gate).editor(screen.gate)),
        "text editor": lambda: screen.app.push_screen(TextEditScreen("Edit", "1. a step\n", "help")),
        "kernel editor": lambda: screen.app.push_screen(KernelEditScreen(code, {"block_size_x": [32, 64]}, [])),
    }


async def measure(repeat: int) -> list[tuple[str, list[float]]]:
    from kt_tui.config import load_settings
    from kt_tui.front.commands import tui_app
    from kt_tui.front.session import read_kernel_file
    from kt_tui.store import Store

    settings = load_settings({"backend": "sim"})
    app = tui_app(settings, Store(settings.db), kernel_file=read_kernel_file(ROOT / "examples" / "vector_add.cu"))
    out = []
    async with app.run_test(size=(150, 45)) as pilot:
        screen = app.screen
        while not (screen.gate is not None and screen.bridge.waiting):
            await asyncio.sleep(0.05)
        await pilot.pause()
        for name, open_it in modals(screen).items():
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                open_it()
                while app.screen is screen:
                    await asyncio.sleep(0.001)
                drawn = asyncio.Event()
                app.screen.call_after_refresh(drawn.set)  # after the modal's first frame
                await drawn.wait()
                times.append((time.perf_counter() - start) * 1000)
                app.screen.dismiss(None)
                await pilot.pause()
            out.append((name, times))
        await pilot.press("q")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for k, v in {"KT_TUI_CONFIG_DIR": "config", "KT_TUI_DATA_DIR": "data", "KT_TUI_DB": "s.db"}.items():
            os.environ[k] = str(Path(tmp) / v)
        load_before = os.getloadavg()
        rows = asyncio.run(measure(args.repeat))
        load_after = os.getloadavg()
    lines = [
        f"modal open times, ms (first = cold, then warm); {platform.node()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        f"load average before {load_before[0]:.2f} {load_before[1]:.2f}, after {load_after[0]:.2f} {load_after[1]:.2f}",
        "",
    ]
    lines += [f"{name:<28} " + "  ".join(f"{t:7.1f}" for t in times) for name, times in rows]
    worst = max(max(t) for _, t in rows)
    lines += ["", f"slowest: {worst:.1f} ms (target <= 300 ms)"]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
