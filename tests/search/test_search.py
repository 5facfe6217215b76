"""kt_tui.search: the space as data, heuristic seeds, our strategy and budgeted brute force."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from kernel_tuner import tune_kernel
from kernel_tuner.searchspace import Searchspace

from kt_tui.kernel.expr import launch_callables, restriction_function
from kt_tui.kernel.spec import load_spec
from kt_tui.search import kt_search
from kt_tui.search.seeds import RuleError, load_rules, parse_rule, seed_configs
from kt_tui.search.space import (
    SpaceEdit,
    SpaceError,
    apply_edit,
    check_configs,
    compile_restriction,
    configurations,
    pattern,
    render,
    space_size,
)

ROOT = Path(__file__).resolve().parents[2]
SPACES = ROOT / "benchmarks" / "spaces"
EXAMPLES = ROOT / "examples"


def spec_of(name: str, where: Path = SPACES):
    return load_spec(where / f"{name}.cu.toml")


def source_of(name: str, where: Path = SPACES) -> str:
    return (where / f"{name}.cu").read_text()


# -- the space -----------------------------------------------------------------------------
@pytest.mark.parametrize("name,size", [("matmul_tiled", 767), ("convolution", 732), ("reduction", 612)])
def test_space_size_matches_kernel_tuner(name, size):
    spec = spec_of(name)
    assert space_size(spec) == size
    ss = Searchspace(dict(spec.tune_params), spec.restrictions, 1024)
    assert set(configurations(spec)) == set(ss.list)


def test_render_names_types_patterns_restrictions_and_sizes():
    text = render(spec_of("matmul_tiled"))
    assert "block_size_x (int, 3 values): [16, 32, 64] -- powers of 2 from 16 to 64; default 16" in text
    assert "2. (block_size_y * tile_size_y + block_size_x * tile_size_x) * tile_k * 4 <= 49152" in text
    assert "thread limit: block_size_x * block_size_y <= 1024" in text
    assert "960 configurations before restrictions, 767 after" in text
    assert "32, then 64 to 1024 step 64" in render(spec_of("reduction"))
    assert pattern([1, 2, 3, 4]) == "1 to 4 step 1"
    assert pattern([12, 24, 48, 96]) == "multiples of 12 from 12 to 96"
    assert pattern(["a", "b", "c"]) == ""


def test_check_configs_gives_a_reason_for_each_problem():
    spec = spec_of("matmul_tiled")
    valid, invalid = check_configs(
        spec,
        [
            {"block_size_x": 32, "block_size_y": 8, "tile_size_x": 2, "tile_size_y": 4, "tile_k": 16},
            {"block_size_x": 32.0, "block_size_y": "8", "tile_size_x": 2, "tile_size_y": 4, "tile_k": 16},
            {"block_size_x": 64, "block_size_y": 4},
            {"block_size_x": 48},
            {"block_size_x": 16, "block_size_y": 2},
            {"block_size_x": 16, "colour": 1},
            {"block_size_x": 16, "block_size_y": 16, "tile_size_x": 1, "tile_size_y": 1, "tile_k": 16},
        ],
        known_keys={"16,16,1,1,16"},
    )
    assert valid[0] == ({"block_size_x": 32, "block_size_y": 8, "tile_size_x": 2, "tile_size_y": 4, "tile_k": 16}, "")
    config, note = valid[1]
    assert config == {"block_size_x": 64, "block_size_y": 4, "tile_size_x": 1, "tile_size_y": 1, "tile_k": 16}
    assert "tile_size_x=1" in note and "filled from the spec's defaults" in note
    reasons = [r for _, r in invalid]
    assert "duplicate of configuration 1" in reasons[0]
    assert reasons[1].startswith("block_size_x=48 is not one of its values [16, 32, 64]")
    assert reasons[2].startswith("violates restriction 1 (64 <= block_size_x * block_size_y <= 1024)")
    assert reasons[3].startswith("unknown parameter 'colour'")
    assert reasons[4] == "already measured"
    assert len(valid) == 2 and len(invalid) == 5


def test_restrictions_are_evaluated_safely():
    for bad in ("__import__('os').system('true')", "().__class__", "[x for x in (1,)]", "open('f')", "2 ** x ** 99"):
        with pytest.raises(SpaceError):
            compile_restriction(bad, ["x"])
    with pytest.raises(SpaceError, match="unknown name 'y'"):
        compile_restriction("x < y", ["x"])
    assert compile_restriction("x % 32 == 0 and min(x, 64) >= 32", ["x"]).holds({"x": 64})
    assert not compile_restriction("x // 0 > 1", ["x"]).holds({"x": 1})


def test_space_edits():
    spec = spec_of("matmul_tiled")
    new = apply_edit(spec, SpaceEdit("add_param", "unroll", [1, 2, 4], default=1))
    assert new.tune_params["unroll"] == [1, 2, 4] and new.defaults["unroll"] == 1
    assert space_size(new) == 3 * 767 and "unroll" not in spec.tune_params
    new = apply_edit(spec, SpaceEdit.from_dict({"kind": "add_values", "param": "tile_k", "values": [64, 2]}))
    assert new.tune_params["tile_k"] == [2, 4, 8, 16, 32, 64]
    new = apply_edit(spec, SpaceEdit("drop_values", "tile_size_x", [8]))
    assert new.tune_params["tile_size_x"] == [1, 2, 4]
    for edit, text in [
        (SpaceEdit("drop_values", "block_size_y", [16]), "block_size_y: cannot drop 16, the default"),
        (SpaceEdit("add_param", "tile_k", [1]), "tile_k: already a parameter"),
        (SpaceEdit("add_param", "unroll", [1, 2], default=3), "unroll: the default 3 must be one of"),
        (SpaceEdit("add_values", "nope", [1]), "nope: no such parameter"),
        (SpaceEdit("add_values", "tile_k", ["big"]), "tile_k: numbers expected"),
        (SpaceEdit("drop_values", "tile_k", [5]), "tile_k: 5 is not one of its values"),
        (SpaceEdit("add_values", "tile_k", []), "tile_k: values must be a non-empty list"),
        (SpaceEdit("rename", "tile_k", [1]), "unknown edit kind"),
    ]:
        with pytest.raises(SpaceError, match=text) as e:
            apply_edit(spec, edit)
        assert e.value.param == edit.param or edit.kind == "rename"


# -- seeds ---------------------------------------------------------------------------------
def test_builtin_rules_load_and_pick_valid_configs():
    names = {r.name for r in load_rules()}
    assert {"block-1d", "block-2d", "register-tiling", "vector-width", "thread-coarsening"} <= names
    for name in ("matmul_tiled", "convolution", "reduction"):
        spec = spec_of(name)
        seeds = seed_configs(spec, source_of(name), "NVIDIA H200")
        assert seeds
        space = set(configurations(spec))
        keys = [tuple(c[n] for n in spec.tune_params) for c, _ in seeds]
        assert len(keys) == len(set(keys)) and set(keys) <= space


def test_rule_eligibility_by_dims_params_source_and_gpu(tmp_path):
    seeds = seed_configs(spec_of("vector_add", EXAMPLES), source_of("vector_add", EXAMPLES), "")
    assert [c["block_size_x"] for c, _ in seeds] == [256, 128, 512]
    assert {label for _, label in seeds} == {"block-1d"}
    labels = {label for _, label in seed_configs(spec_of("matmul_tiled"), source_of("matmul_tiled"), "")}
    assert "block-2d + register-tiling" in labels and not any("block-1d" in x for x in labels)
    reduction = seed_configs(spec_of("reduction"), source_of("reduction"), "")
    assert reduction[0] == (
        {"block_size_x": 256, "items_per_thread": 4, "vector": 4, "use_shuffle": 0},
        "block-1d + thread-coarsening + vector-width",
    )
    (tmp_path / "hopper.toml").write_text(
        'name = "hopper-shuffle"\ndescription = "x"\n'
        '[when]\ngpu = "H[12]00"\nsource_matches = ["__shfl"]\n'
        "[[seeds]]\nuse_shuffle = 1\nblock_size_x = 1024\nlimit = 1\n"
    )
    spec, src = spec_of("reduction"), source_of("reduction")
    assert any(
        label.startswith("hopper-shuffle") or "hopper-shuffle" in label
        for _, label in seed_configs(spec, src, "NVIDIA H200", [tmp_path])
    )
    assert not any("hopper-shuffle" in label for _, label in seed_configs(spec, src, "Tesla V100", [tmp_path]))
    assert not any(
        "hopper-shuffle" in label for _, label in seed_configs(spec, "no shuffles", "NVIDIA H200", [tmp_path])
    )


def test_user_rule_replaces_builtin_and_missing_dir_is_fine(tmp_path):
    (tmp_path / "mine.toml").write_text(
        'name = "block-1d"\ndescription = "mine"\n[when]\ndims = 1\n[[seeds]]\nblock_size_x = 64\n'
    )
    seeds = seed_configs(spec_of("vector_add", EXAMPLES), "", "", [tmp_path, tmp_path / "absent"])
    assert seeds == [({"block_size_x": 64}, "block-1d")]


@pytest.mark.parametrize(
    "text,field",
    [
        (
            'name = "r"\ndescription = "d"\n[[seeds]]\nblock_size_x = { multple_of = 32 }\n',
            "seeds[0].block_size_x.multple_of",
        ),
        ('name = "r"\ndescription = "d"\n[when]\ndims = 4\n[[seeds]]\nx = 1\n', "when.dims"),
        ('name = "r"\ndescription = "d"\n[when]\nsize = 1\n[[seeds]]\nx = 1\n', "when.size"),
        ('name = "r"\n[[seeds]]\nx = 1\n', "description"),
        ('name = "r"\ndescription = "d"\n', "seeds"),
        ('name = "r"\ndescription = "d"\n[[seeds]]\nx = 1\nwhere = "x.__class__"\n', "seeds[0].where"),
        ('name = "r"\ndescription = "d"\n[[seeds]]\nx = 1\nlimit = 0\n', "seeds[0].limit"),
        ('name = "r"\ndescription = "d"\n[when]\nsource_matches = ["("]\n[[seeds]]\nx = 1\n', "when.source_matches"),
    ],
)
def test_bad_rule_files_name_file_and_field(tmp_path, text, field):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(RuleError) as e:
        load_rules([tmp_path])
    assert e.value.field == field and str(path) in str(e.value)
    with pytest.raises(RuleError, match="not valid TOML"):
        parse_rule("name = ", "x.toml")


# -- strategies in kernel_tuner's simulation mode ---------------------------------------------
def simulate(name, where, cache, strat, tmp_path, **options):
    spec = spec_of(name, where)
    data = json.loads(Path(cache).read_text())
    path = tmp_path / "cache.json"
    path.write_text(json.dumps(data))
    ps = spec.problem_size_values()
    np.random.seed(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results, _ = tune_kernel(
            spec.kernel,
            source_of(name, where),
            ps if len(ps) > 1 else ps[0],
            [],
            dict(spec.tune_params),
            **launch_callables(spec),
            restrictions=[restriction_function(spec.restrictions, list(spec.tune_params))]
            if spec.restrictions
            else None,
            simulation_mode=True,
            cache=str(path),
            strategy=strat,
            strategy_options=options,
            quiet=True,
            lang="CUDA",
        )
    return spec, data["cache"], results


def best_time(results):
    return min(t for r in results if (t := kt_search.result_time(r)) is not None)


@pytest.mark.parametrize(
    "name,cache", [("reduction", "reduce_sum-ecd8e7051e842c20"), ("transpose", "transpose-5293e5fb6c69e3f9")]
)
def test_ours_finds_the_optimum_of_small_recorded_spaces(tmp_path, name, cache):
    spec, entries, results = simulate(
        name, EXAMPLES, EXAMPLES / "recorded" / f"{cache}.json", kt_search, tmp_path, seed=3
    )
    optimum = min(e["time"] for e in entries.values() if isinstance(e["time"], float) and e.get("kt_correct") != 0)
    assert best_time(results) == optimum
    keys = [tuple(r[n] for n in spec.tune_params) for r in results]
    assert len(keys) == len(set(keys)) == space_size(spec)  # every configuration once, none twice


def test_ours_respects_max_fevals_seeds_and_wrong_results(tmp_path):
    cache = SPACES / "recorded" / "matmul_tiled-066a8be83f3c46fd.json"
    entries = json.loads(cache.read_text())["cache"]
    wrong = [e for e in entries.values() if e.get("kt_correct") == 0]
    assert len(wrong) == 17 and all(e["time"] < 0.03 for e in wrong)  # bogus-fast: never the best
    seeds = [
        {k: e[k] for k in ("block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "tile_k")} for e in wrong[:3]
    ] + [{"block_size_x": 16, "block_size_y": 16, "tile_size_x": 4, "tile_size_y": 4, "tile_k": 32}]
    rules = ["wrong"] * 3 + ["good"]
    spec, _, results = simulate(
        "matmul_tiled", SPACES, cache, kt_search, tmp_path, max_fevals=30, seeds=seeds, seed_rules=rules, seed=0
    )
    keys = [tuple(r[n] for n in spec.tune_params) for r in results]
    assert len(set(keys)) == 30
    assert keys[0] == tuple(seeds[0].values()) and kt_search.result_time(results[0]) is None
    # the rule whose first pick failed is dropped once random picks stand beside it: its other
    # picks never run; the other rule's pick runs right after those random picks
    assert not {tuple(s.values()) for s in seeds[1:3]} & set(keys)
    assert tuple(seeds[3].values()) in keys[:5]
    assert best_time(results) <= 0.12670171580144338  # the 4th seed is 0.2 % from the optimum


def test_ours_rejects_unknown_options(tmp_path):
    cache = EXAMPLES / "recorded" / "vector_add-94d9d81671be4dab.json"
    with pytest.raises(ValueError, match="unknown strategy option"):
        simulate("vector_add", EXAMPLES, cache, kt_search, tmp_path, popsize=3)


def test_budgeted_brute_force_stops_at_its_budget(tmp_path):
    cache = SPACES / "recorded" / "reduce_sum-30b4e504e39738b1.json"
    spec, _, results = simulate("reduction", SPACES, cache, kt_search.budgeted_brute_force, tmp_path, max_fevals=7)
    ss = Searchspace(dict(spec.tune_params), spec.restrictions, 1024)
    assert [tuple(r[n] for n in spec.tune_params) for r in results] == ss.sorted_list()[:7]
    _, _, results = simulate("reduction", SPACES, cache, kt_search.budgeted_brute_force, tmp_path, time_limit=2.0)
    simulated = sum(r["compile_time"] + r["verification_time"] + r["benchmark_time"] for r in results) / 1000
    # kernel_tuner counts its own start-up (real seconds) against the limit too, so on a loaded
    # machine the run stops somewhat before 2.0 simulated seconds: the budget ends it, not the space
    assert 1.0 <= simulated < 2.5 and len(results) < 40
