"""Code that runs inside the GPU worker process: the job loop (main.py), tuning, checks at other
sizes and output comparison. Nothing here is imported by the app's own process except to start it."""
