"""kernel/conditions.py against hostile and unusual kernel text: the groups a compile reads are the ones
read, whatever the text, within bounds of time."""

import pytest

from .test_header_structs import PICK, _particles


@pytest.mark.parametrize(
    "test, options",
    [
        ("#ifdef __CUDACC__", ()),  # nvcc and NVRTC define it
        ("#if defined(__CUDA_ARCH__)", ()),  # the device pass, the one that lays out a kernel's parameters
        ("#ifdef __cplusplus", ()),  # every compile is C++
        ("#if __cplusplus >= 201703L", ()),  # C++17, unless the options name a later standard
        ("#if __cplusplus >= 201703L", ("-std=c++20",)),
    ],
)
def test_the_compilers_own_macros_are_defined(tmp_path, test, options):
    head = PICK.replace("#ifdef USE_DOUBLE", test).replace('"particle_d.h"', '"particle_x.h"')
    head = head.replace('"particle_f.h"', '"particle_d.h"').replace('"particle_x.h"', '"particle_f.h"')
    names, dtype, undecided = _particles(tmp_path, head, options)
    assert (names, dtype, undecided) == (["particle_f.h"], "float32", [])


def test_a_value_the_compile_gives_only_per_arch_is_undecided(tmp_path):
    names, _, undecided = _particles(tmp_path, PICK.replace("#ifdef USE_DOUBLE", "#if __CUDA_ARCH__ >= 700"))
    assert names == ["particle_d.h"] and len(undecided) == 1  # its first group, said


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])  # a lone CR ends a line for nvcc too
def test_a_headers_groups_are_read_whatever_ends_its_lines(tmp_path, end):
    text = "#if 1\nstruct Particle { double x, y, z, w; };\n#else\nstruct Particle { float x, y, z, w; };\n#endif\n"
    (tmp_path / "particle.h").write_bytes(text.replace("\n", end).encode())
    names, dtype, undecided = _particles(tmp_path, '#include "particle.h"\n')
    assert (names, dtype, undecided) == (["particle.h"], "float64", [])


def test_the_conditions_of_one_read_share_a_bound_on_the_tokens_read():
    from kt_tui.kernel.conditions import KERNEL_TUNER, MAX_READ_TOKENS, live_groups

    ones = "+".join(["I"] * 1000)  # 1999 tokens, and a token for each I read
    text = f"#define I 1\n#define A {ones}\n" + "#if A == 1000\nint x;\n#endif\n" * (MAX_READ_TOKENS // 1000)
    live = live_groups(text, dict(KERNEL_TUNER), "h.h")
    decided = MAX_READ_TOKENS // 3002  # each condition reads 3002 tokens: its own 3, A's 1999 and I's
    assert live.undecided[0].startswith(f"h.h:{3 + 3 * decided}: `#if A == 1000` is not decided here")
    assert len(live.undecided) == MAX_READ_TOKENS // 1000 - decided  # before: each read to the end, none said


def test_a_drafts_header_conditions_read_the_existing_specs_tune_parameters_and_defines(tmp_path, capsys):
    from kt_tui.cli import main

    from .test_header_structs import PARTICLES, SCALES

    for name, text in PARTICLES.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "k.cu").write_text(PICK.replace("#ifdef USE_DOUBLE", "#if WIDE") + SCALES)
    (tmp_path / "k.cu.toml").write_text('kernel = "k"\n[tune_params]\nWIDE = [0, 1]\n')
    assert main(["spec", str(tmp_path / "k.cu"), "--print"]) == 0
    out = capsys.readouterr().out  # WIDE is 1 in some configurations: before, read as 0 and not said
    assert "header conditions: k.cu:1: `#if WIDE` is not decided here" in out and 'type = "float64"' in out
    (tmp_path / "k.cu.toml").write_text('kernel = "k"\n[defines]\nWIDE = 0\n')
    assert main(["spec", str(tmp_path / "k.cu"), "--print"]) == 0
    out = capsys.readouterr().out
    assert "header conditions" not in out and 'name = "p"\ntype = "float32"' in out
    (tmp_path / "k.cu.toml").write_text('kernel = "k"\n[defines]\nWIDE = 1\n')
    assert main(["spec", str(tmp_path / "k.cu"), "--print"]) == 0
    assert 'name = "p"\ntype = "float64"' in capsys.readouterr().out


@pytest.mark.parametrize(
    "rest, held",
    [
        ("A", None),  # 50 numbers of 1990 digits multiplied: past 64 bits, as no compile reads it
        ("18446744073709551616 > 0", None),  # 2 ** 64: too large for any integer type
        ("9223372036854775807 > 0", True),
        ("-9223372036854775807 - 1 < 0", True),
        ("(1 << 62) * 4 > 0", None),  # 2 ** 64
        ("4294967296 * 4294967295 > 0", True),
    ],
)
def test_a_conditions_values_stay_within_64_bits(rest, held):
    from kt_tui.kernel.conditions import PREDEFINED, condition

    macros = {**PREDEFINED, "B": "9" * 1990, "A": "*".join(["B"] * 50)}  # 1000 of them: 11 s a condition
    assert condition("if", rest, macros) is held


def test_a_draft_says_a_few_undecided_conditions_and_counts_the_rest(tmp_path, capsys):
    from kt_tui.cli import main

    from .test_header_structs import SCALES

    conditions = "".join(f"#if block_size_x > {i}\n#endif\n" for i in range(50))
    (tmp_path / "k.cu").write_text(conditions + "struct Particle { float x; };\n" + SCALES)
    assert main(["spec", str(tmp_path / "k.cu")]) == 0
    said = [line for line in (tmp_path / "k.cu.toml").read_text().splitlines() if "header conditions" in line]
    assert len(said) == 11 and said[0].endswith(
        "k.cu:1: `#if block_size_x > 0` is not decided here: read as if it held"
    )
    assert said[-1].endswith("header conditions: 40 more not decided here, each read as if it held")
    capsys.readouterr()  # before: a line for each (60 000 of them: a 6 MB spec that spec --check refuses)
