"""A recorded cache whose header names no GPU, or that kernel_tuner cannot read (its "cache" entry not
last), is refused before a session is made (one line, exit 2), not replayed into a session that fails
on kernel_tuner's KeyError or an internal JSON error: a replay shows only what a named GPU measured."""

import json
import shutil
import sqlite3

import pytest

from kt_tui import cli

from ..conftest import EXAMPLES

CACHE = "vector_add-94d9d81671be4dab.json"


def _refused(hermetic, tmp_path, capsys, data: dict, says: str, backend: str = "sim") -> None:
    (tmp_path / "caches").mkdir()
    (tmp_path / "caches" / CACHE).write_text(json.dumps(data))
    shutil.copy(EXAMPLES / "vector_add.cu", tmp_path / "vector_add.cu")
    shutil.copy(EXAMPLES / "vector_add.cu.toml", tmp_path / "vector_add.cu.toml")
    argv = ["run", str(tmp_path / "vector_add.cu"), "--auto", "--backend", backend, "--llm", "none"]
    assert cli.main([*argv, "--sim-cache", str(tmp_path / "caches")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0] and CACHE in err[0], err
    with sqlite3.connect(hermetic / "sessions.db") as c:
        assert c.execute("select count(*) from sessions").fetchone()[0] == 0


@pytest.mark.parametrize("device", [None, "", "  ", 5])
def test_a_recorded_cache_that_names_no_gpu_is_refused(hermetic, tmp_path, capsys, device):
    data = json.loads((EXAMPLES / "recorded" / CACHE).read_text())
    data["kt_tui"].pop("gpu")
    if device is None:
        data.pop("device_name")
    else:
        data["device_name"] = device  # in place: the "cache" entry stays last
    _refused(hermetic, tmp_path, capsys, data, "names no GPU")


def test_a_recorded_cache_kernel_tuner_cannot_read_is_refused(hermetic, tmp_path, capsys):
    data = json.loads((EXAMPLES / "recorded" / CACHE).read_text())
    data["device_name"] = data.pop("device_name")  # now after "cache": kernel_tuner's reader fails on it
    _refused(hermetic, tmp_path, capsys, data, 'last entry is "cache"')


def test_with_backend_auto_a_refused_cache_is_said_as_refused_not_as_missing(hermetic, tmp_path, capsys):
    data = json.loads((EXAMPLES / "recorded" / CACHE).read_text())
    data["kt_tui"].pop("gpu")
    data.pop("device_name")
    _refused(hermetic, tmp_path, capsys, data, "names no GPU", backend="auto")
