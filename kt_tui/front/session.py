"""Opening sessions: a new one from a kernel file and its spec, or a stored one to resume."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import FLAT_STRATEGY_KEYS, Settings
from ..engine.registry import strategy_options
from ..errors import UserError
from ..kernel.conditions import Macros, names_of
from ..kernel.spec import Spec, dump_spec, spec_from_plain, version_hash, version_ids
from ..redact import MASK
from ..store import SessionStore, Store
from ..words import counted
from .kernelfile import KernelFile, load_kernel_spec, read_kernel_file
from .prepared import NeedsGpu, prepared, repair_replay, replay_damaged, waits_here

if TYPE_CHECKING:
    from ..engine.backend import BackendChoice
    from ..gpu.tuner import Tuner

# Imported where used: the backend's pick and the compile check (engine/backend.py, precheck.py),
# which `kt-tui resume` in the TUI does on the engine thread, after the first frame; it checks the
# strategy's options (session_options) before.

# read here by commands, spec_cmd and the tests
__all__ = ["KernelFile", "load_kernel_spec", "read_kernel_file", "replay_damaged"]


def sim_sources(settings: Settings, kernel_path: Path) -> list[str]:
    """Where a replay looks for a recording: --sim-cache, the `recorded/` folder beside the kernel (by
    its whole path: a message names it, a resume from another folder finds it), the data dir's caches."""
    beside = str(Path(kernel_path).absolute().parent / "recorded")
    return [s for s in (settings.sim_cache, beside, str(settings.data_dir / "caches")) if s]


def pick_backend(
    settings: Settings,
    gpu: Tuner,
    kernel: str,
    version: str | list[str],
    kernel_path: Path,
    request: str | None = None,
    source: str = "",
    options: Sequence[str] = (),
    names: Macros | None = None,
) -> BackendChoice:
    from ..engine.backend import choose_backend
    from ..gpu.probe_cache import cached_probe

    probe = cached_probe(gpu.probe, settings.data_dir / "backend-probe.json")
    sims = sim_sources(settings, kernel_path)
    choice = choose_backend(request or settings.backend, probe, kernel, version, sims, source, options, names)
    if choice.arch and not choice.simulated and getattr(gpu, "arch", "") is None:
        gpu.arch = choice.arch  # a remembered probe's: the compile pool compiles for it
    return choice


def checked_choice(settings: Settings, gpu, kf: KernelFile, spec: Spec) -> BackendChoice:
    """The backend for a new session, and the kernel compile-checked for it. Once a GPU is picked,
    while nvcc still runs, the worker makes the inputs and opens the device for the first job."""
    from ..engine.precheck import checked_backend
    from .early import take_compile_check

    def pick() -> BackendChoice:
        version = version_ids(kf.source, spec)
        choice = pick_backend(
            settings,
            gpu,
            spec.kernel,
            version,
            kf.path,
            source=kf.source,
            options=spec.compiler_options,
            names=names_of(spec),
        )
        prepare = getattr(gpu, "prepare", None)  # a pool of Ray workers has none
        if prepare is not None and not choice.simulated and not choice.unmeasured:
            prepare(spec.to_dict(), choice.backend, kf.source)
        if not choice.simulated and not choice.unmeasured:
            from ..engine.strength import start_early  # here: as precheck

            start_early(gpu, kf.source, spec, choice.backend, settings.timeout_s)
        return choice

    quick = settings.backend in ("sim", "none")
    early = take_compile_check(kf.source, spec, kf.path)  # started by `kt-tui run` before the app loaded
    return checked_backend(pick, kf.source, spec, kf.path, quick_pick=quick, early=None if quick else early)


def new_session(store: Store, settings: Settings, kf: KernelFile, spec: Spec, choice: BackendChoice) -> str:
    vid = version_hash(kf.source, spec)
    sid = store.create_session(
        kernel_path=str(kf.path.resolve()),
        kernel_name=spec.kernel,
        strategy=settings.strategy,
        backend=choice.backend,
        backend_request=settings.backend,
        gpu=choice.gpu,
        simulated=int(choice.simulated),
        sim_cache=settings.sim_cache,
        note=choice.note,
        device=json.dumps(choice.facts) if choice.facts else None,
        settings=json.dumps({**settings.public(), "strategy_options": session_options(settings, settings.strategy)}),
    )
    store.add_version(sid, vid, kf.source, dump_spec(spec), spec.to_dict(), label="original")
    store.add_event(
        sid,
        "created",
        {"kernel": str(kf.path), "version": vid, "backend": choice.backend, "gpu": choice.gpu, "note": choice.note},
    )
    return sid


def resume_backend(
    store: Store, settings: Settings, gpu: Tuner, sid: str, read_only_here: bool = False
) -> BackendChoice:
    """The backend for a resumed session: what it used if that still works here, else what auto
    finds, else none (stored results can still be viewed; measuring fails with a clear message).
    A session prepared without a GPU (front/prepared.py) is not replayed unless sim is asked for by
    name: where no GPU is found it raises NeedsGpu, or with `read_only_here` (the app) it is opened
    read-only; where it can be measured, its runs an earlier replay failed run again."""
    from ..engine.backend import BackendChoice, BackendError

    s = SessionStore(store, sid).session()
    if s.get("sim_cache") and not settings.sim_cache:
        settings.sim_cache = s["sim_cache"]
    first = store.original(sid)
    try:  # recorded caches may carry the id the version had before restrictions counted
        original = [first["id"], *version_ids(first["source"], spec_from_plain(first["spec_json"]))]
    except (KeyError, TypeError, ValueError):
        original = [first["id"]]
    asked = settings.backend != "auto"  # asked for now (flag, env or config): it works or we refuse
    stored = s.get("backend_request")  # made with no GPU (none): here, whatever works
    request = settings.backend if asked else stored if stored and stored != "none" else "auto"
    path, source = Path(s["kernel_path"]), str(first.get("source") or "")
    fallback: dict[str, Any] | None = None
    try:
        choice = pick_backend(settings, gpu, s["kernel_name"], original, path, request, source)
    except BackendError as first:
        if asked:
            raise
        try:
            choice = pick_backend(settings, gpu, s["kernel_name"], original, path, "auto", source)
            choice.note = f"The session's backend {request} does not work here: {first} " + choice.note
        except BackendError:
            choice = BackendChoice("none", s.get("gpu") or "", note=f"Nothing can be measured here: {first}")
        fallback = {"from": request, "to": choice.backend, "note": choice.note}
    if not asked and (choice.simulated or choice.unmeasured) and prepared(store, sid):  # left as it is
        why = "no working GPU backend here"
        if not read_only_here:
            raise NeedsGpu(waits_here(sid, why))
        return BackendChoice("none", s.get("gpu") or "", note=waits_here(sid, why), read_only=True)
    if fallback is not None:
        store.add_event(sid, "backend_fallback", fallback)
    if not choice.unmeasured and replay_damaged(store, sid):
        again = f"{counted(repair_replay(store, sid), 'run')} that a replay failed for want of a recording run again."
        choice.note = f"{choice.note} {again}".strip()
    if choice.backend != s.get("backend"):
        store.update_session(
            sid, backend=choice.backend, gpu=choice.gpu, simulated=int(choice.simulated), note=choice.note
        )
    if choice.facts and not choice.unmeasured:  # the GPU (or recording) the numbers now come from
        store.update_session(sid, device=json.dumps(choice.facts))
    return choice


def session_options(settings: Settings, name: str, store: Store | None = None, sid: str | None = None) -> dict:
    """The options strategy `name` runs with (engine/registry.py strategy_options): the session's
    stored ones (resume), then the config file's, then the flags'."""
    stored = _stored_options(store, sid) if store is not None and sid is not None else {}
    return strategy_options(
        name,
        settings.table_for(name),
        defaults=settings.strategy_defaults,
        stored=stored,
        given=settings.strategy_flags,
        defaults_from=str(settings.config_path),
    )


def _stored_options(store: Store, sid: str) -> dict[str, Any]:
    """What a session was made with: its "strategy_options", or in a session of an older version the
    flat knobs among its settings. Each is checked again before use: the database is untrusted input."""
    row = store.session(sid) or {}
    try:
        stored = json.loads(row.get("settings") or "{}")
    except ValueError:
        return {}
    if not isinstance(stored, dict):
        return {}
    options = stored.get("strategy_options")
    if isinstance(options, dict):
        return options
    return {k: v for k, v in stored.items() if k in FLAT_STRATEGY_KEYS}


def stored_llm(store: Store, settings: Settings, sid: str) -> str:
    """On resume with no model given, the endpoint and model the session was made with (never a key:
    that comes from OPENAI_API_KEY now; its strategy options: session_options). A note on the LLM, or ""."""
    try:
        stored = json.loads(SessionStore(store, sid).session().get("settings") or "{}")
    except ValueError:
        return ""
    if settings.llm == "none" or settings.model or not isinstance(stored, dict):
        return ""
    if not stored.get("model"):
        return ""
    if not settings.base_url and MASK in (stored.get("base_url") or ""):
        return (
            f"The LLM this session was made with ({stored['model']} at {stored['base_url']}) is not called: "
            "the endpoint's credentials were not stored; pass --base-url and --model again."
        )
    settings.model = stored["model"]
    settings.base_url = settings.base_url or stored.get("base_url")
    return (
        f"Using the LLM this session was made with: {settings.model} at {settings.base_url or 'the default endpoint'} "
        f"(--model/--base-url choose another, --llm none goes without)."
    )


def open_new(settings: Settings, store: Store, kf: KernelFile, spec: Spec):
    """prepare(gpu) -> (sid, choice) for a new session: the backend is picked (and the kernel
    compile-checked for it) once the GPU worker runs; the session is stored and locked."""

    def prepare(gpu):
        choice = checked_choice(settings, gpu, kf, spec)
        sid = new_session(store, settings, kf, spec, choice)
        store.lock(sid)
        return sid, choice

    return prepare


def open_stored(settings: Settings, store: Store, sid: str):
    """prepare(gpu) -> (sid, choice) for a stored session: locked first, then its LLM and backend."""

    def prepare(gpu):
        store.lock(sid)  # SessionLocked: another process runs it; the screen says which
        try:
            session_options(settings, (store.session(sid) or {}).get("strategy", ""), store, sid)
        except UserError:  # a flag its strategy has no option for: the screen says so
            store.unlock(sid)
            raise
        note = stored_llm(store, settings, sid)
        try:
            choice = resume_backend(store, settings, gpu, sid, read_only_here=True)
        except UserError:
            store.unlock(sid)
            raise
        choice.note = " ".join(n for n in (choice.note, note) if n)
        return sid, choice

    return prepare
