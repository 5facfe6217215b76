"""A reference from a reference kernel: `[reference] kernel = "FILE.cu:NAME"` in the spec."""

import json
from types import SimpleNamespace

import numpy as np
import pytest

from kt_tui.cli import main
from kt_tui.gpu.compile import find_nvcc
from kt_tui.gpu.device import outputs
from kt_tui.kernel.spec import SpecError, dump_spec, load_spec, parse_spec, spec_from_plain

needs_nvcc = pytest.mark.skipif(find_nvcc() is None, reason="nvcc not found")

KERNEL = """
__global__ void scale(float *out, const float *in, int n) {
    int i = blockIdx.x * block_size_x * tile + threadIdx.x;
    for (int t = 0; t < tile; t++, i += block_size_x)
        if (i < n) out[i] = 2.0f * in[i];
}
"""
NAIVE = """
__global__ void scale_ref(float *out, const float *in, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) out[i] = in[i] + in[i];
}
"""
SPEC = """kernel = "scale"
problem_size = ["n"]
grid_div_x = ["block_size_x", "tile"]
[sizes]
n = 1000
[tune_params]
block_size_x = [32, 64]
tile = [1, 2]
[[args]]
name = "out"
type = "float32"
size = "n"
init = "poison"
output = true
[[args]]
name = "in"
type = "float32"
size = "n"
[[args]]
name = "n"
type = "int32"
value = "n"
"""
REFERENCE = """
[reference]
kernel = "naive.cu:scale_ref"
params = {block_size_x = 128}
"""


def write(tmp_path, reference=REFERENCE, naive=NAIVE):
    (tmp_path / "scale.cu").write_text(KERNEL)
    (tmp_path / "naive.cu").write_text(naive)
    path = tmp_path / "scale.cu.toml"
    table = reference.lstrip().startswith("[")
    path.write_text(SPEC + reference if table else reference + SPEC)  # a bare key goes before the tables
    return path


def test_the_reference_kernel_table_is_read_written_and_sent_as_is(tmp_path):
    spec = load_spec(write(tmp_path))
    assert spec.reference == {"kernel": "naive.cu:scale_ref", "params": {"block_size_x": 128}}
    again = parse_spec(dump_spec(spec), base_dir=tmp_path)
    assert again.reference == spec.reference and spec_from_plain(spec.to_dict()).reference == spec.reference


@pytest.mark.parametrize(
    "reference, naive, field, words",
    [
        ('[reference]\nkernel = "naive.py:scale_ref"\n', NAIVE, "reference.kernel", 'expected "FILE.cu:NAME"'),
        ('[reference]\nkernel = "other.cu:scale_ref"\n', NAIVE, "reference.kernel", "no such file"),
        ('[reference]\nkernel = "naive.cu:nope"\n', NAIVE, "reference.kernel", "has no __global__ function 'nope'"),
        (
            '[reference]\nkernel = "naive.cu:scale_ref"\n',
            NAIVE.replace(", int n", ""),
            "reference.kernel",
            "takes 2 parameters, the spec's kernel 3",
        ),
        (
            '[reference]\nkernel = "naive.cu:scale_ref"\n',
            NAIVE.replace("int n", "int *n"),
            "reference.kernel",
            "parameter n is a pointer",
        ),
        ('[reference]\nkernel = "naive.cu:scale_ref"\nblock = 1\n', NAIVE, "reference.block", "unknown key"),
        (
            '[reference]\nkernel = "naive.cu:scale_ref"\nproblem_size = ["m"]\n',
            NAIVE,
            "reference.problem_size[0]",
            "unknown name 'm'",
        ),
        (
            '[reference]\nkernel = "naive.cu:scale_ref"\ngrid_div_x = ["bs"]\n',
            NAIVE,
            "reference.grid_div_x[0]",
            "unknown name 'bs'",
        ),
        (
            '[reference]\nkernel = "naive.cu:scale_ref"\nparams = {block_size_x = [1, 2]}\n',
            NAIVE,
            "reference.params.block_size_x",
            "",
        ),
        ("reference = 3\n", NAIVE, "reference", "or a [reference] table"),
    ],
)
def test_a_bad_reference_kernel_is_named(tmp_path, reference, naive, field, words):
    with pytest.raises(SpecError) as e:
        load_spec(write(tmp_path, reference, naive))
    assert e.value.field == field and words in e.value.problem


def test_spec_check_names_the_reference_field_and_exits_2(tmp_path, capsys):
    write(tmp_path, '[reference]\nkernel = "naive.cu:nope"\n')
    assert main(["spec", str(tmp_path / "scale.cu"), "--check"]) == 2
    err = capsys.readouterr().err
    assert "reference.kernel" in err and "Traceback" not in err


@needs_nvcc
def test_spec_check_compiles_the_reference_kernel_too(tmp_path, capsys):
    write(tmp_path)
    assert main(["spec", str(tmp_path / "scale.cu"), "--check"]) == 0
    assert "expected: outputs of the reference kernel naive.cu:scale_ref at block_size_x=128" in capsys.readouterr().out
    write(tmp_path, naive=NAIVE.replace("in[i] + in[i]", "in[i] + undeclared"))
    assert main(["spec", str(tmp_path / "scale.cu"), "--check"]) == 2
    err = capsys.readouterr().err
    assert "reference.kernel (naive.cu:scale_ref)" in err and "undeclared" in err


def fake_run_kernel(seen):
    def run(name, source, problem_size, args, params, **kw):
        seen.append(
            {
                "name": name,
                "source": source,
                "problem_size": problem_size,
                "params": params,
                "grid": kw["grid_div_x"],
                "lang": kw["lang"],
            }
        )
        out = list(args)
        out[0] = args[1] * 2
        return out

    return run


def test_the_worker_runs_the_reference_kernel_for_the_expected_outputs(tmp_path, monkeypatch):
    from kt_tui.gpu.protocol import TuneJob

    from ..helpers import open_load

    seen, tuned = [], {}
    monkeypatch.setattr(outputs, "run_kernel", fake_run_kernel(seen))

    spec = load_spec(write(tmp_path))
    job = TuneJob(
        run_id="r",
        source=KERNEL,
        spec=spec.to_dict(),
        backend="cupy",
        cachefile=str(tmp_path / "cache.json"),
        configs=None,
    )
    opened = open_load(job, monkeypatch)
    tuned.update(reference=opened.reference, **{"in": opened.host_args[1]})
    assert [(s["name"], s["source"], s["params"], s["problem_size"], s["lang"]) for s in seen] == [
        ("scale_ref", NAIVE, {"block_size_x": 128}, 1000, "CUDA")
    ]  # lang CUDA on the pinned backend
    assert seen[0]["grid"] is None  # kernel_tuner's default divisor (block_size_x), not the spec's
    assert np.array_equal(tuned["reference"]["out"], tuned["in"] * 2)


def test_checks_at_other_sizes_run_the_reference_kernel_there(tmp_path, monkeypatch):
    from kt_tui.gpu import checking
    from kt_tui.gpu.protocol import CheckJob

    from ..helpers import check_device, tuner_on

    seen, events = [], []

    def run(s, params):
        seen.append({"name": s.kernel, "problem_size": s.problem_size_values(None, params)[0]})
        return {"out": np.ones(s.sizes["n"], np.float32)}

    monkeypatch.setattr(checking, "_REFS", {})
    spec = load_spec(write(tmp_path)).to_dict()
    job = CheckJob(
        run_id="c",
        source=KERNEL,
        spec=spec,
        ref_source=KERNEL,
        ref_spec=spec,
        ref_params={"block_size_x": 32, "tile": 1},
        backend="cupy",
        sizes=[{"label": "n=37", "sizes": {"n": 37}}],
        configs=[{"block_size_x": 64, "tile": 2}],
    )
    tuner_on(check_device(run)).run(job, lambda kind, payload: events.append((kind, payload)), 60)
    assert [(s["name"], s["problem_size"]) for s in seen] == [("scale_ref", 37), ("scale", 37)]
    checks = [p for k, p in events if k == "check"]
    assert [c["status"] for c in checks] == ["ok"]


def test_the_gate_and_the_report_say_what_the_outputs_are_compared_with(tmp_path):
    from kt_tui.engine.gates import gate_from
    from kt_tui.engine.summary import expected_from
    from kt_tui.ui.gate_view import render_gate

    spec = load_spec(write(tmp_path))
    store = SimpleNamespace(versions=lambda sid: [{"spec_json": json.dumps(spec.to_dict())}])
    line = expected_from(store, "s")
    assert line == "expected outputs: outputs of the reference kernel naive.cu:scale_ref at block_size_x=128"
    gate = gate_from("step", "k", "Next step", {"expected": line})
    assert gate.expected == line and gate.body["expected"] == line
    assert line in render_gate(gate).plain
    plain = SimpleNamespace(versions=lambda sid: [{"spec_json": json.dumps(load_spec(write(tmp_path, "")).to_dict())}])
    assert expected_from(plain, "s") is None
