"""A struct passed by value whose type a local header defines (`#include "affine.h"` next to the kernel)
is drafted with the same NOT PASSABLE note as one the kernel file defines (kernel/headers.py); the
headers read stay inside the kernel's folder and under their bounds."""

import os

import pytest

from kt_tui.cli import main
from kt_tui.kernel import headers
from kt_tui.kernel.draft import draft
from kt_tui.kernel.source import find_kernels

HEADER = "#pragma once\nstruct Affine { float a; int b; };\n"
KERNEL = """#include "affine.h"
__global__ void k(Affine p, const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = p.a * in[i] + p.b;
}
"""


def _said(path, key="args.p"):
    src = path.read_text()
    (k,) = find_kernels(src)
    return [
        why for at, why in draft(k, src, 1 << 12, [t for _, t in headers.local_headers(src, path)]).guesses if at == key
    ]


def test_spec_notes_a_struct_from_a_local_header_as_not_passable(tmp_path, capsys):
    (tmp_path / "affine.h").write_text(HEADER)
    kernel = tmp_path / "k.cu"
    kernel.write_text(KERNEL)
    assert main(["spec", str(kernel)]) == 0
    out = capsys.readouterr().out
    assert "args.p: NOT PASSABLE: p is a struct Affine passed by value" in out, out  # before: no note at all
    assert "# guess: NOT PASSABLE: p is a struct Affine" in (tmp_path / "k.cu.toml").read_text()


def test_a_header_included_by_a_header_in_a_subfolder_is_read(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "all.h").write_text('#include "types.h"\n')
    (tmp_path / "inc" / "types.h").write_text(HEADER)  # found next to the header that includes it
    kernel = tmp_path / "k.cu"
    kernel.write_text(KERNEL.replace('"affine.h"', '"inc/all.h"'))
    assert any(why.startswith("NOT PASSABLE: p is a struct Affine") for why in _said(kernel))


def test_the_kernel_files_own_definition_stands(tmp_path):
    (tmp_path / "affine.h").write_text(HEADER)
    kernel = tmp_path / "k.cu"
    kernel.write_text(KERNEL.replace('#include "affine.h"\n', '#include "affine.h"\nstruct Affine2 { float a; };\n')
                      .replace("Affine p", "Affine2 p").replace(" + p.b", ""))  # fmt: skip
    assert not any("NOT PASSABLE" in why for why in _said(kernel))  # one float: passed as one


@pytest.mark.parametrize("where", ["parent", "link", "system", "large"])
def test_headers_outside_the_folder_or_past_the_bounds_are_not_read(tmp_path, monkeypatch, where):
    folder = tmp_path / "kernel"
    folder.mkdir()
    name = "affine.h"
    if where == "parent":
        (tmp_path / name).write_text(HEADER)
        name = "../affine.h"
    elif where == "link":
        (tmp_path / "outside.h").write_text(HEADER)
        os.symlink(tmp_path / "outside.h", folder / name)
    elif where == "system":
        (folder / name).write_text(HEADER)
        name = "<affine.h>"
    else:
        (folder / name).write_text(HEADER)
        monkeypatch.setattr(headers, "MAX_HEADER_BYTES", len(HEADER) - 1)
    include = name if name.startswith("<") else f'"{name}"'
    kernel = folder / "k.cu"
    kernel.write_text(KERNEL.replace('"affine.h"', include))
    assert headers.local_headers(kernel.read_text(), kernel) == []


def test_includes_stop_at_the_depth_and_count_bounds_and_cycles_end(tmp_path, monkeypatch):
    for i in range(6):
        (tmp_path / f"h{i}.h").write_text(f'#include "h{i + 1}.h"\n#include "h0.h"\n')
    kernel = tmp_path / "k.cu"
    kernel.write_text('#include "h0.h"\n' + KERNEL.split("\n", 1)[1])
    assert [p.name for p, _ in headers.local_headers(kernel.read_text(), kernel)] == ["h0.h", "h1.h", "h2.h", "h3.h"]
    monkeypatch.setattr(headers, "MAX_HEADERS", 2)
    assert len(headers.local_headers(kernel.read_text(), kernel)) == 2


def test_a_header_in_a_group_the_preprocessor_skips_is_not_read(tmp_path):
    (tmp_path / "particle_f.h").write_text("struct Particle { float x, y, z, w; };\n")
    (tmp_path / "particle_d.h").write_text("struct Particle { double x, y, z, w; };\n")
    kernel = tmp_path / "k.cu"
    kernel.write_text(
        '#if 0\n#include "particle_f.h"\n#else\n#include "particle_d.h"\n#endif\n'
        "__global__ void k(Particle *p, int n) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) p[i].x *= 2.0;\n}\n"
    )
    src = kernel.read_text()
    read = headers.local_headers(src, kernel)
    assert [p.name for p, _ in read] == ["particle_d.h"]  # before: particle_f.h first, its floats taken
    (k,) = find_kernels(src)
    (p,) = [a for a in draft(k, src, 1 << 12, [t for _, t in read]).spec.args if a.name == "p"]
    assert p.type == "float64"  # 32 bytes an element, as compiled; float32 would be half of them
