"""JSON text of the results' params, times and verdicts, made fast."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def _make_dumps() -> Callable[[Any], str]:
    """json.dumps(o), the same text, through the stdlib's C encoder made once: json.dumps makes one at
    every call (about half of storing a result)."""
    from json.encoder import JSONEncoder, c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]

    if c_make_encoder is None:
        return json.dumps
    encode = c_make_encoder(None, JSONEncoder().default, encode_basestring_ascii, None, ": ", ", ", False, False, True)
    return lambda o: "".join(encode(o, 0))


dumps = _make_dumps()
