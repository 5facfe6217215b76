"""A kernel source is read once (issue 25, item 4): engine/kernel_step.py parses a generated kernel into
a ParsedKernel and the parameter fixer, the review, the file flags and kernel discovery all read that
one parse; each gives what it gives for the plain text."""

from types import SimpleNamespace

import pytest

from kt_tui.kernel import syntax
from kt_tui.kernel.directives import file_flags
from kt_tui.kernel.params import check_params
from kt_tui.kernel.parsed import ParsedKernel
from kt_tui.kernel.review import review
from kt_tui.kernel.source import find_kernels
from kt_tui.kernel.spec import load_spec

from ..conftest import EXAMPLES

ORIGINAL = (EXAMPLES / "vector_add.cu").read_text()
GENERATED = (
    ORIGINAL.replace("int i = blockIdx.x", "int i = (int)(blockIdx.x)").replace("block_size_x", "blockSizeX")
    + '\n#include "/etc/passwd"\n??=define TILE 4\n__global__ void extra(float *x) { x[0] = TILE; }\n'
)
SOURCES = [ORIGINAL, GENERATED, "a\\\n sm(1);\n#if 0\n__global__ void k(int *x) {}\n#endif\n"]
SOURCES += [(EXAMPLES / f"{n}.cu").read_text() for n in ("matmul", "reduction", "transpose")]


def _counting_lex(monkeypatch, text: str) -> list[int]:
    calls = [0]
    real = syntax.lex

    def lex(source):
        calls[0] += source == text
        return real(source)

    monkeypatch.setattr(syntax, "lex", lex)
    return calls


@pytest.mark.parametrize("n", range(len(SOURCES)))
def test_a_parse_answers_as_the_text_does(n):
    text = SOURCES[n]
    parsed = ParsedKernel(text)
    assert parsed.tokens == syntax.tokens(text)
    for unread in (False, True):
        assert parsed.code_text(unread) == syntax.code_text(text, unread)
        assert find_kernels(parsed, unread=unread) == find_kernels(text, unread=unread)
    assert file_flags(ORIGINAL, parsed) == file_flags(ORIGINAL, text)
    tune = {"block_size_x": [32, 64], "TILE": [4]}
    assert check_params(parsed, tune) == check_params(text, tune)
    assert review(ORIGINAL, parsed, "vector_add") == review(ORIGINAL, text, "vector_add")


def test_kernel_discovery_the_review_and_the_parameter_check_lex_a_parse_once(monkeypatch):
    calls = _counting_lex(monkeypatch, GENERATED)
    parsed = ParsedKernel(GENERATED)
    find_kernels(parsed), find_kernels(parsed, unread=True)
    check_params(parsed, {"block_size_x": [32]}), check_params(parsed, {"TILE": [4]})
    flags = review(ORIGINAL, parsed, "vector_add")
    assert calls[0] == 1
    assert {f.kind for f in flags} >= {"include", "extra_kernel"}


def test_a_generated_kernel_is_lexed_once_on_its_way_to_the_kernel_gate(monkeypatch):
    from kt_tui.engine import kernel_step
    from kt_tui.gpu import compile as gpu_compile

    spec = load_spec(EXAMPLES / "vector_add.cu.toml")
    code = ORIGINAL.replace("int i = blockIdx.x", "int i = (int)(blockIdx.x)")
    assert code != ORIGINAL
    compiled = SimpleNamespace(ok=True, reason="", resources={})
    monkeypatch.setattr(gpu_compile, "compile_check", lambda *a, **k: compiled)
    engine = SimpleNamespace(
        original="v0",
        version=lambda vid: (ORIGINAL, spec),
        choice=SimpleNamespace(compile_arch=lambda: ("sm_80", "sm_80")),
    )
    calls = _counting_lex(monkeypatch, code)
    out = kernel_step.prepare(engine, code, {"block_size_x": [32, 64], "unused": [1, 2]}, [], spec)
    assert calls[0] == 1  # the engine before ParsedKernel lexed it 10 times
    assert out["fixes"] == ["dropped unused: declared but not used by the code"] and out["flags"] == []
    assert out["compile"]["ok"] is True


@pytest.mark.parametrize("name", ["vector_add", "matmul", "reduction", "transpose"])
def test_the_tree_sitter_reading_finds_the_kernels_the_lexer_finds(name):
    parsed = ParsedKernel((EXAMPLES / f"{name}.cu").read_text())
    assert set(parsed.unit.kernels) == {k.name for k in parsed.kernels()}
    for k in parsed.kernels():
        assert [p.name for p in parsed.unit.kernels[k.name].params] == [p.name for p in k.params]
    assert parsed.unit is parsed.unit  # parsed once
