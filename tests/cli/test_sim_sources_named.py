"""Where a replay looked for a recording is said as folders you can find: the `recorded/` folder beside
a kernel given by a relative path is named by its whole path (it read `in recorded, ...`)."""

from __future__ import annotations

import shutil

from kt_tui.cli import main

from ..conftest import EXAMPLES


def test_no_recording_names_the_folder_beside_the_kernel_in_full(capsys, tmp_path, monkeypatch):
    for name in ("vector_add.cu", "vector_add.cu.toml"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "vector_add.cu", "--auto", "--backend", "sim"]) == 2
    err = capsys.readouterr().err
    assert f"in {tmp_path / 'recorded'}, " in err, err
