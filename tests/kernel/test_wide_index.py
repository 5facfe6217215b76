"""Issue 35, a mask that bites only above 16 bits (CPU): the H100 run of 2026-12-06 kept
`col_idx[jj]` -> `(col_idx[jj] & 0xffff)` alive on spmv_csr, whose columns (cols = 15000) all fit 16 bits.
Strengthening proposes the size that bounds the index raised above 2**16, within the memory budget
(memcheck on the GPU then says whether the original takes it)."""

from dataclasses import replace
from pathlib import Path

from kt_tui.kernel.inputs import make_arg
from kt_tui.kernel.mutant import mutants
from kt_tui.kernel.spec import load_spec
from kt_tui.kernel.strengthen import WIDE, candidates, case_spec

CORPUS = Path(__file__).parents[1] / "corpus"


def test_a_16_bit_mask_on_an_index_gets_a_case_whose_indexed_size_exceeds_65536():
    spec = load_spec(CORPUS / "specs" / "spmv_csr.cu.toml")
    source = (CORPUS / "spmv_csr.cu").read_text()
    assert any("`col_idx[jj]` -> `(col_idx[jj] & 0xffff)`" in m.what for m in mutants(source, spec.kernel))
    case = next(c for c in candidates(spec) if "above 16 bits" in c["label"])
    # the sizes at least as large as cols (rows, nnz) are raised with it: kernel/strengthen.py widened
    assert case["label"] == "rows=136073, cols=131073, nnz=276073: `col_idx` above 16 bits"
    assert case["sizes"] == {"rows": 136073, "cols": 131073, "nnz": 276073}
    wide = case_spec(spec, case)
    col_idx = make_arg(next(a for a in wide.args if a.name == "col_idx"), wide.sizes)
    x = make_arg(next(a for a in wide.args if a.name == "x"), wide.sizes)
    assert x.size == 131073 and col_idx.max() < x.size  # every index still inside x
    masked = (col_idx & 0xFFFF) != col_idx
    assert masked.mean() > 0.4  # about half the reads go elsewhere under the mask
    before = make_arg(next(a for a in spec.args if a.name == "col_idx"), spec.sizes)
    assert (before & 0xFFFF == before).all()  # why the spec's own inputs let it through


def test_no_wider_case_past_the_memory_budget_or_for_indices_already_wide():
    spec = load_spec(CORPUS / "specs" / "spmv_csr.cu.toml")
    wide_already = replace(spec, sizes={**spec.sizes, "cols": WIDE + 7})
    assert not any("above 16 bits" in c["label"] for c in candidates(wide_already))
    # x of cols floats, and nnz huge: twice the spec's bytes stays the budget, and 131073 more floats fit
    big = replace(spec, sizes={**spec.sizes, "nnz": 200_000_000})
    assert any("above 16 bits" in c["label"] for c in candidates(big))
    huge = replace(spec, args=[replace(a, size="cols * 4096") if a.name == "x" else a for a in spec.args])
    assert not any("above 16 bits" in c["label"] for c in candidates(huge))  # 2 GiB of x: past the budget
