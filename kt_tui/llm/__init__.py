"""The LLM: an OpenAI-compatible client with retries, prompt templates, reply schemas (pydantic)
and structured replies parsed and repaired. Knows nothing of sessions or the engine."""
