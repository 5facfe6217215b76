"""The session strategies, one small module each, and their registry (registry.py).
A strategy is a callable `strategy(engine)` returning a generator of gates; plug-ins add more."""
