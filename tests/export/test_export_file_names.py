"""A template kernel's export is named by a plain stem (`vadd_float`), not by its C++ name with
`<`, `>`, commas and blanks, which a shell must quote and some file systems refuse."""

from __future__ import annotations

import json
from pathlib import Path

from kt_tui.store import Store
from kt_tui.ui.export_screen import default_folder

from ..conftest import EXAMPLES
from ..helpers import run_cli

SOURCE = """template <typename T>
__global__ void vadd(T *c, const T *a, const T *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
template __global__ void vadd<float>(float *, const float *, const float *, int);
"""
RECORDED = EXAMPLES / "recorded" / "vector_add-94d9d81671be4dab.json"


def _template_kernel(tmp_path):
    kernel = tmp_path / "vadd.cu"
    kernel.write_text(SOURCE)
    spec = (EXAMPLES / "vector_add.cu.toml").read_text().replace('kernel = "vector_add"', 'kernel = "vadd<float>"')
    (tmp_path / "vadd.cu.toml").write_text(spec)
    cache = json.loads(RECORDED.read_text())
    cache["kernel_name"] = "vadd<float>"  # the recording replayed as this kernel's (same space, same sizes)
    (tmp_path / "vadd.json").write_text(json.dumps(cache))
    return kernel


def test_a_measured_template_kernel_exports_under_a_plain_stem(capsys, tmp_path):
    kernel = _template_kernel(tmp_path)
    code, run = run_cli(
        capsys, "run", kernel, "--auto", "--json", "--backend", "sim", "--sim-cache", tmp_path / "vadd.json"
    )
    assert code == 0 and isinstance(run, dict)
    sid = run["session"]
    out = tmp_path / "out"
    code, data = run_cli(capsys, "export", "--out", out, "--json")
    assert code == 0 and isinstance(data, dict)
    names = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert "vadd_float.best.cu" in names and "tune_vadd_float.py" in names and "vadd_float.inputs.npz" in names
    assert not [n for n in names if set(n) & set("<>, ")]
    assert 'kernel = "vadd<float>"' in (out / "vadd_float.best.cu.toml").read_text()  # the spec keeps the C++ name
    assert "vadd_float.inputs.npz" in (out / "tune_vadd_float.py").read_text()
    folder = Path(default_folder(Store(tmp_path / "sessions.db"), sid))  # the app's export offers
    assert folder.name == f"vadd_float-{sid}-export"


def test_an_unmeasured_template_kernel_exports_under_a_plain_stem(capsys, tmp_path):
    kernel = _template_kernel(tmp_path)
    code, _ = run_cli(capsys, "run", kernel, "--auto", "--json", "--backend", "none")
    assert code == 0
    out = tmp_path / "out"
    code, _ = run_cli(capsys, "export", "--out", out, "--json")
    assert code == 0
    assert (out / "vadd_float.cu").is_file() and (out / "vadd_float.cu.toml").is_file()
    assert not [p for p in out.iterdir() if set(p.name) & set("<>, ")]
