"""Issue 21 item 6: one trusted() (engine/verdict.py) in every view, and what accepting a slower
kernel does, said at the gate, in the plan and in the report."""

import math
from pathlib import Path
from types import SimpleNamespace

import pytest

from kt_tui.engine import kernel_step
from kt_tui.engine.core import Engine
from kt_tui.engine.events import Decision
from kt_tui.kernel.spec import load_spec
from kt_tui.records import Result, StoredGate, replace
from kt_tui.store import Store

from .test_outcomes import FakeGpu, real_session


# -- one trusted() -------------------------------------------------------------------------------
def test_every_view_ranks_and_plots_by_trusted():
    from kt_tui.ui.results import _rank
    from kt_tui.ui.session_stored import _plotted

    unverified = Result(key="1", params={}, status="ok", time_ms=1.0, verified=None)
    assert _rank(unverified) == math.inf and _plotted(unverified) is None  # `is not False` let these through
    assert _rank(unverified, True) == 1.0 and _plotted(unverified, True) == 1.0  # the reference itself
    assert _rank(replace(unverified, verified=True)) == 1.0


def test_stored_plot_points_and_the_prompt_take_only_trusted_results(hermetic):
    from kt_tui.engine.strategies.config_search import _prompt_values

    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    engine = Engine(store, sid, FakeGpu(), choice, lambda g: Decision("approve"))
    vid = engine.original
    ok = {"params": {"block_size_x": 64}, "times": [1.0], "status": "ok", "error": None, "source": "measured"}
    store.add_results(
        sid,
        vid,
        "r",
        [
            dict(ok, key="256", time_ms=3.0, params={"block_size_x": 256}, verified=None),  # the reference
            dict(ok, key="64", time_ms=1.0, verified=None),
            dict(ok, key="128", time_ms=2.0, params={"block_size_x": 128}, verified=True),
        ],
    )
    points = {k: t for page in store.plot_pages(sid, reference=(vid, "256")) for _, k, t in zip(*page)}
    assert points == {"256": 3.0, "64": None, "128": 2.0}
    _, spec = engine.version(vid)
    prompt = _prompt_values(engine, vid, "src", spec, 2, 4)
    assert "{'block_size_x': 64}" not in prompt["results"] and "{'block_size_x': 128}" in prompt["results"]


# -- accepting a slower kernel ---------------------------------------------------------------------
_SPEC = load_spec(Path(__file__).resolve().parents[2] / "examples" / "vector_add.cu.toml")


def _accept_engine(best_ms, new_ms):
    steps, accepted = {}, []
    return SimpleNamespace(
        best_ms=best_ms,
        options={"threshold": 0.02},
        choice=SimpleNamespace(simulated=False),
        sid="s",
        data=SimpleNamespace(session=lambda: {}, profiles=lambda: [], gate=lambda key: None, version=lambda vid: None),
        version=lambda vid: (vid, _SPEC),  # the gate says the distance to the limit from the spec's work
        current_best=lambda: "v1",
        best_of=lambda vid: None,
        accepted=accepted,
        confirm_best=lambda vid: Result(
            time_ms=new_ms, params={"b": 1}, key="1", verified=True, status="ok", verdicts=()
        ),
        check_sizes=lambda vid, params: [],
        accept=accepted.append,
        set_step=lambda sid, **f: steps.update({sid: f}),
    ), steps


def test_accepting_a_slower_kernel_says_the_best_stays_and_the_report_says_what_happened():
    from kt_tui.export.report import _gate_md

    engine, steps = _accept_engine(1.0, 2.0)
    gen = kernel_step._accept(engine, "1", "t", "v2")
    gate = next(gen)
    assert gate.effect.startswith(
        "this kernel is slower than the current best (2.0000 ms vs 1.0000 ms): accepting "
        "keeps it in the plan as accepted, but the best stays at 1.0000 ms"
    )
    with pytest.raises(StopIteration):
        gen.send(Decision("approve"))
    assert (
        steps["1"]["state"] == "accepted"
        and "slower than the best (1.0000 ms), which stays the best" in steps["1"]["reason"]
    )
    md = "\n".join(
        _gate_md(
            1,
            StoredGate(
                title=gate.title,
                key="accept:1",
                kind="accept",
                state="decided",
                created="",
                decided="",
                decision={"choice": "approve", "by": "user"},
                body=gate.body,
            ),
        )
    )
    assert "New best" not in md and "Accepted, but slower: the best stays at 1.0000 ms." in md
    faster, _ = _accept_engine(2.0, 1.0)
    assert next(kernel_step._accept(faster, "1", "t", "v2")).effect == "accepting makes it the new best (1.0000 ms)"


def test_help_says_what_accept_does():
    from kt_tui.ui.keys import GATES

    text = dict(GATES)["accept"]
    assert "keeps it as the new best" not in text and "a slower one leaves the best as it is" in text


def test_refreshing_the_best_after_a_wrong_result_takes_the_next_trusted_one(hermetic):
    """refresh_best read each version's fastest trusted record as a dict (`dict(r, ...)`, `r["key"]`):
    with records that raised as soon as one trusted row existed."""
    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    engine = Engine(store, sid, FakeGpu(), choice, lambda g: Decision("approve"))
    vid = engine.original
    ok = {"times": [1.0], "status": "ok", "error": None, "source": "measured", "verified": True}
    store.add_results(
        sid,
        vid,
        "r",
        [
            dict(ok, key="64", time_ms=1.0, params={"block_size_x": 64}),
            dict(ok, key="128", time_ms=2.0, params={"block_size_x": 128}),
        ],
    )
    engine.best_ms, engine.best_key = 1.0, "64"
    store.mark_result(sid, vid, "64", status="wrong_result", verified=False)
    engine.refresh_best()
    assert (engine.best_ms, engine.best_key) == (2.0, "128")
    assert store.session(sid)["best_key"] == "128"


def test_a_kernel_auto_does_not_accept_says_why_in_its_step():
    """Found on an H100 (session 20): a faster kernel's step read only "rejected: 0.3045 ms" where
    --auto had refused it for the check's survivors; the step now says the autopilot's reason."""
    engine, steps = _accept_engine(2.0, 1.0)
    gen = kernel_step._accept(engine, "1", "t", "v2")
    gate = next(gen)
    gate.survivors = "the check catches 9 of 10 wrong variants: a kernel with such a mistake would be kept"
    choice, why = gate.auto()
    with pytest.raises(StopIteration):
        gen.send(Decision(choice, by="policy", why=why))
    assert steps["1"]["state"] == "rejected"
    assert steps["1"]["reason"] == f"1.0000 ms; not accepted: {gate.survivors}"
    engine, steps = _accept_engine(2.0, 1.0)
    gen = kernel_step._accept(engine, "1", "t", "v2")
    next(gen)
    with pytest.raises(StopIteration):
        gen.send(Decision("skip"))  # the user's own reject: the time alone
    assert steps["1"]["reason"] == "1.0000 ms"
