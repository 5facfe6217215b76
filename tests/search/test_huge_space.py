"""Spaces of millions of configurations: counted without listing, and a run starts at once (issue 12, item 4)."""

from types import SimpleNamespace

import numpy as np
import pytest
from kernel_tuner import util
from kernel_tuner.searchspace import Searchspace

from kt_tui.engine.strategies.sweep import sweep
from kt_tui.gpu.protocol import TuneJob
from kt_tui.kernel import expr
from kt_tui.kernel.spec import Arg, Spec
from kt_tui.search import lazy as lazy_mod
from kt_tui.search import space
from kt_tui.search.lazy import LazySpace
from kt_tui.search.seeds import seed_configs

# kernel_tuner's convolution example: 3,145,728 configurations before restrictions
CONV = {
    "filter_height": list(range(3, 35, 2)),
    "filter_width": list(range(3, 35, 2)),
    "block_size_x": [16 * i for i in range(1, 9)],
    "block_size_y": [2**i for i in range(6)],
    "tile_size_x": list(range(1, 9)),
    "tile_size_y": list(range(1, 9)),
    "use_padding": [0, 1],
    "read_only": [0, 1],
}
RESTRICT = ["use_padding==0 or (block_size_x % 32 != 0)"]


def conv_spec(tune_params=None) -> Spec:
    return Spec(
        kernel="convolution_kernel",
        args=[Arg(name="out", type="float32", size="n", output=True)],
        problem_size=["n"],
        sizes={"n": 4096},
        tune_params=dict(tune_params or CONV),
        restrictions=list(RESTRICT),
        grid_div_x=["block_size_x", "tile_size_x"],
    )


@pytest.fixture
def holds_calls(monkeypatch):
    calls = {"n": 0}
    real = expr.Expr.holds

    def counting(self, env):
        calls["n"] += 1
        return real(self, env)

    monkeypatch.setattr(expr.Expr, "holds", counting)
    monkeypatch.setattr(space, "_enumerate", lambda key: pytest.fail("the space was listed"))
    return calls


def test_sizes_before_and_after_are_counted_not_listed(holds_calls):
    spec = conv_spec()
    assert space.space_sizes(spec) == (3145728, 1867776, "exact")  # kernel_tuner's Searchspace counts 1867776
    assert space.space_size(spec) == 1867776
    assert holds_calls["n"] < 10_000  # the restrictions were checked on a few groups, not on the product


def sweep_gate(spec: Spec):
    """The sweep's first gate for `spec`."""
    engine = SimpleNamespace(
        original="v1",
        version=lambda vid: ("", spec),
        known=lambda vid: {},
        options={"search": "kt"},
        choice=SimpleNamespace(label=lambda: "sim", backend="sim", gpu="x"),
        sid="s",
        store=SimpleNamespace(session=lambda sid: {"check_state": '{"state": "ok"}'}),
        start_check=lambda: None,  # StrategyContext: the check's strength was tested already
    )
    return next(sweep(engine))


def test_the_sweep_gate_shows_both_sizes(holds_calls):
    gate = sweep_gate(conv_spec())
    assert "1867776 configurations, 3145728 before restrictions" in gate.title
    assert (gate.body["total"], gate.body["total_before"]) == (1867776, 3145728)


def test_lazy_order_is_kernel_tuners_brute_force_order():
    small = conv_spec(tune_params={k: v[:3] for k, v in CONV.items()})
    names = list(small.tune_params)
    kt = Searchspace(small.tune_params, [expr.restriction_function(small.restrictions, names)], 1024)
    mine = LazySpace(small)
    assert list(mine.iter_sorted()) == kt.sorted_list() and mine.size() == kt.size
    sample = mine.sample(np.random.default_rng(1), 500)
    assert len(set(sample)) == 500 and all(kt.is_param_config_valid(c) for c in sample)


def test_an_unsolvable_group_is_estimated(monkeypatch):
    monkeypatch.setattr(lazy_mod, "GROUP_LIMIT", 10)
    monkeypatch.setattr(lazy_mod, "SOLVE_LIMIT", 10)
    before, after, how = space.space_sizes(conv_spec())
    assert before == 3145728 and how == "about" and abs(after - 1867776) / 1867776 < 0.1


def test_seeds_of_a_huge_space_come_from_a_sample(holds_calls):
    seeds = seed_configs(conv_spec(), "__global__ void convolution_kernel(float *out) {}", "")
    lazy = LazySpace(conv_spec())
    assert seeds and all(lazy.contains(tuple(c[n] for n in lazy.names)) for c, _ in seeds)


def faked_gpu(calls: list, at_first=None):
    """A device that times each configuration 1 ms and a little more each time (tests/helpers.py
    fake_device); `at_first()` is called as the first configuration reaches it."""
    from ..helpers import fake_device

    def answer(params):
        if len(calls) == 1 and at_first is not None:
            at_first()
        return {"time": 1.0 + 0.001 * len(calls), "times": [1.0]}

    return fake_device(answer=answer, calls=calls)


def tune_faked(job, events: list, calls: list, at_first=None) -> dict:
    """The app's tuning run of `job` (gpu/tunerun.py) on faked_gpu."""
    from ..helpers import run_tune_job

    return run_tune_job(job, lambda kind, payload: events.append((kind, payload)), device=faked_gpu(calls, at_first))


@pytest.mark.parametrize("search", ["brute_force", "kt"])
def test_a_budgeted_run_starts_without_listing_the_space(monkeypatch, search):
    monkeypatch.setenv("KT_TUI_PREFETCH", "0")
    drawn = {"n": 0}
    real_iter, real_sample = LazySpace.iter_sorted, LazySpace.sample

    def counted_iter(self):
        for c in real_iter(self):
            drawn["n"] += 1
            yield c

    def counted_sample(self, rng, k):
        out = real_sample(self, rng, k)
        drawn["n"] += len(out)
        return out

    monkeypatch.setattr(LazySpace, "iter_sorted", counted_iter)
    monkeypatch.setattr(LazySpace, "sample", counted_sample)
    first_at: list[int] = []
    events: list = []
    calls: list = []
    job = TuneJob(
        run_id="r",
        source="",
        spec=conv_spec().to_dict(),
        backend="cupy",
        cachefile=None,
        configs=None,
        search=search,
        max_configs=20,
        search_options={"seed": 3},
    )
    info = tune_faked(job, events, calls, at_first=lambda: first_at.append(drawn["n"]))
    keys = [k for _, k, _ in calls]
    assert info["evaluated"] == 20 and len(set(keys)) == 20
    lazy = LazySpace(conv_spec())
    assert all(lazy.contains(tuple(int(v) for v in k.split(","))) for k in keys)
    # the first configuration was measured once it and the next were drawn in order (brute force),
    # or the model's sample: never the 1.9 M of the space
    assert first_at[0] <= (3 if search == "brute_force" else 2 + lazy_mod.SAMPLE)
    assert ("space", {"total": 1867776}) in events


def test_a_budgeted_brute_force_over_several_gpus_runs_the_first_configurations_once(holds_calls):
    from ..helpers import fake_device, tuner_on

    calls: list = []
    job = TuneJob(
        run_id="r",
        source="",
        spec=conv_spec().to_dict(),
        backend="cupy",
        configs=None,
        search="brute_force",
        max_configs=20,
    )
    tuner = tuner_on(fake_device("gpu0", calls=calls, pace=0.001), fake_device("gpu1", calls=calls, pace=0.002))
    tuner.run(job, lambda *a: None, 10)
    lazy = LazySpace(conv_spec())
    dealt = [tuple(int(v) for v in k.split(",")) for _, k, _ in calls]
    assert sorted(dealt) == sorted(lazy.first(20)) and {label for label, _, _ in calls} == {"gpu0", "gpu1"}


def test_kernel_tuners_own_strategies_get_one_constraint_per_restriction(monkeypatch):
    from kt_tui.search.lazy import kernel_tuner_restrictions

    small = conv_spec({k: v[:4] for k, v in CONV.items()})
    kt = Searchspace(small.tune_params, kernel_tuner_restrictions(small), 1024)
    names = list(small.tune_params)
    plain = Searchspace(small.tune_params, [expr.restriction_function(small.restrictions, names)], 1024)
    assert sorted(kt.list) == sorted(plain.list) and kt.size == LazySpace(small).size()
    bad = dict(zip(names, (3, 3, 32, 1, 1, 1, 1, 0)))  # padding with a multiple of 32
    assert not util.check_restrictions(kt._modified_restrictions, bad, False)
    assert util.check_restrictions(kt._modified_restrictions, dict(bad, block_size_x=16), False)
    from kt_tui.gpu import tunerun

    seen = {}

    def space(tune_params, restrictions, *a, **k):
        seen.update(restrictions=restrictions)
        return Searchspace(small.tune_params, restrictions, 1024)  # the huge one is not built here

    class Strategy:
        @staticmethod
        def tune(searchspace, runner, tuning_options):
            seen.update(strategy_options=dict(tuning_options.strategy_options))
            return []

    monkeypatch.setattr(tunerun, "Searchspace", space)
    monkeypatch.setattr(tunerun, "search_module", lambda name: Strategy)
    job = TuneJob(
        run_id="r",
        source="",
        spec=conv_spec().to_dict(),
        backend="cupy",
        search="random_sample",
        time_limit_s=5,
        max_configs=30,
    )
    tune_faked(job, [], [])
    assert [type(r).__name__ for r in seen["restrictions"]] == ["ExprConstraint"]
    # kernel_tuner would refuse to start when building the space outlasts the limit: we enforce it
    assert seen["strategy_options"] == {"max_fevals": 30}
