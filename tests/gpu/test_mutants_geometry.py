"""Issue 35 without a GPU: the survivors run again at another block size of the space (a session
verifies every one), and a mutant equivalent by construction is never run and never counted
(gpu/mutants.py, with a stand-in for the kernel runs)."""

import numpy as np

from kt_tui.gpu import checkrun
from kt_tui.gpu import mutants as mutation
from kt_tui.gpu.mutation_score import score as mutation_score
from kt_tui.kernel.spec import parse_spec

RELU = """__global__ void bias_relu(float *y, const float *x, const float *bias, int batch, int features)
{
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y * blockDim.y + threadIdx.y;
    if (b < batch && f < features) {
        float v = x[b * features + f] + bias[f];
        y[b * features + f] = v > 0.0f ? v : 0.0f;
    }
}
"""
SPEC = parse_spec("""kernel = "bias_relu"
problem_size = ["features", "batch"]
[sizes]
batch = 16
features = 40
[tune_params]
block_size_x = [32, 64]
block_size_y = [1, 2, 4]
[[args]]
name = "y"
type = "float32"
size = "batch * features"
init = "poison"
output = true
[[args]]
name = "x"
type = "float32"
size = "batch * features"
init = "normal"
[[args]]
name = "bias"
type = "float32"
size = "features"
init = "normal"
seed = 2
[[args]]
name = "batch"
type = "int32"
value = "batch"
[[args]]
name = "features"
type = "int32"
value = "features"
""")
DROPPED = RELU.replace("blockIdx.y * blockDim.y + threadIdx.y", "blockIdx.y * blockDim.y")
AT_TIE = RELU.replace("v > 0.0f", "v >= 0.0f")
MUTANTS = [
    {"id": "m01", "kind": "drop", "what": "dropped `+ threadIdx.y`", "source": DROPPED},
    {
        "id": "m02",
        "kind": "bound",
        "what": "`>` -> `>=`",
        "source": AT_TIE,
        "equivalent": "at the tie both arms are equal",
    },
]


def run(s, source, params):
    """The relu on the spec's inputs; the mutant without `+ threadIdx.y` has each block's rows all
    compute its first row (right at block_size_y = 1). The equivalent one must never run."""
    from kt_tui.kernel.inputs import make_args

    assert source != AT_TIE, "an equivalent mutant was run"
    args = dict(zip([a.name for a in s.args], make_args(s, s.sizes)))
    batch, features = int(args["batch"]), int(args["features"])
    v = args["x"].reshape(batch, features) + args["bias"]
    if source == DROPPED:
        rows = np.arange(batch) // params["block_size_y"] * params["block_size_y"]
        v = v[rows]
    args["y"] = np.where(v > 0, v, 0).astype(np.float32).reshape(-1)
    return args


def test_a_survivor_at_block_size_y_1_dies_at_the_next_block_size_and_an_equivalent_never_runs(tmp_path):
    geometry = checkrun.survivor_geometry(SPEC)
    assert geometry == {"block_size_x": 64, "block_size_y": 2}
    job = {"token": "t", "source": RELU, "mutants": MUTANTS, "budget_s": 60, "strengthen_s": 60}
    job.update(sizes=[], cases=[], geometry=geometry)
    said, compiled = [], []
    mutation.child_runs(SPEC, job, tmp_path, run, said.append, compile_at=lambda s, src, p=None: compiled.append(p))
    assert compiled == [geometry, geometry]  # the original and the survivor at the other block size, ahead
    records = mutation.read_jsonl(tmp_path / mutation.RECORDS)
    label = "at block_size_x=64, block_size_y=2 (another block size)"
    assert {(r["id"], r["case"], r["killed"]) for r in records} == {
        ("m01", None, False),  # passes at the baseline's block_size_y = 1
        ("m01", label, True),
        ("m02", None, False),
    }
    assert f"{mutation.SURVIVORS} t 0" in said  # none left for the stronger inputs
    score = mutation_score(MUTANTS, records, [], {})
    assert (score["counted"], score["killed_before"], score["killed"]) == (1, 0, 1)
    assert score["equivalent"] == ["`>` -> `>=`: at the tie both arms are equal"]
    assert score["strengthening"] == [{"label": f"the survivors {label}", "kept": False, "why": "kills m01"}]
    assert score["line"] == "the check catches 1 of 1 wrong variant"


def test_without_another_block_size_the_survivor_stays_and_says_why(tmp_path):
    job = {"token": "t", "source": RELU, "mutants": MUTANTS[:1], "budget_s": 60, "strengthen_s": 60}
    mutation.child_runs(SPEC, {**job, "sizes": [], "cases": []}, tmp_path, run, lambda line: None)
    score = mutation_score(MUTANTS[:1], mutation.read_jsonl(tmp_path / mutation.RECORDS), [], {})
    assert score["survivors"] == [
        {
            "id": "m01",
            "kind": "drop",
            "what": "dropped `+ threadIdx.y`",
            "why": "the term is zero at the block size checked",
        }
    ]
