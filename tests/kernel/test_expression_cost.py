"""The expression language's cost model (issue 22, item 1): no expression within the text limits takes
more than a bounded time, whatever builtin it calls; a bomb in any spec field is a one-line exit 2."""

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kt_tui import cli
from kt_tui.kernel.expr import MAX_CHARS, ExprError, parse

from ..conftest import EXAMPLES

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks.hostile_inputs import BOMB_FIELDS, EXPRESSION_BOMBS, bomb_spec  # noqa: E402


@pytest.mark.parametrize("text", EXPRESSION_BOMBS)
def test_builtin_bombs_are_refused(text):
    """Refused, not computed (computing one would outlast the suite's per-test limit); how long the
    refusal takes is benchmarks/hostile_inputs.py's table."""
    with pytest.raises(ExprError):
        parse(text, "restrictions[0]").value({"block_size_x": 256})


def test_round_keeps_working_within_its_digits():
    assert parse("round(1234, -2)").value({}) == 1200
    assert parse("round(x / 3, 2)").value({"x": 1}) == 0.33
    assert parse("round(2.5)").value({}) == 2


def test_a_constant_bomb_names_its_field_before_evaluation():
    with pytest.raises(ExprError, match=r"grid_div_x\[0\].*round\(\) takes an integer number of digits"):
        parse("round(block_size_x, -10**7)", "grid_div_x[0]")


@pytest.mark.parametrize("field", list(BOMB_FIELDS))
def test_a_bomb_in_any_spec_field_is_a_one_line_exit_2(capsys, tmp_path, field):
    """benchmarks/hostile_inputs.py times each; the suite's per-test limit stops a hang."""
    name = BOMB_FIELDS[field][2]
    spec = tmp_path / "bomb.toml"
    spec.write_text(bomb_spec(field))
    assert cli.main(["spec", str(EXAMPLES / "vector_add.cu"), "--check", "--spec", str(spec)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert name in err and ("round()" in err or field == "sizes"), err  # sizes are numbers, never expressions


# -- random expressions within the text limits: each evaluates (or is refused) in bounded time ---------
_NAMES = ["block_size_x", "n", "tile"]
_leaf = st.one_of(
    st.sampled_from(_NAMES),
    st.integers(-(2**63), 2**63).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.just("'s'"),
)


def _grow(inner):
    return st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "//", "%", "<", "==", " and ", " or "]), inner).map(
            lambda t: f"({t[0]}{t[1]}{t[2]})"
        ),
        st.tuples(inner, st.integers(-70, 70)).map(lambda t: f"({t[0]})**{t[1]}"),
        st.tuples(
            st.sampled_from(["min", "max", "abs", "ceil", "floor", "int", "round"]),
            st.lists(inner, min_size=1, max_size=3),
        ).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.tuples(inner, inner).map(lambda t: f"round({t[0]}, -({t[1]}))"),
        st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        st.tuples(inner, st.lists(inner, max_size=4)).map(lambda t: f"({t[0]} in ({', '.join(t[1])},))"),
        inner.map(lambda x: f"-{x}"),
    )


_EXPR = st.recursive(_leaf, _grow, max_leaves=60).filter(lambda s: len(s) <= MAX_CHARS)
_VALUE = st.one_of(st.integers(-(2**70), 2**70), st.floats(allow_nan=False), st.sampled_from(["a", "b"]))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(_EXPR, st.fixed_dictionaries({k: _VALUE for k in _NAMES}))
def test_random_expressions_evaluate_or_are_refused(text, env):
    """A value or ExprError, nothing else; the cost model bounds the time (module docstring of
    kernel/expr.py), which benchmarks/hostile_inputs.py measures on the known bombs."""
    try:
        parse(text, "restrictions[0]").value(env)
    except ExprError:
        pass
