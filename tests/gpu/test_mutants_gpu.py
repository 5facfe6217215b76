"""Issue 35 on a real GPU: every kind of mutant killed on a small kernel, stronger inputs that decide
(a byte histogram drafted with bytes 0-99: the signed-char and masked variants die only on all 256
byte values; CSR rows of one nonzero: half a warp reduction dies only on rows of varied lengths),
the spec blamed for a block-per-row kernel given the default grid divisor and for a batched matmul
whose matrices overlap (a race the second run, its blocks reversed, sees), and a scripted one-prompt
reply proposing a signed-char histogram that must not come out verified.
Skipped without a GPU; tests/gpu/test_mutants.py runs the same machinery with stand-ins."""

import json
from pathlib import Path

import pytest

from kt_tui.cli import main
from kt_tui.gpu import checkrun
from kt_tui.gpu import mutants as mutation
from kt_tui.gpu.sanitize import find_sanitizer
from kt_tui.kernel.mutant import KINDS
from kt_tui.kernel.spec import load_spec, parse_spec

from ..helpers import report, run_cli
from ..kernel.test_mutants import CONV, CONV_SPEC, HIST, SPMV, SPMV_SPEC, VARIED
from ..kernel.test_mutants import HISTOGRAM as HIST_SPEC
from .test_gpu_checks import _write

pytestmark = pytest.mark.gpu
BACKEND = "pycuda"
CORPUS = Path(__file__).parents[1] / "corpus"

# one block per row, its rows of n elements scanned in shared memory; the spec keeps the default grid
# divisor (blocks = rows * n / block_size_x): right at block 32 = n, rows left out at 64 and 128
SCAN = """__global__ void scan_rows(const float *in, float *out, int n)
{
    __shared__ float buf[1024];
    int row = blockIdx.x;
    int t = threadIdx.x;
    buf[t] = t < n ? in[row * n + t] : 0.0f;
    for (int s = 1; s < blockDim.x; s *= 2) {
        __syncthreads();
        float v = t >= s ? buf[t - s] : 0.0f;
        __syncthreads();
        buf[t] += v;
    }
    if (t < n)
        out[row * n + t] = buf[t];
}
"""
SCAN_SPEC = """kernel = "scan_rows"
problem_size = ["rows * n"]
[sizes]
rows = 3
n = 32
[tune_params]
block_size_x = [32, 64, 128]
[[args]]
name = "in"
type = "float32"
size = "rows * n"
[[args]]
name = "out"
type = "float32"
size = "rows * n"
init = "poison"
output = true
atol = 1e-4
rtol = 1e-4
[[args]]
name = "n"
type = "int32"
value = "n"
"""


GPU_CONV = CONV.replace(
    "        for (int s = 16; s > 0; s /= 2)\n            sum += __shfl_down_sync(0xffffffff, sum, s);\n", ""
)  # a shuffle inside a branch some lanes skip: not for a GPU


def _state(tmp_path, name, source, spec):
    kernel = _write(tmp_path, name, source, spec)
    return checkrun.check_strength(source, load_spec(kernel.with_suffix(".cu.toml")), BACKEND)


def test_every_kind_of_mutant_is_killed_on_a_small_kernel(tmp_path, monkeypatch):
    monkeypatch.setattr(mutation, "BUDGET_S", 120.0)  # kills here; the time is benchmarks/mutants.py's
    monkeypatch.setattr(mutation, "STRENGTHEN_S", 120.0)
    state = _state(tmp_path, "conv_hist", GPU_CONV, CONV_SPEC)
    score = state["mutants"]
    report(f"conv_hist: {score['line']}; kinds killed {score['killed_kinds']}; {state['seconds']} s")
    assert score["counted"] >= 20 and not score["not_run"]
    assert set(score["killed_kinds"]) == set(KINDS), set(KINDS) - set(score["killed_kinds"])
    assert score["killed"] > score["killed_before"]  # fw = fh and bytes 0-99 let some through before
    labels = [c["label"] for c in state["cases"]]
    # each at a small check size first (kernel/strengthen.py cheap_first), at the spec's only where needed
    assert any(x.startswith("fw=5, fh=3") for x in labels)
    assert any(x.startswith("`bytes` over all 256 values of uint8") for x in labels)
    assert score["killed"] >= 0.9 * score["counted"]


def test_all_256_byte_values_kill_the_signed_char_and_masked_histograms(tmp_path):
    state = _state(tmp_path, "histogram256", HIST, HIST_SPEC)
    score = state["mutants"]
    report(f"histogram 0-99: {score['line']}; tried {score['strengthening']}")
    survivors = " ".join(m["what"] for m in score["survivors"])
    assert "signed char" not in survivors and "& 0x7f" not in survivors
    assert [c["label"] for c in state["cases"]][0].startswith("`data` over all 256 values of uint8")
    tried = next(t for t in score["strengthening"] if t["label"].startswith("`data` over all 256 values of uint8"))
    assert tried["kept"]


def test_a_block_per_row_kernel_with_the_default_grid_divisor_blames_the_spec(tmp_path, capsys, hermetic):
    if find_sanitizer() is None:
        pytest.skip("compute-sanitizer not found")
    kernel = _write(tmp_path, "scan_rows", SCAN, SCAN_SPEC)
    assert main(["spec", str(kernel), "--check", "--backend", BACKEND]) == 2
    err = capsys.readouterr().err
    assert "depend on its block size: at block_size_x=64 `out` differs in 32 of 96 elements" in err, err
    report(f"spec --check scan_rows (default grid divisor): {err.strip()[:300]}")
    code, out = run_cli(capsys, "run", kernel, "--auto", "--json", "--backend", BACKEND)
    assert code == 2 and "depend on its block size" in out["check"]["blame"]
    assert out["best"] is None and not any(s["state"] == "failed" for s in out["steps"])


def test_a_scripted_signed_char_histogram_does_not_come_out_verified(tmp_path, capsys, hermetic):
    from ..llm_server import MODEL, ScriptedServer

    kernel = _write(tmp_path, "histogram256", HIST, HIST_SPEC)
    reply = json.dumps(
        {
            # a cast, not the parameter's type: a changed signature is flagged and --auto never runs it
            "kernel_code": HIST.replace("&hist[data[i]]", "&hist[(signed char)data[i]]"),
            "tune_params": {"block_size_x": [64, 128, 256]},
            "explanation": "scripted reply (not a model's): the bytes read as signed char",
        }
    )
    with ScriptedServer([reply]) as server:
        code, out = run_cli(
            capsys, "run", kernel, "--strategy", "one-prompt", "--auto", "--json", "--backend", BACKEND,
            "--base-url", server.url, "--model", MODEL,
        )  # fmt: skip
    step = out["steps"][-1]
    report(f"one-prompt signed-char histogram: step {step['state']}: {(step['reason'] or '')[:200]}")
    said = json.dumps({k: out.get(k) for k in ("check", "steps", "best", "notes")}, default=str)[:6000]
    assert code == 0 and step["state"] == "failed", said
    assert "`data` over all 256 values of uint8" in step["reason"]
    assert out["best"]["kernel_version"] != step["version"]
    assert out["check"]["cases"][0].startswith("`data` over all 256 values of uint8")


def test_rows_of_varied_lengths_kill_half_a_warp_reduction(tmp_path, monkeypatch):
    """A warp-per-row SpMV whose row offsets are `init = "range"` (one nonzero per row): a halved
    shuffle ladder and a lane stride of 33 pass, and the row offsets case kills them."""
    if find_sanitizer() is None:
        pytest.skip("compute-sanitizer not found: a case is legal only once memcheck passes it")
    monkeypatch.setattr(mutation, "BUDGET_S", 120.0)
    monkeypatch.setattr(mutation, "STRENGTHEN_S", 120.0)
    state = _state(tmp_path, "spmv_csr_vector", SPMV, SPMV_SPEC)
    score = state["mutants"]
    report(f"spmv warp, range row offsets: {score['line']}; tried {score['strengthening']}; {state['seconds']} s")
    assert any(c["label"].startswith(VARIED) for c in state["cases"])
    survivors = " ".join(m["what"] for m in score["survivors"])
    assert "loop start `16` halved" not in survivors and "`32` -> `33` in `for (int jj" not in survivors


# a strided batched matmul (tests/corpus/gemm_strided_batched.cu) with one block size: only the second
# run of the original can tell a race. C's matrices lie `stride_c` floats apart: M * N + 8 keeps them
# apart; N makes them overlap, so up to M blocks write each element and the last one to run wins.
GEMM = (CORPUS / "gemm_strided_batched.cu").read_text()
GEMM_SPEC = (CORPUS / "specs" / "gemm_strided_batched.cu.toml").read_text()
GEMM_SPEC = GEMM_SPEC.replace(
    "block_size_x = [8, 16, 32]\nblock_size_y = [4, 8, 16]", "block_size_x = [16]\nblock_size_y = [16]"
)
OVERLAPPING = GEMM_SPEC.replace('size = "batch * (M * N + 8)"', 'size = "batch * N + M * N"').replace(
    'value = "M * N + 8"', 'value = "N"'
)


def _race_state(tmp_path, spec_text, backend, reversed_blocks=True):
    spec = parse_spec(spec_text)
    runs = [r for r in checkrun.child_runs(GEMM, spec)[0] if r["name"] in ("original", "again")]
    if not reversed_blocks:  # as before: the same source twice
        runs[1] = {**runs[1], "source": GEMM, "reversed": False}
    job = {"spec": spec.to_dict(), "backend": backend, "runs": runs, "source": GEMM}
    tmp_path.mkdir(parents=True, exist_ok=True)
    assert checkrun.run_child(job, tmp_path, 300) == ""
    return json.loads((tmp_path / "state.json").read_text())


def test_a_strided_batched_matmul_whose_matrices_overlap_is_blamed_and_one_whose_do_not_is_not(tmp_path):
    assert "the order its blocks run in" in _race_state(tmp_path / "a", OVERLAPPING, BACKEND).get("blame", "")
    plain = _race_state(tmp_path / "b", OVERLAPPING, BACKEND, reversed_blocks=False)
    report(f"overlapping strided batched matmul, run twice in one block order: {plain.get('blame') or 'not blamed'}")
    for backend in ("pycuda", "nvcuda", "cupy"):
        state = _race_state(tmp_path / backend, GEMM_SPEC, backend)
        assert "blame" not in state and not state.get("notes"), (backend, state)


def test_a_scripted_kernel_that_reads_past_its_input_with_right_outputs_is_not_verified(tmp_path, capsys, hermetic):
    """conv1d_tile with `<` -> `<=` in its load guard: thread n + 6 reads x[n + 6], one past the array,
    and only outputs nobody writes use it: the outputs match at every size, memcheck does not."""
    from ..llm_server import MODEL, ScriptedServer

    if find_sanitizer() is None:
        pytest.skip("compute-sanitizer not found")
    source = (CORPUS / "conv1d_tile.cu").read_text()
    kernel = _write(tmp_path, "conv1d_tile", source, (CORPUS / "specs" / "conv1d_tile.cu.toml").read_text())
    wrong = source.replace("buf[threadIdx.x] = i < n + TAPS - 1", "buf[threadIdx.x] = i <= n + TAPS - 1")
    assert wrong != source
    reply = json.dumps(
        {
            "kernel_code": wrong,
            "tune_params": {"block_size_x": [64, 128, 256]},
            "explanation": "scripted reply (not a model's): the load guard one too far",
        }
    )
    with ScriptedServer([reply]) as server:
        code, out = run_cli(
            capsys, "run", kernel, "--strategy", "one-prompt", "--auto", "--json", "--backend", BACKEND,
            "--base-url", server.url, "--model", MODEL, "--allow-survivors",
        )  # fmt: skip
    step = out["steps"][-1]
    report(f"one-prompt conv1d_tile reading x[n + 6]: step {step['state']}: {(step['reason'] or '')[:240]}")
    assert code == 0 and step["state"] == "failed" and step["reason"].startswith("memcheck: the generated kernel ")
    assert "`x`[" in step["reason"]
    assert out["best"]["kernel_version"] != step["version"]
