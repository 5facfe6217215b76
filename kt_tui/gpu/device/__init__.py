"""Code that runs in a device worker process (or a Ray actor): one GPU's data, runs and comparisons."""
