"""The session strategies, one module each: `strategy(ctx)` takes a StrategyContext and yields gates; each may
declare its pydantic `Options`. Found by name through entry points (engine/registry.py); plug-ins add more."""
