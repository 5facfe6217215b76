"""A small filled-in answer per reply shape: what the editor starts from when the user writes an
answer in place of the LLM. Real-looking values, so the shape is plain; a // line says what it is."""

from __future__ import annotations

import json

_EXAMPLES = {
    "Plan": {
        "steps": [
            {
                "title": "Cache the input tile in shared memory",
                "description": "Each block loads its tile once into shared memory and reuses it.",
            }
        ]
    },
    "Breakdown": {
        "steps": [
            {
                "title": "Load the tile into shared memory",
                "description": "Only the load and a __syncthreads(); the math stays as it is.",
            }
        ]
    },
    "StepVerdict": {"valid": True, "reason": "The kernel reads each input element several times."},
    "Worth": {"worth_it": False, "reason": "The last step gained under 1 %."},
    "KernelRewrite": {
        "kernel_code": "__global__ void scale(float *x, int n) {\n"
        "    int i = blockIdx.x * block_size_x + threadIdx.x;\n"
        "    if (i < n) x[i] *= 2.0f;\n}\n",
        "tune_params": {"block_size_x": [128, 256]},
        "restrictions": [],
        "explanation": "Why this version should be faster.",
    },
    "ConfigBatch": {
        "configs": [{"block_size_x": 128}, {"block_size_x": 256}],
        "reasoning": "Why these configurations.",
    },
    "SpaceEdit": {
        "edits": [{"action": "add_values", "param": "block_size_x", "values": [1024]}],
        "reason": "Why the space should change.",
    },
}


def example_for(model_cls) -> str:
    """JSON text of a filled-in example of `model_cls`'s shape (its field names when none is written)."""
    value = _EXAMPLES.get(model_cls.__name__)
    if value is None:
        value = {name: "..." for name in model_cls.model_fields}
    return "// an example of the shape: replace it with your answer\n" + json.dumps(value, indent=2) + "\n"
