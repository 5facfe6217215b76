"""The check's child started again after a mutant took it down: the next one is already up."""

import json
import os
import sys
import time
from pathlib import Path

from kt_tui.gpu import checkrun
from kt_tui.gpu import mutants as mutation

# stands in for `python -m kt_tui.gpu.checkrun JOB DIR [--standby]`: the first child starts a
# mutant's run and dies; the others go on from where it stopped and end the test
CHILD = r"""
import json, os, sys, time
job, out = sys.argv[1], sys.argv[2]
log = os.path.join(out, "children.jsonl")
standby = "--standby" in sys.argv
with open(log, "a") as f:
    f.write(json.dumps({"pid": os.getpid(), "standby": standby, "up": time.monotonic()}) + "\n")
if standby and sys.stdin.readline().strip() != "go":
    sys.exit(0)
with open(log, "a") as f:
    f.write(json.dumps({"pid": os.getpid(), "go": time.monotonic()}) + "\n")
token = json.load(open(job))["token"]
first = not os.path.exists(os.path.join(out, "first"))
if first:
    open(os.path.join(out, "first"), "w").close()
    print(f"{MARK} {token} 5 mutant m01 base -", flush=True)
    time.sleep(1.0)
    with open(log, "a") as f:
        f.write(json.dumps({"pid": os.getpid(), "died": time.monotonic()}) + "\n")
    os._exit(3)
print(f"{GPU_DONE} {token}", flush=True)
"""


def _fake(monkeypatch):
    real = checkrun.subprocess.Popen
    script = CHILD.replace("{MARK}", mutation.MARK).replace("{GPU_DONE}", checkrun.GPU_DONE)

    def popen(cmd, **kw):
        return real([sys.executable, "-c", script, *cmd[3:]], **kw)

    monkeypatch.setattr(checkrun.subprocess, "Popen", popen)


def _children(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "children.jsonl").read_text().splitlines()]


def test_a_crash_is_followed_by_the_child_already_up_in_standby(monkeypatch, tmp_path):
    _fake(monkeypatch)
    job = {"runs": [], "mutants": [{"id": "m01", "source": ""}]}
    assert checkrun.run_child(job, tmp_path, 30) == ""
    rows = _children(tmp_path)
    ups = [r for r in rows if "up" in r]
    assert [r["standby"] for r in ups] == [False, True]  # the one that died, the one that went on
    second = ups[1]["pid"]
    went = next(r for r in rows if r.get("pid") == second and "go" in r)
    died = next(r["died"] for r in rows if "died" in r)
    assert ups[1]["up"] < died < went["go"]  # up while the first still ran its mutant, told to go after it died
    records = mutation.read_jsonl(tmp_path / mutation.RECORDS)
    assert records and records[0]["id"] == "m01" and records[0]["killed"]


def test_the_spare_child_is_gone_when_the_test_ends(monkeypatch, tmp_path):
    _fake(monkeypatch)
    (tmp_path / "first").touch()  # no crash: the first child ends the test
    job = {"runs": [], "mutants": [{"id": "m01", "source": ""}]}
    assert checkrun.run_child(job, tmp_path, 30) == ""
    for r in _children(tmp_path):
        if "up" in r:
            try:
                os.kill(r["pid"], 0)
            except ProcessLookupError:
                continue
            time.sleep(0.5)
            os.kill(r["pid"], 0)  # a zombie would be reaped: a live one fails the test below
            raise AssertionError(f"child {r['pid']} still runs")


def test_a_job_without_mutants_starts_no_spare(monkeypatch, tmp_path):
    _fake(monkeypatch)
    (tmp_path / "first").touch()
    assert checkrun.run_child({"runs": []}, tmp_path, 30) == ""
    assert [r["standby"] for r in _children(tmp_path) if "up" in r] == [False]


class _Pool:
    """A compile pool standing in for gpu/compiles.py's: counts what it is asked to compile."""

    def __init__(self):
        self.asked: list[str] = []
        self.options: list[str] = []

    def ahead(self, items):
        from concurrent.futures import Future

        from kt_tui.gpu.compiles import Compiled

        out = {}
        for key, name, _text in items:
            self.asked.append(name)
            f: Future = Future()
            f.set_result(Compiled(binary=f"cubin of {name}".encode(), error=None, ms=1.0, symbol=f"{name}_1"))
            out[key] = f
        return out

    def close(self):
        pass


def test_a_child_started_again_loads_the_binaries_the_one_before_compiled(tmp_path):
    from kt_tui.gpu.device.loaders import Ahead

    keep = tmp_path / "cubins"
    first = Ahead(_Pool(), keep)
    first.add([("k", "__global__ void k() {}"), ("m", "__global__ void m() {}")])
    assert first.binary([], "__global__ void k() {}") == (b"cubin of k", "k_1")
    pool = _Pool()
    again = Ahead(pool, keep)  # the next child: nothing is compiled twice
    again.add([("k", "__global__ void k() {}"), ("m", "__global__ void m() {}"), ("n", "__global__ void n() {}")])
    assert pool.asked == ["n"]
    assert again.binary([], "__global__ void m() {}") == (b"cubin of m", "m_1")  # m never asked for in the first
    (keep / next(p.name for p in keep.glob("*.json"))).write_text("{")  # a torn write: compiled as if absent
    assert sum(again._kept(p.stem) is None for p in keep.glob("*.json")) == 1


def test_a_standby_that_died_before_it_was_needed_gives_way_to_a_fresh_child(monkeypatch, tmp_path):
    real = checkrun.subprocess.Popen
    script = CHILD.replace("{MARK}", mutation.MARK).replace("{GPU_DONE}", checkrun.GPU_DONE)
    dead = "import sys; sys.exit(7)"  # the standby: its imports failed

    def popen(cmd, **kw):
        return real([sys.executable, "-c", dead if "--standby" in cmd else script, *cmd[3:]], **kw)

    monkeypatch.setattr(checkrun.subprocess, "Popen", popen)
    job = {"runs": [], "mutants": [{"id": "m01", "source": ""}]}
    assert checkrun.run_child(job, tmp_path, 30) == ""  # the first crashed; a fresh child ended the test
    assert [r["standby"] for r in _children(tmp_path) if "up" in r] == [False, False]
