"""Builds the scripted LLM replies (JSON lists of reply strings) from the kernels beside it.

These replies are SCRIPTED: written by the kt-tui developers to drive the autonomous, explicit
and one-prompt strategies in tests and in the recorded GPU sessions. They are not a model's output.
The kernels they give were compiled, verified and tuned on an H200 (sessions/caches), so sim mode
replays real numbers for them.
usage: python tests/scripted/build.py   (rewrites tests/scripted/*.json)
"""

import json
from pathlib import Path

HERE = Path(__file__).parent


def kernel(path: str) -> str:
    return (HERE / path).read_text()


def fenced(obj, prose: str = "") -> str:
    return f"{prose}\n```json\n{json.dumps(obj, indent=1)}\n```\n" if prose else json.dumps(obj)


def matmul(step3: str) -> list[str]:
    plan = {
        "steps": [
            {
                "title": "Stage tiles of A and B in shared memory",
                "description": "Each block loads a square tile of A and of B into shared memory once and every thread "
                "reads its operands from there, cutting global memory traffic by the tile width.",
            },
            {
                "title": "Unroll the inner product loop",
                "description": "Unroll the loop over the tile so the compiler can keep more loads in flight.",
            },
            {
                "title": "Compute several rows of C per thread",
                "description": "Each thread accumulates work_per_thread outputs in registers and reuses each element "
                "of B it reads from shared memory for all of them.",
            },
            {"title": "Compile with -O3 and --use_fast_math", "description": "Turn on aggressive compiler flags."},
        ]
    }
    return [
        fenced(plan, "Here is a plan for this naive matrix multiplication:"),
        fenced({"valid": True, "reason": "changes how the kernel reads global memory"}),
        fenced(
            {
                "kernel_code": kernel("matmul/tiled.cu"),
                "tune_params": {"block_size_x": [8, 16, 32], "block_size_y": [8, 16, 32]},
                "restrictions": ["block_size_x == block_size_y"],
                "explanation": "Square tiles in shared memory: each element of A and B is read from global "
                "memory n / tile times instead of n times.",
            }
        ),
        fenced({"valid": True, "reason": "a change to the kernel's loop structure"}),
        fenced(
            {
                "kernel_code": kernel("matmul/unrolled_wrong.cu"),
                "tune_params": {"block_size_x": [16, 32], "block_size_y": [16, 32]},
                "restrictions": ["block_size_x == block_size_y"],
                "explanation": "The inner loop is unrolled.",
            }
        ),
        fenced({"valid": True, "reason": "register tiling is a kernel change"}),
        fenced(matmul_rows(step3), "Sure! Here is the kernel with register tiling:"),
        fenced({"valid": False, "reason": "compiler flags do not change the kernel's code"}),
        fenced({"steps": []}),
    ]


def matmul_rows(path: str) -> dict:
    return {
        "kernel_code": kernel(path),
        "tune_params": {
            "block_size_x": [16, 32, 64],
            "block_size_y": [1, 2, 4, 8, 16],
            "WORK_PER_THREAD": [1, 2, 4, 8],
        },
        "restrictions": ["64 <= block_size_x * block_size_y <= 1024"],
        "grid_div_y": ["block_size_y", "WORK_PER_THREAD"],
        "explanation": "Each thread keeps WORK_PER_THREAD partial sums in registers.",
    }


def vector_add_items() -> dict:
    return {
        "kernel_code": kernel("vector_add/items_per_thread.cu"),
        "tune_params": {"block_size_x": [64, 128, 256, 512, 1024], "items_per_thread": [1, 2, 4, 8]},
        "grid_div_x": ["block_size_x", "items_per_thread"],
        "explanation": "Fewer, longer-lived threads.",
    }


def vector_add_float4() -> dict:
    return {
        "kernel_code": kernel("vector_add/float4.cu"),
        "tune_params": {"block_size_x": [64, 128, 256, 512, 1024]},
        "grid_div_x": ["block_size_x", "4"],
        "explanation": "One 16-byte load per operand instead of four 4-byte loads.",
    }


def vector_add_explicit(float4_worth_it: bool) -> list[str]:
    """For tests/scripted/vector_add-steps.toml: items, float4, block_xy (tile_xy depends on it)."""
    return [
        fenced({"valid": True, "reason": "scripted: the work per thread can change"}),
        fenced(vector_add_items()),
        fenced(
            {
                "valid": float4_worth_it,
                "reason": "scripted: 16-byte loads fit this kernel"
                if float4_worth_it
                else "scripted: not worth it, the loads are already coalesced",
            }
        ),
        fenced(vector_add_float4()),
        fenced({"valid": False, "reason": "scripted: the problem is one-dimensional"}),
    ]


def matmul_explicit() -> list[str]:
    """For tests/scripted/matmul-steps.toml: tiles accepted, a wrong unroll, register tiling, a
    dependency skip (vector_loads needs unroll) and a verdict against read_only."""
    first = matmul("matmul/rows_per_thread.cu")
    return [
        fenced({"valid": True, "reason": "scripted: every element of A and B is read n times"}),
        first[2],
        fenced({"valid": True, "reason": "scripted: the tile loop has a fixed trip count"}),
        first[4],
        fenced({"valid": True, "reason": "scripted: a thread can reuse B across rows"}),
        first[6],
        fenced({"valid": False, "reason": "scripted: not worth it, the inputs are read from shared memory"}),
    ]


def vector_add() -> list[str]:
    plan = {
        "steps": [
            {
                "title": "Process several elements per thread",
                "description": "Each thread adds items_per_thread elements spaced block_size_x apart.",
            },
            {"title": "Use 16-byte vector loads and stores", "description": "Read and write float4."},
        ]
    }
    return [
        fenced(plan),
        fenced({"valid": True, "reason": "changes the work per thread"}),
        fenced(vector_add_items()),
        fenced({"valid": True, "reason": "vector memory instructions are a kernel change"}),
        fenced(vector_add_float4()),
        fenced({"steps": []}),
    ]


if __name__ == "__main__":
    out = {
        "matmul.json": matmul("matmul/rows_per_thread.cu"),
        "matmul-hand-edit.json": matmul("matmul/rows_per_thread_hand.cu"),
        "vector_add.json": vector_add(),
        "matmul-explicit.json": matmul_explicit(),
        "vector_add-explicit.json": vector_add_explicit(float4_worth_it=True),
        "vector_add-explicit-overrule.json": vector_add_explicit(float4_worth_it=False),
        "matmul-one-prompt.json": [fenced(matmul_rows("matmul/rows_per_thread.cu"), "Scripted one-prompt rewrite:")],
    }
    for name, replies in out.items():
        (HERE / name).write_text(json.dumps({"scripted": True, "replies": replies}, indent=1) + "\n")
        print(name, len(replies), "scripted replies")
