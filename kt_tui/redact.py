"""Secrets out of text, control sequences out of what reaches a terminal.

`scrub` is the one function every text from an LLM, an endpoint or a URL goes through before it is
stored, shown or exported: the API key (registered by the LLM client, and OPENAI_API_KEY), the
`Bearer …` / `Authorization: …` header forms and the credentials of URLs (user, password and
secret query parameters) become ***. The store runs it again on every text it writes.

`for_terminal` drops escape sequences and control characters (keeping newline and tab) from text a
model or a compiler wrote, before it is printed: no window titles, screen clears or OSC 52
clipboard writes from a reply."""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from urllib.parse import urlsplit, urlunsplit

MASK = "***"
_registered: set[str] = set()

_BEARER = re.compile(r"(?i)\b(bearer)(\s+)[A-Za-z0-9._~+/=:-]{6,}")
_HEADER = re.compile(
    r"(?i)\b((?:proxy-)?authori[sz]ation|x-api-key|api-key)(\"?'?\s*[:=]\s*\"?'?)"
    r"(?!\*\*\*)(?:(?:bearer|basic|digest|token)\s+)?[^\s\"',;}\]]+"
)
_URL = re.compile(r"(?i)\b[a-z][a-z0-9+.-]{1,15}://[^\s\"'<>`]+")
_SECRET_QUERY = re.compile(
    r"(?i)([?&;](?:[a-z0-9_-]*(?:key|token|secret|password|passwd|pwd|auth|sig|signature|"
    r"credential|session)[a-z0-9_-]*)=)[^&#;\s]*"
)
_TRIGGER = re.compile(r"(?i)bearer|authori[sz]ation|api-key|://")


def register_secret(secret: str | None) -> None:
    """A value that must never be stored or shown (the API key); short ones are ignored (they would
    mask ordinary words)."""
    if secret and len(secret) >= 6:
        _registered.add(secret)
        quoted = json.dumps(secret)[1:-1]  # as it appears inside JSON text
        if quoted != secret:
            _registered.add(quoted)


def register_url(url: str | None) -> None:
    """The secrets a URL holds (its password, a user part alone as in https://KEY@host, secret query
    values) are registered: an endpoint that echoes its path or host back cannot show them."""
    try:
        parts = urlsplit(url or "")
        user, password = parts.username, parts.password
    except ValueError:
        return
    register_secret(password if password else user)
    for query in (parts.query, parts.fragment):
        for m in _SECRET_QUERY.finditer("?" + query):
            register_secret(m.string[m.end(1) : m.end()])


def _secrets() -> set[str]:
    env = os.environ.get("OPENAI_API_KEY")
    return _registered | {env} if env and len(env) >= 6 else _registered


@lru_cache(maxsize=16)
def _escaped(secret: str) -> re.Pattern[str]:
    """The secret as JSON text may spell it, any of its characters as a \\u escape (hex in either case):
    a reply that writes the key so is masked before it is stored or parsed into a kernel."""
    return re.compile("".join(f"(?:{re.escape(c)}|\\\\u(?i:{ord(c):04x}))" for c in secret))


def mask_url(url: str) -> str:
    """The URL with its user, password and secret query values as ***; other text as it is."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK
    netloc = parts.netloc
    if "@" in netloc:
        netloc = MASK + "@" + netloc.rpartition("@")[2]
    query = _SECRET_QUERY.sub(lambda m: m.group(1) + MASK, "?" + parts.query)[1:] if parts.query else ""
    fragment = _SECRET_QUERY.sub(lambda m: m.group(1) + MASK, "?" + parts.fragment)[1:] if parts.fragment else ""
    if netloc == parts.netloc and query == parts.query and fragment == parts.fragment:
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def scrub(text: str) -> str:
    """`text` with the key, header-form credentials and URL credentials masked."""
    if not isinstance(text, str) or not text:
        return text
    for secret in _secrets():
        if secret in text:
            text = text.replace(secret, MASK)
        if "\\u" in text:
            text = _escaped(secret).sub(MASK, text)
    if not _TRIGGER.search(text):
        return text
    text = _URL.sub(lambda m: mask_url(m.group(0)), text)
    text = _BEARER.sub(lambda m: m.group(1) + m.group(2) + MASK, text)
    return _HEADER.sub(lambda m: m.group(1) + m.group(2) + MASK, text)


def scrub_value(value):
    """The same value with every string in it scrubbed (dicts, lists and tuples walked)."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {k: scrub_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(scrub_value(v) for v in value)
    return value


_OPEN_TAIL = re.compile(r"(?i)(?:bearer|authori[sz]ation|api-key|[a-z][a-z0-9+.-]{1,15}://)[^\n]{0,200}$")
_LAST_WORD = re.compile(r"(?i)\b[a-z][a-z0-9+.-]{0,15}(?::/{0,2})?$")  # may be the start of one of those


class StreamScrubber:
    """Scrubs a text that arrives in pieces: what it hands on holds no secret split across two
    pieces. It keeps back only a tail that could still become one: the start of a key, or a header
    form or URL not yet ended by a newline (at most 200 characters of it), or a last word that may
    begin one."""

    def __init__(self):
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        hold = 0
        for secret in _secrets():
            text = text.replace(secret, MASK)  # a whole one is masked before the text is cut
            hold = max(
                hold, next((k for k in range(min(len(secret) - 1, len(text)), 0, -1) if text.endswith(secret[:k])), 0)
            )
        for pattern in (_OPEN_TAIL, _LAST_WORD):
            tail = pattern.search(text, max(0, len(text) - 300))
            if tail:
                hold = max(hold, len(text) - tail.start())
        cut = len(text) - hold
        self._held = text[cut:]
        return scrub(text[:cut])

    def flush(self) -> str:
        text, self._held = self._held, ""
        return scrub(text)


_CONTROLS = re.compile(
    r"\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC (titles, OSC 52 clipboard), ended by BEL or ST
    r"|\x1b[P^_X][^\x1b\x9c]*(?:\x1b\\|\x9c)?"  # DCS, PM, APC, SOS strings
    r"|\x1b\[[0-?]*[ -/]*[@-~]?"  # CSI
    r"|\x1b[ -/]*[0-~]?"  # other escapes
    r"|[\x90\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x9c)?"  # C1 string controls
    r"|\x9b[0-?]*[ -/]*[@-~]?"  # C1 CSI
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # every other control character but \t and \n
    r"|[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"  # bidi marks and overrides: text shown in another order
)


def for_terminal(text: str) -> str:
    """`text` without escape sequences and control characters (newline and tab kept)."""
    return _CONTROLS.sub("", text) if isinstance(text, str) else text
