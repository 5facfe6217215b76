"""Corpus kernels whose hand specs failed `spec --check` on an H100 (session 19, main 6a2b212):
gqa_scores_half2_3d (half2 arrays, cuda_fp16.h) and cg_l2norm_rows_tile8 (cooperative groups) with
"CUDA_ERROR_INVALID_IMAGE ... on cuModuleLoadData" under memcheck on the backend auto picks, while
conv_transpose1d_grouped_half (cuda_fp16.h, __half arrays) passed through benchmarks/mutants.py;
convert_scale_template's draft (its kernel then named bare) failed to compile under pycuda."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kt_tui.cli import main

pytestmark = pytest.mark.gpu

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


@pytest.mark.parametrize(
    "name", ["gqa_scores_half2_3d", "cg_l2norm_rows_tile8", "conv_transpose1d_grouped_half", "convert_scale_template"]
)
def test_the_hand_spec_passes_spec_check_on_the_backend_auto_picks(name, tmp_path, capsys, hermetic):
    kernel = tmp_path / f"{name}.cu"
    shutil.copy(CORPUS / f"{name}.cu", kernel)
    shutil.copy(CORPUS / "specs" / f"{name}.cu.toml", tmp_path / f"{name}.cu.toml")
    for helper in (CORPUS / "specs").glob("gen*.py"):
        shutil.copy(helper, tmp_path / helper.name)
    assert main(["spec", str(kernel), "--check"]) == 0, capsys.readouterr().err
    said = capsys.readouterr().out
    assert "check tested on" in said and "a do-nothing kernel fails it" in said, said


def test_a_template_kernels_draft_is_named_as_the_file_instantiates_it_and_passes_its_check(tmp_path, capsys, hermetic):
    kernel = tmp_path / "convert_scale_template.cu"
    shutil.copy(CORPUS / "convert_scale_template.cu", kernel)
    assert main(["spec", str(kernel)]) == 0
    assert 'kernel = "convert_scale<' in (tmp_path / "convert_scale_template.cu.toml").read_text()
    capsys.readouterr()
    assert main(["spec", str(kernel), "--check"]) == 0, capsys.readouterr().err
