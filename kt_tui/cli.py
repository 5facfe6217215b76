"""Command line. Imports stay lazy: `kt-tui --help` must not load Textual, numpy or kernel_tuner."""

from __future__ import annotations

import argparse
import ast
import atexit
import json
import os
import shlex
import sys
import traceback
from typing import NoReturn

from . import __version__
from .errors import UserError, explain
from .gpu.env import hide_this_process
from .gpu.protocol import SEARCHES
from .paths import data_dir, session_db
from .redact import for_terminal, scrub

# Imported where used: each command's own modules (front/, importer/, gpu/tuner.py) and the
# settings (config.py: pydantic), so that `--help` and every other command load only what they need,
# `kt-tui sessions` lists at once and `run` starts its GPU worker before the rest loads.

COMMANDS = ("open", "run", "sessions", "resume", "export", "import", "spec")
EXIT_USAGE = 2


def _common(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("common options")
    g.add_argument("--db", help="session database (default: KT_TUI_DB, else the user data dir)")
    g.add_argument(
        "--backend",
        choices=("auto", "pycuda", "nvcuda", "cupy", "sim", "none"),
        help="where numbers come from; sim replays a cache recorded on a real GPU; none measures nothing "
        "(no GPU here: every gate runs, the session waits to be resumed on a GPU) (default: auto)",
    )
    g.add_argument(
        "--sim-cache",
        dest="sim_cache",
        metavar="PATH",
        help="recorded kernel_tuner cachefile, or a folder of them looked up by kernel version",
    )
    g.add_argument("--spec", metavar="PATH", help="launch spec (default: KERNEL.cu.toml beside the kernel)")
    g.add_argument("--kernel", metavar="NAME", help="which __global__ kernel, when the file has several")
    g.add_argument(
        "--strategy",
        metavar="NAME",
        help="sweep (default), autonomous, explicit, one-prompt, config-search, or a plugin's name",
    )
    g.add_argument(
        "--steps",
        metavar="PATH",
        help="steps file (TOML) for the explicit strategy (default: the library shipped with kt-tui)",
    )
    g.add_argument("--base-url", dest="base_url", metavar="URL", help="OpenAI-compatible endpoint")
    g.add_argument("--model", metavar="NAME", help="LLM model name")
    g.add_argument("--llm", choices=("auto", "none"), help="none: manual mode, no LLM calls")
    g.add_argument(
        "--llm-timeout",
        dest="llm_timeout_s",
        type=_positive,
        metavar="SECONDS",
        help="total deadline of each LLM call attempt, the whole streamed reply included (default 120)",
    )
    g.add_argument("--theme", metavar="NAME", help="theme name (a file in themes/ or the user themes dir)")
    a = p.add_argument_group("autonomous strategy")
    a.add_argument(
        "--no-replanning",
        dest="with_replanning",
        action="store_const",
        const=False,
        help="do not ask for a new plan when the steps run out",
    )
    a.add_argument("--max-replanning", type=int, metavar="N", help="new plans at most (default 1)")
    a.add_argument(
        "--breakdown",
        dest="breakdown_steps",
        action="store_const",
        const=True,
        help="let the LLM break a step into smaller steps",
    )
    a.add_argument("--max-breakdowns", type=int, metavar="N", help="levels of breakdown (default 1)")
    a.add_argument(
        "--threshold", type=float, metavar="F", help="accept a kernel when at least this fraction faster (default 0.02)"
    )
    g.add_argument(
        "--timeout",
        dest="timeout_s",
        type=float,
        metavar="SECONDS",
        help="watchdog per configuration (compile + verify + benchmark); default: the spec's timeout_s",
    )
    r = p.add_argument_group("several GPUs (needs kt-tui[ray])")
    r.add_argument("--gpus", metavar="N|all", help="measure on N GPUs of this host (or of the --ray cluster) at once")
    r.add_argument(
        "--ray", dest="ray_address", metavar="ADDRESS", help="measure on a running Ray cluster (or RAY_ADDRESS)"
    )
    r.add_argument(
        "--allow-mixed",
        dest="allow_mixed",
        action="store_const",
        const=True,
        help="tune on workers of different GPU models, recording the device of every result",
    )
    p.add_argument(
        "--allow-survivors",
        dest="allow_survivors",
        action="store_const",
        const=True,
        help="let --auto accept generated kernels although wrong variants of the kernel pass the check, "
        "too few of them ran, or none measured it (NOT MEASURED)",
    )
    t = p.add_argument_group("search (every tuning run)")
    t.add_argument(
        "--search",
        choices=SEARCHES,
        metavar="NAME",
        help="how to walk the space: kt (ours, default), "
        "brute_force, or a kernel_tuner strategy: " + ", ".join(SEARCHES[2:]),
    )
    t.add_argument(
        "--search-option",
        dest="search_option",
        action="append",
        metavar="KEY=VALUE",
        help="an option for the search strategy (repeatable), e.g. popsize=10",
    )
    t.add_argument("--max-configs", dest="max_configs", type=int, metavar="N", help="budget: configurations per run")
    t.add_argument("--time-limit", dest="time_limit_s", type=float, metavar="SECONDS", help="budget: seconds per run")
    t.add_argument(
        "--no-seeds",
        dest="seeds",
        action="store_const",
        const=False,
        help="do not evaluate the heuristic seed configurations first",
    )
    c = p.add_argument_group("config-search strategy")
    c.add_argument("--rounds", type=int, metavar="N", help="LLM rounds at most (default 6)")
    c.add_argument(
        "--batch-size", dest="batch_size", type=int, metavar="N", help="configurations per round (default 8)"
    )
    c.add_argument(
        "--hybrid", metavar="SEARCH", help="after the LLM's first batch, go on with this search seeded by it"
    )


class _Parser(argparse.ArgumentParser):
    """argparse's, with a usage error said in one line (its usage block is what --help is for)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (`{self.prog} --help` lists the options)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="kt-tui",
        description="Tune CUDA kernels with kernel_tuner, an LLM and you, in the terminal.",
        epilog="Open a kernel: kt-tui KERNEL.cu   (same as: kt-tui open KERNEL.cu)",
    )
    parser.add_argument("--version", action="version", version=f"kt-tui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p = sub.add_parser("open", help="open a new session on a kernel in the terminal UI")
    p.add_argument("kernel_path", metavar="KERNEL.cu")
    _common(p)
    p = sub.add_parser("run", help="run a whole session without a screen")
    p.add_argument("kernel_path", metavar="KERNEL.cu")
    p.add_argument("--auto", action="store_true", required=True, help="decide every gate by policy")
    p.add_argument("--json", action="store_true", help="print one JSON object with the outcome, last")
    p.add_argument("--allow-flagged", action="store_true", help="let flagged generated code run")
    _common(p)
    p = sub.add_parser("sessions", help="browse saved sessions (a table when not in a terminal)")
    p.add_argument("--json", action="store_true", help="print them as JSON")
    p.add_argument("--db")
    p = sub.add_parser("export", help="write a session's best kernel, spec, kernel_tuner script, caches and report")
    p.add_argument("session", nargs="?", metavar="ID", help="which session (default: the latest)")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write into (made when missing)")
    p.add_argument("--json", action="store_true", help="print the written files and the best as JSON")
    p.add_argument("--force", action="store_true", help="overwrite files the export would write that exist")
    p.add_argument("--db")
    p = sub.add_parser("resume", help="reopen a session where it stopped (latest when no ID)")
    p.add_argument("session", nargs="?", metavar="ID")
    p.add_argument("--auto", action="store_true", help="continue without a screen, gates decided by policy")
    p.add_argument("--json", action="store_true")
    _common(p)
    p = sub.add_parser("import", help="turn a kernel_tuner script's tune_kernel calls into kernels + specs")
    p.add_argument("script", metavar="SCRIPT.py")
    p.add_argument("--out", metavar="DIR", help="where to write them (default: SCRIPT_kt/ beside the script)")
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="stop the script after this long (default 300)")
    p.add_argument("--force", action="store_true", help="overwrite files the import would write that exist")
    p = sub.add_parser("spec", help="draft a launch spec for a kernel, or check one (--check)")
    p.add_argument("kernel_path", metavar="KERNEL.cu")
    p.add_argument(
        "--check",
        action="store_true",
        help="validate the spec and compile the kernel; with a GPU, run "
        "the original under compute-sanitizer at every size and test that its check can fail",
    )
    p.add_argument(
        "--backend",
        choices=("auto", "pycuda", "nvcuda", "cupy", "sim"),
        help="with --check: the GPU backend that runs the original (sim: none)",
    )
    p.add_argument("--print", action="store_true", help="print the draft instead of writing KERNEL.cu.toml")
    p.add_argument("--spec", metavar="PATH", help="launch spec (default: KERNEL.cu.toml beside the kernel)")
    p.add_argument("--kernel", metavar="NAME", help="which __global__ kernel, when the file has several")
    p.add_argument(
        "--llm",
        action="store_true",
        help="draft with the LLM (checked, shown as changes to the "
        "heuristic draft: approve, edit or skip; never overwrites)",
    )
    p.add_argument("--approve", action="store_true", help="with --llm: write the LLM's draft without asking")
    p.add_argument("--model", metavar="NAME", help="LLM model name")
    p.add_argument("--base-url", dest="base_url", metavar="URL", help="OpenAI-compatible endpoint")
    return parser


def parse(argv: list[str]) -> argparse.Namespace:
    if argv and argv[0] not in COMMANDS and argv[0] not in ("-h", "--help", "--version"):
        _command_first(argv)
        argv = ["open", *argv]
    args = build_parser().parse_args(argv)
    if not args.command and _interactive():
        args.command, args.json = "sessions", False
    if not args.command:
        build_parser().print_help()
        raise SystemExit(EXIT_USAGE)
    return args


def _command_first(argv: list[str]) -> None:
    """Options before a command (`kt-tui --db s.db sessions`) would open a kernel file named like the
    command: one line saying the order instead, exit 2."""
    if not argv[0].startswith("-"):
        return
    word = next((a for a in argv[1:] if a in COMMANDS and not os.path.isfile(a)), None)
    if word is not None:
        rest = [a for a in argv if a is not word]
        print(
            f"kt-tui: the command comes first, its options after it: kt-tui {word} {shlex.join(rest)}", file=sys.stderr
        )
        raise SystemExit(EXIT_USAGE)


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def _flags(args: argparse.Namespace) -> dict:
    """The settings the command line gives: every Settings field, or option of a strategy that
    load_settings sorts out, that has a flag of the same dest."""
    from .config import FLAT_STRATEGY_KEYS, NOT_IN_FILE, setting_fields

    names = [*setting_fields(), *FLAT_STRATEGY_KEYS]
    flags = {k: getattr(args, k, None) for k in names if k not in (*NOT_IN_FILE, "keys", "search_options")}
    if getattr(args, "search_option", None):
        flags["search_options"] = dict(_option(o) for o in args.search_option)
    return flags


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, got {text!r}")
    return value


def _option(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise UserError(f"--search-option {text!r}: expected KEY=VALUE")
    try:
        return key.strip(), ast.literal_eval(value.strip())
    except (ValueError, SyntaxError):
        return key.strip(), value.strip()


def entry() -> int:
    """The `kt-tui` command and `python -m kt_tui`: main(), then a quick end (_end_now)."""
    code: list[int] = []
    atexit.register(_end_now, code)  # registered before main() runs: called after its handlers
    code.append(main())
    return code[0]


def _end_now(code: list[int]) -> None:
    """Once main() returned and the other at-exit handlers ran (child processes joined, session
    locks released): the SQLite connections are closed (the last one folds the write-ahead log
    into the database file), output is flushed, and the process ends without Python's teardown of
    every module it loaded (a tenth of a second at each exit)."""
    if not code:
        return  # main() raised: Python reports it and ends as usual
    if "sqlite3" in sys.modules:
        import gc
        import sqlite3

        for obj in gc.get_objects():
            if isinstance(obj, sqlite3.Connection):
                try:
                    obj.close()
                except sqlite3.Error:
                    return  # another thread's: Python's own teardown closes it
    if "logging" in sys.modules:
        sys.modules["logging"].shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code[0])


def main(argv: list[str] | None = None) -> int:
    hide_this_process()  # user code in any child cannot read this process's environment (the API key)
    args = parse(sys.argv[1:] if argv is None else argv)

    try:
        return _dispatch(args)
    except UserError as e:
        return _user_error(args, e)
    except KeyboardInterrupt:
        print("kt-tui: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`kt-tui ... | head`): no message, as other tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's own flush at exit must not fail again
        return 141
    except Exception as e:  # noqa: BLE001 - last line of defence: a message and a log, no traceback
        problem = _db_problem(args, e)
        if problem is not None:
            return _user_error(args, problem)
        log = _log_crash()
        store = sys.modules.get("kt_tui.store.db")  # a session is saved only where one was made or opened
        made = store.SESSIONS_HERE if store is not None else []
        saved = f"session {made[-1]} is saved; " if made and args.command in ("run", "resume", "open") else ""
        said = for_terminal(scrub(f"{type(e).__name__}: {e}"))
        print(f"kt-tui: internal error: {said}\n({saved}details in {log})", file=sys.stderr)
        return 1


def _user_error(args: argparse.Namespace, e: UserError) -> int:
    message = scrub(explain(e))
    if getattr(args, "json", False):
        print(json.dumps({"session": getattr(e, "session", None), "state": "error", "error": message}))
    print(f"kt-tui: {for_terminal(message)}", file=sys.stderr)
    return getattr(e, "exit_code", EXIT_USAGE)


def _db_problem(args: argparse.Namespace, e: Exception) -> UserError | None:
    """A full disk, a read-only or locked database, met where no command caught it (store/problems.py)."""
    if "sqlite3" not in sys.modules:
        return None
    from .store.problems import db_problem  # here: only once a database was opened

    try:
        path = str(session_db(getattr(args, "db", None)))
    except Exception:  # noqa: BLE001 - a config file that cannot be read: the message names no file
        path = "(see --db)"
    return db_problem(e, path)


def _log_crash() -> str:
    path = data_dir() / "logs" / "kt-tui.log"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as f:
            f.write(scrub(traceback.format_exc()))
    except OSError:
        traceback.print_exc()
        return "the traceback above"
    return str(path)


def _flag_names() -> dict[str, str]:
    """setting -> the flag that sets it (its longest spelling), for messages."""
    names: dict[str, str] = {}
    commands = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    for sub in commands[0].choices.values():
        for action in sub._actions:
            if action.option_strings:
                names.setdefault(action.dest, max(action.option_strings, key=len))
    names["search_options"] = names.get("search_option", "--search-option")
    return names


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "import":
        from .importer.run import import_command

        return import_command(args)
    if args.command == "spec":
        from .front.spec_cmd import spec_command

        return spec_command(args)

    if args.command == "sessions" and (args.json or not _interactive()):
        from .front.listing import list_sessions  # here: listing loads no engine and no settings

        return list_sessions(session_db(args.db), args.json)
    gpu, said = None, False
    if args.command in ("run", "resume", "open"):
        from .gpu.protocol import sim_pace  # light: the worker reads it too

        sim_pace()
    if args.command == "run":
        from .front.early import early_worker
        from .store.db import refuse_read_only  # light, and loaded for the run anyway

        refuse_read_only(session_db(args.db))  # before a worker starts for a run that cannot be stored
        gpu = early_worker(args)
    elif args.command == "resume" and args.auto and (args.db or os.environ.get("KT_TUI_DB")):
        said = _where_it_stands(args.db or os.environ["KT_TUI_DB"], args.session)  # the settings are not needed
    try:
        return _with_settings(args, gpu, said)
    except BaseException:
        if gpu is not None:
            gpu.close()
        raise


def _where_it_stands(db: str, sid: str | None) -> bool:
    """`resume --auto`'s first line, before the engine loads and the GPU worker starts."""
    from .front.early import resume_line

    line = resume_line(db, sid)
    if line:
        print(for_terminal(line), file=sys.stderr, flush=True)
    return line is not None


def _with_settings(args: argparse.Namespace, gpu, said: bool) -> int:
    from .config import load_settings  # here: pydantic loads for the commands that need settings

    settings = load_settings(_flags(args), flag_names=_flag_names())
    if args.command == "sessions":
        from .front.commands import browse_sessions  # Textual and the engine load only for the browser

        return browse_sessions(settings)
    if args.command == "export":
        from .front.commands import export_results

        return export_results(settings, args)
    from .gpu.scale import check_settings, wanted  # not gpu.tuner: it loads more before the first frame

    check_settings(settings)
    from .llm.errors import check_model  # nothing heavy: the client loads with the first call

    check_model(settings.model)
    if gpu is not None and wanted(settings):  # the config file asks for several GPUs: a pool instead
        gpu.close()
        gpu = None
    if args.command == "run":
        from .front.commands import run_auto

        return run_auto(settings, args, gpu)
    if args.command == "resume" and args.auto:
        if not said:
            _where_it_stands(settings.db, args.session)
        from .front.commands import resume_auto

        return resume_auto(settings, args)
    from .front.commands import open_tui

    return open_tui(settings, args)
