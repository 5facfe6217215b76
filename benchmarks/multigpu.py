"""One GPU against N: the same sweep, the same settings, configurations per second of each.

Sweeps a whole space (matmul_tiled, 767 configurations, by default) with brute force, first on one
GPU through today's GPU worker, then on N GPUs through Ray (kt-tui's Tuner), each result
verified against the original's outputs and written to a session store as the engine does.
Prints configs/s for each, the ratio, the best configuration of each, and fails (exit 1) when a
result is lost or duplicated. No kernel_tuner cachefile is used, so nothing is replayed.

usage: python benchmarks/multigpu.py [--gpus N|all] [--ray ADDRESS] [--space NAME|PATH.cu]
                                     [--backend auto|pycuda|nvcuda|cupy|sim] [--json FILE]
On this machine without a GPU: --backend sim replays the recorded cache on CPU-only Ray actors
(KT_TUI_SIM_PACE=0.01 gives each configuration a cost, so that the split shows).
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kt_tui.engine.backend import choose_backend  # noqa: E402
from kt_tui.front.session import load_kernel_spec, read_kernel_file  # noqa: E402
from kt_tui.gpu.protocol import BACKENDS, TuneJob  # noqa: E402
from kt_tui.gpu.scale import parse_gpus  # noqa: E402
from kt_tui.gpu.tuner import Tuner  # noqa: E402
from kt_tui.kernel.spec import version_hash  # noqa: E402
from kt_tui.search.space import configurations  # noqa: E402
from kt_tui.store import Store  # noqa: E402


def sweep(label: str, gpu, job: TuneJob, store: Store, sid: str, expected: set, timeout: float) -> dict:
    counts: collections.Counter = collections.Counter()
    results: dict = {}

    def on_event(kind, payload):
        if kind == "result":
            counts[payload["key"]] += 1
            results[payload["key"]] = payload
            store.add_result(sid, label, job.run_id, payload)

    started = time.monotonic()
    info = gpu.run(job, on_event, timeout)
    seconds = time.monotonic() - started
    ok = [
        r for r in results.values() if r["status"] == "ok" and r["time_ms"] is not None and r["verified"] is not False
    ]
    best = min(ok, key=lambda r: r["time_ms"]) if ok else None
    stored = store.results(sid, label)
    return {
        "label": label,
        "results": sum(counts.values()),
        "seconds": seconds,
        "configs_per_s": sum(counts.values()) / seconds if seconds else None,
        "best": {"params": best["params"], "time_ms": best["time_ms"]} if best else None,
        "lost": sorted(expected - set(counts)),
        "duplicated": sorted(k for k, n in counts.items() if n > 1),
        "stored": len(stored),
        "workers": sorted({r.get("worker") or "local" for r in results.values()}),
        "statuses": dict(collections.Counter(r["status"] for r in results.values())),
        "device": info.get("device"),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gpus", default="all", help="GPUs of the N-GPU run (default: all of the host or cluster)")
    p.add_argument("--ray", default="", metavar="ADDRESS", help="a running Ray cluster for the N-GPU run")
    p.add_argument("--space", default="matmul_tiled", help="a space in benchmarks/spaces, or a kernel .cu path")
    p.add_argument("--backend", default="auto", choices=("auto", *BACKENDS, "sim"))
    p.add_argument("--timeout", type=float, default=60, help="watchdog per configuration, seconds")
    p.add_argument("--json", metavar="FILE", help="write the numbers here too")
    a = p.parse_args()

    cu = Path(a.space) if a.space.endswith(".cu") else ROOT / "benchmarks" / "spaces" / f"{a.space}.cu"
    kf = read_kernel_file(cu)
    _, spec = load_kernel_spec(kf, None, None)
    vid = version_hash(kf.source, spec)
    names = list(spec.tune_params)
    expected = {",".join(str(v) for v in c) for c in configurations(spec)}
    one = Tuner()
    pool = Tuner(gpus=parse_gpus(a.gpus), address=a.ray or None, via="ray" if a.ray else "local")
    try:
        choice = choose_backend(a.backend, one.probe, spec.kernel, vid, [str(cu.parent / "recorded")])
        print(f"space {cu.name}: {len(expected)} configurations; {choice.label()}", flush=True)
        base = dict(
            run_id="ref",
            source=kf.source,
            spec=spec.to_dict(),
            backend=choice.backend,
            sim_cache=str(choice.sim_cache_for(spec.kernel, vid)) if choice.simulated else None,
        )
        reference = None
        if not choice.simulated:  # the original's outputs, to verify every configuration against
            got = {}
            job = TuneJob(**base, configs=[spec.baseline_params()], capture_reference=True)
            one.run(job, lambda k, p: got.update({k: p}), a.timeout)
            reference = got.get("reference")
            pool.probe()  # starts the N workers (and refuses mixed GPU models) before the clock runs
        else:
            pool._ensure(0)
        print(f"N-GPU run on {len(pool.workers)} workers: {', '.join(w.label for w in pool.workers)}", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            store = Store(Path(tmp) / "bench.db")
            sid = store.create_session(kernel_path=str(cu), kernel_name=spec.kernel, state="running")
            runs = []
            for label, gpu in (("1-gpu", one), (f"{len(pool.workers)}-gpu", pool)):
                job = TuneJob(**dict(base, run_id=label), reference=reference, search="brute_force")
                runs.append(sweep(label, gpu, job, store, sid, expected, a.timeout))
                r = runs[-1]
                print(
                    f"{label}: {r['results']} results in {r['seconds']:.1f} s = {r['configs_per_s']:.2f} configs/s; "
                    f"best {r['best']}; statuses {r['statuses']}; workers {len(r['workers'])}; "
                    f"lost {len(r['lost'])}, duplicated {len(r['duplicated'])}, stored {r['stored']}",
                    flush=True,
                )
    finally:
        one.close()
        pool.close()
    ratio = runs[1]["configs_per_s"] / runs[0]["configs_per_s"] if runs[0]["configs_per_s"] else None
    print(f"ratio: {ratio:.2f}x configs/s with {len(pool.workers or runs[1]['workers'])} GPUs" if ratio else "ratio: -")
    same_best = runs[0]["best"] and runs[1]["best"] and runs[0]["best"]["params"] == runs[1]["best"]["params"]
    print(f"best configuration: {'the same' if same_best else 'different'} ({', '.join(names)})")
    if a.json:
        Path(a.json).write_text(
            json.dumps(
                {
                    "space": cu.name,
                    "configurations": len(expected),
                    "runs": runs,
                    "ratio": ratio,
                    "backend": choice.backend,
                    "gpu": choice.gpu,
                },
                indent=2,
            )
        )
    broken = [r["label"] for r in runs if r["lost"] or r["duplicated"] or r["stored"] != len(expected)]
    if broken:
        print(f"FAILED: results lost, duplicated or not stored in {', '.join(broken)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
