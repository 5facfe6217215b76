"""One scrubber for every child (gpu/env.py), the importer's script included; the hostile tester's list."""

import json

from kt_tui.gpu.env import scrubbed_env
from kt_tui.importer.run import import_script

from .test_import import _script

SECRETS = {
    "OPENAI_API_KEY": "sk-test-SECRET", "GITHUB_PAT": "ghp_x", "AWS_CREDENTIALS": "y",
    "DATABASE_URL": "postgres://u:hunter2@h/db", "MYSQL_PWD": "p1", "DB_PASS": "p2", "PASS": "p3",
    "SMTP_PASSWD": "p4", "PRIVATE_KEY_PEM": "k", "AUTH_HEADER": "h", "SENTRY_DSN": "https://abc@sentry.io/1",
    "SLACK_WEBHOOK_URL": "https://hooks.slack.com/x", "JWT": "eyJ", "COOKIE": "c=1", "SESSION_TOKEN": "s",
    "SSH_AUTH_SOCK": "/tmp/ssh-agent.sock", "GPG_AGENT_INFO": "/run/gpg", "XAUTHORITY": "/home/u/.Xauthority",
    "GOOGLE_APPLICATION_CREDENTIALS": "/k.json", "INNOCENT_NAME": "-----BEGIN OPENSSH PRIVATE KEY-----\nabc",
    "HEADER": "Bearer abc.def", "SOME_VALUE": "ghp_abcdef0123",
}
KEPT = {"PATH": "/usr/bin", "LD_LIBRARY_PATH": "/cuda/lib64", "CUDA_HOME": "/cuda", "CUDA_VISIBLE_DEVICES": "0",
        "HOME": "/h", "TMPDIR": "/tmp", "PWD": "/work", "OLDPWD": "/", "USER": "u", "LANG": "C.UTF-8",
        "PLAIN_URL": "https://example.org/x", "PYTHONPATH": "/p", "KT_TUI_DATA_DIR": "/d"}


def test_the_scrubber_removes_every_secret_of_the_hostile_list_and_keeps_what_cuda_needs():
    assert scrubbed_env({**SECRETS, **KEPT}) == KEPT


def test_the_importers_script_gets_the_same_scrubbed_environment(tmp_path, monkeypatch):
    for k, v in SECRETS.items():
        monkeypatch.setenv(k, v)
    script = _script(tmp_path, """
        import json, os
        open("env.json", "w").write(json.dumps(dict(os.environ)))
        tune_kernel("scale", "scale.cu", n, args, tp)
    """)
    import_script(script, tmp_path / "out")
    seen = json.loads((tmp_path / "env.json").read_text())
    assert not set(SECRETS) & set(seen)
    assert "PATH" in seen and seen["CUDA_VISIBLE_DEVICES"] == ""
