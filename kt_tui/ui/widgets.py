"""The session screen's parts. They display what they are given; the screen owns the state."""

from __future__ import annotations

import heapq
import math

from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual.widgets import DataTable, Static

from ..kernel.spec import Spec

STATUS_STYLE = {"ok": "green", "wrong_result": "bold red", "compile_error": "red", "runtime_error": "red",
                "timeout": "magenta", "crash": "bold magenta", "invalid": "dim", "not_recorded": "dim yellow"}


class SourceView(Static):
    """The kernel source, highlighted with Pygments' CUDA lexer."""

    def show(self, source: str) -> None:
        self.update(Syntax(source, "cuda", line_numbers=True, word_wrap=False, theme="ansi_dark"))


class SpecSummary(Static):
    def show(self, spec: Spec) -> None:
        t = Table.grid(padding=(0, 1))
        t.add_column(style="bold")
        t.add_column()
        t.add_row("kernel", Text(spec.kernel))
        t.add_row("problem", Text(" x ".join(map(str, spec.problem_size)) + "  " +
                                  ", ".join(f"{k}={v}" for k, v in spec.sizes.items())))
        for a in spec.args:
            what = f"{a.type}[{a.size}] {a.init}" if a.is_array else f"{a.type} = {a.value}"
            if a.output:
                atol, rtol = a.tolerance()
                what += f"  OUTPUT atol={atol:g} rtol={rtol:g}"
            t.add_row(Text(f"  {a.name}"), Text(what))
        for k, v in spec.tune_params.items():
            t.add_row(Text(f"tune {k}"), Text(", ".join(map(str, v)) + f"  (original {spec.baseline_params()[k]})"))
        for r in spec.restrictions:
            t.add_row("restrict", Text(r))
        t.add_row("space", f"{spec.space_size()} configurations before restrictions")
        if spec.verify == "none":
            t.add_row(Text("verify", "bold red"), Text(f"UNVERIFIED: none ({spec.verify_reason})", "bold red"))
        elif spec.verify != "elementwise":
            t.add_row("verify", Text(f"{spec.verify} (your Python function, run in the GPU worker)"))
        self.update(t)


class GatePanel(Static):
    """What the engine waits for, or what it is doing."""


class ProgressLine(Static):
    pass


def _rank(r: dict) -> float:
    """Which results the table shows first: the fastest that ran right; failures last."""
    t = r.get("time_ms")
    return t if t is not None and r.get("status") == "ok" and r.get("verified") is not False else math.inf


def _fmt_ms(v) -> str:
    return f"{v:.4f}" if v is not None else "-"


class ResultsTable(DataTable):
    """One row per configuration, keyed by its kernel_tuner cache key; the best row is starred.

    A session can hold 100,000 results: the table shows the MAX_ROWS fastest (failures last; up to
    twice as many between two trims) and keeps the others in rows_data, so that adding, sorting and
    re-basing cost the same at any size."""

    MAX_ROWS = 1000

    def setup(self, param_names: list[str], reference_key: str | None = None, workers: bool = False) -> None:
        self.param_names = list(param_names)
        self.by_worker = workers  # a column for the GPU worker that measured each row (--gpus, --ray)
        self.reference_key = reference_key
        self.cursor_type = "row"
        self.zebra_stripes = True
        self.best_key: str | None = None
        self.baseline_ms: float | None = None
        self.rows_data: dict[str, dict] = {}
        self._shown: list[tuple[float, int, str]] = []  # heap of (-rank, seq, key) of shown rows: the slowest on top
        self._seq = 0
        self.sort_index, self.sort_reverse = None, False
        self.add_column("", key="best", width=1)
        for n in self.param_names:
            self.add_column(n, key=f"p:{n}")
        for label, key in (("time ms", "time"), ("speedup", "speedup"), ("status", "status"),
                           ("verified", "verified"), ("worker", "worker"), ("note", "note")):
            if key != "worker" or workers:
                self.add_column(label, key=key)

    @property
    def sortable(self) -> list[str]:
        return [f"p:{n}" for n in self.param_names] + ["time", "speedup", "status", "verified"]

    def _cells(self, r: dict) -> list:
        speed = (self.baseline_ms / r["time_ms"]) if (self.baseline_ms and r.get("time_ms")) else None
        status = Text(r["status"], style=STATUS_STYLE.get(r["status"], ""))
        verified = {True: Text("yes", "green"), False: Text("NO", "bold red"), None: Text("-", "dim")}[r.get("verified")]
        if r.get("source") == "recorded":  # sim: the verdict was recorded on the GPU, not checked here
            verified = Text(("rec " + verified.plain) if r.get("verified") is not None else "no verdict",
                            verified.style)
        note = r.get("first_bad") if r["status"] == "wrong_result" else (r.get("error") or r.get("origin") or "")
        note = (note or "").strip().splitlines()[-1][:80] if note else ""
        if r["key"] == self.reference_key:
            verified, note = Text("ref", "cyan"), note or "the original configuration: its outputs are the reference"
        return [*[Text(str(r["params"][n])) for n in self.param_names], Text(_fmt_ms(r.get("time_ms")), justify="right"),
                Text(f"{speed:.2f}x" if speed else "-", justify="right"), status, verified,
                *([Text(r.get("worker") or "-")] if self.by_worker else []), Text(note)]

    def put(self, r: dict) -> None:
        key = r["key"]
        self.rows_data[key] = r
        if key in self.rows:
            for col, value in zip([c for c in self.columns if c != "best"], self._cells(r)):
                self.update_cell(key, col, value)
            return
        if len(self.rows) >= self.MAX_ROWS:
            worst = self._slowest_shown()
            if worst is None or _rank(r) >= -worst[0]:
                return  # kept in rows_data, not shown
        self._show(key)
        if len(self.rows) >= 2 * self.MAX_ROWS:
            self._trim()  # removing rows one by one costs a DataTable far more than one rebuild

    def _trim(self) -> None:
        keep = {k for k in heapq.nsmallest(self.MAX_ROWS, (k.value for k in self.rows),
                                           key=lambda k: _rank(self.rows_data[k]))}
        order = [k.value for k in self.rows if k.value in keep]
        best = self.best_key
        self.clear()
        self._shown = []
        for k in order:
            self._show(k)
        self.mark_best(best)

    def put_many(self, rs: list[dict]) -> None:
        """Stored results at once: only the ones that will show become rows."""
        if self.rows:
            for r in rs:
                self.put(r)
            return
        for r in rs:
            self.rows_data[r["key"]] = r
        for r in heapq.nsmallest(self.MAX_ROWS, self.rows_data.values(), key=_rank):
            self._show(r["key"])

    @property
    def hidden(self) -> int:
        return len(self.rows_data) - len(self.rows)

    def _show(self, key: str) -> None:
        self._seq += 1
        heapq.heappush(self._shown, (-_rank(self.rows_data[key]), self._seq, key))
        self.add_row("", *self._cells(self.rows_data[key]), key=key)

    def _slowest_shown(self):
        while self._shown and self._shown[0][2] not in self.rows:
            heapq.heappop(self._shown)
        return self._shown[0] if self._shown else None

    def mark_best(self, key: str | None) -> None:
        if self.best_key and self.best_key in self.rows:
            self.update_cell(self.best_key, "best", "")
        self.best_key = key
        if key and key in self.rows:
            self.update_cell(key, "best", Text("★", style="bold yellow"))

    def set_baseline(self, ms: float | None) -> None:
        if ms == self.baseline_ms:
            return
        self.baseline_ms = ms
        for key in self.rows:
            self.update_cell(key.value, "speedup", self._cells(self.rows_data[key.value])[len(self.param_names) + 1])

    def sort_by(self, column: str, reverse: bool = False) -> None:
        def value(r: dict):
            if column.startswith("p:"):
                v = r["params"][column[2:]]
            elif column in ("time", "speedup"):
                v = r.get("time_ms")
                if column == "speedup" and v is not None:
                    v = -v  # larger speedup first
            else:
                v = {"verified": {True: 0, False: 2, None: 1}}.get(column, {}).get(r.get(column), r.get(column))
            return (v is None, v if v is not None else 0) if not isinstance(v, str) else (False, v)

        self.sort_index, self.sort_reverse = column, reverse
        order = sorted((k.value for k in self.rows), key=lambda k: value(self.rows_data[k]), reverse=reverse)
        best = self.best_key
        self.clear()
        self._shown = []
        for k in order:
            self._show(k)
        self.mark_best(best)
