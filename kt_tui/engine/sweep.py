"""The sweep strategy: the original kernel's baseline, then every configuration of its tune_params.

Gates: "start the sweep?" before anything runs, and "continue?" after the user stopped it.
"""

from __future__ import annotations

from .events import Gate

NAME = "sweep"


def sweep(engine):
    vid = engine.original
    _, spec = engine.version(vid)
    attempt = 1
    while True:
        done = len([r for r in engine.known(vid).values()])
        total = spec.space_size()
        title = (f"Benchmark {total} configurations of {spec.kernel} on {engine.choice.label()}?" if attempt == 1
                 else f"Continue the sweep of {spec.kernel} ({done} of {total} measured)?")
        decision = yield Gate(
            key=f"sweep:{attempt}", kind="sweep", title=title,
            body={"version": vid, "tune_params": spec.tune_params, "restrictions": spec.restrictions,
                  "total": total, "done": done, "backend": engine.choice.backend, "gpu": engine.choice.gpu,
                  "after_stop": attempt > 1},
            choices=("approve", "skip", "stop"))
        if decision.choice == "skip":
            return
        engine.baseline(vid)
        state = engine.tune(vid, run_id=f"sweep:{attempt}")
        if state == "failed":
            engine.error = engine.store.run(engine.sid, f"sweep:{attempt}")["error"]
        if state != "stopped":
            return
        attempt += 1
