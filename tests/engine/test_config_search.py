"""The config-search strategy against the scripted LLM server, on the full matmul_tiled space
recorded on an H200 (benchmarks/spaces/recorded): every reply here is SCRIPTED, not a model's."""

import json

from kt_tui.store import Store

from ..conftest import ROOT
from ..helpers import run_cli
from ..llm_server import MODEL, ScriptedServer

KERNEL = ROOT / "benchmarks" / "spaces" / "matmul_tiled.cu"
NAMES = ("block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "tile_k")


def cfg(*values) -> dict:
    return dict(zip(NAMES, values))


def batch(configs, reasoning="", prose="") -> str:
    body = json.dumps({"configs": configs, "reasoning": reasoning})
    return f"{prose}\n```json\n{body}\n```" if prose else body


SCRIPT = [
    batch(
        [
            cfg(16, 16, 4, 4, 16),
            cfg(32, 8, 4, 4, 16),
            cfg(16, 16, 2, 2, 16),
            cfg(32, 8, 2, 4, 16),
            cfg(64, 32, 1, 1, 16),  # 2048 threads: breaks a restriction
            {**cfg(16, 16, 4, 4, 16), "tile_k": 48},  # not a value of tile_k
            cfg(16, 16, 4, 4, 16),
        ],  # a duplicate
        "register tiles of 2x2 to 4x4 raise the arithmetic intensity",
        prose="Here are my picks:",
    ),
    batch(
        [cfg(16, 16, 4, 4, 32), cfg(32, 8, 4, 8, 32), cfg(64, 8, 2, 8, 32), cfg(64, 8, 1, 8, 32)],
        "longer k-slabs amortise the barrier",
    ),
    batch([cfg(32, 16, 2, 4, 32), cfg(16, 32, 4, 4, 32)]),
    batch([cfg(32, 8, 2, 8, 32), cfg(64, 4, 2, 8, 32)]),
    json.dumps(
        {
            "edits": [
                {"action": "add_values", "param": "tile_k", "values": [64]},
                {"action": "add_param", "param": "prefetch", "values": [0, 1], "default": 0},
            ],
            "reason": "the best configurations all use the largest tile_k",
        }
    ),
    batch([cfg(64, 8, 2, 8, 64)]),
]


def test_config_search_headless_on_a_recorded_space(capsys, hermetic):
    with ScriptedServer(list(SCRIPT)) as server:
        code, out = run_cli(
            capsys,
            "run",
            KERNEL,
            "--strategy",
            "config-search",
            "--auto",
            "--json",
            "--backend",
            "sim",
            "--base-url",
            server.url,
            "--model",
            MODEL,
            "--rounds",
            "5",
            "--batch-size",
            "6",
        )
        assert not server.script
    assert code == 0 and out["state"] == "finished", out
    store = Store(hermetic / "sessions.db")
    sid = out["session"]
    first = store.gate(sid, "batch:1").body
    assert len(first["configs"]) == 4
    why = {json.dumps(b["config"]): b["why"] for b in first["invalid"]}
    assert any("restriction" in w for w in why.values())
    assert any("tile_k" in w and "48" in w for w in why.values())
    assert any("duplicate" in w for w in why.values())
    # round 2 found the recorded optimum, 0.1264 ms
    assert out["best"]["params"] == cfg(64, 8, 2, 8, 32)
    assert abs(out["best"]["time_ms"] - 0.1264) < 1e-3
    space = store.gate(sid, "space:4").body
    assert space["after"]["tile_k"] == [4, 8, 16, 32, 64] and space["size_after"] > space["size_before"]
    assert any("prefetch" in p for p in space["problems"])  # the kernel never reads it
    results = {r.key: r for r in store.results(sid)}
    assert results["64,8,2,8,64"].status == "not_recorded"  # a new value: the recorded cache has no time
    assert results["64,8,2,8,32"].origin == "llm round 2"
    assert len(results) == 1 + 4 + 4 + 2 + 2 + 1
