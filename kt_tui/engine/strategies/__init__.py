"""The session strategies, one module each: `strategy(engine)` returns a generator of gates.
They are found by name through entry points (engine/registry.py); plug-ins add more."""
