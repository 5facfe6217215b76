"""The installed package must hold every subpackage: a non-editable install (CI's, a user's) only
gets the packages pyproject.toml lists."""

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


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


def test_every_data_file_is_listed_for_installation():
    # a file the package reads at run time (gpu/device/compare.cu, the LLM's templates) that no
    # package-data glob names is missing from a wheel
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    missing = []
    for path in (ROOT / "kt_tui").rglob("*"):
        if not path.is_file() or path.suffix in (".py", ".pyc") or "__pycache__" in path.parts:
            continue
        package = next(p for p in path.parents if (p / "__init__.py").is_file())
        name = ".".join(package.relative_to(ROOT).parts)
        rel = path.relative_to(package).as_posix()
        if not any(fnmatch.fnmatch(rel, glob) for glob in data.get(name, [])):
            missing.append(f"{name}: {rel}")
    assert missing == [], f"not in [tool.setuptools.package-data]: {missing}"
    assert "*.cu" in data["kt_tui.gpu.device"]


OPTIONAL = {"cuda", "cupy", "pycuda", "ray", "threadpoolctl"}  # imported inside try/except or behind a flag
WITH_OPENAI = {"httpx", "httpx2"}  # the openai SDK's HTTP library (httpx2 from openai 3 on): its exception types


def test_every_third_party_import_is_a_declared_dependency():
    import ast
    import sys
    from importlib.metadata import packages_distributions

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {_name(d) for d in project["dependencies"]}
    imported = set()
    for path in (ROOT / "kt_tui").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - OPTIONAL - WITH_OPENAI - {"kt_tui"}
    dists = packages_distributions()
    missing = {m for m in third_party if not {_name(d) for d in dists.get(m, [m])} & declared}
    assert missing == set(), f"imported but not in [project] dependencies: {sorted(missing)}"


def _name(requirement: str) -> str:
    import re

    return re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].strip().lower().replace("_", "-")
