"""What the UI needs from the layer above it (front/), handed to the app by whoever builds it
(front/commands.py: tui_app). The UI never imports front/: it calls these."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Services:
    # (settings, store, kernel_file, spec) -> prepare(gpu) -> (sid, choice): a new session, made once
    # the GPU worker runs (the backend is picked with it)
    open_new: Callable
    # (settings, store, sid) -> prepare(gpu) -> (sid, choice): a stored session to resume
    open_stored: Callable
    make_worker: Callable  # (settings) -> the GPU worker or pool
    make_engine: Callable  # (store, settings, sid, gpu, choice, decide, on_event) -> Engine
    llm_factory: Callable  # (settings) -> make_llm, or None in manual mode
    make_policy: Callable  # () -> the --auto policy, gate -> Decision (the "approve all" autopilot)
