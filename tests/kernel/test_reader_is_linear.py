"""The CUDA readers answer on hostile texts (issue 22, item 2; issue 36, item 2): blanks that no token
follows, blanks before a non-ASCII letter, long words, splices, unclosed brackets, macro chains and
bombs, 30 000 kernel heads before the kernel. How long each takes is benchmarks/hostile_inputs.py's table
(the quadratic reader took 193 s on 20 000 blanks); here only the answers, under the suite's per-test
time limit against a hang."""

import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks.hostile_inputs import KERNEL_AFTER_HEADS, TEMPLATE_AFTER_HEADS, VECTOR_ADD, four_megabytes, shapes  # noqa: E402
from kt_tui.files import KERNEL_MAX
from kt_tui.kernel.review import review
from kt_tui.kernel.source import SourceError, find_kernels
from kt_tui.kernel.syntax import code_text, highlights, tokens


def _answer(fn, text):
    try:
        return fn(text)
    except SourceError as e:
        return e  # a refusal is an answer


def _review(text):
    return review(VECTOR_ADD, text, "vector_add")


def test_four_megabytes_of_blanks_random_bytes_and_unicode_lex():
    for what, text in four_megabytes().items():
        assert isinstance(_answer(tokens, text), (list, SourceError)), what


def test_readers_answer_on_hostile_shapes():
    for what, text in shapes().items():
        for fn in (tokens, code_text, highlights, find_kernels, _review):
            assert _answer(fn, text) is not None, f"{fn.__name__} on {what}"


_PIECE = st.one_of(
    st.text(max_size=40),
    st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
    st.builds(
        lambda s, n: s * n,
        st.sampled_from(
            [" ", "\t", "\n", " é", "é", "a", "\\\n", "(", "{", "/*", '"', 'R"(', "#", "%:", "??=", "__global__ ", "0x"]
        ),
        st.integers(0, 60_000),
    ),
)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.lists(_PIECE, max_size=8))
def test_fuzz_random_bytes_blanks_and_unicode_are_read(pieces):
    text = "".join(pieces)[:KERNEL_MAX]
    for fn in (tokens, code_text, find_kernels, _review):
        _answer(fn, text)


def test_a_template_kernels_head_is_found_after_thousands_of_heads():
    from kt_tui.engine.backend import probe_order
    from kt_tui.kernel.draft_roles import template_params

    assert template_params(TEMPLATE_AFTER_HEADS, "k") == [("type", "T")]
    assert probe_order("auto", TEMPLATE_AFTER_HEADS, "k") == ("cupy",)


def test_a_kernels_body_is_found_after_thousands_of_heads():
    from kt_tui.kernel.draft import draft
    from kt_tui.kernel.source import kernel_alone, kernel_body

    (k,) = find_kernels(KERNEL_AFTER_HEADS)
    assert kernel_body(KERNEL_AFTER_HEADS, k).startswith("{ int i")
    assert kernel_alone(KERNEL_AFTER_HEADS, k).strip().startswith("__global__ void k(")
    assert [a.name for a in draft(k, KERNEL_AFTER_HEADS).spec.args] == ["o", "n"]
