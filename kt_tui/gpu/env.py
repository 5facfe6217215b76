"""The one environment scrubber for every child process (GPU worker, nvcc, NVRTC, compute-sanitizer,
the importer's script, Ray actors): no API keys, tokens, secrets, passwords, credentials, private keys,
auth sockets or cookies, by name or by a value that looks like one. And `hide_this_process`: the
kt-tui process made non-dumpable, so that no unprivileged process of the same user (user code in
any child) reads its environment block or memory through /proc."""

from __future__ import annotations

import os
import re
import shutil
import threading

# held while secrets are out of os.environ (gpu/compiles.py starts NVRTC processes so) and by every
# reader of a variable that may hold one (config.py), which would otherwise find it unset then
SECRETS_LOCK = threading.Lock()
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36

# PWD and OLDPWD are the working directory, not passwords: only *_PWD, *_PASS and PASS itself match
SECRET_NAME = re.compile(
    r"API_?KEY|TOKEN|SECRET|PASSW(OR)?D|PASSPHRASE|CREDENTIAL|CREDS|_PAT$|^PAT$|_KEY$|^KEY$"
    r"|_PWD$|_PASS$|^PASS$|PRIVATE|AUTH|DSN|WEBHOOK|JWT|COOKIE|GPG_AGENT|SESSION_ID"
    r"|ACCOUNT_?KEY|ACCESS_?KEY|SHARED_?ACCESS|CONNECTION_?STRING",  # Azure's AccountKey=, SAS
    re.I,
)
# NAME= inside a value: a connection string's `;AccountKey=...`, or a value that smuggles a line
# `OPENAI_API_KEY=...` (a .env file pasted into one variable); each name is judged as a variable's
_ASSIGNED = re.compile(r"(?:^|[\n\r;&?,\s])(?:export\s+)?([A-Za-z_][\w.-]*)\s*=")
_SECRET_VALUE = re.compile(
    r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*://[^/\s@]+@"  # a URL with a user part (user:password@ or a key@);
    # the scheme starts where no scheme character stands before it: one try per run, linear in the value
    r"|-----BEGIN|^\s*(Bearer|Basic)\s+\S"  # a PEM private key, an Authorization header
    r"|^\s*(sk-|ghp_|gho_|ghs_|github_pat_|glpat-|xox[abpr]-|AKIA[0-9A-Z]{12})",
    re.I | re.M,  # on any line of the value
)


# a compiler's memory (RLIMIT_DATA): half this machine's, at most 8 GiB. A kernel that includes a
# device file (`#include "/dev/zero"`) has the preprocessor read it whole: unheld, it takes every
# byte of the machine before the kernel's OOM killer picks a process, maybe another user's
COMPILE_MEMORY_CAP = 8 << 30


def compile_memory() -> int:
    """Half this machine's memory within [1 GiB, COMPILE_MEMORY_CAP], never above the data limit
    this process already has (a user's `ulimit -S -d` is kept, not raised)."""
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        n = max(1 << 30, min(COMPILE_MEMORY_CAP, physical // 2))
    except (ValueError, OSError, AttributeError):
        n = COMPILE_MEMORY_CAP
    try:
        import resource  # here: POSIX only
    except ImportError:
        return n
    soft = resource.getrlimit(resource.RLIMIT_DATA)[0]
    return n if soft == resource.RLIM_INFINITY else min(n, soft)


def limit_compile_memory(limit: int | None = None) -> None:
    """In a compiler's own process (an NVRTC pool process): its data held to `limit` bytes."""
    try:
        import resource  # here: POSIX only
    except ImportError:
        return
    n = limit or compile_memory()
    hard = resource.getrlimit(resource.RLIMIT_DATA)[1]
    resource.setrlimit(resource.RLIMIT_DATA, (n if hard == resource.RLIM_INFINITY else min(n, hard), hard))


def memory_limited(command: list[str], limit: int | None = None) -> list[str]:
    """`command` run by /bin/sh under `ulimit -d` (a compiler's data, and every process it starts,
    held to `limit` bytes). FileNotFoundError where the program is not found, as Popen would raise."""
    program = shutil.which(command[0])
    if program is None:
        raise FileNotFoundError(2, "No such file or directory", command[0])
    program = os.path.abspath(program)  # found from here (a relative PATH entry): the compile runs elsewhere
    if os.name != "posix" or not os.path.exists("/bin/sh"):
        return [program, *command[1:]]
    kib = (limit or compile_memory()) // 1024
    return ["/bin/sh", "-c", f'ulimit -d {kib} 2>/dev/null; exec "$@"', "sh", program, *command[1:]]


_OUT_OF_MEMORY = ("out of memory", "memory exhausted", "cannot allocate memory", "bad_alloc")
_CARET = re.compile(r"\s*(?:\|\s*)?[\^~][\^~ ]*")  # under an echoed source line: nvcc's `  ^`, gcc's `  |  ^~~`
_GUTTER = re.compile(r"\s*\d+\s*\|")  # gcc's echo of a source line: `   12 | text`


def out_of_memory(log: str) -> bool:
    """A compiler's output saying it ran out of memory (gcc's cc1plus, cicc, ptxas); the kernel's own
    lines that a compiler echoes under an error (a string or comment saying `out of memory`) are not read."""
    lines = log.lower().splitlines()
    for i, line in enumerate(lines):
        echoed = _GUTTER.match(line) or (i + 1 < len(lines) and _CARET.fullmatch(lines[i + 1]))
        if not echoed and any(w in line for w in _OUT_OF_MEMORY):
            return True
    return False


def is_secret(name: str, value: str) -> bool:
    value = value or ""
    if SECRET_NAME.search(name) or _SECRET_VALUE.search(value):
        return True
    return any(SECRET_NAME.search(m[1]) for m in _ASSIGNED.finditer(value))


def secret_names(environ=None) -> list[str]:
    env = os.environ if environ is None else environ
    return [k for k, v in env.items() if is_secret(k, v)]


def scrubbed_env(environ=None, **extra: str) -> dict[str, str]:
    """A copy of the environment without secrets, plus `extra`."""
    env = dict(os.environ if environ is None else environ)
    for k in secret_names(env):
        del env[k]
    env.update(extra)
    return env


def prctl(option: int, value: int) -> bool:
    """Linux prctl(option, value); False where it is not there or refused."""
    import ctypes  # here: a few milliseconds that `kt-tui --help` need not pay twice

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def hide_this_process() -> bool:
    """prctl(PR_SET_DUMPABLE, 0): /proc/PID/environ, mem and ptrace of this process refused to
    processes without CAP_SYS_PTRACE, same user included (children exec'd from here are dumpable
    again). False where it is not Linux. KT_TUI_DUMPABLE=1 leaves it (debuggers, core dumps)."""
    if os.environ.get("KT_TUI_DUMPABLE") == "1":
        return False
    return prctl(PR_SET_DUMPABLE, 0)
