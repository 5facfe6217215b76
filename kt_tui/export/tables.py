"""Every result as data: results.csv, a kernel_tuner cachefile per version tuned and kernel_tuner's
T4 results file of the best version, written in one pass over the stored rows, a row at a time
(no list of results is held; nothing is encoded as one object)."""

from __future__ import annotations

import csv
import io
import json
from array import array
from contextlib import ExitStack
from itertools import islice
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from ..engine.limits import per_ms, stored_facts, work_of
from ..files import open_output
from ..records import Run
from ..redact import for_terminal
from .bundle import Bundle, ExportError, spec_of

CSV = "results.csv"
COLUMNS: tuple[str, ...] = ("version", "key", "run", "params", "time_ms", "times", "status", "error", "verified")
COLUMNS += ("max_abs_err", "compile_ms", "created")
FAILED = {"compile_error": "CompilationFailedConfig", "invalid": "InvalidConfig"}  # else RuntimeFailedConfig
TIMINGS = ("compile_time", "benchmark_time", "framework_time", "strategy_time", "verification_time")
TAIL = ["compile_ms", "created", "error"]
RATES = ["gb_per_s", "gflop_per_s", "pct_of_peak"]  # engine/limits.py: of the measured peak nearest
NAN = float("nan")
QUOTED = frozenset("=+@\t\r-")  # a cell starting so may be quoted (_cell)


def planned(b: Bundle, out: Path, tuned: list[dict] | None = None) -> list[Path]:
    """results.csv, then the cachefile of each version in `tuned` (those with results), then the T4 file."""
    folder = out / "cache"
    return [
        out / CSV,
        *(folder / f"{b.stem}-{v['id']}.json" for v in (b.tuned() if tuned is None else tuned)),
        folder / f"{b.stem}-{b.best.version}.t4.json",
    ]


def write_tables(b: Bundle, out: Path, points: Points | None = None) -> list[Path]:
    """A version's cachefile is copied when kernel_tuner's own is on disk, else written from the rows.
    points: also gathers what the plot draws of each row (the same pass: the rows are read once)."""
    folder = out / "cache"
    folder.mkdir(exist_ok=True)
    names = param_names(b)
    tuned = b.tuned()
    paths = planned(b, out, tuned)
    with ExitStack() as stack:
        table = csv.writer(_Plain(stack.enter_context(_text(_output(out / CSV)))), lineterminator="\n")
        table.writerow(["version", "key", "run", *names, "time_ms", "status", "verified", "max_abs_err"] + TAIL + RATES)
        caches: dict[str, CacheFile | None] = {}
        runs = b.data.runs()
        for v, path in zip(tuned, paths[1:-1]):
            src = _on_disk(runs, v["id"])
            if src is None:
                caches[v["id"]] = stack.enter_context(CacheFile(path, _cache_header(b, v)))
            else:
                _copy(src, path)
                caches[v["id"]] = None
        t4 = stack.enter_context(T4File(paths[-1], b.spec.tune_params))
        facts = stored_facts(b.session)
        pages = Pages(names, caches, b.best.version, t4, {v["id"]: per_ms(work_of(spec_of(v)), facts) for v in tuned})
        rows = b.data.result_columns(COLUMNS)
        while page := list(islice(rows, PAGE)):
            table.writerows(pages.write(page))
            if points is not None:
                points.add(page)
    return paths


PAGE = 20  # rows encoded and written at once (a small page's objects stay in the CPU's cache)


class Pages:
    """Each page of rows as CSV rows, cache entries and T4 results: an entry is encoded by orjson from
    one dict made as a literal; T4 results whose parameters are all tunable are made without a copy."""

    def __init__(
        self,
        names: list[str],
        caches: dict[str, CacheFile | None],
        best: str | None,
        t4: T4File,
        rates: dict[str, dict[str, float]] | None = None,
    ):
        self.names, self.caches, self.best, self.t4 = names, caches, best, t4
        self.rates = rates or {}  # version -> engine/limits.py per_ms
        self.tunable = t4.tune_params.keys()
        # a tunable parameter named as a timing would be overwritten by it: those go the long way
        self.plain = not (self.tunable & {"time", *TIMINGS, "timestamp", "times"})

    def write(self, page: list[tuple[Any, ...]]) -> list[list[Any]]:
        names, caches, best, tunable, plain = self.names, self.caches, self.best, self.tunable, self.plain
        table: list[list[Any]] = []
        lines: dict[str, list[bytes]] = {}
        results: list[dict[str, Any]] = []
        for vid, key, run, params_text, time_ms, times_text, status, error, verified, err, compile_ms, created in page:
            try:
                params = orjson.loads(params_text)
            except orjson.JSONDecodeError:
                params = None
            if type(params) is not dict:
                params = _params(params_text, vid, key)  # NaN, which the stdlib writes, or refused
            cells = list(map(params.get, names))
            if str in map(type, cells):
                cells = [_cell(c) for c in cells]
            table.append(
                [
                    vid,
                    key if type(key) is str and key[:1] not in QUOTED else _cell(key),
                    run,
                    *cells,
                    time_ms,
                    status,
                    verified,
                    err,
                    compile_ms,
                    created,
                    error and _cell(error),
                    *_rates(self.rates.get(vid), time_ms if status == "ok" else None),
                ]
            )
            cache = caches.get(vid)
            ok = status == "ok" and time_ms is not None
            if cache is None and not (ok and vid == best):
                continue
            try:
                times = orjson.loads(times_text) if times_text else []
            except orjson.JSONDecodeError:
                times = _stdlib_loads(times_text)
            if type(times) is not list:
                times = []
            entry = kt_result(
                params, time_ms if ok else FAILED.get(status, "RuntimeFailedConfig"), times, compile_ms, created
            )
            if cache is not None:
                try:
                    encoded = orjson.dumps({key: entry})
                except TypeError:  # an integer past 64 bits
                    encoded = json.dumps({key: entry}).encode()
                lines.setdefault(vid, []).append(encoded[1:-1])
            if ok and vid == best:
                if plain and params.keys() <= tunable:
                    results.append(_t4_plain(params, time_ms, times, compile_ms, created))
                else:
                    results.append(t4_result(entry, self.t4.tune_params, self.t4.skip))
        for vid, entries in lines.items():
            cache = caches[vid]
            assert cache is not None
            cache.add_encoded(entries)
        self.t4.add_many(results)
        return table


def _rates(k: dict[str, float] | None, time_ms: Any) -> list[float | None]:
    """GB/s, GFLOP/s and % of the nearest measured peak of one row (None where unknown)."""
    if not k or not time_ms or time_ms <= 0:
        return [None, None, None]
    shares = [k[p] / time_ms for p in ("pct_bw", "pct_fp32") if p in k]
    return [
        round(k["gbps"] / time_ms, 3) if "gbps" in k else None,
        round(k["gflops"] / time_ms, 3) if "gflops" in k else None,
        round(max(shares), 2) if shares else None,
    ]


def _t4_plain(params: dict, time_ms: Any, times: list, compile_ms: Any, created: Any) -> dict[str, Any]:
    """t4_result of a result whose parameters are all tunable: the one measurement is its time."""
    return {
        "timestamp": created,
        "configuration": params,
        "times": {
            "compilation": compile_ms or 0,
            "benchmark": 0,
            "framework": 0,
            "search_algorithm": 0,
            "validation": 0,
            "runtimes": times,
        },
        "invalidity": "correct",
        "correctness": 1,
        "measurements": [{"name": "time", "value": time_ms, "unit": "ms"}],
        "objectives": ["time"],
    }


class Points:
    """What the plot draws of each row, in the order stored: the index of its version (-1: none known)
    and its trusted time (NaN when not trusted: records.trusted, as the store's plot_pages says it)."""

    def __init__(self, reference: tuple[str, str], versions: list[str]):
        self.reference = reference
        self.index = {v: i for i, v in enumerate(versions)}
        self.series = array("q")
        self.times = array("d")

    def add(self, page: list[tuple[Any, ...]]) -> None:
        rv, rk = self.reference
        self.series.extend([self.index.get(r[0], -1) for r in page])
        self.times.extend(
            [
                r[4]
                if r[6] == "ok" and r[4] is not None and (r[8] == 1 or (r[8] is None and r[0] == rv and r[1] == rk))
                else NAN
                for r in page
            ]
        )


def param_names(b: Bundle) -> list[str]:
    """The tunable parameters of every version, in the order first seen: the CSV's columns."""
    names: dict[str, None] = {}
    for v in b.versions:
        names.update(dict.fromkeys(spec_of(v).tune_params))
    return list(names)


def kt_result(params: dict, time_ms: Any, times: list, compile_ms: Any, created: Any) -> dict:
    """One result as kernel_tuner's tune_kernel returns it."""
    return {
        **params,
        "time": time_ms,
        "times": times,
        "compile_time": compile_ms or 0,
        "benchmark_time": 0,
        "framework_time": 0,
        "strategy_time": 0,
        "verification_time": 0,
        "timestamp": created,
    }


def t4_result(result: dict, tune_params: dict, skip: set | None = None) -> dict:
    """One result as kernel_tuner's T4 results file holds a valid one (file_utils.get_t4_results);
    skip: what is not a measurement (made once by a caller of many)."""
    skip = skip or {*tune_params, *TIMINGS, "timestamp", "times"}
    out: dict[str, Any] = {} if "timestamp" not in result else {"timestamp": result["timestamp"]}
    out["configuration"] = {k: v for k, v in result.items() if k in tune_params}
    if result.keys() - skip == {"time"}:  # the usual one: a single measurement
        measurements = [{"name": "time", "value": result["time"], "unit": "ms"}]
    else:
        measurements = [
            {"name": k, "value": v, "unit": "ms" if k.startswith("time") else ""}
            for k, v in result.items()
            if k not in skip
        ]
    out["times"] = {
        "compilation": result["compile_time"],
        "benchmark": result["benchmark_time"],
        "framework": result["framework_time"],
        "search_algorithm": result["strategy_time"],
        "validation": result["verification_time"],
        "runtimes": result.get("times", []),
    }
    out["invalidity"] = "correct"
    out["correctness"] = 1
    out["measurements"] = measurements
    out["objectives"] = ["time"]
    return out


def dumps(value: Any) -> bytes:
    """JSON bytes; orjson, or the stdlib where orjson refuses (an integer past 64 bits)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value).encode()


class CacheFile:
    """A kernel_tuner cachefile as kernel_tuner writes one: the header, then one entry a line."""

    def __init__(self, path: Path, header: dict):
        self.path, self.header, self.first = path, header, True

    def __enter__(self) -> CacheFile:
        self.f: BinaryIO = _output(self.path)
        self.f.write((json.dumps(self.header, indent="")[:-2] + ',\n"cache": {').encode())
        return self

    def add(self, key: str, entry: dict) -> None:
        self.add_encoded([dumps({key: entry})[1:-1]])

    def add_encoded(self, entries: list[bytes]) -> None:
        """Entries already encoded as `"key": {...}`, one a line."""
        if entries:
            self.f.write((b"\n" if self.first else b",\n") + b",\n".join(entries))
            self.first = False

    def __exit__(self, *exc: object) -> None:
        try:
            if exc[0] is None:
                self.f.write(b"\n}\n}\n")
        finally:
            self.f.close()


class T4File:
    """kernel_tuner's T4 results file, a result at a time (its store_output_file needs every result
    in memory); the header's schema version is kernel_tuner's own."""

    def __init__(self, path: Path, tune_params: dict):
        self.path, self.tune_params, self.first = path, tune_params, True
        self.skip = {*tune_params, *TIMINGS, "timestamp", "times"}

    def __enter__(self) -> T4File:
        self.f: BinaryIO = _output(self.path)
        self.f.write(b'{"results": [')
        return self

    def add(self, result: dict) -> None:
        self.add_many([t4_result(result, self.tune_params, self.skip)])

    def add_many(self, results: list[dict]) -> None:
        """T4 results (t4_result's), encoded at once."""
        if results:
            self.f.write((b"" if self.first else b", ") + b", ".join(map(dumps, results)))
            self.first = False

    def __exit__(self, *exc: object) -> None:
        try:
            if exc[0] is None:
                self.f.write(b"], " + json.dumps(T4_HEAD)[1:].encode() + b"\n")
        finally:
            self.f.close()


# What kernel_tuner's get_t4_results puts beside the results, for the schema t4_result writes (a test
# compares it with the installed kernel_tuner's): an export does not load kernel_tuner (~0.04 s here,
# more where a GPU backend is installed, which kernel_tuner imports with it).
T4_HEAD = {"schema_version": "1.0.0", "metadata": {"timeunit": "milliseconds"}}


def _output(path: Path) -> BinaryIO:
    """open_output's file with a 1 MB buffer: fewer writes, each of which lets go of the GIL (the
    inputs are written on a thread meanwhile)."""
    return io.BufferedWriter(open_output(path, binary=True).detach(), 1 << 20)


def _text(f: BinaryIO) -> io.TextIOWrapper:
    return io.TextIOWrapper(f, encoding="utf-8", newline="")


class _Plain:
    """A text file whose every line is written without escape sequences or control characters: the
    cells are a database's text (an error message, a parameter value)."""

    def __init__(self, f: io.TextIOWrapper) -> None:
        self.f = f

    def write(self, text: str) -> int:
        return self.f.write(for_terminal(text))


def _params(text: str, vid: str, key: str) -> dict:
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        value = _stdlib_loads(text)
    if not isinstance(value, dict):
        raise ExportError(f"result {key!r} of version {vid}: its stored parameters are not a JSON object")
    return value


def _stdlib_loads(text: str) -> Any:
    """What orjson refuses that the stdlib writes: NaN and Infinity; None for text that is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def _json(text: bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # NaN and Infinity, which the stdlib writes
        return json.loads(text)


def _cell(value: Any) -> Any:
    """A text a spreadsheet would read as a formula, quoted; a negative number stays one."""
    if isinstance(value, str) and value[:1] in ("=", "+", "@", "\t", "\r", "-") and value[1:2] not in "0123456789.":
        return "'" + value
    return value


def _on_disk(runs: list[Run], vid: str) -> Path | None:
    for r in runs:
        if r.version == vid and r.cachefile and Path(r.cachefile).is_file() and _is_cache(Path(r.cachefile)):
            return Path(r.cachefile)
    return None


def _is_cache(path: Path) -> bool:
    """A closed cachefile as kernel_tuner writes one: a JSON header ending in '"cache": {', an entry a
    line, the closing braces. Read a line at a time: a cache of 100,000 entries parsed whole takes
    hundreds of MB. A cache laid out otherwise is not copied (the stored results are written instead)."""
    try:
        with open(path, "rb") as f:
            head = b""
            for line in f:
                head += line
                if line.rstrip().endswith(b'"cache": {'):
                    break
                if len(head) > 1 << 20:
                    return False
            else:
                return False
            if not isinstance(_json(head.rstrip() + b"}}").get("cache"), dict):
                return False
            comma = None  # whether the entry before ended in a comma; None: no entry yet
            for raw in f:
                line = raw.strip()
                if line != b"}":
                    try:
                        entry, closed = _json(b"{" + line.removesuffix(b",") + b"}"), False
                    except ValueError:  # kernel_tuner closes the cache at the end of the last entry's line
                        entry, closed = _json(b"{" + line[:-1] + b"}"), True
                    if comma is False or len(entry) != 1 or not isinstance(next(iter(entry.values())), dict):
                        return False
                    comma = line.endswith(b",")
                    if not closed:
                        continue
                return comma is not True and [x.strip() for x in f if x.strip()] == [b"}"]
            return False
    except (OSError, ValueError, AttributeError):
        return False


def _copy(src: Path, dest: Path) -> None:
    with open(src, "rb") as fin, open_output(dest, binary=True) as fout:
        while chunk := fin.read(1 << 22):
            fout.write(chunk)


def _cache_header(b: Bundle, v: dict) -> dict:
    spec = spec_of(v)
    return {
        "device_name": b.session["gpu"],
        "kernel_name": spec.kernel,
        "problem_size": spec.problem_size_values(),
        "tune_params_keys": list(spec.tune_params),
        "tune_params": spec.tune_params,
        "objective": "time",
        "kt_tui": {"session": b.sid, "kernel_version": v["id"], "backend": b.session["backend"]},
    }
