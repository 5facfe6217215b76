"""Issue 25 items 1-2: results are records from the worker to the UI, and the store is read through
records and a session-bound view."""

import ast
import dataclasses
import pickle
import re
from pathlib import Path

import pytest

from kt_tui import records
from kt_tui.records import Check, Result, Run, StoredGate
from kt_tui.store import Store

ROOT = Path(__file__).resolve().parents[2] / "kt_tui"


def test_the_worker_builds_a_result_that_crosses_the_process_boundary_as_it_is():
    from kt_tui.gpu.results import normalize_result

    raw = {"block_size_x": 32, "tile": 2, "time": 1.5, "times": [1.4, 1.6], "kt_correct": 1, "compile_time": 3.0}
    r = normalize_result(raw, ["block_size_x", "tile"], "measured")
    assert isinstance(r, Result) and pickle.loads(pickle.dumps(r)) == r  # what a pipe or Ray does to it
    assert (r.key, r.time_ms, r.times, r.verified, r.status) == ("32,2", 1.5, (1.4, 1.6), True, "ok")
    wrong = normalize_result(dict(raw, kt_correct=0, kt_first_bad="c[3]", kt_max_abs_err=2.0), ["block_size_x"], "x")
    assert (wrong.status, wrong.verified, wrong.key) == ("wrong_result", False, "32") and "c[3]" in wrong.error
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.time_ms = 0.1  # type: ignore[misc]


def test_a_session_view_gives_its_row_and_never_none(tmp_path):
    """SessionStore.session() is typed as a row: a view of a session that is gone says so by name."""
    from kt_tui.store import SessionStore

    store = Store(tmp_path / "s.db")
    sid = store.create_session(kernel_name="k")
    assert SessionStore(store, sid).session()["kernel_name"] == "k"
    with pytest.raises(LookupError, match="no session gone"):
        SessionStore(store, "gone").session()


def test_the_store_gives_records_and_a_session_view_without_session_ids(tmp_path):
    from kt_tui.store import SessionStore

    store = Store(tmp_path / "s.db")
    sid = store.create_session(kernel_name="k")
    data = SessionStore(store, sid)
    data.put_run("r1", version="v", kind="tune", state="finished")
    data.add_result("v", "r1", Result("32", {"b": 32}, "ok", time_ms=2.0, times=(2.0,), verified=True))
    data.add_result("v", "r1", {"key": "64", "params": {"b": 64}, "status": "compile_error", "error": "no"})
    data.add_check("v", {"key": "32", "label": "n=37", "status": "ok", "ok": True, "verdicts": [{"ok": True}]})
    data.open_gate("g", "sweep", "Tune?", {"n": 1})
    data.decide_gate("g", {"choice": "approve"})
    reads = [
        *data.results(),
        *data.iter_results("v"),
        *data.by_time(),
        *data.fastest(5),
        data.result("v", "32"),
        data.known("v")["64"],
    ]
    assert reads and all(type(r) is Result for r in reads)
    best = next(data.by_time("v"))
    assert (best.key, best.version, best.run, best.times, best.params) == ("32", "v", "r1", (2.0,), {"b": 32})
    assert [type(x) for x in (data.run("r1"), *data.runs())] == [Run, Run]
    assert data.run("r1").state == "finished"
    assert [type(x) for x in (data.gate("g"), *data.gates())] == [StoredGate, StoredGate]
    assert data.gate("g").decision == {"choice": "approve"} and data.gate("g").body == {"n": 1}
    (check,) = data.checks("v")
    assert type(check) is Check and (check.ok, check.label, check.verdicts) == (True, "n=37", ({"ok": True},))
    assert data.results() == store.results(sid)  # the same rows as the store's own reads


def test_one_trusted_rule_and_one_config_key():
    from kt_tui.engine import verdict
    from kt_tui.search import space

    assert verdict.trusted is records.trusted
    inline = re.compile(r'",".join\(str\((params|base|config|c)\[')
    spelled = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py") if inline.search(p.read_text())]
    assert spelled == ["records.py"], spelled
    assert space.config_key(type("S", (), {"tune_params": {"a": [1], "b": [2]}})(), {"b": 2, "a": 1}) == "1,2"


def test_records_are_not_subscriptable():
    """The dict bridge is gone: a record is read by attribute only."""
    made = [
        Result("32", {"b": 32}, "ok", time_ms=1.0),
        Run("r1", "v", "tune", "finished"),
        Check("v", "32", "n=37", True, "ok"),
        StoredGate("g", "sweep", "Tune?", "pending"),
        records.Known({"b": 32}, 1.0, "ok"),
    ]
    for r in made:
        name = dataclasses.fields(r)[0].name  # a field it has, read the old way
        with pytest.raises(TypeError):
            r[name]  # type: ignore[index]
        with pytest.raises(TypeError):
            name in r  # type: ignore[operator]  # noqa: B015
        assert not hasattr(r, "get") and getattr(r, name) in ("32", "r1", "v", "g", {"b": 32})


# the names only a record has: a read of one by key is a record read as a dict
RECORD_ONLY = {"time_ms", "verified", "compile_ms", "origin", "worker", "cachefile", "decided"}


def _reads_by_key(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        arg = None
        if isinstance(node, ast.Subscript):
            arg = node.slice
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
        ):
            arg = node.args[0]
        if isinstance(arg, ast.Constant) and arg.value in RECORD_ONLY:
            lines.append(node.lineno)
    return lines


def test_result_fields_are_read_as_attributes_outside_the_store_row_mapping():
    """Every package, strategies included: only store/rows.py maps a row's keys, and front/commands.py
    prints the plain-data JSON summary. Strings (the exported script's text) are not code and not read."""
    assert _reads_by_key(ast.parse('r["time_ms"]; x.get("verified"); "r[\'origin\']"')) == [1, 1]
    allowed = {Path("store/rows.py"), Path("front/commands.py")}
    found = [
        f"{p.relative_to(ROOT)}:{line}"
        for p in sorted(ROOT.rglob("*.py"))
        if p.relative_to(ROOT) not in allowed
        for line in _reads_by_key(ast.parse(p.read_text()))
    ]
    assert found == [], found
    assert any((ROOT / "engine" / "strategies").glob("*.py"))  # the walk reaches the strategies


def test_no_store_module_is_over_500_lines():
    sizes = {p.name: len(p.read_text().splitlines()) for p in (ROOT / "store").glob("*.py")}
    assert max(sizes.values()) < 500, sizes
    for module in ("tuner.py", "tunerun.py", "runner.py", "device/session.py"):  # the tuning run's parts
        assert len((ROOT / "gpu" / module).read_text().splitlines()) < 500, module
