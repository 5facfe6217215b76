"""Spec files that used to end in an internal error end in a one-line exit 2 (issue 22, item 12): deeply
nested TOML, and a kernel name that kernel_tuner cannot instantiate or that carries text after its template."""

import shutil

import pytest

from kt_tui import cli

from ..conftest import EXAMPLES

SPEC = (EXAMPLES / "vector_add.cu.toml").read_text()


def _exit_2(capsys, tmp_path, spec_text: str, says: str) -> None:
    shutil.copy(EXAMPLES / "vector_add.cu", tmp_path / "vector_add.cu")
    (tmp_path / "vector_add.cu.toml").write_text(spec_text)
    for argv in (
        ["spec", str(tmp_path / "vector_add.cu"), "--check"],
        [
            "run",
            str(tmp_path / "vector_add.cu"),
            "--auto",
            "--json",
            "--backend",
            "sim",
            "--sim-cache",
            str(EXAMPLES / "recorded"),
            "--llm",
            "none",
            "--db",
            str(tmp_path / "s.db"),
        ],
    ):
        assert cli.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "internal error" not in err and "session is saved" not in err and says in err, err
        assert len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize(
    "nested",
    ["x = " + "[" * 5000 + "]" * 5000, "x = " + "{a = " * 3000 + "1" + "}" * 3000, "x = " + "[" * 40 + "]" * 40],
)
def test_deeply_nested_toml_is_a_one_line_exit_2(capsys, tmp_path, nested):
    _exit_2(capsys, tmp_path, nested + "\n" + SPEC, "nested more than 32 levels deep")


@pytest.mark.parametrize(
    "name,says",
    [
        ("vector_add<float>; import os", "is not a kernel name"),
        ("vector_add<float>(); x", "is not a kernel name"),
        ("vector_add<float>", "kernel_tuner cannot instantiate it"),
    ],
)
def test_a_bad_kernel_name_is_a_one_line_exit_2(capsys, tmp_path, name, says):
    _exit_2(capsys, tmp_path, SPEC.replace('kernel = "vector_add"', f'kernel = "{name}"'), says)


def test_a_spec_with_a_bom_is_read(capsys, tmp_path):
    shutil.copy(EXAMPLES / "vector_add.cu", tmp_path / "vector_add.cu")
    (tmp_path / "vector_add.cu.toml").write_text("\ufeff" + SPEC)
    from kt_tui.kernel.spec import load_spec

    assert load_spec(tmp_path / "vector_add.cu.toml").kernel == "vector_add"


@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_a_scalar_too_large_for_a_float_is_a_one_line_exit_2(capsys, tmp_path, dtype):
    huge = SPEC.replace('name = "n"\ntype = "int32"\nvalue = "n"', f'name = "n"\ntype = "{dtype}"\nvalue = {"9" * 400}')
    assert huge != SPEC
    _exit_2(capsys, tmp_path, huge, "args[")  # before: OverflowError, an internal error


HUGE = "9" * 400


@pytest.mark.parametrize(
    "old,new,says",
    [
        ("timeout_s = 30.0", f"timeout_s = {HUGE}", "timeout_s"),
        ('name = "a"\n', f'name = "a"\natol = {HUGE}\n', "atol"),
        ('name = "a"\n', f'name = "a"\nlow = 0\nhigh = {HUGE}\n', "args["),
    ],
    ids=["timeout_s", "atol", "high"],
)
def test_a_huge_integer_anywhere_a_number_goes_is_a_one_line_exit_2(capsys, tmp_path, old, new, says):
    assert old in SPEC
    _exit_2(capsys, tmp_path, SPEC.replace(old, new, 1), says)
