"""Sessions in SQLite: every gate, decision, result, run, version and LLM call, stored before anyone
hears of it and read back as records (kt_tui/records.py); SessionStore is one session's view."""

from .session import SessionStore
from .store import Store

__all__ = ["SessionStore", "Store"]
