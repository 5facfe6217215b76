"""tests/corpus (issue 21): every kernel has a hand spec and a truth file, every hand spec passes the
static part of `kt-tui spec --check` and is in bounds by its truth at its default and check sizes,
and the judge of benchmarks/drafts.py catches what is wrong. The drafter's quality is not asserted
here: it is the benchmark's figure."""

import dataclasses
import importlib.util
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from kt_tui.kernel.source import find_kernels
from kt_tui.kernel.spec import load_spec, parse_spec

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
NAMES = sorted(p.stem for p in CORPUS.glob("*.cu"))


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


judge = _load("corpus_judge", ROOT / "benchmarks" / "corpus_judge.py")
drafts = _load("drafts_bench", ROOT / "benchmarks" / "drafts.py")
gen = _load("corpus_gen", CORPUS / "specs" / "gen.py")
gen3 = _load("corpus_gen3", CORPUS / "specs" / "gen3.py")
gen4 = _load("corpus_gen4", CORPUS / "specs" / "gen4.py")
gen6 = _load("corpus_gen6", CORPUS / "specs" / "gen6.py")
gen7 = _load("corpus_gen7", CORPUS / "specs" / "gen7.py")
gen17 = _load("corpus_gen17", CORPUS / "specs" / "gen17.py")
gen18 = _load("corpus_gen18", CORPUS / "specs" / "gen18.py")
gen19 = _load("corpus_gen19", CORPUS / "specs" / "gen19.py")
gen22 = _load("corpus_gen22", CORPUS / "specs" / "gen22.py")
gen25 = _load("corpus_gen25", CORPUS / "specs" / "gen25.py")
gen26 = _load("corpus_gen26", CORPUS / "specs" / "gen26.py")
gen27 = _load("corpus_gen27", CORPUS / "specs" / "gen27.py")
gen29 = _load("corpus_gen29", CORPUS / "specs" / "gen29.py")
gen30 = _load("corpus_gen30", CORPUS / "specs" / "gen30.py")
gen31 = _load("corpus_gen31", CORPUS / "specs" / "gen31.py")
FUNCTIONS = {  # the hand specs' own inputs, trusted here
    "gen:csr_row_ptr": gen.csr_row_ptr,
    "gen3:csr_row_ptr_varied": gen3.csr_row_ptr_varied,
    "gen4:bag_offsets": gen4.bag_offsets,
    "gen6:slot_mapping": gen6.slot_mapping,
    "gen6:edge_mask": gen6.edge_mask,
    "gen7:data_points": gen7.data_points,
    "gen7:random_points": gen7.random_points,
    "gen17:tile_ranges": gen17.tile_ranges,
    "gen18:mel_edges": gen18.mel_edges,
    "gen19:sph_cell_ranges": gen19.sph_cell_ranges,
    "gen19:trsv_row_ptr": gen19.trsv_row_ptr,
    "gen19:trsv_col_idx": gen19.trsv_col_idx,
    "gen19:trsv_level_rows": gen19.trsv_level_rows,
    "gen22:unique_rows": gen22.unique_rows,
    "gen25:sorted_keys": gen25.sorted_keys,
    "gen26:kalman_cov": gen26.kalman_cov,
    "gen26:leaf_starts": gen26.leaf_starts,
    "gen27:band_lower": gen27.band_lower,
    "gen29:csr_row_ptr": gen29.csr_row_ptr,
    "gen29:csr_cols": gen29.csr_cols,
    "gen29:edge_src": gen29.edge_src,
    "gen29:edge_dst": gen29.edge_dst,
    "gen30:jacobi_row_ptr": gen30.jacobi_row_ptr,
    "gen30:jacobi_cols": gen30.jacobi_cols,
    "gen30:seg_begin": gen30.seg_begin,
    "gen30:seg_end": gen30.seg_end,
    "gen31:read_bases": gen31.read_bases,
    "gen31:sk_power": gen31.sk_power,
}


def _hand(name: str):
    src = (CORPUS / f"{name}.cu").read_text()
    kernel = find_kernels(src)[0]
    spec = load_spec(CORPUS / "specs" / f"{name}.cu.toml", kernel)
    return src, kernel, spec, judge.load_truth(CORPUS / "truth" / f"{name}.toml")


def test_every_kernel_has_a_spec_a_truth_and_a_source_line():
    assert len(NAMES) >= 32
    assert sorted(p.name.removesuffix(".cu.toml") for p in (CORPUS / "specs").glob("*.cu.toml")) == NAMES
    assert sorted(p.stem for p in (CORPUS / "truth").glob("*.toml")) == NAMES
    assert not list(CORPUS.glob("*.cu.toml"))  # no spec beside a kernel: `kt-tui spec` must not find one
    for name in NAMES:
        first = (CORPUS / f"{name}.cu").read_text().splitlines()[0]
        assert first.startswith("// shape modelled on: ") and "written from scratch for kt-tui's corpus" in first, name
    truths = [judge.load_truth(CORPUS / "truth" / f"{n}.toml") for n in NAMES]
    assert sum(t.unseen for t in truths) == 12
    assert sum(t.tuning == 35 for t in truths) == 26  # issue 35's tuning set: seen, not held out
    assert not any(t.tuning and t.heldout for t in truths)
    batches = Counter(t.heldout for t in truths)
    # held out, per batch
    sizes = [8, 6, 12, 12, 12, 10, 12, 12, 12, 12, 10, 12] + [10] * 19  # batches 13 to 31: 10 each
    assert [batches[b] for b in range(1, 32)] == sizes


@pytest.mark.parametrize("name", NAMES)
def test_hand_spec_passes_the_static_check_and_is_in_bounds_by_its_truth(name):
    src, kernel, spec, truth = _hand(name)
    pointers = {p.name for p in kernel.params if p.is_pointer}
    assert set(truth.extents) == pointers and set(truth.index) | set(truth.values) <= pointers
    assert set(truth.scalars) | set(truth.spans) <= {p.name for p in kernel.params} - pointers
    assert set(truth.outputs) <= pointers and len(truth.domain) == truth.axes
    assert len(judge.points(spec)) >= 1
    problems = judge.judge(spec, kernel, src, truth, FUNCTIONS)
    assert problems == {"sizes": [], "outputs": [], "geometry": [], "scalars": []}


def _swap(spec, name: str, **changes):
    spec = dataclasses.replace(
        spec, args=[dataclasses.replace(a, **changes) if a.name == name else a for a in spec.args]
    )
    return spec


def test_the_judge_catches_short_arrays_wrong_outputs_values_geometry_and_scalars():
    src, kernel, spec, truth = _hand("particles_aos")
    assert judge.judge(_swap(spec, "pos", size="npart"), kernel, src, truth)["sizes"][0].startswith(
        "pos: 200000 < 600000"
    )
    assert judge.judge(_swap(spec, "vel", output=True), kernel, src, truth)["outputs"]
    assert judge.judge(_swap(spec, "dt", value=0.0), kernel, src, truth)["scalars"]

    src, kernel, spec, truth = _hand("life_step")
    assert (
        "cells: values [0, 512), want [0, 2)"
        in judge.judge(_swap(spec, "cells", high="width"), kernel, src, truth)["sizes"]
    )
    assert judge.judge(_swap(spec, "cells", init="zeros"), kernel, src, truth)["sizes"]  # all dead: nothing to check

    src, kernel, spec, truth = _hand("matmul_square")  # a second size axis invented: ny
    two = dataclasses.replace(spec, sizes={"dim": 512, "ny": 500}, problem_size=["dim", "ny"])
    assert any("grid y" in p for p in judge.judge(two, kernel, src, truth)["geometry"])

    src, kernel, spec, truth = _hand("gather")  # map's values past src
    assert judge.judge(_swap(spec, "map", high="n"), kernel, src, truth)["sizes"]
    src, kernel, spec, truth = _hand("spmv_csr")  # a draft's function is never called: unknown values
    assert "unknown (init = function)" in judge.judge(spec, kernel, src, truth)["sizes"][0]

    src, kernel, spec, truth = _hand("layernorm_rows")  # one block per row: a grid of N / 128 blocks is short
    blocks = dataclasses.replace(spec, grid_div_x=None)
    assert judge.judge(blocks, kernel, src, truth)["geometry"]


def test_the_judge_catches_swappable_sizes_narrow_bytes_and_idle_threads():
    src, kernel, spec, truth = _hand("conv2d_filter_args")  # fw = fh: the filter's axes swapped would pass
    square = dataclasses.replace(spec, sizes={**spec.sizes, "fh": spec.sizes["fw"]})
    assert (
        "fw = fh at every size: a kernel that swaps them passes" in judge.judge(square, kernel, src, truth)["scalars"]
    )

    src, kernel, spec, truth = _hand("histogram_shared_u8")  # bytes below 100: char and unsigned char agree
    assert (
        "buffer: values [0, 100), want all of [0, 255)"
        in judge.judge(_swap(spec, "buffer", high=100), kernel, src, truth)["sizes"]
    )

    src, kernel, spec, truth = _hand("downsample_box")  # a thread per input pixel: 15 of 16 idle
    wide = dataclasses.replace(spec, problem_size=["width", "height"])
    assert any("most idle" in p for p in judge.judge(wide, kernel, src, truth)["geometry"])
    src, kernel, spec, truth = _hand("row_max_block")  # a block per element, not per row
    assert any(
        "most idle" in p
        for p in judge.judge(dataclasses.replace(spec, problem_size=["N * C"]), kernel, src, truth)["geometry"]
    )


def test_the_judge_catches_dynamic_shared_memory_short_of_what_the_kernel_reaches():
    src, kernel, spec, truth = _hand("poly_eval_smem")  # c holds ncoef floats
    assert judge.judge(spec, kernel, src, truth)["sizes"] == []
    short = dataclasses.replace(spec, smem_size="2 * ncoef")
    assert "smem_size: 18 bytes < 36" in judge.judge(short, kernel, src, truth)["sizes"]
    assert (
        "smem_size: 0 bytes < 36" in judge.judge(dataclasses.replace(spec, smem_size=None), kernel, src, truth)["sizes"]
    )


def test_check_sizes_are_judged_too():
    src, kernel, spec, truth = _hand("transpose_naive")  # right at the default sizes, short at the checks
    spec = _swap(spec, "in", size=700000)
    spec = _swap(spec, "out", size=700000)
    assert judge.judge(spec, kernel, src, truth)["sizes"] == []
    grown = dataclasses.replace(spec, verify_sizes=[{"rows": 1001}])
    assert judge.judge(grown, kernel, src, truth)["sizes"] == [
        "out: 700000 < 700700 at rows=1001",
        "in: 700000 < 700700 at rows=1001",
    ]


def test_safe_eval_takes_arithmetic_and_names_only():
    assert judge.safe_eval("(w + 2) * (h + 2) // 3 - min(a, 4) % 3", {"w": 1, "h": 1, "a": 5}) == 2
    for bad in ("__import__('os')", "x.real", "[1][0]", "2 ** 8", "lambda: 1", "f(1)"):
        with pytest.raises(judge.JudgeError):
            judge.safe_eval(bad, {"x": 1, "f": 1})
    assert judge.source_defines("#define A 4\n#define B (2 * A + 1)\n#define F(x) x\n#define S 16u // c\n") == {
        "A": 4,
        "B": 9,
        "S": 16,
    }


def test_a_failed_draft_is_a_row_that_says_why(tmp_path, monkeypatch, capsys):
    def failing(kt, args, timeout, cwd):
        return subprocess.CompletedProcess(args, 2, "", "kt-tui: something is wrong\n")

    monkeypatch.setattr(drafts, "kt_tui", failing)
    assert drafts.main(["scale_offset", "gather", "--json", str(tmp_path / "rows.json")]) == 0
    out = capsys.readouterr().out
    assert "draft: exit 2: kt-tui: something is wrong" in out
    assert "2 kernels, 0 fully right (0 %)" in out and "drafts failed 2" in out


def test_a_right_draft_is_fully_right(tmp_path, monkeypatch, capsys):
    def hand_draft(kt, args, timeout, cwd):  # the "drafter" writes the hand spec
        name = args[1]
        (cwd / f"{name}.toml").write_text((CORPUS / "specs" / f"{name}.toml").read_text())
        return subprocess.CompletedProcess(args, 0, "", "")

    monkeypatch.setattr(drafts, "kt_tui", hand_draft)
    assert drafts.main(["mandelbrot", "heat_stencil"]) == 0
    assert "2 kernels, 2 fully right (100 %)" in capsys.readouterr().out


def test_unknown_kernel_name_exits_2(capsys):
    assert drafts.main(["no_such_kernel"]) == 2


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("KT_TUI_CORPUS_COMPILE"), reason="nvcc compiles: set KT_TUI_CORPUS_COMPILE=1")
@pytest.mark.parametrize("name", NAMES)
def test_hand_spec_compiles(name):
    from kt_tui.engine.precheck import compile_spec

    src, _kernel, spec, _truth = _hand(name)
    assert compile_spec(src, spec).ok


def test_hand_specs_parse_from_text_as_drafts_do():
    kernel = _hand("bitonic_step")[1]
    text = (CORPUS / "specs" / "bitonic_step.cu.toml").read_text()
    again = parse_spec(text, kernel)
    assert [label for label, _ in judge.points(again)] == ["default", "n=4096", "n=1024"]


def _drafted_short(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """A stand-in `kt-tui spec NAME` that writes the hand spec with pos sized npart: out of bounds by the truth."""
    name = args[1]
    text = (CORPUS / "specs" / f"{name}.toml").read_text().replace('size = "3 * npart"', 'size = "npart"')
    (cwd / f"{name}.toml").write_text(text)
    return subprocess.CompletedProcess(args, 0, "", "")


def test_gpu_mode_reports_what_the_check_flagged(tmp_path, monkeypatch, capsys):
    def fake(kt, args, timeout, cwd):
        if "--check" not in args:
            return _drafted_short(args, cwd)
        return subprocess.CompletedProcess(args, 2, "", "kt-tui: pos: out of bounds at npart=200000, index 200001\n")

    monkeypatch.setattr(drafts, "kt_tui", fake)
    assert drafts.main(["particles_aos", "--gpu", "--json", str(tmp_path / "rows.json")]) == 0
    out = capsys.readouterr().out
    assert "| particles_aos | unseen | NO | yes | yes | yes | 0 | NO | 2 | yes | NO |" in out
    assert "GPU: 1 drafts with sizes wrong by the truth, 0 of them passed --check unflagged" in out


def test_gpu_mode_counts_a_check_that_ran_too_few_mutants_as_flagged(tmp_path, monkeypatch, capsys):
    def fake(kt, args, timeout, cwd):
        if "--check" not in args:
            return _drafted_short(args, cwd)
        said = "the check catches 7 of 7 wrong variants; TOO FEW RUN: the check ran 7 of 29 wrong variants in its 5 s"
        return subprocess.CompletedProcess(args, 0, said + "\n", "")

    monkeypatch.setattr(drafts, "kt_tui", fake)
    assert drafts.main(["particles_aos", "--gpu"]) == 0
    out = capsys.readouterr().out
    assert "| 0 | NO | NO | NO | yes | 7/7 |" in out
    assert "GPU: 1 drafts wrong by the truth, 0 of them passed --check with no flag" in out


def test_gpu_mode_compares_a_wrong_drafts_mutation_score_with_the_hand_specs(tmp_path, monkeypatch, capsys):
    def fake(kt, args, timeout, cwd):
        if "--check" not in args:
            return _drafted_short(args, cwd)
        hand = "3 * npart" in (cwd / f"{args[1]}.toml").read_text()
        said = "the check catches 20 of 20 wrong variants" if hand else "the check catches 15 of 20 wrong variants"
        return subprocess.CompletedProcess(args, 0, f"{said}; these 5 survive: ...\n", "")

    monkeypatch.setattr(drafts, "kt_tui", fake)
    assert drafts.main(["particles_aos", "--gpu", "--hand"]) == 0
    out = capsys.readouterr().out
    assert "| 0 | NO | NO | NO | NO | 15/20 | 0 | 20/20 |" in out
    assert (
        "GPU: of 1 wrong drafts with both scores, 1 catch a smaller share of wrong variants than the hand spec: " in out
    )
    assert "particles_aos (15/20 vs 20/20)" in out


def test_a_template_instantiation_in_the_spec_sets_the_element_bytes_the_judge_uses():
    src, kernel, spec, truth = _hand("matvec_template")  # the hand spec: gemv<double>, float64 arrays
    assert judge.judge(spec, kernel, src, truth)["sizes"] == []
    floats = {"A": "float32", "x": "float32", "y": "float32"}
    as_float = dataclasses.replace(
        spec, kernel="gemv<float>", args=[dataclasses.replace(a, type=floats.get(a.name, a.type)) for a in spec.args]
    )
    assert judge.judge(as_float, kernel, src, truth)["sizes"] == []  # right in its own instantiation
    short = dataclasses.replace(as_float, kernel="gemv<double>")  # double elements in float32 arrays
    assert "A: " in judge.judge(short, kernel, src, truth)["sizes"][0]
    uninstantiated = dataclasses.replace(as_float, kernel="gemv")  # then the truth's [bytes] holds
    assert judge.judge(uninstantiated, kernel, src, truth)["sizes"]


def _hand_draft(kt, args, timeout, cwd):  # the "drafter" writes the hand spec
    name = args[1]
    (cwd / f"{name}.toml").write_text((CORPUS / "specs" / f"{name}.toml").read_text())
    return subprocess.CompletedProcess(args, 0, "", "")


def test_a_new_held_out_batch_is_scored_apart_as_a_first_draft_until_recorded_as_seen(tmp_path, monkeypatch, capsys):
    seen = tmp_path / "heldout.toml"
    seen.write_text((CORPUS / "heldout.toml").read_text())
    monkeypatch.setattr(drafts, "SEEN", seen)
    recorded = drafts.seen_batches()
    batch = max(recorded) + 1  # a batch no drafter has run on yet
    corpus = tmp_path / "corpus"
    (corpus / "truth").mkdir(parents=True)
    (corpus / "specs").mkdir()
    for name, heldout in (("mandelbrot", batch), ("gather", 0)):
        (corpus / f"{name}.cu").write_text((CORPUS / f"{name}.cu").read_text())
        (corpus / "specs" / f"{name}.cu.toml").write_text((CORPUS / "specs" / f"{name}.cu.toml").read_text())
        truth = (CORPUS / "truth" / f"{name}.toml").read_text().replace("unseen = true\n", "")
        (corpus / "truth" / f"{name}.toml").write_text(
            f"heldout = {heldout}\n" + truth if heldout else "tuning = 35\n" + truth
        )
    monkeypatch.setattr(drafts, "CORPUS", corpus)
    monkeypatch.setattr(drafts, "kt_tui", _hand_draft)

    assert drafts.main([]) == 0
    out = capsys.readouterr().out
    assert f"| mandelbrot | held-out {batch} |" in out and "| gather | tuning |" in out
    assert f"held-out batch {batch}: 1 of 1 fully right (first draft: not recorded as seen yet" in out
    assert "tuning set (seen while the drafter was developed, not held out): 1 of 1 fully right" in out

    assert drafts.main(["--record-seen"]) == 0
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    assert f"held-out batch {batch}: recorded as seen at {commit.stdout.strip()}" in capsys.readouterr().out
    assert drafts.seen_batches() == recorded | {batch: commit.stdout.strip()}
    assert drafts.main([]) == 0
    assert f"held-out batch {batch}: 1 of 1 fully right (seen at {commit.stdout.strip()}" in capsys.readouterr().out


def test_the_summary_says_when_the_drafter_changed_after_a_batch_was_seen(monkeypatch):
    rows = [
        {"kernel": "k", "heldout": 1, "fully_right": True, "unseen": False, "drafted": True}
        | dict.fromkeys(("sizes", "outputs", "geometry", "scalars"), True)
        | {"guesses": 0}
    ]
    monkeypatch.setattr(drafts, "_git", lambda kt, *args: "abc1234\ndef5678" if args[0] == "log" else "")
    assert (
        "held-out batch 1: 1 of 1 fully right (seen at 23be152; 2 commit(s) changed the drafter since: no longer "
        "a first draft)" in drafts.summary(rows, False, ROOT)
    )
    monkeypatch.setattr(drafts, "_git", lambda kt, *args: "")
    assert "(seen at 23be152, the drafter unchanged since)" in "\n".join(drafts.summary(rows, False, ROOT))
