"""Results at other sizes (issue 5): the sizes a spec is checked at, the check job's watchdog, and
what sim mode does with checks recorded in a cache. Without a GPU, "recorded" checks here are
written into copies of a real recorded cache by the tests themselves, standing in for a GPU run."""

import json
import sqlite3

import numpy as np
import pytest

from kt_tui.gpu.checking import entry
from kt_tui.gpu.protocol import CheckJob
from kt_tui.gpu.simcache import finalize_cache, recorded_checks
from kt_tui.kernel.spec import SpecError, dump_spec, load_spec, parse_spec, version_hash
from kt_tui.store import Store

from ..conftest import EXAMPLES, ROOT
from ..helpers import check_device, run_cli, tuner_on
from ..llm_server import MODEL, ScriptedServer

FAULTS = ROOT / "tests" / "faults"
GOOD = (FAULTS / "scaled_add.cu.toml").read_text()
RECORDED = EXAMPLES / "recorded" / "vector_add-94d9d81671be4dab.json"
FLOAT4 = """// c = a + b with float4 loads and stores, and no tail: wrong when n is not a multiple of 4.
__global__ void vector_add(float *c, const float *a, const float *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n / 4) {
        float4 x = reinterpret_cast<const float4 *>(a)[i];
        float4 y = reinterpret_cast<const float4 *>(b)[i];
        reinterpret_cast<float4 *>(c)[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}
"""


def wrong_at(label: str, index: int, n: int) -> dict:
    verdict = {
        "output": "c",
        "ok": False,
        "max_abs_err": 0.0,
        "max_rel_err": 0.0,
        "mismatches": 1,
        "first_bad": index,
        "atol": 1e-5,
        "rtol": 1e-4,
        "reason": f"c[{index}] = nan, expected 0.5",
        "excerpt": [[index - 1, "0.25", "0.25"], [index, "nan", "0.5"]],
    }
    e = entry(
        label,
        {"n": n},
        "",
        "wrong_result",
        f"wrong result at {label}: c[{index}] = nan, expected 0.5 (max abs err 0, max rel err 0, 1 mismatch)",
        [verdict],
    )
    return {k: e[k] for k in ("label", "sizes", "ok", "status", "reason", "verdicts")}


def right_at(label: str, n: int) -> dict:
    e = entry(label, {"n": n}, "", "ok")
    return {k: e[k] for k in ("label", "sizes", "ok", "status", "reason", "verdicts")}


def copy_cache(
    folder, name: str, kernel_version: str | None = None, checks: dict | None = None, times: dict | None = None
):
    data = json.loads(RECORDED.read_text())
    for key, t in (times or {}).items():
        data["cache"][key]["time"] = t
    if kernel_version:  # a generated version's recording has a verdict at every configuration
        for entry in data["cache"].values():
            entry.setdefault("kt_correct", 1)
    path = folder / name
    path.write_text(json.dumps(data))
    meta = {"checks": checks or {}}
    if kernel_version:
        meta["kernel_version"] = kernel_version
    finalize_cache(path, meta)
    return path


# -- which sizes ---------------------------------------------------------------------------------
def test_default_sizes_are_ragged_and_small():
    spec = load_spec(FAULTS / "scaled_add.cu.toml")
    assert spec.extra_sizes() == [{"label": "n=349525", "sizes": {"n": 349525}}, {"label": "n=37", "sizes": {"n": 37}}]
    for e in spec.extra_sizes():
        assert all(e["sizes"]["n"] % b for b in spec.tune_params["block_size_x"])


def test_verify_sizes_from_the_spec_and_an_empty_list(tmp_path):
    text = (FAULTS / "scaled_add.cu.toml").read_text()
    spec_path = tmp_path / "k.cu.toml"
    spec_path.write_text(text.replace("iterations = 3", "iterations = 3\nverify_sizes = [{n = 1000}, {n = 5}]"))
    spec = load_spec(spec_path)
    assert [e["label"] for e in spec.extra_sizes()] == ["n=1000", "n=5"]
    spec_path.write_text(text.replace("iterations = 3", "iterations = 3\nverify_sizes = []"))
    assert load_spec(spec_path).extra_sizes() == []


@pytest.mark.parametrize(
    "value,field,words",
    [
        ("{n = 37}", "verify_sizes", "a list of tables"),
        ("[37]", "verify_sizes[0]", "a table of size name"),
        ("[{n = 0}]", "verify_sizes[0].n", "positive integer"),
        ("[{m = 5}]", "verify_sizes[0].m", "not a name in [sizes] (known: n)"),
    ],
)
def test_bad_verify_sizes_name_their_field(tmp_path, value, field, words):
    text = (
        (FAULTS / "scaled_add.cu.toml").read_text().replace("iterations = 3", f"iterations = 3\nverify_sizes = {value}")
    )
    (tmp_path / "k.cu.toml").write_text(text)
    with pytest.raises(SpecError) as e:
        load_spec(tmp_path / "k.cu.toml")
    assert e.value.field == field and words in e.value.problem


def test_a_verify_size_invalid_for_an_arg_size_is_an_error():
    spec = parse_spec(GOOD.replace('size = "n"', 'size = "n / 4"', 1))
    assert [e["label"] for e in spec.extra_sizes()] == []  # no odd n makes n / 4 whole
    with pytest.raises(SpecError) as e:
        parse_spec(
            GOOD.replace('size = "n"', 'size = "n / 4"', 1).replace("[sizes]", "verify_sizes = [{n = 10}]\n[sizes]")
        )
    assert e.value.field == "verify_sizes[0]" and "args[0] (out).size" in e.value.problem


def test_verify_sizes_round_trip_through_dump():
    spec = parse_spec(GOOD)
    spec.verify_sizes = [{"n": 1000}, {"n": 37}]
    assert "verify_sizes = [{n = 1000}, {n = 37}]" in dump_spec(spec)
    assert parse_spec(dump_spec(spec)).to_dict() == spec.to_dict()


def test_recorded_cache_ids_do_not_change():
    """verify_sizes is not part of a version's id: recorded caches still match."""
    spec = load_spec(EXAMPLES / "vector_add.cu.toml")
    source = (EXAMPLES / "vector_add.cu").read_text()
    assert version_hash(source, spec) == "94d9d81671be4dab"
    spec.verify_sizes = [{"n": 1001}]
    assert version_hash(source, spec) == "94d9d81671be4dab"


# -- the store -----------------------------------------------------------------------------------
def test_an_old_database_gains_the_new_column_and_table(tmp_path):
    db = tmp_path / "old.db"
    con = sqlite3.connect(db)
    con.execute(
        "CREATE TABLE results (session TEXT, version TEXT, key TEXT, run TEXT, params TEXT, "
        "time_ms FLOAT, status TEXT, PRIMARY KEY (session, version, key))"
    )
    con.execute("INSERT INTO results VALUES ('s', 'v', '256', 'r', '{}', 1.0, 'ok')")
    con.commit()
    con.close()
    store = Store(db)
    assert store.results("s")[0].verdicts is None
    store.add_check("s", "v", dict(right_at("n=37", 37), key="256", source="measured"))
    assert [c.ok for c in store.checks("s", "v", "256")] == [True]


# -- the check job's runs under the runner's watchdog (a stand-in device worker, without a GPU) ----
def check_job(backend="pycuda"):
    spec = load_spec(FAULTS / "scaled_add.cu.toml")
    source = (FAULTS / "scaled_add.cu").read_text()
    return CheckJob(
        run_id="check:t",
        source=source,
        spec=spec.to_dict(),
        ref_source=source,
        ref_spec=spec.to_dict(),
        ref_params={"block_size_x": 256},
        backend=backend,
        sizes=spec.extra_sizes(),
        configs=[{"block_size_x": 128}],
    )


@pytest.mark.parametrize("fault,status", [("hang", "timeout"), ("crash", "crash")])
def test_a_check_that_hangs_or_crashes_is_reported_and_the_worker_restarted(monkeypatch, fault, status):
    from kt_tui.gpu import checking

    monkeypatch.setattr(checking, "_REFS", {})

    def outputs(spec, params):
        if spec.sizes["n"] != 37:
            raise RuntimeError("no GPU here")
        return {"out": np.zeros(37, np.float32)}

    seen = []
    gpu = tuner_on(check_device(outputs, faults={"n=37@reference": fault}))
    try:
        gpu.run(check_job(), lambda kind, p: seen.append(p) if kind == "check" else None, timeout_s=1)
        assert gpu.restarts == 1 and gpu.alive()
    finally:
        gpu.close()
    by_unit = {c["unit"]: c for c in seen}
    lost = by_unit["n=37@reference"]
    assert lost["status"] == status and lost.get("reference")
    # the stand-in fails the other size's reference at once; neither size can check the candidate
    assert by_unit["n=349525@reference"]["status"] == "runtime_error"
    assert by_unit["n=37@128"]["status"] == "not_checked" and status in by_unit["n=37@128"]["reason"]
    assert by_unit["n=349525@128"]["ok"] is None


# -- sim mode: checks come from the recorded cache --------------------------------------------------
def test_sim_without_recorded_checks_says_so(capsys, hermetic):
    caches = hermetic / "caches-in"
    caches.mkdir()
    copy_cache(caches, RECORDED.name, times={"512": 0.05})  # the baseline (the reference) is not checked
    code, out = run_cli(
        capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim", "--sim-cache", caches
    )
    assert code == 0 and out["best"]["params"] == {"block_size_x": 512}
    events = Store(hermetic / "sessions.db").events(out["session"])
    notes = [e["data"]["text"] for e in events if e["kind"] == "note"]
    assert "not checked at other sizes (recorded cache has none)" in notes
    assert out["checks"] == {"passed": 0, "failed": [], "not_checked": []}


def test_the_best_is_checked_and_a_wrong_one_is_passed_over(capsys, hermetic):
    caches = hermetic / "caches-in"
    caches.mkdir()
    checks = {
        "512": [right_at("n=5592405", 5592405), wrong_at("n=37", 36, 37)],
        "128": [right_at("n=5592405", 5592405), right_at("n=37", 37)],
    }
    copy_cache(caches, RECORDED.name, checks=checks, times={"512": 0.05, "128": 0.06})
    code, out = run_cli(
        capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim", "--sim-cache", caches
    )
    assert code == 0
    assert out["best"]["params"] == {"block_size_x": 128}
    store = Store(hermetic / "sessions.db")
    rows = {r.key: r for r in store.results(out["session"])}
    assert rows["512"].status == "wrong_result" and rows["512"].verified is False
    assert "wrong result at n=37: c[36] = nan" in rows["512"].error
    assert rows["512"].first_bad == "c[36] at n=37"
    assert store.session(out["session"])["best_key"] == "128"
    assert out["checks"]["passed"] == 3 and len(out["checks"]["failed"]) == 1


def test_run_json_reports_a_generated_kernel_wrong_at_a_ragged_size(capsys, hermetic):
    spec = load_spec(EXAMPLES / "vector_add.cu.toml")
    vid = version_hash(FLOAT4, spec)
    caches = hermetic / "caches-in"
    caches.mkdir()
    copy_cache(caches, RECORDED.name)
    copy_cache(caches, f"vector_add-{vid}.json", vid, {"256": [wrong_at("n=5592405", 5592404, 5592405)]})
    assert recorded_checks(caches / f"vector_add-{vid}.json", "256")[0]["ok"] is False
    reply = json.dumps(
        {
            "kernel_code": FLOAT4,
            "tune_params": {"block_size_x": [32, 64, 128, 256, 512, 1024]},
            "explanation": "float4 loads",
        }
    )
    with ScriptedServer([reply]) as server:
        code, out = run_cli(
            capsys,
            "run",
            EXAMPLES / "vector_add.cu",
            "--strategy",
            "one-prompt",
            "--auto",
            "--json",
            "--backend",
            "sim",
            "--sim-cache",
            caches,
            "--base-url",
            server.url,
            "--model",
            MODEL,
        )
    assert code == 0, out
    step = out["steps"][-1]
    assert step["version"] == vid and step["state"] == "failed"
    assert step["reason"].startswith("wrong result at n=5592405: c[5592404] = nan, expected 0.5")
    assert out["best"]["kernel_version"] != vid
    store = Store(hermetic / "sessions.db")
    shown = [e["data"] for e in store.events(out["session"]) if e["kind"] == "verification"]
    assert shown and shown[-1]["where"] == "n=5592405" and shown[-1]["verdicts"][0]["first_bad"] == 5592404
    kernel_gate = store.gate(out["session"], "kernel:one-prompt").body
    assert kernel_gate["tolerances"] == [
        {"output": "c", "type": "float32", "atol": 1e-5, "rtol": 1e-4, "atol_from": "default", "rtol_from": "default"}
    ]
    assert kernel_gate["verify_sizes"] == ["n=5592405", "n=37"]


def test_failures_and_checks_render_per_output():
    import io

    from rich.console import Console

    from kt_tui.engine.gates import gate_from
    from kt_tui.ui.gate_view import render_gate, render_verification

    console = Console(width=160, record=True, file=io.StringIO())
    bad = wrong_at("n=37", 36, 37)
    console.print(render_verification({"reason": bad["reason"], "where": "n=37", "verdicts": bad["verdicts"]}))
    gate = gate_from(
        "accept",
        "accept:1",
        "Accept step 1?",
        {
            "recommend": True,
            "threshold": 0.02,
            "verdicts": [],
            "checks": [{"label": "n=37", "status": "ok", "reason": ""}],
        },
    )
    console.print(render_gate(gate))
    text = console.export_text()
    assert "wrong result at n=37: c[36] = nan" in text and "outputs at n=37" in text
    assert "[36] nan vs 0.5" in text and "[35] 0.25 vs 0.25" in text
    assert "At n=37: right" in text


def test_a_size_the_original_leaves_unwritten_is_not_checked():
    from kt_tui.gpu.checking import unwritten

    spec = load_spec(FAULTS / "scaled_add.cu.toml")
    refs = {"out": np.array([1.0, np.nan, 2.0], np.float32)}
    assert unwritten(spec, refs, []) == "out[1]"
    assert unwritten(spec, refs, ["out"]) == ""  # partly unwritten at the spec's size too: by design
    assert unwritten(spec, {"out": np.ones(3, np.float32)}, []) == ""


def test_the_engine_finds_the_originals_poison_without_loading_the_worker_side():
    """The engine reads poison in the stored reference with kt_tui/compare.py (numpy only): neither the
    worker's checking code nor kernel_tuner load in the app's process for it."""
    import subprocess
    import sys

    code = (
        "import sys\nimport numpy as np\nfrom kt_tui.engine.checks import SizeChecks\n"
        "class Engine:\n"
        "    def reference(self):\n"
        "        return {'out': np.array([1.0, np.nan]), 'n': np.array([3, 4], np.int32),"
        " 'idx': np.array([0, np.iinfo(np.int32).max], np.int32)}\n"
        "print(SizeChecks(Engine())._partial(), sorted(m for m in sys.modules"
        " if m in ('kernel_tuner', 'kt_tui.gpu.checking', 'kt_tui.gpu.device.outputs')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['out', 'idx'] []"


def test_a_reference_captured_on_one_backend_is_run_again_on_another(monkeypatch):
    """The original's outputs at a check size are kept for the next checks of the app's process, but
    per backend: cupy compiles with -ftz=true, pycuda and nvcuda do not, and their outputs can differ."""
    from kt_tui.gpu import checking
    from kt_tui.gpu.wire import Run

    monkeypatch.setattr(checking, "_REFS", {})
    sent: list = []
    for backend in ("pycuda", "pycuda", "cupy"):
        gpu = tuner_on(check_device(lambda spec, params: {"out": np.zeros(spec.sizes["n"], np.float32)}, sent=sent))
        try:
            gpu.run(check_job(backend), lambda kind, p: None, timeout_s=30)
        finally:
            gpu.close()
    originals = [m for m in sent if isinstance(m, Run) and m.params == {"block_size_x": 256}]
    assert len(originals) == 4  # at both sizes on pycuda once (the second check reuses them), and on cupy
