"""Sessions in SQLite: every gate, decision, result, run, version and LLM call, stored before anyone
hears of it. Of kt-tui it imports only errors.py."""

from .db import Store

__all__ = ["Store"]
