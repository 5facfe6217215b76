"""Code that runs in the GPU worker process (or a Ray actor): job loop, tuning, checks at other sizes,
output comparison. It imports nothing of the parent's side; the parent imports it to start it and for a few helpers."""
