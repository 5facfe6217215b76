"""How a tuning run walks its space: the search, budgets, seeds labelled and weighed, pause and
resume, and the per-run cachefile kernel_tuner itself can open. GPU-free: recorded caches."""

import asyncio
import threading

from kt_tui.config import load_settings
from kt_tui.engine.core import Engine
from kt_tui.engine.events import Decision
from kt_tui.engine.strategies.sweep import parse_search, sweep
from kt_tui.search.options import run_seed
from kt_tui.store import Store

from ..conftest import ROOT
from ..helpers import run_cli
from .test_engine import open_session

SPACES = ROOT / "benchmarks" / "spaces"


def test_a_budget_ends_the_run_as_finished_with_that_many_configs(capsys):
    code, out = run_cli(
        capsys, "run", SPACES / "reduction.cu", "--auto", "--json", "--backend", "sim", "--max-configs", "40"
    )
    assert code == 0 and out["state"] == "finished"
    assert out["results"] == 40 + 1  # the baseline, then the budget


def test_every_kernel_tuner_search_is_budgeted_brute_force_included(capsys):
    for search in ("brute_force", "random_sample", "genetic_algorithm"):
        code, out = run_cli(
            capsys,
            "run",
            SPACES / "convolution.cu",
            "--auto",
            "--json",
            "--backend",
            "sim",
            "--search",
            search,
            "--max-configs",
            "25",
            "--no-seeds",
        )
        assert code == 0, (search, out)
        assert out["results"] <= 26, search


def test_a_time_limit_stops_the_run(capsys, monkeypatch):
    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.05")
    code, out = run_cli(
        capsys, "run", SPACES / "reduction.cu", "--auto", "--json", "--backend", "sim", "--time-limit", "1.5"
    )
    assert code == 0 and out["state"] == "finished"
    assert 3 < out["results"] < 200  # 1.5 s of results 0.05 s apart, not the space's


def test_seed_configs_are_labelled_and_weighed_by_our_search(capsys, hermetic):
    code, out = run_cli(
        capsys, "run", SPACES / "reduction.cu", "--auto", "--json", "--backend", "sim", "--max-configs", "30"
    )
    assert code == 0
    rows = Store(hermetic / "sessions.db").results(out["session"])
    seeded = [r for r in rows if (r.origin or "").startswith("seed: ")]
    assert len(seeded) == 3, "the reduction kernel is 1-D: the warp-multiple block size rule applies"
    tuned = [r.key for r in rows[1:]]  # after the baseline
    # kt, not the worker, orders them: the first seed, then a random pick beside it (the seeds'
    # evidence), and every seed within the first picks (they measure fast here: followed)
    assert tuned[0] == seeded[0].key and tuned[1] not in {r.key for r in seeded}
    assert {r.key for r in seeded} <= set(tuned[:6])


def test_our_search_finds_the_optimum_early_on_a_recorded_space(capsys):
    code, out = run_cli(
        capsys, "run", SPACES / "reduction.cu", "--auto", "--json", "--backend", "sim", "--max-configs", "61"
    )  # 10 % of the space
    assert code == 0
    assert out["best"]["time_ms"] <= 0.039374 * 1.02


def test_pause_holds_between_configs_and_resume_goes_on(hermetic, monkeypatch):
    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.05")
    store = Store(hermetic / "s.db")
    sid, gpu, choice = open_session(store, "reduction")
    counts = {}

    def on_event(e):
        if e.kind == "result" and len(store.results(sid)) == 4 and "paused" not in counts:
            counts["paused"] = True
            engine.pause(True)
            threading.Timer(
                1.5, lambda: (counts.setdefault("held", len(store.results(sid))), engine.pause(False))
            ).start()

    engine = Engine(store, sid, gpu, choice, lambda g: Decision("approve"), on_event, options={"search": "brute_force"})
    assert engine.run(sweep) == "finished"
    gpu.close()
    assert counts["held"] <= 6  # at most the configuration running when the pause came, and its neighbour
    assert len(store.results(sid)) == 25


def test_search_settings_edit_at_the_gate_is_checked():
    assert parse_search("search = 'random_sample'\nmax_configs = 10\n") == {
        "search": "random_sample",
        "max_configs": 10,
    }
    for bad, why in (
        ("search = 'nope'", "unknown"),
        ("max_configs = -1", ">= 0"),
        ("colour = 1", "unknown"),
        ("search = ", "not TOML"),
        ("max_configs = 1e999", "max_configs"),  # inf: the budget that never ends
        ("max_configs = nan", "max_configs"),  # nan < 0 is false: it got through
        ("max_configs = true", "max_configs"),
        ("max_configs = 2.5", "whole number"),
        ("time_limit_s = inf", "time_limit_s"),
        ("time_limit_s = nan", "time_limit_s"),
        ("seeds = 1", "true or false"),
        ("search = 3", "unknown"),
        ("max_configs = " + "9" * 400, None),  # a whole number, however large: no budget to speak of, but no error
    ):
        try:
            parse_search(bad)
        except ValueError as e:
            assert why and why in str(e)
        else:
            assert why is None, bad


def test_an_edited_search_at_the_sweep_gate_is_used(hermetic):
    store = Store(hermetic / "s.db")
    sid, gpu, choice = open_session(store, "reduction")
    decide = lambda g: Decision("edit", "search = 'brute_force'\nmax_configs = 7\nseeds = false\n")  # noqa: E731
    assert Engine(store, sid, gpu, choice, decide).run(sweep) == "finished"
    gpu.close()
    run = store.run(sid, "sweep:1")
    assert run.strategy == "brute_force"
    assert len(store.results(sid)) == 1 + 7


async def test_the_ui_edits_the_search_plots_results_and_pauses(monkeypatch):
    from kt_tui.ui.editors import TextEditScreen
    from kt_tui.ui.plot import TuningPlot

    from ..ui.test_ui import SIZE, Keys, gate_key, new_app, rows, wait_for

    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.1")
    app = new_app(SPACES / "reduction.cu")
    async with app.run_test(size=SIZE) as pilot:
        keys, screen = Keys(pilot), app.screen
        await wait_for(pilot, lambda: gate_key(screen) == "sweep:1")
        assert "Search: kt, heuristic seeds first" in str(screen.query_one("#gate").render())
        await keys.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, TextEditScreen))
        area = app.screen.query_one("TextArea")
        # brute force: its order is fixed. random_sample's is not (kernel_tuner's RNG in the worker is not
        # seeded), and one time in 20 it picks the baseline's configuration, which then is not a new row
        area.text = "search = 'brute_force'\nmax_configs = 30\nseeds = false\n"
        await keys.press("ctrl+s")
        await wait_for(pilot, lambda: len(rows(app)) >= 5)
        await keys.press("p")
        await wait_for(pilot, lambda: screen.paused)
        await asyncio.sleep(0.6)
        held = len(rows(app))
        await asyncio.sleep(1.0)
        assert len(rows(app)) <= held + 1  # paused: at most the configuration that was running
        assert "PAUSED" in str(screen.query_one("#progress").render())
        await keys.press("p")
        await wait_for(pilot, lambda: screen.state == "finished")
        assert len(rows(app)) == 31
        plot = screen.query_one(TuningPlot)
        assert len(plot.times) == 31 and all(t for t in plot.times)  # the baseline, then the run
        assert "⣀" in str(plot.render()) or any(chr(c) in str(plot.render()) for c in range(0x2801, 0x2900))
        await keys.press("q")
    assert Store(load_settings({}).db).run(screen.sid, "sweep:1").strategy == "brute_force"


def test_a_broken_user_rule_file_is_reported_and_tuning_goes_on(capsys, hermetic):
    rules = hermetic / "config" / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    (rules / "mine.toml").write_text("name = 3\n")
    code, out = run_cli(
        capsys, "run", SPACES / "reduction.cu", "--auto", "--json", "--backend", "sim", "--max-configs", "5"
    )
    assert code == 0 and out["results"] == 6
    notes = [e["data"] for e in Store(hermetic / "sessions.db").events(out["session"]) if e["kind"] == "note"]
    assert any("no heuristic seeds" in str(n) and "mine.toml" in str(n) for n in notes)


def test_our_search_is_told_which_rules_picked_each_seed_and_a_seed_of_the_run(hermetic):
    store = Store(hermetic / "s.db")
    sid, gpu, choice = open_session(store, "matmul")
    jobs = []
    real_run = gpu.run

    def run(job, on_event, timeout_s):
        jobs.append(job)
        return real_run(job, on_event, timeout_s)

    gpu.run = run
    engine = Engine(store, sid, gpu, choice, lambda g: Decision("approve"), options={"max_configs": 12})
    try:
        assert engine.run(sweep) == "finished"
    finally:
        gpu.close()
    tune = next(j for j in jobs if getattr(j, "search", None) == "kt" and j.seeds)
    groups = tune.search_options["seed_rules"]  # one per seed: its rules' evidence is weighed together
    assert len(groups) == len(tune.seeds) and all("[" in g and "]" in g for g in groups)
    named = tune.search_options["seed_named"]  # what each seed's rules name: kt sets the rest (issue 40)
    assert len(named) == len(groups) and all(n and set(n) <= set(tune.seeds[0]) for n in named)
    assert all("tile_size_x" in n for n, g in zip(named, groups) if "register-tiling" in g)
    version = store.run(sid, tune.run_id).version
    assert tune.search_options["seed"] == run_seed(f"{version}:{tune.run_id}")  # not drawn afresh in the worker


def test_the_same_run_of_the_same_kernel_walks_the_same_configurations(capsys, hermetic):
    walks = []
    for _ in range(2):
        code, out = run_cli(
            capsys, "run", SPACES / "reduction.cu", "--auto", "--json", "--backend", "sim", "--max-configs", "12"
        )
        assert code == 0
        walks.append([r.key for r in Store(hermetic / "sessions.db").results(out["session"])])
    assert walks[0] == walks[1] and len(set(walks[0])) == 13  # before: the worker drew kt's seed afresh
