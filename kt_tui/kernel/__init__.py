"""The CUDA source and its launch spec: a source read once (parsed.py: kernels, tokens, the text the
compiler and the preprocessor see), its tunable parameters and safety review; the one spec model
(spec_model.py, read by spec.py's read_spec, its Launch the version identity), inputs, the safe
expression language and drafts. Imports nothing else of kt-tui but files/errors/tomlfile."""
