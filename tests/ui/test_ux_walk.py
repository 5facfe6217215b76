"""scripts/ux_walk.sh, which the README offers: its Python half (the scripted replies of every
scenario, where a session stands) always, and one walk in tmux at 80x24 where tmux is installed."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys

import pytest

from kt_tui.engine.gates import GATES

from ..conftest import ROOT


def ux_walk():
    spec = importlib.util.spec_from_file_location("ux_walk", ROOT / "scripts" / "ux_walk.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_walks_replies_and_where_a_session_stands(tmp_path):
    walk = ux_walk()
    written = walk.replies(tmp_path / "replies")
    assert [p.stem for p in written] == list(walk.SCENARIOS)
    for path in written:
        data = json.loads(path.read_text())
        assert data["scripted"] is True and data["replies"]
    assert walk.where(str(tmp_path / "none.db")) == "state none"

    from kt_tui.store import Store

    store = Store(tmp_path / "s.db")
    sid = store.create_session(kernel_name="k", strategy="sweep", state="waiting")
    assert walk.where(str(tmp_path / "s.db")) == "state waiting"
    store.open_gate(sid, "sweep:1", "sweep", "Tune k?", {"version": "v0", "total": 6})
    kind, key, auto = walk.where(str(tmp_path / "s.db")).split()[1:]
    assert (kind, key, auto) == ("sweep", "sweep:1", "approve") and kind in GATES


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_ux_walk_sh_walks_a_scripted_session_at_80x24(tmp_path):
    env = {
        **os.environ,
        "SIZES": "80x24",
        "SCENARIOS": "explicit",
        "SETTLE": "0.7",
        "PATIENCE": "120",
        "PYTHON": sys.executable,
    }
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "ux_walk.sh"), str(tmp_path / "walk")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    screens = sorted((tmp_path / "walk" / "80x24" / "explicit").glob("*.txt"))
    kinds = [p.stem.split("-", 1)[1] for p in screens]
    assert "step" in kinds and "kernel" in kinds and "end" in kinds, kinds
    for p in screens:
        if p.stem.split("-", 1)[1] in GATES:
            text = p.read_text()
            assert "Decide:" in text and "SIMULATED" in text, p.name
