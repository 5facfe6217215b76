"""The installed package must hold every subpackage: a non-editable install (CI's, a user's) only
gets the packages pyproject.toml lists."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_subpackage_is_listed_for_installation():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "kt_tui").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert on_disk - listed == set(), f"not installed: {sorted(on_disk - listed)}"
    assert "kt_tui.themes" in listed


def test_the_strategy_entry_points_name_modules_that_exist():
    eps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["kt_tui.strategies"]
    for name, target in eps.items():
        module = target.split(":")[0]
        assert (ROOT / (module.replace(".", "/") + ".py")).is_file(), (name, target)
