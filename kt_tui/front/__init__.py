"""Front-end glue for cli.py: each command's work (commands.py), the headless runner, opening sessions
and `kt-tui spec`. It wires store, GPU worker, LLM and engine together, and hands the UI its Services."""
