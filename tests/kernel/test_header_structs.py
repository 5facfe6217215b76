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


PARTICLES = {
    "particle_f.h": "struct Particle { float x, y, z, w; };\n",
    "particle_d.h": "struct Particle { double x, y, z, w; };\n",
}
SCALES = "__global__ void k(Particle *p, int n) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) p[i].x *= 2.0;\n}\n"


def _particles(tmp_path, head: str, options=()):
    for name, text in PARTICLES.items():
        (tmp_path / name).write_text(text)
    kernel = tmp_path / "k.cu"
    kernel.write_text(head + SCALES)
    src, undecided = kernel.read_text(), []
    read = headers.local_headers(src, kernel, options, undecided)
    (k,) = find_kernels(src)
    (p,) = [a for a in draft(k, src, 1 << 12, [t for _, t in read]).spec.args if a.name == "p"]
    return [path.name for path, _ in read], p.type, undecided


PICK = '#ifdef USE_DOUBLE\n#include "particle_d.h"\n#else\n#include "particle_f.h"\n#endif\n'


@pytest.mark.parametrize(
    "head, options, wanted",
    [
        (PICK, (), "particle_f.h"),  # before: both read, particle_d.h's doubles taken
        ("#define USE_DOUBLE\n" + PICK, (), "particle_d.h"),
        (PICK, ("-DUSE_DOUBLE",), "particle_d.h"),
        ("#define USE_DOUBLE\n#undef USE_DOUBLE\n" + PICK, (), "particle_f.h"),
        (PICK.replace("#ifdef USE_DOUBLE", "#if defined(USE_DOUBLE) && !defined(NARROW)"), (), "particle_f.h"),
        (PICK.replace("#ifdef USE_DOUBLE", "#ifndef USE_FLOAT"), (), "particle_d.h"),
        (
            '#define PREC 1\n#if PREC == 2\n#include "particle_d.h"\n#elif PREC == 1\n#include "particle_f.h"\n#endif\n',
            (),
            "particle_f.h",
        ),
        ('#include "prec.h"\n' + PICK, (), "particle_d.h"),  # a header's #define holds after its #include
    ],
)
def test_a_headers_ifdef_is_decided_with_the_files_macros_and_the_specs_options(tmp_path, head, options, wanted):
    (tmp_path / "prec.h").write_text("#pragma once\n#define USE_DOUBLE 1\n")
    names, dtype, undecided = _particles(tmp_path, head, options)
    assert [n for n in names if n != "prec.h"] == [wanted] and undecided == []
    assert dtype == ("float64" if wanted == "particle_d.h" else "float32")


def test_a_struct_under_ifdef_in_a_header_is_read_from_the_group_compiled(tmp_path):
    (tmp_path / "particle.h").write_text(
        "#ifdef USE_DOUBLE\n" + PARTICLES["particle_d.h"] + "#else\n" + PARTICLES["particle_f.h"] + "#endif\n"
    )
    names, dtype, _ = _particles(tmp_path, '#include "particle.h"\n')
    assert names == ["particle.h"] and dtype == "float32"  # before: the first definition, doubles, taken


def test_a_condition_on_a_launchs_value_is_said_undecided_not_read_both_ways(tmp_path, capsys):
    head = PICK.replace("#ifdef USE_DOUBLE", "#if block_size_x > 128")
    names, _, undecided = _particles(tmp_path, head)
    assert names == ["particle_d.h"]  # its first group, as if it held; never both
    assert undecided == ["k.cu:1: `#if block_size_x > 128` is not decided here: read as if it held"]
    assert main(["spec", str(tmp_path / "k.cu")]) == 0
    assert "header conditions: k.cu:1: `#if block_size_x > 128` is not decided here" in capsys.readouterr().out


@pytest.mark.parametrize(
    "rest, held",
    [
        ("0", False), ("1", True), ("(2 + 3) * 4 == 20", True), ("0x10 >> 2 == 4 && !0", True), ("1 / 0", None),
        ("UNDEFINED_NAME", False), ("kernel_tuner", True), ("block_size_x", None), ("block_size_x || 1", True),
        ("block_size_x && 0", False), ("F(1)", None), ("__import__('os')", None), ("1 ? 2 : 3", None), ("(" * 40 + "1" + ")" * 40, None),
    ],
)  # fmt: skip
def test_conditions_are_read_by_their_own_reader(rest, held):
    from kt_tui.kernel.conditions import KERNEL_TUNER, condition

    assert condition("if", rest, {**KERNEL_TUNER, "F": None}) is held


def test_spec_drafts_the_struct_of_the_ifdef_group_the_compile_reads(tmp_path, capsys):
    for name, text in PARTICLES.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "k.cu").write_text(PICK + SCALES)
    assert main(["spec", str(tmp_path / "k.cu"), "--print"]) == 0
    out = capsys.readouterr().out
    assert 'name = "p"\ntype = "float32"' in out, out  # before: float64, from the group USE_DOUBLE would read


def test_a_condition_whose_macros_multiply_past_the_bound_is_undecided():
    from kt_tui.kernel.conditions import condition

    macros: dict[str, str | None] = {"A0": "1"}
    for i in range(1, 17):
        macros[f"A{i}"] = "+".join([f"A{i - 1}"] * 600)  # 600 ** 16 terms written out
    assert condition("if", "A16", macros) is None and condition("if", "A1 == 600", macros) is True
