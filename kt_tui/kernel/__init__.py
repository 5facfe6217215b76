"""The CUDA source and its launch spec: finding kernels and parameters, the spec file, inputs, the
safe expression language, drafts and the safety review. Imports nothing else of kt-tui but files/errors."""
