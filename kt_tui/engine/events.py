"""What the engine says (events) and asks (gates), and what it is told (decisions)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

CHOICES = ("approve", "edit", "skip", "stop")


@dataclass
class Event:
    """kind: session | gate | decided | run | begin | result | run_end | note | finished"""

    kind: str
    data: dict = field(default_factory=dict)


@dataclass
class Gate:
    """A point where the engine waits for the user (or a policy) before going on."""

    key: str  # stable within a session: the same gate after a resume has the same key
    kind: str
    title: str
    body: dict = field(default_factory=dict)
    choices: tuple[str, ...] = CHOICES

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Decision:
    choice: str
    value: object = None  # the edited value, for "edit"
    by: str = "user"  # user | policy | replay

    def to_dict(self) -> dict:
        return asdict(self)
