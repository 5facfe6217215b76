"""The GPU side in the app's process: the supervised worker process (client.py) or a Ray pool, jobs and
their messages (protocol.py), offline compiles, recorded caches, the sanitizer. Never imports the engine."""
