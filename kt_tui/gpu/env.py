"""The one environment scrubber for every child process (GPU worker, nvcc, NVRTC, compute-sanitizer,
the importer's script, Ray actors): no API keys, tokens, secrets, passwords, credentials, private keys,
auth sockets or cookies, by name or by a value that looks like one. And `hide_this_process`: the
kt-tui process made non-dumpable, so that no unprivileged process of the same user (user code in
any child) reads its environment block or memory through /proc."""

from __future__ import annotations

import os
import re
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
