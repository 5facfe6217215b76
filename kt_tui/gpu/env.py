"""The one environment scrubber for every child process (GPU worker, nvcc, NVRTC, compute-sanitizer):
no API keys, tokens, secrets, passwords or credentials, by name or by a URL carrying a password."""

from __future__ import annotations

import os
import re

SECRET_NAME = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSW(OR)?D|PASSPHRASE|CREDENTIAL|_PAT$|^PAT$|_KEY$|^KEY$)",
                         re.I)
_URL_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]*:[^/\s@]*@", re.I)


def is_secret(name: str, value: str) -> bool:
    return bool(SECRET_NAME.search(name) or _URL_PASSWORD.search(value or ""))


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
