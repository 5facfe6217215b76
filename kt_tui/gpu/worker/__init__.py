"""Code that runs inside the GPU worker process (or a Ray actor): the job loop, tuning, checks at other
sizes, output comparison. It imports nothing of the parent's side (gpu/client.py, raypool, engine)."""
