"""Several GPU workers in one session, without Ray: what --gpus and --ray ask for, how a run's
configurations go out, a GPU that dies, and GPU models that differ."""

from __future__ import annotations

import sys

import pytest

from kt_tui.config import load_settings
from kt_tui.front.commands import make_worker
from kt_tui.gpu.tuner import ScaleError, Tuner
from kt_tui.records import Known

from ..conftest import EXAMPLES
from ..helpers import fake_device, tuner_on
from .scale_fakes import matmul_job, run_matmul_on_two


def test_ray_without_ray_says_how_to_install_it_and_local_gpus_need_none(capsys, monkeypatch, hermetic):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails as if it were not installed
    code = __import__("kt_tui.cli").cli.main(["run", str(EXAMPLES / "matmul.cu"), "--auto", "--ray", "10.0.0.1:6379"])
    assert code == 2 and "pip install 'kt-tui[ray]'" in capsys.readouterr().err
    code, out = run_matmul_on_two(capsys)
    assert code == 0 and out["results"] == 17  # this host's GPUs: one worker process each, no Ray


def test_a_bad_gpus_value_is_named(capsys):
    code = __import__("kt_tui.cli").cli.main(["run", str(EXAMPLES / "matmul.cu"), "--auto", "--gpus", "two"])
    assert code == 2 and "--gpus: expected a number of GPUs or 'all', got 'two'" in capsys.readouterr().err


def test_one_gpu_or_no_flag_keeps_the_single_worker(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    for flags in ({}, {"gpus": "1"}):
        worker = make_worker(load_settings(flags))
        assert type(worker) is Tuner and worker.via == "one" and worker.size == 1


def test_the_config_file_and_ray_address_ask_for_several_gpus(hermetic, monkeypatch, capsys):
    (hermetic / "config").mkdir()
    (hermetic / "config" / "config.toml").write_text("gpus = 2\nallow_mixed = true\n")
    pool = make_worker(load_settings({}))
    assert isinstance(pool, Tuner) and pool.gpus == 2 and pool.allow_mixed and pool.via == "local"
    pool.close()
    (hermetic / "config" / "config.toml").write_text("")
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.1:6379")
    pool = make_worker(load_settings({}))  # the cluster is joined in the background as the session loads
    with pytest.raises(ScaleError, match="--ray 10.0.0.1:6379: cannot start or join"):
        pool.wait_connected()  # and said before a session is made
    monkeypatch.setitem(sys.modules, "ray", None)
    code = __import__("kt_tui.cli").cli.main(["sessions"])  # listing sessions needs no Ray
    assert code == 0


def test_the_space_goes_once_over_the_workers_with_seeds_first():
    seed = {"block_size_x": 64, "block_size_y": 16}
    calls: list = []
    job = matmul_job(
        backend="pycuda", known={"16,16": Known('{"block_size_x": 16, "block_size_y": 16}', 1.0, "ok")}, seeds=[seed]
    )
    tuner = tuner_on(*(fake_device(f"a:gpu{i}", "H200", pace=0.01, calls=calls) for i in range(3)))
    got = []
    tuner.run(job, lambda k, p: got.append(p) if k == "result" else None, 10)
    keys = [k for _, k, _ in calls]
    assert len(keys) == len(set(keys)) == 16 and "16,16" not in keys and keys[0] == "64,16"
    assert sorted(r.key for r in got) == sorted(keys) and len({r.worker for r in got}) == 3


def test_a_gpu_that_dies_costs_the_configuration_it_ran_each_time_then_the_rest_go_on_without_it():
    calls: list = []
    pool = tuner_on(fake_device("a:gpu0", "H200", pace=0.01, calls=calls), fake_device("a:gpu1", "H200", dies_after=1))
    got = []
    info = pool.run(matmul_job(backend="pycuda"), lambda k, p: got.append(p) if k == "result" else None, 10)
    assert len(got) == 17 and len({r.key for r in got}) == 17 and not info["stopped"]
    dead = [r for r in got if r.worker == "a:gpu1"]
    assert [r.status for r in dead[:1]] == ["ok"] and {r.status for r in dead[1:]} == {"crash"}
    assert 1 <= len(dead) - 1 <= 4  # each death cost one configuration; after the 4th it is given up
    assert all("died" in r.error for r in dead[1:])
    assert {r.status for r in got if r.worker == "a:gpu0"} == {"ok"}


def test_workers_of_different_gpu_models_are_refused_unless_allowed():
    pool = tuner_on(fake_device("a:gpu0", "NVIDIA H200"), fake_device("b:gpu0", "NVIDIA A100"))
    pool.devices = {}
    with pytest.raises(ScaleError, match="different GPU models.*--allow-mixed"):
        pool.probe()
    pool.allow_mixed = True
    assert pool.probe()["gpu"] == "NVIDIA A100 + NVIDIA H200"
    got = []
    pool.run(matmul_job(backend="pycuda"), lambda k, p: got.append(p) if k == "result" else None, 10)
    assert {(r.worker, r.device) for r in got} == {("a:gpu0", "NVIDIA H200"), ("b:gpu0", "NVIDIA A100")}
