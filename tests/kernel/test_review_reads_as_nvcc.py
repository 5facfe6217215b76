"""The review and the compiler read the same lines (issue 36, item 1): every compile is C++17
(kernel/text.py compile_options), where `??/` is plain text, and the review reads it so. Each line the
hostile tester hid behind `// note ??/` (an #include, inline assembly, an out-of-bounds write, an
extra kernel, device malloc; LF and CRLF; `??/??/`) goes through the review and through nvcc, and
both must see it; a real backslash splice hides it from both. nvcc compiles here, nothing runs."""

import shutil

import pytest

from kt_tui.gpu.compile import compile_check
from kt_tui.gpu.ktsource import kernel_string
from kt_tui.kernel.parsed import ParsedKernel
from kt_tui.kernel.review import review
from kt_tui.kernel.spec_keys import compiler_options
from kt_tui.tomlfile import TomlError

from ..conftest import EXAMPLES
from ..helpers import spec_for

ORIGINAL = (EXAMPLES / "vector_add.cu").read_text()
PARAMS = {"block_size_x": 256}
SPEC = spec_for("vector_add", PARAMS)
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")

# (name, where it goes, the hidden line, the review's flag for it, a word nvcc names when it reads it)
HIDDEN = [
    ("include", "top", '#include "kt_hidden_header.h"', "include", "kt_hidden_header"),
    ("trap", "body", 'asm volatile("trap;"); kt_hidden_trap;', "inline_asm", "kt_hidden_trap"),
    ("oob", "body", "c[i + 100000000] = kt_hidden_oob;", None, "kt_hidden_oob"),
    (
        "extra",
        "top",
        "__global__ void kt_extra(float *x) { x[0] = kt_hidden_extra; }",
        "extra_kernel",
        "kt_hidden_extra",
    ),
    ("malloc", "body", "float *p = (float *)malloc(4); p[0] = kt_hidden_malloc;", "host_api", "kt_hidden_malloc"),
]
HIDERS = ["// note ??/", "// note ??/??/"]
NEWLINES = {"lf": "\n", "crlf": "\r\n"}


def generated(hider: str, newline: str, where: str, line: str) -> str:
    hidden = f"{hider}\n{line}\n"
    code = hidden + ORIGINAL if where == "top" else ORIGINAL.replace("if (i < n) {\n", "if (i < n) {\n" + hidden)
    return code.replace("\n", newline)


def review_sees(code: str, flag: str | None, marker: str) -> bool:
    """The review reads the line: it flags what the line adds, or (a plain write) its words are in
    the tokens the review reads."""
    if flag is None:
        return marker in ParsedKernel(code).folded.identifiers
    return flag in {f.kind for f in review(ORIGINAL, code, "vector_add")}


def nvcc_sees(code: str, marker: str) -> bool:
    result = compile_check(code, PARAMS, spec=SPEC)
    assert result.ok is not None, result.reason
    return not result.ok and any(marker in m.text for m in result.messages)


@needs_nvcc
@pytest.mark.parametrize("newline", NEWLINES, ids=list(NEWLINES))
@pytest.mark.parametrize("hider", HIDERS)
@pytest.mark.parametrize("name,where,line,flag,marker", HIDDEN, ids=[h[0] for h in HIDDEN])
def test_a_line_after_a_trigraph_comment_is_read_by_the_review_and_nvcc(
    name, where, line, flag, marker, hider, newline
):
    code = generated(hider, NEWLINES[newline], where, line)
    assert review_sees(code, flag, marker), "the review does not read the line"
    assert nvcc_sees(code, marker), "nvcc does not read the line"


@needs_nvcc
@pytest.mark.parametrize("hider,seen", [("// note \\", False), ("// note", True)])
def test_a_backslash_splice_hides_the_line_from_both_and_a_plain_comment_from_neither(hider, seen):
    for name, where, line, flag, marker in HIDDEN:
        code = generated(hider, "\n", where, line)
        assert (review_sees(code, flag, marker), nvcc_sees(code, marker)) == (seen, seen), name


def test_a_lone_carriage_return_ends_a_comment_for_the_review_as_for_nvcc():
    code = ORIGINAL.replace("if (i < n) {\n", 'if (i < n) {\n// note \rasm volatile("trap;");\n')
    assert "inline_asm" in {f.kind for f in review(ORIGINAL, code, "vector_add")}


def test_every_compile_names_cpp17_unless_the_spec_names_a_later_standard():
    from kt_tui.kernel.text import STANDARD, compile_options

    assert compile_options(None) == [STANDARD]
    assert compile_options(["-O3"]) == [STANDARD, "-O3"]
    assert compile_options(["--std=c++20"]) == ["--std=c++20"]
    compiler_options(["-std=c++20"])


@pytest.mark.parametrize("option", ["-std=c++14", "--std=c++11", "-std=c++03", "-std=gnu++17", "-trigraphs"])
def test_a_spec_cannot_ask_for_a_standard_with_trigraphs(option):
    with pytest.raises(TomlError, match="compiler_options"):
        compiler_options([option])


def test_the_offline_check_compiles_cpp17_and_keeps_the_text(monkeypatch):
    from kt_tui.gpu import compile as gpu_compile
    from kt_tui.kernel.text import STANDARD

    seen = []
    monkeypatch.setattr(gpu_compile, "find_nvcc", lambda: "nvcc")
    monkeypatch.setattr(gpu_compile, "compile_cu", lambda text, cmd, *a, **k: seen.append((cmd, text)) or (b"", ""))
    compile_check(ORIGINAL.replace("{", "{ // ??/", 1), PARAMS, compiler_options=["-O3"], spec=SPEC)
    cmd, text = seen[0]
    assert cmd[cmd.index(STANDARD) + 1] == "-O3" and "// ??/" in text


@pytest.mark.gpu
def test_nvrtc_reads_the_hidden_lines_as_the_review_does():
    """The nvcuda and cupy backends compile with NVRTC, with the options the compile pool uses."""
    pytest.importorskip("cuda.bindings.nvrtc")
    from kt_tui.gpu.nvrtc import nvrtc_job
    from kt_tui.kernel.text import compile_options

    for name, where, line, flag, marker in HIDDEN:
        if name == "include":
            continue  # NVRTC reads no header beside the kernel: the error names it differently
        code = kernel_string(SPEC, generated("// note ??/", "\n", where, line), PARAMS)[1]
        with pytest.raises(RuntimeError):
            nvrtc_job(code, "vector_add", "nvcuda", tuple(compile_options([])), "90")
        assert review_sees(code, flag, marker), name
