"""A recorded cache nested deeper than json can read (a hand-made or hostile file) is refused as not a
cachefile, in one line with exit 2, wherever it is read: not an internal RecursionError."""

import pytest

from kt_tui.gpu.simcache import find_cache, read_header

from ..conftest import EXAMPLES

DEEP = '{"device_name": "NVIDIA H100", "cache": {}, "kt_tui": ' + "[" * 100_000 + "]" * 100_000 + "}"


def test_a_deeply_nested_cache_is_not_a_cachefile(tmp_path):
    (tmp_path / "deep.json").write_text(DEEP)
    with pytest.raises(ValueError, match="nested too deep"):
        read_header(tmp_path / "deep.json")
    assert find_cache(tmp_path, "vector_add", "0123abcd") is None  # a folder's search passes over it


def test_the_sim_cache_flag_refuses_it_in_one_line(tmp_path, capsys, hermetic):
    (tmp_path / "deep.json").write_text(DEEP)
    code = __import__("kt_tui.cli").cli.main(
        [
            "run",
            str(EXAMPLES / "vector_add.cu"),
            "--auto",
            "--backend",
            "sim",
            "--sim-cache",
            str(tmp_path / "deep.json"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "not a kernel_tuner cachefile" in err and len(err.strip().splitlines()) == 1, err
