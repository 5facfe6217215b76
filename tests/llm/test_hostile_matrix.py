"""A few kinds of scripts/hostile_llm.py's matrix through the real CLI (a subprocess each, then an
export): no internal error, no hang, no secret in any file or output, no control character on the
terminal, RSS under the bound. The whole matrix: `python scripts/hostile_llm.py`."""

import importlib.util
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("hostile_llm", ROOT / "scripts" / "hostile_llm.py")
hostile = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hostile)
KINDS = ("echo-key-split-across-chunks", "chunk-choices-string", "gzip-bomb-stream")


@pytest.mark.parametrize("kind", KINDS)
def test_a_hostile_reply_kind_ends_clean(kind, monkeypatch):
    for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(k, raising=False)
    name, script, opt = next(c for c in hostile.cases() if c[0] == kind)
    row = hostile.run_case(name, script, opt, Path(tempfile.mkdtemp(prefix="hostile-")))
    assert row["defects"] == [], row
    assert row["rc"] in (0, 1) and row["outcome"].split(":")[0] in ("finished", "failed"), row
