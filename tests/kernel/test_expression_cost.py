"""The expression language's cost model (issue 22, item 1): no expression within the text limits takes
more than a bounded time, whatever builtin it calls; a bomb in any spec field is a one-line exit 2."""

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kt_tui import cli
from kt_tui.kernel.expr import MAX_CHARS, ExprError, parse

from ..conftest import EXAMPLES

BOMBS = [
    "round(block_size_x, -300000000)",
    "round(5, -10**7)",
    "round(5, -(2**30))",
    "round(block_size_x, -block_size_x * 1000000)",
    "round(1.5, 10**9)",
    "int(1e308) * int(1e308)",
    "floor(1e300) + ceil(-1e300)",
    "max(" + ", ".join(["2**63"] * 40) + ")",
    "block_size_x * 2**62 * 2**62",
    "abs(-(2**63) * 4)",
]


def _cpu(fn) -> float:
    """CPU seconds of fn, the least of three runs (a collector pause is not the expression's cost)."""
    took = []
    for _ in range(3):
        start = time.process_time()
        try:
            fn()
        except ExprError:
            pass
        took.append(time.process_time() - start)
    return min(took)


@pytest.mark.parametrize("text", BOMBS)
def test_builtin_bombs_are_refused_at_once(text):
    def run():
        parse(text, "restrictions[0]").value({"block_size_x": 256})

    took = _cpu(run)
    with pytest.raises(ExprError):
        run()
    assert took < 0.05, f"{text}: {took:.2f} s of CPU"


def test_round_keeps_working_within_its_digits():
    assert parse("round(1234, -2)").value({}) == 1200
    assert parse("round(x / 3, 2)").value({"x": 1}) == 0.33
    assert parse("round(2.5)").value({}) == 2


def test_a_constant_bomb_names_its_field_before_evaluation():
    with pytest.raises(ExprError, match=r"grid_div_x\[0\].*round\(\) takes an integer number of digits"):
        parse("round(block_size_x, -10**7)", "grid_div_x[0]")


_FIELDS = {
    "restrictions": ("restrictions = []", 'restrictions = ["{e} >= 0"]', "restrictions[0]"),
    "grid_div_x": ('grid_div_x = ["block_size_x"]', 'grid_div_x = ["{e}"]', "grid_div_x[0]"),
    "sizes": ("n = 16777216", 'n = 16777216\nm = "{e}"', "sizes.m"),
    "metrics": ('bytes = "3 * 4 * n"', 'bytes = "{e}"', "metrics.bytes"),
    "arg size": ('size = "n"\ninit = "random"\nseed = 1', 'size = "{e}"\ninit = "random"\nseed = 1', "(a).size"),
    "arg value": ('value = "n"', 'value = "{e}"', "(n).value"),
    "problem_size": ('problem_size = ["n"]', 'problem_size = ["{e}"]', "problem_size[0]"),
    "defines": ("iterations = 7", 'iterations = 7\n[defines]\nTILE = "{e}"', "defines.TILE"),
    "smem_size": ("iterations = 7", 'iterations = 7\nsmem_size = "{e}"', "smem_size"),
}


@pytest.mark.parametrize("field", list(_FIELDS))
def test_a_bomb_in_any_spec_field_is_a_one_line_exit_2(capsys, tmp_path, field):
    old, new, name = _FIELDS[field]
    bomb = (
        "round(n, -300000000)"
        if field in ("sizes", "defines", "metrics", "arg size", "arg value", "problem_size")
        else "round(block_size_x, -300000000)"
    )
    text = (EXAMPLES / "vector_add.cu.toml").read_text()
    assert old in text
    spec = tmp_path / "bomb.toml"
    spec.write_text(text.replace(old, new.format(e=bomb), 1))
    start = time.monotonic()
    assert cli.main(["spec", str(EXAMPLES / "vector_add.cu"), "--check", "--spec", str(spec)]) == 2
    err = capsys.readouterr().err
    assert time.monotonic() - start < 30
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
def test_random_expressions_evaluate_in_bounded_time(text, env):
    took = _cpu(lambda: parse(text, "restrictions[0]").value(env))
    assert took < 0.05, f"{text!r} over {env}: {took:.3f} s of CPU"
