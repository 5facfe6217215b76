"""The session engine (core.py, runs.py): runs a strategy's gates, measures through gpu/, stores first, replays on
resume; strategies see it only through StrategyContext (context.py). No Textual."""
