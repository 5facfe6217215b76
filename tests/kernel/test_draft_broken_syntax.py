"""Kernels whose syntax the parser cannot read in full (kernel/draft.py, kernel/cuda_ast.py): the drafter
drafts what it can and says where the parser stopped in one line, and never raises. A parameter list the
parser reads otherwise than the signature's commas (a missing comma) goes to the signature draft: the
body's names cannot be matched to the arguments (before: its arrays took the problem's length through
draft_sizes' fallback for an array the analysis never saw, a merged parameter was drafted as an array of
`float z int`, and the problem size was a fresh guess); braces that do not balance and a statement with
text the parser skips are said where they are."""

from __future__ import annotations

from kt_tui import cli
from kt_tui.kernel.draft import draft
from kt_tui.kernel.source import SourceError, find_kernels

GOOD = """__global__ void gather_add(const float *x, const float *z, int n, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i] + z[2 * i];
    }
}
"""


def _lines(src: str) -> list[str]:
    d = draft(find_kernels(src)[0], src)
    assert not [w for _, w in d.guesses if "analysis stopped" in w]
    return [w for _, w in d.guesses]


def test_a_parameter_list_missing_a_comma_is_said_and_drafted_from_the_signature():
    said = _lines(GOOD.replace("const float *z, int n", "const float *z int n"))
    assert said[0] == (
        "the kernel's body was not read (its parameter list does not read as C, first at line 1 (`int n`): the "
        "parser reads x, z, y where the signature's commas give x, n, y): every array is sized n and every "
        "pointer not const is taken as an output"
    )
    assert not any("is not a number type" in w or "thread axis" in w for w in said)  # before: both


def test_unbalanced_braces_are_said_with_where_the_parser_stopped():
    said = _lines(GOOD[: GOOD.rindex("}", 0, GOOD.rindex("}"))])  # the last two braces gone
    assert len(said) == 1  # before: "the analysis did not find it, or it is too long to follow"
    assert "the parser could not read its definition, first at line 1" in said[0]
    assert "its braces do not balance: 2 { and 0 }" in said[0]


def test_a_statement_the_parser_skips_is_said_and_the_rest_drafted():
    d = draft(find_kernels(src := GOOD.replace("x[i] + z[2 * i]", "x[i] @@ z[2 * i]"))[0], src)
    said = [w for _, w in d.guesses]
    assert (
        "the parser could not read part of the kernel's body, first at line 5 (`@@ z`): what it names there (z) "
        "sizes nothing"
    ) in said
    assert {a.name: a.size for a in d.spec.args if a.is_array} == {"x": "n", "z": "n", "y": "n"}
    assert [a.name for a in d.spec.args if a.output] == ["y"]  # the rest is drafted from the analysis


def test_hostile_cuts_and_drops_never_raise_and_say_one_clear_line():
    srcs = [GOOD[:k] for k in range(0, len(GOOD), 5)] + [GOOD[:k] + GOOD[k + 2 :] for k in range(0, len(GOOD), 5)]
    srcs += [GOOD.replace("{", "{{", 1), GOOD.replace("]", "", 1), GOOD.replace("(", "((", 2)]
    drafted = 0
    for src in srcs:
        try:
            kernels = find_kernels(src)
        except SourceError as e:  # a parameter list cut short: one line, exit 2 at the command
            assert "\n" not in str(e)
            continue
        for kernel in kernels:
            said = [w for _, w in draft(kernel, src).guesses]
            drafted += 1
            assert not [w for w in said if "analysis stopped" in w or "did not find it" in w], (src, said)
            stopped = [w for w in said if "body was not read" in w]
            assert len(stopped) <= 1 and all("parser" in w for w in stopped), (src, stopped)
    assert drafted > 40


def test_spec_on_broken_kernels_says_one_line(tmp_path, capsys):
    (tmp_path / "cut.cu").write_text(GOOD[: GOOD.index("int n")])
    assert cli.main(["spec", str(tmp_path / "cut.cu"), "--print"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "parameter list" in err, err
    (tmp_path / "comma.cu").write_text(GOOD.replace("const float *z, int n", "const float *z int n"))
    assert cli.main(["spec", str(tmp_path / "comma.cu")]) == 0
    out = capsys.readouterr().out
    assert "its parameter list does not read as C" in out and "Traceback" not in out
