"""Sessions in SQLite."""
from .db import Store

__all__ = ["Store"]
