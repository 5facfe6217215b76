"""The GPU side in the app's process: the Tuner (tuner.py) and its device workers, a local process each
or Ray actors (devices.py, raydevice.py), their messages (wire.py, protocol.py), the compile pool
(compiles.py), offline compiles (compile.py), recorded caches, the sanitizer. Never imports the engine."""
