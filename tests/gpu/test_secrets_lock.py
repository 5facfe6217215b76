"""Settings read a variable that may hold a secret only while no NVRTC process is starting: the
compile pool takes secrets out of os.environ for that moment (gpu/compiles.py), and a reader then
would find the API key unset."""

from __future__ import annotations

import threading

from kt_tui.config import environ_value
from kt_tui.gpu.env import SECRETS_LOCK


def test_a_settings_read_waits_while_secrets_are_out_of_the_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    got: list[str | None] = []
    with SECRETS_LOCK:
        monkeypatch.delenv("OPENAI_API_KEY")  # as _start_processes takes it out
        reader = threading.Thread(target=lambda: got.append(environ_value("OPENAI_API_KEY")))
        reader.start()
        reader.join(0.5)
        assert reader.is_alive() and got == []  # it waits for the lock, not reading the gap
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    reader.join(10)
    assert got == ["sk-test-not-a-real-key"]


def test_the_compile_pool_takes_secrets_out_under_the_same_lock():
    import inspect

    from kt_tui.gpu import compiles

    assert "with SECRETS_LOCK:" in inspect.getsource(compiles.CompilePool._start_processes)
