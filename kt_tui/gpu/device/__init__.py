"""Code that runs in the GPU worker process (or a Ray actor): job loop, tuning, checks at other sizes, compile
ahead. Only gpu/ imports it; it imports nothing of the parent's side (outputs are compared by kt_tui/compare.py)."""
