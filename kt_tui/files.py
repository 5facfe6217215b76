"""Reading the user's files and writing into the user's folders, safely: only regular files under a size
cap are read (never a folder, FIFO or device), and nothing is overwritten or written through a link
unless asked."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from .errors import UserError

KERNEL_MAX = 4 << 20
SPEC_MAX = 1 << 20
STEPS_MAX = 1 << 20
CONFIG_MAX = 1 << 20
RULES_MAX = 1 << 20


class FileRefused(UserError):
    pass


def check_regular(path: str | Path, what: str, max_bytes: int) -> int:
    """The size of `path`, a regular file of at most `max_bytes`; FileRefused (naming it) otherwise."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise FileRefused(f"{what} {path}: no such file") from None
    except OSError as e:
        raise FileRefused(f"{what} {path}: cannot read it ({e.strerror or e})") from None
    if stat.S_ISDIR(st.st_mode):
        raise FileRefused(f"{what} {path}: is a directory, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise FileRefused(f"{what} {path}: not a regular file (a device, pipe or socket is never read)")
    if st.st_size > max_bytes:
        raise FileRefused(f"{what} {path}: {st.st_size:,} bytes; at most {max_bytes:,} are read")
    return st.st_size


def read_bytes_file(path: str | Path, what: str, max_bytes: int) -> bytes:
    check_regular(path, what, max_bytes)
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)  # the file may have grown since it was checked
    except OSError as e:
        raise FileRefused(f"{what} {path}: cannot read it ({e.strerror or e})") from None
    if len(data) > max_bytes:
        raise FileRefused(f"{what} {path}: more than {max_bytes:,} bytes; at most that many are read")
    return data


def read_text_file(path: str | Path, what: str, max_bytes: int) -> str:
    """The UTF-8 text of a regular file under the cap; FileRefused with one line naming it otherwise."""
    data = read_bytes_file(path, what, max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FileRefused(f"{what} {path}: not UTF-8 text (byte {e.start})") from None


def file_in_the_way(path: str | Path) -> Path | None:
    """The nearest folder above `path` that exists as something else (a file), where `path` cannot be
    made; None when there is none."""
    for above in Path(path).expanduser().parents:
        if os.path.lexists(above):
            return None if above.is_dir() else above
    return None


def check_out_dir(folder: str | Path, flag: str = "--out") -> Path:
    """A folder to write into: not empty, not the root of a file system, not an existing file."""
    if str(folder).strip() == "":
        raise FileRefused(f"{flag}: give a folder (an empty path would write into the current one)")
    path = Path(folder).expanduser()
    resolved = path.resolve()
    if resolved == Path(resolved.anchor):
        raise FileRefused(f"{flag} {folder}: refusing to write into the root folder {resolved.anchor}")
    if os.path.lexists(path) and not path.is_dir():
        raise FileRefused(f"{flag} {folder}: exists and is not a folder")
    if blocker := file_in_the_way(path):
        raise FileRefused(f"{flag} {folder}: cannot be made, {blocker} is a file, not a folder")
    return path


def refuse_existing(paths, force: bool, flag: str = "--out") -> None:
    """Unless `force`, FileRefused naming the first of `paths` that exists (a dangling link counts).
    Even with `force`, a symbolic link where a file is to be written (or at a folder between the
    output folder, the paths' common one, and the file) is refused: nothing is written through a link."""
    paths = [Path(p) for p in paths]
    if not paths:
        return
    base = Path(os.path.commonpath([p.parent for p in paths]))
    for p in paths:
        for step in [p, *[q for q in p.parents if base in q.parents]]:
            if os.path.islink(step):
                raise FileRefused(f"{flag}: {step} is a symbolic link; kt-tui never writes through one (remove it)")
    if force:
        return
    for p in paths:
        if os.path.lexists(p):
            raise FileRefused(f"{flag}: {p} already exists; --force overwrites it")


def open_output(path: str | Path, binary: bool = False):
    """`path` opened for writing (created or truncated), never through a symbolic link."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as e:
        if os.path.islink(path):
            raise FileRefused(f"{path}: is a symbolic link; kt-tui never writes through one (remove it)") from None
        raise FileRefused(f"{path}: cannot write it ({e.strerror or e})") from None
    return os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8")


def write_output(path: str | Path, data: str | bytes) -> Path:
    """Write `path` (created or overwritten), never through a symbolic link."""
    with open_output(path, isinstance(data, bytes)) as f:
        f.write(data)
    return Path(path)


def write_new(path: str | Path, text: str) -> None:
    """Create `path` with `text`; never through a link, never over an existing file."""
    if os.path.lexists(path):
        raise FileRefused(f"{path}: already exists; not overwritten")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as e:
        raise FileRefused(f"{path}: cannot create it ({e.strerror or e})") from None
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)


def file_stem(name: str) -> str:
    """A kernel's name as the stem of the files written for it: `gemv<float, 128>` -> `gemv_float_128`
    (nothing a shell must quote or a file system refuses); a plain C name stays as it is."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_.") or "kernel"
