"""What lets a benchmark fit one short device call: kernels named by their stem, and a deadline
after which no further run starts (the table then shows the runs that completed)."""

from __future__ import annotations

import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLACES = ("examples", "benchmarks/spaces", "benchmarks/big")


def kernel_paths(names: str) -> list[str]:
    """'vector_add,expdist_like' -> the .cu files of those names under examples/, benchmarks/spaces/
    or benchmarks/big/. A name that is a folder (`big`, a folder under benchmarks/, or a path from the
    repository root) stands for every kernel in it that has a spec beside it, in name order."""
    out: list[str] = []
    for name in (n.strip() for n in names.split(",") if n.strip()):
        folder = next((f for f in (ROOT / "benchmarks" / name, ROOT / name) if f.is_dir()), None)
        if folder is not None:
            found = [
                f.relative_to(ROOT).as_posix()
                for f in sorted(folder.glob("*.cu"))
                if f.with_suffix(".cu.toml").is_file()
            ]
            if not found:
                raise SystemExit(f"--kernels: no kernel with a spec in the folder {name!r}")
        else:
            found = [f"{p}/{name}.cu" for p in PLACES if (ROOT / p / f"{name}.cu").is_file()][:1]
            if not found:
                raise SystemExit(f"--kernels: no kernel {name!r} in {' or '.join(PLACES)}")
        out += [f for f in found if f not in out]
    return out


class Deadline:
    """Runs start while the time left exceeds the longest run so far (seconds from creation)."""

    def __init__(self, seconds: float | None):
        self.end = time.monotonic() + seconds if seconds else None
        self.longest = 0.0
        self.skipped = 0

    def allows(self) -> bool:
        if self.end is None or time.monotonic() + self.longest < self.end:
            return True
        self.skipped += 1
        return False

    def ran(self, seconds: float) -> None:
        self.longest = max(self.longest, seconds)

    def note(self) -> str:
        return f"; {self.skipped} runs skipped at the deadline" if self.skipped else ""
