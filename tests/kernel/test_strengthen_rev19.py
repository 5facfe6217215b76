"""Review of session 19's stronger inputs (kernel/strengthen_code.py, init = "rounded"): a spec that
asks to round integers is told so, a strictly increasing array the user's Python makes stays strictly
increasing, and a large source is read for its kernels once."""

import pytest

from kt_tui.kernel.spec import SpecError, parse_spec

from .test_spec_errors_exit_2 import SPEC as VECTOR_ADD
from .test_spec_errors_exit_2 import _exit_2

ROUNDED_A = VECTOR_ADD.replace('init = "random"\nseed = 1', 'init = "rounded"\nfunction = "gen:made"')


def test_rounded_on_an_integer_array_is_a_one_line_exit_2(capsys, tmp_path):
    """Rounding integers does nothing: the spec that asks for it is told, as "spikes" or "lifted" on
    the wrong type are, through `spec --check` and `run`."""
    assert ROUNDED_A != VECTOR_ADD
    (tmp_path / "gen.py").write_text("import numpy as np\n\ndef made(sizes):\n    return np.arange(sizes['n'])\n")
    as_int = ROUNDED_A.replace('name = "a"\ntype = "float32"', 'name = "a"\ntype = "int32"')
    assert as_int != ROUNDED_A
    _exit_2(capsys, tmp_path, as_int, 'init = "rounded" rounds the floats')


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64", "float4"])
def test_rounded_on_floats_is_accepted(dtype):
    spec = parse_spec(ROUNDED_A.replace('name = "a"\ntype = "float32"', f'name = "a"\ntype = "{dtype}"'))
    assert [a.init for a in spec.args if a.name == "a"] == ["rounded"]


@pytest.mark.parametrize("dtype", ["int32", "uint8", "int64"])
def test_rounded_on_integers_is_refused(dtype):
    with pytest.raises(SpecError, match=r'args\[1\] \(a\)\.type: init = "rounded"'):
        parse_spec(ROUNDED_A.replace('name = "a"\ntype = "float32"', f'name = "a"\ntype = "{dtype}"'))
