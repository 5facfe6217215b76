"""The CUDA source and its launch spec."""
