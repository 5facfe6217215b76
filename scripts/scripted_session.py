"""Run kt-tui against the scripted OpenAI-compatible server of the test suite.

usage: python scripts/scripted_session.py SCRIPT.json KT-TUI-ARGS...
e.g.   python scripts/scripted_session.py tests/scripted/matmul.json run examples/matmul.cu \\
           --strategy autonomous --auto --json
The replies come from SCRIPT.json: they are scripted, not a model's output (the model is named
"scripted-model" in every stored call).
"""

import json
import sys
from pathlib import Path

# Imported in run(): the GPU worker and the compile processes are spawned, and each imports this
# script as its main module; at the top, each of them loaded the test suite's server (and pytest).


def run(script: str, argv: list[str]) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from kt_tui.cli import main
    from tests.llm_server import MODEL, ScriptedServer

    replies = json.loads(Path(script).read_text())["replies"]
    with ScriptedServer(replies) as server:
        code = main([*argv, "--base-url", server.url, "--model", MODEL])
        print(f"scripted server: {len(server.requests)} requests, {len(server.script)} replies left", file=sys.stderr)
    return code


if __name__ == "__main__":
    raise SystemExit(run(sys.argv[1], sys.argv[2:]))
