"""A tight restriction over a huge space (issue 36, item 6): 6*10^12 configurations of which few meet
the restrictions were counted "about 0" from random draws, and the sweep ran none. A restriction is
split into parts the solver checks as soon as their parameters are set (counted exactly when that
prunes); when no draw meets them the count is a bound, never 0, and the sweep runs what a walk in
order finds, or says plainly that it found none and what to change."""

import pytest

from kt_tui.gpu.protocol import TuneJob
from kt_tui.kernel.spec import Arg, Spec
from kt_tui.search import lazy as lazy_mod
from kt_tui.search import space
from kt_tui.search.lazy import LazySpace
from kt_tui.search.restrictions import SpaceError, parse_expression

from .test_huge_space import sweep_gate, tune_faked

TWELVE = [f"p{i}" for i in range(12)]  # with block_size_x: 6 * 10**12 configurations
SUM_IS_ONE = " + ".join(TWELVE) + " == 1"  # 72 configurations: one p is 1, the others 0


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    """Solves and walks that give up sooner (what they find here they find within these)."""
    monkeypatch.setattr(lazy_mod, "SOLVE_LIMIT", 20_000, raising=False)
    monkeypatch.setattr(lazy_mod, "WALK_LIMIT", 20_000, raising=False)


def spec_of(restrictions: list[str], names: list[str] = TWELVE) -> Spec:
    return Spec(
        kernel="k",
        args=[Arg(name="out", type="float32", size="n", output=True)],
        problem_size=["n"],
        sizes={"n": 4096},
        tune_params={"block_size_x": [32, 64, 128, 256, 512, 1024], **{n: list(range(10)) for n in names}},
        restrictions=restrictions,
    )


@pytest.mark.parametrize(
    "restrictions",
    [
        [" == ".join(TWELVE) + " + 1"],  # one restriction over all twelve, a chain of comparisons
        [
            "p0 >= 1 and "
            + " and ".join(f"{a} == {b}" for a, b in zip(TWELVE[:10], TWELVE[1:11]))
            + " and p10 == p11 + 1"
        ],
    ],
)
def test_a_tight_restriction_over_6e12_configurations_is_counted_exactly(restrictions):
    spec = spec_of(restrictions)
    assert space.space_sizes(spec) == (6 * 10**12, 54, "exact")  # p0 = ... = p10 = p11 + 1 in 1..9
    assert "Tune k (54 configurations, 6000000000000 before restrictions)?" == sweep_gate(spec).title
    lazy = LazySpace(spec)
    assert len(lazy.first(100)) == 54 and all(lazy.contains(c) for c in lazy.first(100))


def test_parts_hold_exactly_when_the_whole_holds():
    from kt_tui.search.restrictions import parts

    for text in [
        "a == 1 and (b < 2 and c > 3)",
        "1 <= a < b <= 4",
        "a in (1, 2) and not b",
        "a or b",
        "x in (1, 2) < y",
    ]:
        whole = parse_expression(text)
        pieces = parts(whole)
        for env in [{"a": a, "b": b, "c": c, "x": a, "y": b} for a in range(5) for b in range(5) for c in (2, 4)]:
            assert whole.holds(env) == all(p.holds(env) for p in pieces), (text, env)
    assert [p.text for p in parts(parse_expression("1 <= a < b <= 4"))] == ["1 <= a", "a < b", "b <= 4"]


def test_when_no_draw_meets_the_restrictions_the_count_is_a_bound_not_zero():
    spec = spec_of([SUM_IS_ONE])
    before, after, how = space.space_sizes(spec)
    assert (before, how) == (6 * 10**12, "fewer than about") and after >= 72  # 72 meet it
    gate = sweep_gate(spec)
    said = f"fewer than about {after} configurations (no random draw met the restrictions), {before} before"
    assert said in gate.title and gate.body["total"] == after


def tune(monkeypatch, spec: Spec, search: str, max_configs: int | None):
    """The app's tuning run over `spec` on a stand-in device, as in test_huge_space.py."""
    calls: list = []
    events: list = []
    job = TuneJob(
        run_id="r",
        source="",
        spec=spec.to_dict(),
        backend="cupy",
        configs=None,
        search=search,
        max_configs=max_configs,
        search_options={"seed": 3},
    )
    info = tune_faked(job, events, calls)
    return [tuple(int(v) for v in k.split(",")) for _, k, _ in calls], events, info


@pytest.mark.parametrize("search", ["kt", "brute_force"])
def test_the_sweep_runs_what_meets_a_restriction_no_draw_met(monkeypatch, search):
    spec = spec_of([SUM_IS_ONE])
    calls, events, _ = tune(monkeypatch, spec, search, max_configs=5)
    lazy = LazySpace(spec)
    assert len(set(calls)) == 5 and all(lazy.contains(c) for c in calls)
    assert ("space", {"total": space.space_sizes(spec)[1]}) in events  # the worker's total is the gate's


def test_a_walk_that_gives_up_ends_the_run_with_what_it_found_and_says_so(monkeypatch):
    spec = spec_of([SUM_IS_ONE])
    calls, _, info = tune(monkeypatch, spec, "brute_force", max_configs=None)
    assert calls and all(LazySpace(spec).contains(c) for c in calls) and not info["stopped"]
    assert f"tried 20000 values after {len(calls)} that do" in info["note"] and "narrow tune_params" in info["note"]


def test_a_walk_that_finds_none_says_so_and_what_to_change(monkeypatch):
    spec = spec_of([" + ".join(TWELVE[:7]) + " == 70"], TWELVE[:7])  # 7 values of at most 9: none
    assert space.space_sizes(spec)[2] == "fewer than about"
    with pytest.raises(SpaceError) as e:
        tune(monkeypatch, spec, "kt", max_configs=5)
    said = str(e.value)
    assert "without finding one that meets the restrictions" in said and "narrow tune_params" in said
