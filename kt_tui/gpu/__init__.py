"""The GPU side in the app's process: the Tuner and its device workers (a process or a Ray actor each), their messages,
the compile pool, offline compiles, recorded caches, the sanitizer. Never imports the engine."""
