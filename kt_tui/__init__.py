"""kt-tui: tune CUDA kernels with kernel_tuner, an LLM and a human in the loop."""

__version__ = "0.1.0"
