"""Kernel text is normalised before anything reads it (issue 22, items 3 and 11): control characters
refused with their line, a BOM dropped, and the review reading what the preprocessor reads (splices,
`%:` spellings, macros that expand to inline assembly)."""

import shutil

import pytest

from kt_tui import cli
from kt_tui.gpu.compile import compile_check
from kt_tui.kernel.review import review
from kt_tui.kernel.source import SourceError, read_source
from kt_tui.kernel.text import KernelTextError, folded, kernel_text

from ..conftest import EXAMPLES
from ..helpers import spec_for

ORIGINAL = (EXAMPLES / "vector_add.cu").read_text()
PARAMS = {"block_size_x": 256}
SPEC = spec_for("vector_add", PARAMS)


def _kinds(added: str) -> list[str]:
    return [f.kind for f in review(ORIGINAL, added + "\n" + ORIGINAL, "vector_add")]


@pytest.mark.parametrize(
    "bad,line",
    [('\0#include "/dev/zero"\n', 1), ("int a;\n\x1b[2J\n", 2), ("int a;\nint b;\x7f\n", 2), ("\v#include <x>\n", 1)],
)
def test_control_characters_are_refused_with_their_line(tmp_path, bad, line):
    path = tmp_path / "k.cu"
    path.write_text(bad + ORIGINAL)
    with pytest.raises(SourceError, match=f"line {line}: "):
        read_source(path)
    with pytest.raises(KernelTextError, match=f"line {line}"):
        kernel_text(bad + ORIGINAL)
    assert "control" in _kinds(bad)


@pytest.mark.parametrize("mark", ["\u202e", "\u202a", "\u2066", "\u2069"])
def test_bidirectional_overrides_that_reorder_the_code_shown_are_refused_with_their_line(tmp_path, mark):
    bad = f"int a;\n/* ok {mark} */ int b; /* x */\n"  # Trojan Source: shown in another order than read
    path = tmp_path / "k.cu"
    path.write_text(bad + ORIGINAL, encoding="utf-8")
    with pytest.raises(SourceError, match="line 2: the bidirectional control"):
        read_source(path)
    with pytest.raises(KernelTextError, match="line 2"):
        kernel_text(bad + ORIGINAL)
    assert "control" in _kinds(bad)


def test_a_right_to_left_mark_in_a_comment_is_kept():
    assert kernel_text("// \u05e9\u05dc\u05d5\u05dd \u200f\n" + ORIGINAL).startswith("// ")


def test_a_nul_hidden_include_never_reaches_the_compiler(monkeypatch):
    ran = []
    monkeypatch.setattr("kt_tui.gpu.compile._run_nvcc", lambda *a, **k: ran.append(a))
    monkeypatch.setattr("kt_tui.gpu.compile._run_nvrtc", lambda *a, **k: ran.append(a))
    result = compile_check('\0#include "/dev/zero"\n' + ORIGINAL, PARAMS, spec=SPEC)
    assert result.ok is False and "NUL" in result.reason and ran == []


def test_a_nul_kernel_file_is_a_one_line_exit_2(capsys, tmp_path):
    kernel = tmp_path / "vector_add.cu"
    kernel.write_text('\0#include "/dev/zero"\n' + ORIGINAL)
    shutil.copy(EXAMPLES / "vector_add.cu.toml", tmp_path / "vector_add.cu.toml")
    assert cli.main(["spec", str(kernel), "--check"]) == 2
    err = capsys.readouterr().err
    assert "line 1: a NUL byte" in err and len(err.strip().splitlines()) == 1, err


def test_tab_newline_return_and_form_feed_are_kept():
    text = "int a;\t\r\n\fint b;\n"
    assert kernel_text(text) == text


@pytest.mark.parametrize(
    "added",
    [
        'void f() { a\\\nsm volatile("trap;"); }',  # a splice inside the keyword
        'void f() { __as\\  \nm__("trap;"); }',  # blanks after the backslash still splice
        '#define A asm\nvoid f() { A volatile("trap;"); }',  # a macro that expands to asm
        '#define A __asm__\n#define B A\nvoid f() { B("trap;"); }',
        "%:define A asm",  # the digraph of #
        "#define A a\\\nsm",
    ],
)
def test_inline_assembly_is_flagged_however_it_is_spelled(added):
    assert "inline_asm" in _kinds(added), added


def test_a_macro_for_a_host_call_is_flagged():
    assert "host_api" in _kinds('#define RUN(x) system(x)\nvoid f() { RUN("ls"); }')


@pytest.mark.parametrize(
    "added",
    [
        '#inc\\\nlude "/etc/passwd"',
        '%:include "/etc/passwd"',
        '%:pragma GCC dependency "/etc/passwd"',
    ],
)
def test_file_directives_are_flagged_in_every_spelling(added):
    assert "include" in _kinds(added), added


def test_folding_keeps_line_numbers():
    text = "a\\\nb\\\nc\nd\n%:x ??=y"
    assert folded(text) == "abc\n\n\nd\n#x ??=y"  # C++17 has no trigraphs (test_review_reads_as_nvcc.py)
    assert folded(text).count("\n") == text.count("\n")


def test_a_bom_is_dropped_when_read(tmp_path):
    path = tmp_path / "k.cu"
    path.write_bytes(b"\xef\xbb\xbf" + ORIGINAL.encode())
    assert read_source(path) == ORIGINAL


def test_a_kernel_with_classic_mac_line_ends_is_read_as_nvcc_reads_it(tmp_path, capsys):
    """A lone CR ends a line for nvcc; read as one line, the first `//` comment hid the whole kernel."""
    kernel = tmp_path / "vector_add.cu"
    kernel.write_bytes(ORIGINAL.replace("\n", "\r").encode())
    assert read_source(kernel) == ORIGINAL
    crlf = tmp_path / "crlf.cu"
    crlf.write_bytes(ORIGINAL.replace("\n", "\r\n").encode())
    assert read_source(crlf) == ORIGINAL.replace("\n", "\r\n")  # CRLF is kept as it is
    assert cli.main(["spec", str(kernel), "--print"]) == 0
    assert 'kernel = "vector_add"' in capsys.readouterr().out


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_a_kernel_with_a_bom_compiles():
    result = compile_check("\ufeff" + ORIGINAL, PARAMS, spec=SPEC)
    assert result.ok is True, result.messages
