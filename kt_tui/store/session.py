"""One session's view of the store: the methods of Store (store/store.py) with the session
given once. The engine, the UI and the exports hold one of these, never a session id of their own."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..records import Check, Known, Result, Run, StoredGate
from .results import StoredResults
from .store import Store


class SessionStore:
    def __init__(self, store: Store, sid: str):
        self.store, self.sid = store, sid

    # -- the session ----------------------------------------------------------------------
    def session(self) -> dict[str, Any]:
        """The session's row; a view is made for a session that exists, so a missing one is a bug."""
        row = self.store.session(self.sid)
        if row is None:
            raise LookupError(f"no session {self.sid} in the store")
        return row

    def update_session(self, **fields: Any) -> None:
        self.store.update_session(self.sid, **fields)

    def lock(self) -> None:
        self.store.lock(self.sid)

    def unlock(self) -> None:
        self.store.unlock(self.sid)

    def lock_holder(self) -> dict[str, Any] | None:
        return self.store.lock_holder(self.sid)

    # -- kernel versions -------------------------------------------------------------------
    def add_version(
        self, vid: str, source: str, spec_toml: str, spec: dict[str, Any], parent: str | None = None, label: str = ""
    ) -> None:
        self.store.add_version(self.sid, vid, source, spec_toml, spec, parent=parent, label=label)

    def update_version(self, vid: str, spec_toml: str, spec: dict[str, Any]) -> None:
        self.store.update_version(self.sid, vid, spec_toml, spec)

    def version(self, vid: str) -> dict[str, Any] | None:
        return self.store.version(self.sid, vid)

    def versions(self) -> list[dict[str, Any]]:
        return self.store.versions(self.sid)

    # -- runs, results and checks -------------------------------------------------------------
    def put_run(self, rid: str, **fields: Any) -> None:
        self.store.put_run(self.sid, rid, **fields)

    def run(self, rid: str) -> Run | None:
        return self.store.run(self.sid, rid)

    def runs(self) -> list[Run]:
        return self.store.runs(self.sid)

    def add_result(self, vid: str, rid: str, r: Result | Mapping[str, Any]) -> None:
        self.store.add_result(self.sid, vid, rid, r)

    def add_results(self, vid: str, rid: str, rs: Iterable[Result | Mapping[str, Any]]) -> None:
        self.store.add_results(self.sid, vid, rid, rs)

    def mark_result(self, vid: str, key: str, **changes: Any) -> None:
        self.store.mark_result(self.sid, vid, key, **changes)

    def results(self, vid: str | None = None) -> list[Result]:
        return self.store.results(self.sid, vid)

    def iter_results(self, vid: str | None = None) -> Iterator[Result]:
        return self.store.iter_results(self.sid, vid)

    def result_columns(self, columns: tuple[str, ...]) -> Iterator[tuple[Any, ...]]:
        return self.store.result_columns(self.sid, columns)

    def result(self, vid: str, key: str) -> Result | None:
        return self.store.result(self.sid, vid, key)

    def known(self, vid: str) -> StoredResults:
        return self.store.known(self.sid, vid)

    def count_results(
        self, vid: str | None = None, run: str | None = None, measured: bool = False, upto: int | None = None
    ) -> int:
        return self.store.count_results(self.sid, vid, run=run, measured=measured, upto=upto)

    def by_time(self, vid: str | None = None, limit: int | None = None) -> Iterator[Result]:
        return self.store.by_time(self.sid, vid, limit=limit)

    def fastest(self, n: int, upto: int | None = None) -> list[Result]:
        return self.store.fastest(self.sid, n, upto=upto)

    def last_result(self) -> int:
        return self.store.last_result()

    def result_times(self, vid: str) -> list[tuple[str, float | None, str, int | None]]:
        return self.store.result_times(self.sid, vid)

    def plot_pages(
        self, upto: int | None = None, size: int = 2000, reference: tuple[str, str] = ("", "")
    ) -> Iterator[tuple[tuple[Any, ...], ...]]:
        return self.store.plot_pages(self.sid, upto=upto, size=size, reference=reference)

    def workers(self, limit: int | None = None) -> set[str]:
        return self.store.workers(self.sid, limit=limit)

    def known_for_worker(self, vid: str) -> dict[str, Known]:
        return self.store.known_for_worker(self.sid, vid)

    def add_check(self, vid: str, c: Check | Mapping[str, Any]) -> None:
        self.store.add_check(self.sid, vid, c)

    def checks(self, vid: str | None = None, key: str | None = None) -> list[Check]:
        return self.store.checks(self.sid, vid, key)

    # -- reference outputs -------------------------------------------------------------------
    def put_profile(self, vid: str, key: str, state: str, summary: Mapping[str, Any]) -> None:
        self.store.put_profile(self.sid, vid, key, state, summary)

    def profiles(self) -> list[dict[str, Any]]:
        return self.store.profiles(self.sid)

    def set_reference(self, vid: str, outputs: dict[str, Any]) -> None:
        self.store.set_reference(self.sid, vid, outputs)

    def reference(self, vid: str) -> dict[str, Any] | None:
        return self.store.reference(self.sid, vid)

    # -- gates, LLM calls, steps and events ---------------------------------------------------
    def gate(self, key: str) -> StoredGate | None:
        return self.store.gate(self.sid, key)

    def open_gate(self, key: str, kind: str, title: str, body: dict[str, Any]) -> None:
        self.store.open_gate(self.sid, key, kind, title, body)

    def decide_gate(self, key: str, decision: dict[str, Any]) -> None:
        self.store.decide_gate(self.sid, key, decision)

    def gates(self) -> list[StoredGate]:
        return self.store.gates(self.sid)

    def add_llm_call(self, key: str, record: dict[str, Any]) -> int:
        return self.store.add_llm_call(self.sid, key, record)

    def llm_calls(self) -> list[dict[str, Any]]:
        return self.store.llm_calls(self.sid)

    def put_llm_result(self, key: str, value: Any, text: str, by: str) -> None:
        self.store.put_llm_result(self.sid, key, value, text, by)

    def llm_result(self, key: str) -> dict[str, Any] | None:
        return self.store.llm_result(self.sid, key)

    def put_step(self, step_id: str, **fields: Any) -> None:
        self.store.put_step(self.sid, step_id, **fields)

    def steps(self) -> list[dict[str, Any]]:
        return self.store.steps(self.sid)

    def add_event(self, kind: str, data: dict[str, Any]) -> None:
        self.store.add_event(self.sid, kind, data)

    def events(self) -> list[dict[str, Any]]:
        return self.store.events(self.sid)
