"""kernel_tuner imported without torch.

kernel_tuner's modules import torch when it is installed, only to accept torch tensors as kernel
arguments. kt-tui passes numpy arrays only, and on a machine with torch that import costs seconds
in every process that loads kernel_tuner (the app, the GPU worker, each compile-ahead process).
`load()` imports kernel_tuner's modules while `import torch` fails, then lets torch be imported
normally again, for a user's own verify or input function. KT_TUI_TORCH=1 keeps torch visible.

kernel_tuner.file_utils imports jsonschema (a tenth of a second with its schema registry) for
reading and writing T4 files only: it is given a stand-in that loads the module on first use,
so the worker and the app start without it.

The app's process prepares kernel strings (ktsource.py), reads caches and runs the search: it
loads SOURCE, then APP for a tuning run, which import no GPU backend (pycuda, cupy, cuda-python,
NVML); the GPU worker loads MODULES.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import types

MODULES = ("kernel_tuner.interface", "kernel_tuner.backends.pycuda", "kernel_tuner.searchspace")
SOURCE = ("kernel_tuner.util", "kernel_tuner.core")
# the app's tuning runs (gpu/kt_private.py, tunerun.py, runner.py): kernel_tuner's strategies,
# searchspace and runner interface, no GPU backend
APP = (*SOURCE, "kernel_tuner.interface", "kernel_tuner.searchspace", "kernel_tuner.runners.runner")


def load(modules: tuple[str, ...] = MODULES) -> None:
    if all(m in sys.modules for m in modules):
        return
    hide = "torch" not in sys.modules and os.environ.get("KT_TUI_TORCH") != "1"
    if hide:
        sys.modules["torch"] = None  # type: ignore[assignment]  # `import torch` raises ImportError while this is set
    try:
        _lazy("jsonschema")
        for m in modules:
            importlib.import_module(m)
    finally:
        if hide and "torch" in sys.modules and sys.modules["torch"] is None:
            del sys.modules["torch"]


class _OnUse(types.ModuleType):
    """Stands in for a module until one of its attributes is read, then loads it and hands that over."""

    def __getattr__(self, attr: str) -> object:
        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
        real = importlib.import_module(name)
        self.__dict__.update(real.__dict__)
        return getattr(real, attr)


def _lazy(name: str) -> None:
    """`import name` from here on gives a module that loads when an attribute is first read."""
    if name not in sys.modules and importlib.util.find_spec(name) is not None:
        sys.modules[name] = _OnUse(name)
