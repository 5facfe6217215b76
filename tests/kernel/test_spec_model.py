"""One model of a spec (issue 25, item 4): `Spec` read from TOML, from the session database and from a
worker's job by one reader, and its `Launch`, the part that makes a kernel version."""

import dataclasses

import pydantic
import pytest

from kt_tui.kernel.spec import Launch, SpecError, load_spec, parse_spec, read_spec, spec_from_plain, version_hash

from ..conftest import EXAMPLES

SRC = (EXAMPLES / "vector_add.cu").read_text()
SPEC = load_spec(EXAMPLES / "vector_add.cu.toml")


def test_the_launch_is_the_version_identity():
    launch = SPEC.launch
    assert isinstance(launch, Launch) and launch.version_id(SRC) == version_hash(SRC, SPEC)
    args = [dataclasses.replace(a, atol=0.5, rtol=0.5) for a in SPEC.args]
    same = dataclasses.replace(SPEC, tune_params={"block_size_x": [32]}, defaults={}, iterations=3, args=args)
    assert same.launch == launch and version_hash(SRC, same) == version_hash(SRC, SPEC)
    for change in ({"compiler_options": ["-O3"]}, {"problem_size": ["n * 2"]}, {"defines": {"W": 2}}):
        other = dataclasses.replace(SPEC, **change)
        assert other.launch != launch and version_hash(SRC, other) != version_hash(SRC, SPEC), change
    with pytest.raises(pydantic.ValidationError):
        launch.kernel = "other"  # frozen: an identity is not edited


def test_toml_the_database_and_a_job_are_read_by_one_reader():
    text = (EXAMPLES / "vector_add.cu.toml").read_text()
    stored = SPEC.to_dict()
    assert spec_from_plain(stored).to_dict() == stored == read_spec(stored, stored=True).to_dict()
    bad = text.replace("iterations", "iterations = 0\n#", 1) if "iterations" in text else text + "\niterations = 0\n"
    with pytest.raises(SpecError) as toml_error:
        parse_spec(bad)
    with pytest.raises(SpecError) as stored_error:
        spec_from_plain({**stored, "iterations": 0})
    assert toml_error.value.field == stored_error.value.field == "iterations"
    assert (
        toml_error.value.problem == stored_error.value.problem == "expected a positive integer (at most 1000000), got 0"
    )


@pytest.mark.parametrize("base_dir", [5, ["/tmp"], ""])
def test_a_stored_folder_that_is_no_path_is_refused_naming_it(base_dir):
    with pytest.raises(SpecError, match=r"^the stored spec: base_dir: expected the spec's folder"):
        spec_from_plain({**SPEC.to_dict(), "base_dir": base_dir})


def test_a_spec_file_cannot_name_its_own_folder():
    text = (EXAMPLES / "vector_add.cu.toml").read_text()
    with pytest.raises(SpecError, match=r"^base_dir: unknown key \(known: args, block_size_names"):
        parse_spec('base_dir = "/etc"\n' + text)


def test_the_dtype_ranges_a_spec_is_checked_against_are_numpys():
    """Reading a spec checks scalars and random bounds against their dtype's range without importing
    numpy (a resumed session's first frame reads one); the ranges are numpy's, for every dtype a spec
    may name, vector types' bases included, and a value just past one is refused."""
    import numpy as np

    from kt_tui.kernel.spec_keys import DTYPES, VECTORS
    from kt_tui.kernel.spec_model import FLOAT_MAX, int_range

    dtypes = set(DTYPES.values()) | {base for base, _ in VECTORS.values()}
    for dtype in sorted(dtypes):
        if dtype.startswith("float"):
            assert FLOAT_MAX[dtype] == float(np.finfo(dtype).max), dtype
        else:
            info = np.iinfo(dtype)
            assert int_range(dtype) == (int(info.min), int(info.max)), dtype
    text = (EXAMPLES / "vector_add.cu.toml").read_text()
    assert text.count('value = "n"') == 1
    parse_spec(text.replace('value = "n"', 'value = "2147483647"'))
    with pytest.raises(SpecError, match="does not fit int32"):
        parse_spec(text.replace('value = "n"', 'value = "2147483648"'))


def test_a_random_draws_exclusive_high_may_be_one_past_the_dtypes_greatest_value():
    """`high` is exclusive: every byte value, 255 included, is drawn with high = 256 (it was refused,
    so byte inputs could never hold 255); one more is still refused."""
    import numpy as np

    from kt_tui.kernel.inputs import make_args

    text = """kernel = "k"
problem_size = ["n"]
[sizes]
n = 4096
[[args]]
name = "b"
type = "uint8"
size = "n"
low = 0
high = 256
[[args]]
name = "h"
type = "int32"
size = "256"
init = "zeros"
output = true
[[args]]
name = "n"
type = "int32"
value = "n"
"""
    spec = parse_spec(text)
    drawn = make_args(spec, spec.sizes)[0]
    assert drawn.dtype == np.uint8 and drawn.max() == 255 and drawn.min() == 0
    with pytest.raises(SpecError, match="does not fit uint8"):
        parse_spec(text.replace("high = 256", "high = 257"))
    with pytest.raises(SpecError, match="does not fit uint8"):
        parse_spec(text.replace("low = 0", "low = 256"))
