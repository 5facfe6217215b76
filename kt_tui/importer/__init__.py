"""`kt-tui import`: a user's kernel_tuner script becomes kernels + launch specs (no Textual here)."""
