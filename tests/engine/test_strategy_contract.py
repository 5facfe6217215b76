"""The strategy contract: strategies see the engine only through StrategyContext, import no sibling
strategy, and ask for what an LLM writes through one ask() (stored answer, manual mode, or the LLM)."""

import ast
import json

import pytest

import kt_tui.front.headless as headless
from kt_tui.engine.context import StrategyContext
from kt_tui.engine.events import Decision
from kt_tui.llm.schemas import ConfigBatch, Plan

from ..conftest import EXAMPLES, ROOT
from ..helpers import run_cli
from ..llm_server import MODEL, ScriptedServer
from .test_autonomous import CACHES, replies
from .test_explicit import _engine

STRATEGIES = ROOT / "kt_tui" / "engine" / "strategies"
ALLOWED = {n for n in dir(StrategyContext) if not n.startswith("_")} | set(StrategyContext.__annotations__)


class OnlyTheContext:
    """The engine as a strategy may see it: a name StrategyContext does not declare is an error."""

    def __init__(self, engine):
        self._engine = engine

    def __getattr__(self, name):
        if name not in ALLOWED:
            raise AssertionError(f"a strategy used engine.{name}, which StrategyContext does not declare")
        return getattr(self._engine, name)


def guarded(strategy):
    return lambda engine: strategy(OnlyTheContext(engine))


def test_strategies_import_no_sibling_strategy_and_fork_on_no_llm_nowhere():
    strategies = {p.stem for p in STRATEGIES.glob("*.py")} - {"__init__", "common", "steps_file"}
    for path in STRATEGIES.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                assert node.module not in strategies, f"{path.name} imports the strategy {node.module}"
            if isinstance(node, ast.Name | ast.alias):
                name = node.id if isinstance(node, ast.Name) else node.name
                assert name not in ("llm_ask", "stored_reply", "is_manual"), f"{path.name} uses {name}"


def test_an_autonomous_session_uses_only_the_context(capsys, monkeypatch):
    original = headless.get_strategy
    monkeypatch.setattr(headless, "get_strategy", lambda name: guarded(original(name)))
    with ScriptedServer(replies("matmul")) as server:
        code, out = run_cli(
            capsys,
            "run",
            EXAMPLES / "matmul.cu",
            "--strategy",
            "autonomous",
            "--auto",
            "--json",
            "--backend",
            "sim",
            "--sim-cache",
            CACHES,
            "--base-url",
            server.url,
            "--model",
            MODEL,
        )
    assert code == 0 and out["state"] == "finished", out
    assert [s["state"] for s in out["steps"]] == ["accepted", "failed", "accepted", "skipped"]


@pytest.mark.parametrize("name", ["explicit", "one-prompt", "autonomous", "sweep"])
def test_manual_sessions_use_only_the_context(tmp_path, name):
    from kt_tui.config import load_settings
    from kt_tui.engine.registry import get_strategy

    steps = tmp_path / "steps.toml"
    steps.write_text('[[step]]\nid = "tile"\ntitle = "Tile"\nprompt = "{kernel_string}"\n')
    seen = []

    def decide(gate):
        seen.append(gate.key)
        if gate.key == "plan":
            return Decision("edit", "1. Unroll the loop")
        return Decision("approve")

    flags = {"backend": "sim", "sim_cache": str(CACHES), "llm": "none", "strategy": name}
    settings = load_settings({**flags, "steps": str(steps)} if name == "explicit" else flags)
    engine, gpu = _engine(settings, EXAMPLES / "matmul.cu", decide)
    try:
        assert engine.run(guarded(get_strategy(name))) == "finished"
    finally:
        gpu.close()
    assert seen[0] in ("start", "sweep:1") and not any(k.startswith("llm:") for k in seen)
    assert engine.store.llm_calls(engine.sid) == []


def test_ask_answers_from_the_store_in_manual_mode_or_opens_the_users_gate(tmp_path):
    from kt_tui.config import load_settings

    settings = load_settings({"backend": "sim", "sim_cache": str(CACHES), "llm": "none"})
    engine, gpu = _engine(settings, EXAMPLES / "matmul.cu", lambda gate: Decision("approve"))
    gpu.close()
    plan = {"steps": [{"title": "Unroll", "description": "by four"}]}
    engine.store.put_llm_result(engine.sid, "plan", plan, json.dumps(plan), by="llm")
    asked = engine.ask("plan", "plan", Plan, without_llm=lambda: None)
    with pytest.raises(StopIteration) as done:
        next(asked)
    assert done.value.value.steps[0].title == "Unroll"  # the stored answer, not the manual one
    with pytest.raises(StopIteration) as done:
        next(engine.ask("replan:1", "replan", Plan, without_llm=lambda: Plan(steps=[])))
    assert done.value.value == Plan(steps=[])
    # no manual stand-in: the user writes the answer at the LLM's gate (no call is made)
    gate = next(engine.ask("configs:1", "propose_configs", ConfigBatch))
    assert gate.kind == "llm_failed" and "manual mode" in gate.title
    assert engine.store.llm_calls(engine.sid) == []


def test_option_changes_from_the_ui_wait_for_a_gate_boundary(tmp_path):
    from kt_tui.config import load_settings
    from kt_tui.engine.gates import SweepGate

    seen = []

    def decide(gate):
        seen.append(dict(engine.options))
        assert engine.change_options({"rounds": 3}) is True  # the engine waits at a gate: applied now
        assert engine.options["rounds"] == 3
        return Decision("approve")

    settings = load_settings({"backend": "sim", "sim_cache": str(CACHES), "llm": "none"})
    engine, gpu = _engine(settings, EXAMPLES / "matmul.cu", decide)
    gpu.close()
    assert engine.change_options({"max_configs": 7}) is False  # the engine is running: held back
    assert engine.options["max_configs"] != 7
    engine.at_gate(SweepGate(key="s", title="t"))
    assert seen[0]["max_configs"] == 7 and engine.options["rounds"] == 3


def test_the_ui_changes_session_state_only_through_the_engine():
    for path in (ROOT / "kt_tui" / "ui").glob("*.py"):
        text = path.read_text()
        for banned in ("update_session(", ".options.update(", ".options[", "add_event("):
            assert banned not in text, f"{path.name} writes session state itself: {banned}"


def test_no_engine_file_is_over_500_lines():
    for path in (ROOT / "kt_tui" / "engine").rglob("*.py"):
        assert len(path.read_text().splitlines()) <= 500, path


def _config(hermetic, text):
    (hermetic / "config").mkdir(exist_ok=True)
    (hermetic / "config" / "config.toml").write_text(text)


def test_a_strategy_table_in_the_config_reaches_the_engine_and_a_flag_wins(hermetic):
    from kt_tui.config import load_settings

    _config(
        hermetic,
        '[strategy]\nname = "autonomous"\n[strategy.autonomous]\nthreshold = 0.5\nmax_replanning = 0\n'
        "[strategy.config-search]\nrounds = 2\n",
    )
    settings = load_settings({"backend": "sim", "sim_cache": str(CACHES), "llm": "none", "max_replanning": 3})
    assert settings.strategy == "autonomous"
    engine, gpu = _engine(settings, EXAMPLES / "matmul.cu", lambda gate: None)
    gpu.close()
    assert engine.options["threshold"] == 0.5 and engine.options["max_replanning"] == 3
    assert "rounds" not in engine.options  # another strategy's table is that strategy's


@pytest.mark.parametrize(
    "table, words",
    [
        ("[strategy.autonomous]\nbudget = 3\n", "strategy.autonomous.budget: unknown option (known: search,"),
        ("[strategy.autonomous]\nthreshold = 'high'\n", "strategy.autonomous.threshold:"),
        ("[strategy.config-search]\nhybrid = 'nope'\n", "strategy.config-search.hybrid: 'nope': unknown search"),
    ],
)
def test_a_bad_strategy_option_is_one_line_and_exit_2(capsys, hermetic, table, words):
    name = "config-search" if "config-search" in table else "autonomous"
    _config(hermetic, f'[strategy]\nname = "{name}"\n{table}')
    code, out = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim")
    assert code == 2 and words in out["error"] and "\n" not in out["error"]


def test_a_plugin_strategy_declares_its_own_options(capsys, hermetic, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "tests" / "plugin"))
    _config(hermetic, '[strategy]\nname = "baseline-only"\n[strategy.baseline-only]\nnote = "from the plugin"\n')
    code, out = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim")
    assert code == 0 and out["strategy"] == "baseline-only"
    from kt_tui.store import Store

    events = Store(hermetic / "sessions.db").events(out["session"])
    assert any(e["kind"] == "note" and e["data"].get("text") == "from the plugin" for e in events), events
    _config(hermetic, '[strategy]\nname = "baseline-only"\n[strategy.baseline-only]\nrepeats = 2\n')
    code, out = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim")
    assert code == 2 and "strategy.baseline-only.repeats: unknown option (known: note)" in out["error"]


def test_the_settings_screen_reads_a_strategys_options_model(monkeypatch):
    from kt_tui.ui.settings_screen import knobs_for

    monkeypatch.syspath_prepend(str(ROOT / "tests" / "plugin"))
    assert [k[0] for k in knobs_for("baseline-only")] == ["note"]  # a plug-in's own Options
    assert {k[0] for k in knobs_for("config-search")} == {"rounds", "batch_size", "plateau_rounds", "space_edits"}
