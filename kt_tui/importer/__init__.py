"""`kt-tui import`: a user's kernel_tuner script, run in a child process, becomes kernels and launch
specs. No Textual here."""
