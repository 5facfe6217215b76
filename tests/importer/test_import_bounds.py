"""An import keeps what a script asked for when the script then waits past --timeout, and takes a
bounded amount of array data (issue 36, item 6)."""

import numpy as np
import pytest

from kt_tui.importer import child
from kt_tui.importer.run import import_script

from .test_import import _script


def test_a_script_that_waits_after_tune_kernel_keeps_the_recorded_call(tmp_path):
    script = _script(
        tmp_path,
        """
        tune_kernel("scale", "scale.cu", n, args, tp)
        import time
        time.sleep(120)
        """,
    )
    done, problems, notes = import_script(script, tmp_path / "out", timeout_s=8)
    assert [d.kernel for d in done] == ["scale"] and problems == []
    assert any("did not finish within 8 s" in n for n in notes)


def test_imported_arrays_have_a_cap_that_is_named(tmp_path, monkeypatch):
    monkeypatch.setattr(child, "STAGING", str(tmp_path))
    monkeypatch.setattr(child, "MAX_STAGED", 3 << 20)
    monkeypatch.setattr(child, "STAGED_BYTES", [0])
    monkeypatch.setattr(child, "STAGED", {})
    child._stage(np.ones(1 << 19, np.float32))  # 2 MiB
    with pytest.raises(MemoryError, match="kt-tui import takes at most"):
        child._stage(np.full(1 << 19, 2, np.float32))
