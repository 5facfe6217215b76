"""The CUDA source and its launch spec: a source read once (parsed.py), parameters, the review, the one spec model
(spec_model.py, its Launch the version id), inputs, expressions and drafts. Imports only files/errors/tomlfile."""
