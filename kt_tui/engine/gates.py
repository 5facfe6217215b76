"""What the engine asks: one dataclass per gate kind (its fields, its choices, what `--auto` decides),
and the Decision that answers it.

A gate is stored as (key, kind, title, body): `body` is the gate's fields as a plain dict, the
same dict older versions stored, so `gate_from` rebuilds a gate from a stored row. A new kind is a
subclass here with a `kind` and its fields, plus a renderer in ui/gate_view.py.
"""

from __future__ import annotations

import json
import math
import tomllib
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar

from ..gpu.protocol import SEARCHES
from ..words import plural
from .edits import edit_diff, edited_fields
from .markdown import md_fence, md_ms, md_text
from .plan import clean_title, plan_from_text, split_performance

CHOICES = ("approve", "edit", "skip", "stop")
LLM_CHOICES = ("retry", "edit", "skip", "stop")
_NOT_BODY = ("key", "title", "choices", "extra")


BY = ("user", "autopilot", "policy", "replay")  # who decided: you, the app's autopilot, --auto, a stored decision


@dataclass
class Decision:
    choice: str
    value: object = None  # the edited value, for "edit"
    by: str = "user"  # one of BY
    why: str | None = None  # the reason a policy (or the autopilot) gave, when it gave one

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


GATES: dict[str, type[Gate]] = {}


@dataclass(kw_only=True)
class Gate:
    """A point where the engine waits for the user (or a policy) before going on."""

    kind: ClassVar[str] = ""
    default_choices: ClassVar[tuple[str, ...]] = CHOICES
    key: str  # stable within a session: the same gate after a resume has the same key
    title: str
    choices: tuple[str, ...] = ()  # () : the kind's default_choices
    unverified: str | None = None  # set by the engine: why the session's results are not trusted
    expected: str | None = None  # set by the engine: where the expected outputs come from, when not the original
    vacuous: str | None = None  # set by the engine: why the session's check proves nothing (engine/strength.py)
    check: str | None = None  # set by the engine: the check's mutation score ("the check catches 18 of 20 ...")
    survivors: str | None = None  # set by the engine: wrong variants the check passes, when --auto may not allow them
    extra: dict[str, Any] = field(default_factory=dict)  # stored fields this version does not know: kept as they were

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if isinstance(cls.__dict__.get("kind"), str) and cls.kind:
            GATES[cls.kind] = cls

    def __post_init__(self) -> None:
        self.choices = tuple(self.choices or self.default_choices)

    @property
    def body(self) -> dict[str, Any]:
        """The fields as stored (`unverified`, `expected`, `vacuous`, `check`, `survivors` only when set),
        then the unknown ones."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _NOT_BODY}
        for optional in ("unverified", "expected", "vacuous", "check", "survivors"):
            if out[optional] is None:
                del out[optional]
        return {**out, **self.extra}

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "kind": self.kind, "title": self.title, "body": self.body, "choices": self.choices}

    def auto(self, allow_flagged: bool = False) -> tuple[str, str | None]:
        """What `--auto` chooses here, and a line telling the user why when that needs saying."""
        return "approve", None

    def stop_error(self) -> str | None:
        """Why a policy's "stop" here fails the session (None: it only stops it)."""
        return None

    def parse_edit(self, value: object) -> Any:
        """What an "edit" decision's value means at this gate; ValueError names what is wrong with it."""
        return value

    def proposed(self, value: object) -> dict[str, Any]:
        """field -> what the gate proposed, for each field an edit's `value` replaces (stored with the
        decision as "before": the app and the report show the edit as a diff against it)."""
        return edited_fields(self.body, value)

    def choice_name(self, choice: str) -> str:
        """A choice as this gate names it (an accept gate's skip is a reject), stored with the decision."""
        return choice

    def summary_md(self, decision: dict[str, Any] | None = None) -> list[str]:
        """The gate in the report (markdown lines): what an edit changed, then what the kind shows."""
        d = decision or {}
        if d.get("choice") != "edit":
            return []
        stored = d.get("before")
        before: dict[str, Any] = stored if isinstance(stored, dict) else self.proposed(d.get("value"))
        diff = edit_diff(before, d.get("value"))
        return ["What was edited:", "", md_fence(diff, "diff"), ""] if diff else ["The edit changed nothing.", ""]


def _manual_stop(manual: str | None) -> tuple[str, str | None] | None:
    if manual:
        return "stop", (
            "manual mode (no LLM): --auto cannot write a plan or a kernel; `kt-tui resume` opens the session in the app"
        )
    return None


@dataclass(kw_only=True)
class SweepGate(Gate):
    """Tune a version over its space (the sweep's gate, or a strategy's start); edit: search settings."""

    kind: ClassVar[str] = "sweep"
    version: str | None = None
    total: int | None = None  # configurations, after restrictions when `sizes` is given
    total_before: int | None = None
    sizes: str | None = None  # the counts as the title says them; None: `total` is before restrictions
    done: int = 0
    backend: str | None = None
    gpu: str | None = None
    after_stop: bool = False  # asked again after the user stopped a run
    text: str = ""  # the search settings as the editor shows them
    tune_params: dict[str, Any] | None = None
    restrictions: list[Any] | None = None
    search: str | None = None
    max_configs: int | None = None
    time_limit_s: float | None = None
    seeds: bool | None = None

    def auto(self, allow_flagged: bool = False) -> tuple[str, str | None]:
        return ("stop", None) if self.after_stop else ("approve", None)

    def parse_edit(self, value: object) -> dict[str, Any]:
        """The edited search settings (TOML of SEARCH_KEYS)."""
        return parse_search(str(value))


@dataclass(kw_only=True)
class PlanGate(Gate):
    """Run the plan; edit: rewrite it. In manual mode the user writes it here."""

    kind: ClassVar[str] = "plan"
    text: str = ""
    manual: str | None = None

    def auto(self, allow_flagged: bool = False) -> tuple[str, str | None]:
        return _manual_stop(self.manual) or ("approve", None)

    def stop_error(self) -> str | None:
        return self.manual

    def parse_edit(self, value: object) -> list[tuple[str, str]]:
        """The edited plan: (title, description) per step (engine/plan.py)."""
        return plan_from_text(str(value))

    def edited_performance(self, value: object) -> str | None:
        """The performance block as edited (None: left as shown, or its mark deleted)."""
        block = split_performance(str(value))[1]
        return block if block is not None and block != split_performance(self.text)[1] else None


@dataclass(kw_only=True)
class StepGate(Gate):
    """Do one step of the plan; edit: its title and description, or its prompt."""

    kind: ClassVar[str] = "step"
    step: str | None = None
    description: str = ""
    verdict: dict[str, Any] | None = None  # {"valid": bool, "reason": str}: the LLM's judgement
    note: str | None = None
    tune_params: dict[str, Any] | None = None
    depends_on: list[Any] | None = None
    prompt: str | None = None  # a steps file's prompt: editing the step edits it

    def auto(self, allow_flagged: bool = False) -> tuple[str, str | None]:
        return ("skip", None) if self.verdict and not self.verdict["valid"] else ("approve", None)

    def parse_edit(self, value: object) -> tuple[str, str]:
        """A step with a prompt: ("prompt", the edited prompt, which always shows the kernel);
        otherwise (title, description): the first line, then the rest."""
        text = str(value)
        if self.prompt is not None:
            return "prompt", text if "{kernel_string}" in text else text + "\n\n```cuda\n{kernel_string}\n```\n"
        title, _, rest = text.strip().partition("\n")
        return clean_title(title), rest.strip()

    def proposed(self, value: object) -> dict[str, Any]:
        """The editor shows the title, then the description (or the steps file's prompt): an edit
        replaces that text, so a new title is a change of its first line, not of the description."""
        if self.prompt is not None or isinstance(value, dict):
            return super().proposed(value)
        return {"step": f"{self.title.split(': ', 1)[-1]}\n{self.description}"}

    def edited_parts(self, value: object) -> str:
        """What an edit of the step changed: "title", "description", both, or "prompt"."""
        if self.prompt is not None:
            return "prompt"
        title, text = self.parse_edit(value)
        parts = [
            name
            for name, old, new in (
                ("title", clean_title(self.title.split(": ", 1)[-1]), title),
                ("description", self.description.strip(), text),
            )
            if old != new
        ]
        return " and ".join(parts) or "nothing"


@dataclass(kw_only=True)
class KernelGate(Gate):
    """Use a generated kernel; edit: its code, parameters and restrictions."""

    kind: ClassVar[str] = "kernel"
    step: str | None = None
    explanation: str = ""
    diff: str = ""
    code: str = ""
    tune_params: dict[str, Any] = field(default_factory=dict)
    restrictions: list[Any] = field(default_factory=list)
    flags: list[Any] = field(default_factory=list)  # {"kind", "line", "message"} each
    fixes: list[Any] = field(default_factory=list)
    unresolved: list[Any] = field(default_factory=list)
    compile: dict[str, Any] = field(default_factory=dict)
    base_version: str | None = None
    manual: str | None = None
    tolerances: list[Any] | None = None
    verify_sizes: list[Any] | None = None
    spec: dict[str, Any] | None = None
    profile: list[str] = field(default_factory=list)  # the current best's % of the peak and profile

    def auto(self, allow_flagged: bool = False) -> tuple[str, str | None]:
        if stop := _manual_stop(self.manual):
            return stop
        if self.flags and not allow_flagged:
            kinds = ", ".join(sorted({f["kind"] for f in self.flags}))
            return "skip", f"refusing flagged code for step {self.step} ({kinds}); --allow-flagged lets it run"
        return "approve", None

    def stop_error(self) -> str | None:
        return self.manual

    def summary_md(self, decision: dict[str, Any] | None = None) -> list[str]:
        out = super().summary_md(decision)
        if self.explanation:
            out += [md_text(self.explanation), ""]
        if self.fixes:
            out += [f"- fixed: {md_text(f)}" for f in self.fixes] + [""]
        comp = self.compile
        if isinstance(comp, dict) and comp.get("ok") is not None:
            res = "; ".join(
                f"{md_text(k)}: {v.get('registers')} registers, {v.get('shared_bytes')} B shared, "
                f"{v.get('spill_stores', 0)} spill stores"
                for k, v in (comp.get("resources") or {}).items()
                if isinstance(v, dict)
            )
            out += [
                (
                    "Compiled with nvcc" + (f" ({res})" if res else "")
                    if comp["ok"]
                    else f"Did not compile: {md_text(comp.get('reason') or comp.get('errors') or '')}"
                ),
                "",
            ]
        if self.diff:
            out += [md_fence(str(self.diff), "diff"), ""]
        return out


@dataclass(kw_only=True)
class AcceptGate(Gate):
    """Keep a tuned step's kernel: the threshold recommends, the user decides."""

    kind: ClassVar[str] = "accept"
    default_choices: ClassVar[tuple[str, ...]] = ("approve", "skip", "stop")
    step: str | None = None
    version: str | None = None
    new_ms: float | None = None
    current_ms: float | None = None
    params: dict[str, Any] | None = None
    threshold: float = 0.0
    recommend: bool = False
    verdicts: list[Any] = field(default_factory=list)
    checks: list[Any] = field(default_factory=list)
    verified: str | None = None
    effect: str = ""  # what accepting does, said at the gate (kernel_step._accept)
    unmeasured: bool = False  # no GPU here: no times; asked again once measured
    limits: list[str] = field(default_factory=list)  # the candidate's and the best's % of the peak, profiles
    best: str | None = None  # the version holding the best now, as the table names it ("original", "step 2")
    baseline_ms: float | None = None  # the original's baseline: the candidate's speedup is over it

    def choice_name(self, choice: str) -> str:
        return {"approve": "accept", "skip": "reject"}.get(choice, choice)

    def auto(self, allow_flagged: bool = False) -> tuple[str, str | None]:
        if self.unmeasured:
            return "approve", f"step {self.step}: not measured (no GPU here): kept, asked again once measured"
        if self.vacuous:
            return "skip", f"step {self.step}: not accepted: the check proves nothing because {self.vacuous}"
        if self.survivors:
            return "skip", f"step {self.step}: not accepted: {self.survivors}"
        return ("approve" if self.recommend else "skip"), None

    def summary_md(self, decision: dict[str, Any] | None = None) -> list[str]:
        out = super().summary_md(decision)
        if self.new_ms is not None:
            advice = {True: "; recommended: accept", False: "; recommended: reject"}.get(self.recommend, "")
            new, current = self.new_ms, self.current_ms
            out += [f"Candidate {md_ms(new)} against the best so far {md_ms(current)}{advice}", ""]
            if self.effect:
                out += [md_text(self.effect), ""]
            out += [f"- {md_text(line)}" for line in self.limits] + ([""] if self.limits else [])
            if (decision or {}).get("choice") == "approve":
                out += [
                    "Accepted: the new best."
                    if current is None or new < current
                    else f"Accepted, but slower: the best stays at {md_ms(current)}.",
                    "",
                ]
        elif self.unmeasured:
            out += [md_text(self.effect), ""]
        for c in self.checks or []:
            if isinstance(c, dict):
                out.append(
                    f"- at {md_text(c.get('label'))}: {md_text(c.get('status'))}"
                    + (f" ({md_text(c['reason'])})" if c.get("reason") else "")
                )
        if self.checks:
            out.append("")
        if isinstance(self.verdicts, list) and self.verdicts:
            out += [
                "Verification: "
                + "; ".join(
                    f"{md_text(v.get('output'))} {'ok' if v.get('ok') else 'WRONG'}"
                    + (
                        f" (max abs err {v['max_abs_err']:.3g})"
                        if isinstance(v.get("max_abs_err"), (int, float))
                        else ""
                    )
                    for v in self.verdicts
                    if isinstance(v, dict)
                ),
                "",
            ]
        return out


@dataclass(kw_only=True)
class ConfigsGate(Gate):
    """Benchmark the configurations the LLM proposes; edit: one JSON object per line."""

    kind: ClassVar[str] = "configs"
    round: int | None = None
    configs: list[Any] = field(default_factory=list)
    reasoning: str = ""
    params: list[Any] | None = None
    invalid: list[Any] = field(default_factory=list)  # {"config", "why"} each
    text: str = ""

    def parse_edit(self, value: object) -> list[Any]:
        """One JSON object per line; each is checked against the space again by the strategy."""
        try:
            return [json.loads(line) for line in str(value).splitlines() if line.strip()]
        except (ValueError, RecursionError) as e:
            raise ValueError(f"not one JSON object per line: {e}") from None


@dataclass(kw_only=True)
class SpaceGate(Gate):
    """Change the search space as the LLM proposes."""

    kind: ClassVar[str] = "space"
    default_choices: ClassVar[tuple[str, ...]] = ("approve", "skip", "stop")
    before: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)
    size_before: int | None = None
    size_after: int | None = None
    reason: str = ""
    problems: list[Any] = field(default_factory=list)


@dataclass(kw_only=True)
class LlmFailedGate(Gate):
    """An LLM call failed: retry, write the answer yourself, skip the call, or stop."""

    kind: ClassVar[str] = "llm_failed"
    default_choices: ClassVar[tuple[str, ...]] = LLM_CHOICES
    call: str | None = None
    template: str | None = None
    text: str = ""
    problems: list[Any] = field(default_factory=list)
    example: str | None = None
    by_user: bool = False  # the text is the user's own answer, which did not parse

    def auto(self, allow_flagged: bool = False) -> tuple[str, str | None]:
        return "stop", None

    def stop_error(self) -> str | None:
        return self.title

    @property
    def body(self) -> dict[str, Any]:  # the call's key is stored as "key", beside the gate's own
        out = super().body
        if "call" in out:
            out = {"key": out.pop("call"), **out}
        return out


@dataclass(kw_only=True)
class LlmReplyGate(LlmFailedGate):
    """An LLM reply (or the user's answer) is not valid: the same choices, the text shown."""

    kind: ClassVar[str] = "llm_reply"


@dataclass(kw_only=True)
class UnknownGate(Gate):
    """A stored gate of a kind this version does not know (a newer version wrote it)."""

    default_choices: ClassVar[tuple[str, ...]] = ("approve", "skip", "stop")  # no editor knows its value
    stored_kind: str = ""
    kind = property(lambda self: self.stored_kind)  # type: ignore[assignment]

    def auto(self, allow_flagged: bool = False) -> tuple[str, str | None]:
        return "stop", f"gate {self.key} is of a kind this version does not know ({self.stored_kind})"

    @property
    def body(self) -> dict[str, Any]:
        return dict(self.extra)


SEARCH_KEYS = ("search", "max_configs", "time_limit_s", "seeds")


def parse_search(text: str) -> dict[str, Any]:
    """Edited search settings; ValueError names the problem."""
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as e:
        raise ValueError(f"not TOML: {e or 'nested too deep'}") from None
    unknown = set(data) - set(SEARCH_KEYS)
    if unknown:
        raise ValueError(
            f"unknown {plural(len(unknown), 'setting')}: {', '.join(sorted(unknown))} (known: {', '.join(SEARCH_KEYS)})"
        )
    if "search" in data and data["search"] not in SEARCHES:
        raise ValueError(f"search: unknown {data['search']!r} (known: {', '.join(SEARCHES)})")
    for k in ("max_configs", "time_limit_s"):
        v = data.get(k, 0)
        number = isinstance(v, int) or (isinstance(v, float) and math.isfinite(v))
        if isinstance(v, bool) or not number or v < 0:
            raise ValueError(f"{k}: expected a number >= 0 (0: no budget), not {v!r}")
    if not isinstance(data.get("max_configs", 0), int):
        raise ValueError(f"max_configs: expected a whole number of configurations, not {data['max_configs']!r}")
    if not isinstance(data.get("seeds", True), bool):
        raise ValueError(f"seeds: expected true or false, not {data['seeds']!r}")
    return data


def gate_from(
    kind: str, key: str, title: str, body: dict[str, Any] | None, choices: tuple[str, ...] | list[str] | None = None
) -> Gate:
    """The typed gate of a stored row (kind, key, title, body); an unknown kind keeps its body as it was."""
    body = dict(body or {})
    cls = GATES.get(kind)
    if cls is None:
        return UnknownGate(key=key, title=title, choices=tuple(choices or ()), stored_kind=kind, extra=body)
    if issubclass(cls, LlmFailedGate) and "key" in body:
        body["call"] = body.pop("key")
    names = {f.name for f in fields(cls)} - set(_NOT_BODY)
    known = {k: v for k, v in body.items() if k in names}
    return cls(
        key=key,
        title=title,
        choices=tuple(choices or ()),
        extra={k: v for k, v in body.items() if k not in names},
        **known,
    )
