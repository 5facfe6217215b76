"""Front-end glue: each command's work (commands.py), the headless runner, opening sessions and
`kt-tui spec`. It wires the store, the GPU worker, the LLM and the engine together for cli.py."""
