"""The GPU side: a worker process that owns the CUDA context, and its supervisor."""
