"""The layers are a contract (pyproject.toml [tool.importlinter], README: Architecture): the suite
fails when a module imports upwards, when an import cycle appears, when a package below ui/ loads
Textual, or when code reaches through the process wall (gpu/device/) either way."""

import ast
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = sorted(p.parent for p in (ROOT / "kt_tui").rglob("__init__.py") if "__pycache__" not in p.parts)


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """lint-imports on the kt_tui found in `root` (its own process: this one has kt_tui imported)."""
    code = (
        "import sys\nfrom importlinter.cli import lint_imports\n"
        "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True, no_logo=True))"
    )
    return subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)


def test_the_import_contracts_hold():
    out = lint_imports(ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert " 0 broken" in out.stdout and "BROKEN" not in out.stdout
    kept = re.search(r"Contracts: (\d+) kept", out.stdout)
    assert kept and int(kept.group(1)) >= 10, out.stdout


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("layers")
    shutil.copytree(ROOT / "kt_tui", root / "kt_tui", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", root)
    return root


@pytest.mark.parametrize(
    "module, text, broken",
    [
        ("engine/bad.py", "import textual\n", "may load Textual"),
        ("store/bad.py", "from ..ui import app\n", "may load Textual"),
        ("gpu/bad.py", "from ..engine import core\n", "never imports the engine"),
        ("gpu/device/bad.py", "from ..tuner import Tuner\n", "imports nothing of the parent's side"),
        ("gpu/runner.py", "from .device import session\n", "never imports gpu/device/"),
        ("ui/bad.py", "from ..front import commands\n", "imports only those below it"),
        ("engine/bad.py", "from ..gpu.device import checking\n", "nothing outside gpu/ imports gpu/device/"),
        ("ui/bad.py", "from ..gpu.raydevice import RayDevice\n", "ui never imports the Ray pool"),
        ("llm/bad.py", "from ..gpu.protocol import SEARCHES\n", "llm never imports gpu"),
        ("records.py", "from .errors import UserError\n", "records and compare import nothing of kt_tui"),
        ("compare.py", "from .paths import data_dir\n", "records and compare import nothing of kt_tui"),
        ("search/restrictions.py", "from .space import configurations\n", "no import cycles"),
        (
            "engine/core.py",
            "def f():\n    from .strategies import sweep  # a function-level import counts too\n",
            "strategies over the engine",
        ),
    ],
)
def test_a_module_that_breaks_a_contract_fails_the_check(copy, module, text, broken):
    path = copy / "kt_tui" / module
    before = path.read_text() if path.exists() else None
    path.write_text((before or "") + "\n" + text)
    try:
        out = lint_imports(copy)
    finally:
        path.write_text(before) if before is not None else path.unlink()
    assert out.returncode == 1, out.stdout + out.stderr
    assert f"{name(broken)} BROKEN" in out.stdout.splitlines()


def name(part: str) -> str:
    """The contract whose name holds `part`."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    return next(c["name"] for c in contracts if part in c["name"])


def test_the_copy_itself_keeps_the_contracts(copy):
    """The failures above come from the one bad module each adds, not from the copy."""
    assert lint_imports(copy).returncode == 0


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: ".".join(p.relative_to(ROOT).parts))
def test_every_package_says_what_it_owns_in_two_lines(package):
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text()))
    assert doc and len(doc.strip().splitlines()) <= 2, f"{package}/__init__.py: {doc!r}"


def imports_in_functions(tree: ast.Module) -> list[ast.stmt]:
    """Imports below the module level, except those in a `try` (an optional package)."""
    guarded = {id(n) for t in ast.walk(tree) if isinstance(t, ast.Try) for s in t.body for n in ast.walk(s)}
    top = {id(n) for n in tree.body}
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, (ast.Import, ast.ImportFrom))
        and id(n) not in top
        and id(n) not in guarded
        and not _in_top_level_if(tree, n)
    ]


def _in_top_level_if(tree: ast.Module, node) -> bool:
    return any(node in ast.walk(n) for n in tree.body if isinstance(n, ast.If))


def test_an_import_inside_a_function_says_why():
    """Kept only for start-up time or across a process boundary (README: Architecture): the import
    line says why, or a module comment `# Imported where used: ...` does for the whole file."""
    unexplained = []
    for path in sorted((ROOT / "kt_tui").rglob("*.py")):
        text = path.read_text()
        if "\n# Imported where used: " in text:
            continue
        lines = text.splitlines()
        unexplained += [
            f"{path.relative_to(ROOT)}:{n.lineno}: {lines[n.lineno - 1].strip()}"
            for n in imports_in_functions(ast.parse(text))
            if "#" not in lines[n.lineno - 1]
        ]
    assert unexplained == []


def test_the_import_check_finds_an_unexplained_one():
    tree = ast.parse(
        "import os\ntry:\n    import ray\nexcept ImportError:\n    ray = None\n\n\n"
        "def f():\n    import json\n    return json\n"
    )
    assert [n.lineno for n in imports_in_functions(tree)] == [9]


async def test_the_app_runs_on_the_services_it_is_given(hermetic):
    """The UI builds no engine or worker of its own: what front/ hands it in Services is what runs."""
    import asyncio

    from kt_tui.config import load_settings
    from kt_tui.errors import UserError
    from kt_tui.front.session import read_kernel_file
    from kt_tui.store import Store
    from kt_tui.ui.app import KtApp
    from kt_tui.ui.services import Services

    calls = []

    class Gpu:
        def close(self):
            calls.append("close")

    def open_new(settings, store, kf, spec):
        calls.append(("open_new", kf.path.name, spec.kernel))

        def prepare(gpu):
            raise UserError("no backend in this test")

        return prepare

    def unused(*a, **k):
        raise AssertionError("not called when prepare fails")

    def make_worker(settings):
        calls.append("worker")
        return Gpu()

    services = Services(
        open_new=open_new,
        open_stored=unused,
        make_worker=make_worker,
        make_engine=unused,
        llm_factory=unused,
        make_policy=unused,
    )
    settings = load_settings({"backend": "sim"})
    app = KtApp(settings, Store(settings.db), services, kernel_file=read_kernel_file(ROOT / "examples/vector_add.cu"))
    async with app.run_test(size=(120, 40)):
        for _ in range(600):
            if "close" in calls:
                break
            await asyncio.sleep(0.05)
    assert calls == [("open_new", "vector_add.cu", "vector_add"), "worker", "close"]


def architecture_names() -> dict[tuple[Path, ...], set[str]]:
    """The modules README's Architecture tree names, by the package (or `a/ | b/ | c/` packages) whose
    entry names them: a package's line is `  name/` or `    sub/`, its text the column after it."""
    lines = (ROOT / "README.md").read_text().splitlines()
    lo = next(i for i, line in enumerate(lines) if line.startswith("kt_tui/ "))
    hi = next(i for i in range(lo, len(lines)) if lines[i].startswith("```"))
    named: dict[tuple[Path, ...], set[str]] = {}
    packages, top = (ROOT / "kt_tui",), ["kt_tui"]
    for line in lines[lo + 1 : hi]:
        head, text = line[:33], line[33:]
        m = re.match(r"( *)(\S.*?)\s*$", head)
        if m and (m.group(2).endswith("/") or "|" in m.group(2)):
            names = [p.strip().rstrip("/") for p in m.group(2).split("|")]
            if len(m.group(1)) <= 2:
                top, packages = names, tuple(ROOT / "kt_tui" / n for n in names)
            else:
                packages = tuple(ROOT / "kt_tui" / top[0] / n for n in names)
        elif m:
            packages, text = (ROOT / "kt_tui",), line
        named.setdefault(packages, set()).update(re.findall(r"(?<![\w/.])([a-z_0-9]+)\.py\b", text))
    return named


def test_the_architecture_names_only_modules_that_exist():
    """A module moved or deleted (gpu/device/checking.py went to gpu/checking.py) leaves no entry behind."""
    named = architecture_names()
    assert (
        "session" in named[(ROOT / "kt_tui" / "gpu" / "device",)] and "checks" in named[(ROOT / "kt_tui" / "engine",)]
    )
    stale = [
        f"{'|'.join(str(p.relative_to(ROOT)) for p in packages)}: {n}.py"
        for packages, names in named.items()
        for n in sorted(names)
        if not any((p / f"{n}.py").exists() for p in packages)
    ]
    assert not stale, f"README's Architecture names modules that are not there: {stale}"


def test_every_module_of_the_apps_gpu_side_is_behind_the_device_wall():
    """device-wall names its modules one by one: a new module of gpu/ (gpu/checking.py, gpu/unrun.py)
    is under it only when listed, or it is one of the child processes' modules the contract exempts."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    wall = next(c for c in contracts if c.get("id") == "device-wall")
    children = {"checkrun", "memcheck", "mutants", "mutants_child", "profile", "sanitize"}  # the comment's list
    modules = {p.stem for p in (ROOT / "kt_tui" / "gpu").glob("*.py") if p.stem != "__init__"}
    missing = sorted(f"kt_tui.gpu.{m}" for m in modules - children if f"kt_tui.gpu.{m}" not in wall["source_modules"])
    assert not missing, f"not behind device-wall (pyproject.toml): {missing}"
