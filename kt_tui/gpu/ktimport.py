"""kernel_tuner imported without torch.

kernel_tuner's modules import torch when it is installed, only to accept torch tensors as kernel
arguments. kt-tui passes numpy arrays only, and on a machine with torch that import costs seconds
in every process that loads kernel_tuner (the app, the GPU worker, each compile-ahead process).
`load()` imports kernel_tuner's modules while `import torch` fails, then lets torch be imported
normally again, for a user's own verify or input function. KT_TUI_TORCH=1 keeps torch visible.

The app's process only prepares kernel strings (ktsource.py) and reads caches: it loads SOURCE,
which imports no GPU backend (pycuda, cupy, cuda-python, NVML); the GPU worker loads MODULES.
"""

from __future__ import annotations

import os
import sys

MODULES = ("kernel_tuner.interface", "kernel_tuner.backends.pycuda", "kernel_tuner.searchspace")
SOURCE = ("kernel_tuner.util", "kernel_tuner.core")


def load(modules: tuple[str, ...] = MODULES) -> None:
    if all(m in sys.modules for m in modules):
        return
    hide = "torch" not in sys.modules and os.environ.get("KT_TUI_TORCH") != "1"
    if hide:
        sys.modules["torch"] = None  # type: ignore[assignment]  # `import torch` raises ImportError while this is set
    try:
        import importlib

        for m in modules:
            importlib.import_module(m)
    finally:
        if hide and "torch" in sys.modules and sys.modules["torch"] is None:
            del sys.modules["torch"]
