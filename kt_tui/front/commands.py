"""What each command does: the glue between the command line, the store, the GPU worker and the engine.
Textual (ui.app) and openai (llm.client) are imported where they are used: `kt-tui run --auto`
starts without the one, manual mode without the other."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from ..gpu.timeline import mark
from ..redact import for_terminal
from ..ui.services import Services
from ..words import counted
from .listing import open_store

if TYPE_CHECKING:
    from ..config import Settings

# Imported where used: the engine's, the GPU pool's and the session openers' modules, so that the
# TUI's first frame (tui_app) waits for none of them and `kt-tui run --auto` for no Textual; each
# function imports what it runs.


class SessionNotFound(UserError):
    pass


def find_session(store, sid: str | None) -> dict:
    s = store.session(sid) if sid else store.latest_session()
    if s is None:
        raise SessionNotFound(f"no session {sid!r} in {store.path}" if sid else f"no sessions yet in {store.path}")
    return s


def make_worker(settings: Settings, start: bool = False):
    from ..gpu import scale
    from .early import local_worker

    if scale.wanted(settings):
        from ..gpu.tuner import Tuner

        logs = settings.data_dir / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        pool = Tuner(
            gpus=scale.parse_gpus(settings.gpus),
            address=settings.ray_address,
            allow_mixed=settings.allow_mixed,
            via="ray" if settings.ray_address else "local",
            log_path=str(logs / "gpu-worker.log"),
        )
        pool.start_early()  # Ray and the workers start while the session loads and probes
        return pool
    return local_worker(settings, start)


def open_new(*args):
    """front/session.py's open_new, its modules loaded on the engine thread (prepare runs there)."""

    def prepare(gpu):
        from .session import open_new

        return open_new(*args)(gpu)

    return prepare


def open_stored(*args):
    """front/session.py's open_stored, as open_new."""

    def prepare(gpu):
        from .session import open_stored

        return open_stored(*args)(gpu)

    return prepare


def make_policy(*args):
    from .headless import make_policy

    return make_policy(*args)


def tui_services() -> Services:
    """What the terminal UI calls on this layer (it never imports front/): each loads its modules
    when first called, after the first frame."""
    return Services(
        open_new=open_new,
        open_stored=open_stored,
        make_worker=make_worker,
        make_engine=make_engine,
        llm_factory=llm_factory,
        make_policy=make_policy,
    )


def tui_app(settings: Settings, store, **target):
    """The Textual app, given what it needs from here; target: kernel_file, spec_path, kernel_name,
    resume (a session id) or browse."""
    on = gc.isenabled()
    # off until the first frame (KtApp.first_frame_drawn turns it back on): the imports and the first
    # screen make no garbage, collections would only walk them
    gc.disable()
    try:
        from ..ui.app import KtApp

        gc.freeze()  # nor any later collection (KtApp.on_unmount unfreezes)
        return KtApp(settings, store, tui_services(), collect=on, **target)
    except BaseException:
        if on:
            gc.enable()
        raise


def browse_sessions(settings: Settings) -> int:
    store = open_store(settings)
    app = tui_app(settings, store, browse=True)
    app.run()
    return app.return_code or 0


def export_results(settings: Settings, args: argparse.Namespace) -> int:
    from ..export import export_session

    store = open_store(settings)
    sid = find_session(store, args.session)["id"]
    holder = store.lock_holder(sid)
    if holder:  # read as it stands: every row is committed when written
        print(
            f"kt-tui: note: session {sid} is running in process {holder.get('pid')} (since {holder.get('since')}): "
            "exported what is stored now",
            file=sys.stderr,
        )
    out = export_session(store, sid, args.out, force=args.force)
    if args.json:
        print(json.dumps(out, indent=2))
    elif out["best"] is None:  # prepared without a GPU: its kernels, specs and report (export/unmeasured.py)
        print(for_terminal(f"session {sid}: not measured; wrote what it has. {out['note']}"))
        print("\n".join(f"  {f}" for f in out["files"]))
    else:
        best = out["best"]
        speed = f", {best['speedup']:.2f}x over the original" if best["speedup"] else ""
        print(f"session {sid}: best {best['time_ms']:.4f} ms with {best['params']}{speed}")
        print("\n".join(f"  {f}" for f in out["files"]))
    for why in out["not_written"]:
        print(f"kt-tui: note: not written: {why}", file=sys.stderr)
    return 0


def _finish(store, sid: str, state: str, as_json: bool) -> int:
    from ..engine.summary import session_summary
    from ..engine.verdict import UNMEASURED, waits_for_gpu

    summary = session_summary(store, sid)
    if as_json:
        print(json.dumps(summary, indent=2))
    else:
        best = summary["best"]
        line = f"session {sid}: {state} on {summary['gpu'] or 'no GPU'} ({summary['backend']}), {counted(summary['results'], 'result')}"
        if best:
            line += f"; best {best['time_ms']:.4f} ms with {best['params']}"
            if summary["speedup"]:
                line += f", {summary['speedup']:.2f}x over the baseline"
        print(for_terminal(line))
        if summary.get("unverified"):
            print(for_terminal(summary["unverified"]))
        if summary.get("expected"):
            print(for_terminal(summary["expected"]))
        if summary["error"]:
            print(for_terminal(f"error: {summary['error']}"), file=sys.stderr)
        if state == UNMEASURED:
            print(waits_for_gpu(sid))
    mark("main: summary printed")
    return 0 if state in ("finished", UNMEASURED) and not summary["error"] else 1


def llm_factory(settings: Settings):
    """make_llm(on_call) for the engine, or None in manual mode: --llm none, or no model configured."""
    if settings.llm == "none" or not settings.model:
        return None

    def make(on_call):
        from ..llm.client import LlmClient

        return LlmClient.from_settings(settings, on_call=on_call)

    return make


def make_engine(store, settings: Settings, sid: str, gpu, choice, decide, on_event):
    from ..engine.core import Engine
    from .session import session_options

    options = session_options(settings, store.session(sid)["strategy"], store, sid)
    return Engine(
        store,
        sid,
        gpu,
        choice,
        decide,
        on_event,
        cache_dir=settings.data_dir / "caches",
        timeout_s=settings.timeout_s,
        make_llm=llm_factory(settings),
        options=options,
        allow_survivors=settings.allow_survivors,
    )


def _run(store, settings: Settings, sid: str, gpu, choice, as_json: bool, allow_flagged: bool = False) -> int:
    from ..engine.strength import CheckRefused
    from ..store.problems import db_problem
    from .headless import EXIT_CODES, make_policy, progress_printer, run_headless

    if choice.note:
        print(for_terminal(choice.note), file=sys.stderr)
    from ..engine.verdict import waits_for_gpu

    # the summary's last line says how an unmeasured session goes on: its note is not said twice
    said_last = None if as_json else waits_for_gpu(sid)
    engine = make_engine(
        store, settings, sid, gpu, choice, make_policy(allow_flagged), progress_printer(said_last=said_last)
    )
    refused = None
    try:
        state = run_headless(engine, store.session(sid)["strategy"])
    except CheckRefused as e:  # the spec cannot be checked as it stands: the summary, then exit 2
        state, refused = "failed", e
    except sqlite3.Error as e:
        problem = db_problem(e, store.path, sid)
        if problem is None:
            raise
        raise problem from e
    finally:
        mark("main: session ended")
        gpu.close()
        store.unlock(sid)
    mark("main: worker closed")
    code = _finish(store, sid, state, as_json)
    if refused:
        print(f"kt-tui: {refused}", file=sys.stderr)
    if engine.interrupted:  # stopped by a signal: never 0, as a shell reports a process it ended
        return EXIT_CODES.get(engine.interrupted, 130)
    return 2 if refused else code


def run_auto(settings: Settings, args: argparse.Namespace, gpu=None) -> int:
    """gpu: a worker cli.py started before importing this module (front/early.py), or None."""
    from ..engine.registry import check_strategy
    from .session import checked_choice, load_kernel_spec, new_session, read_kernel_file, session_options

    mark("main: imports done")
    # the worker starts first: it imports kernel_tuner while this process reads the kernel and the spec
    if gpu is None:
        gpu = make_worker(settings, start=True)
    try:
        check_strategy(settings.strategy, session_options(settings, settings.strategy))
        kf = read_kernel_file(args.kernel_path)
        kernel, spec = load_kernel_spec(kf, args.spec, args.kernel)
        store = open_store(settings)
        choice = checked_choice(settings, gpu, kf, spec)
        mark("main: backend chosen")
        if (wait_connected := getattr(gpu, "wait_connected", None)) is not None:  # several GPUs (gpu/tuner.py)
            wait_connected()  # joined meanwhile; a cluster not there is said before a session is made
    except BaseException:
        gpu.close()
        raise
    sid = new_session(store, settings, kf, spec, choice)
    store.lock(sid)
    return _run(store, settings, sid, gpu, choice, args.json, args.allow_flagged)


def resume_auto(settings: Settings, args: argparse.Namespace) -> int:
    """A finished session runs nothing: no GPU worker, and no backend is probed unless asked for.
    (cli.py has printed where the session stands: front/early.py resume_line.)"""
    from ..engine.backend import BackendChoice
    from .session import replay_damaged, resume_backend, session_options, stored_llm

    store = open_store(settings)
    s = find_session(store, args.session)
    try:
        store.lock(s["id"])  # before anything runs: a second process on this session stops here
    except UserError as e:
        e.session = s["id"]  # --json names the session it could not resume
        raise
    try:
        session_options(settings, s["strategy"], store, s["id"])  # a flag its strategy has no option for
    except UserError as e:
        store.unlock(s["id"])
        e.session = s["id"]
        raise
    finished = s["state"] == "finished" and not replay_damaged(store, s["id"])
    note = stored_llm(store, settings, s["id"])
    if note:
        print(for_terminal(note), file=sys.stderr)
    gpu = make_worker(settings, start=not finished)
    try:
        if finished and settings.backend == "auto":
            choice = BackendChoice(s["backend"], s["gpu"] or "")
        else:
            choice = resume_backend(store, settings, gpu, s["id"])
    except UserError as e:
        gpu.close()
        store.unlock(s["id"])
        e.session = s["id"]
        raise
    return _run(store, settings, s["id"], gpu, choice, args.json, getattr(args, "allow_flagged", False))


def _imported_kernel(script: str) -> str:
    """`kt-tui SCRIPT.py`: import the kernel_tuner script, then open its first kernel."""
    from ..importer.run import ImportFailed, import_script

    done, problems, notes = import_script(script)
    for line in [*notes, *problems]:
        print(for_terminal(f"kt-tui: import: {line}"), file=sys.stderr)
    if not done:
        raise ImportFailed(f"{script}: no kernel could be imported")
    return str(done[0].kernel_path)


def _options_given(settings: Settings, name: str) -> bool:
    """Whether the options a session of strategy `name` runs with could be refused now: flags, the
    config file's [strategy.NAME] table or its flat keys give some. With none, checking them before
    the app loads (it imports the strategy, its search and numpy) could not fail: the session opener
    checks them again on the engine thread, after the first frame, and the screen says what it finds."""
    return bool(settings.strategy_flags or settings.table_for(name) or settings.strategy_defaults)


def open_tui(settings: Settings, args: argparse.Namespace) -> int:
    if args.command == "resume":
        store = open_store(settings)
        s = find_session(store, args.session)
        store.check_writable()
        if _options_given(settings, s["strategy"]):
            from .session import session_options

            session_options(settings, s["strategy"], store, s["id"])  # a flag its strategy has no option for
        target = {"resume": s["id"]}
    else:
        from ..files import SPEC_MAX, check_regular
        from ..kernel.spec import spec_path_for
        from .kernelfile import read_kernel_file

        if "strategy" in settings.model_fields_set or _options_given(settings, settings.strategy):
            from ..engine.registry import check_strategy
            from .session import session_options

            check_strategy(settings.strategy, session_options(settings, settings.strategy))
        if str(args.kernel_path).endswith(".py"):
            args.kernel_path = _imported_kernel(args.kernel_path)
        kf = read_kernel_file(args.kernel_path)  # unreadable files and files with no kernel fail here
        spec = Path(args.spec) if args.spec else spec_path_for(kf.path)
        if os.path.lexists(spec):  # a folder, FIFO, device or dangling link never reaches the spec editor
            check_regular(spec, "spec", SPEC_MAX)
        target = {"kernel_file": kf, "spec_path": args.spec, "kernel_name": args.kernel}
        store = open_store(settings)
        store.check_writable()
    check_terminal("resume" if "resume" in target else "run")
    app = tui_app(settings, store, **target)
    app.run()
    return app.return_code or 0


def check_terminal(headless: str) -> None:
    """The app draws on a terminal and reads its keys: with stdin or stdout a pipe or a file it would
    write escape sequences into it and wait for keys that never come. `headless`: the command that
    runs without one."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        instead = "kt-tui resume [ID] --auto" if headless == "resume" else "kt-tui run KERNEL.cu --auto"
        raise UserError(
            f"the terminal UI needs a terminal (stdin and stdout are not one here): `{instead}` runs without one"
        )
