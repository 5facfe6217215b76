"""Searching a kernel's tuning space: the space as data (space.py, restrictions.py, lazy.py for huge
ones), heuristic seeds, and our search `kt` (kt_search.py, run as a kernel_tuner strategy)."""
