"""An example kt-tui strategy plugin, found through its entry point in the group
`kt_tui.strategies` (see the .dist-info beside it; tests/engine/test_explicit.py puts this folder on
sys.path). A strategy is a generator of gates: it yields a Gate, gets the Decision back, and
measures through the engine."""

from pydantic import BaseModel, ConfigDict

from kt_tui.engine.gates import SweepGate

NAME = "baseline-only"
DESCRIPTION = "measure the original configuration once, nothing else"


class Options(BaseModel):
    """[strategy.baseline-only] in config.toml: validated by kt-tui's strategy registry."""

    model_config = ConfigDict(extra="forbid")
    note: str = ""


def baseline_only(engine):
    vid = engine.original
    if engine.options.get("note"):
        engine.emit("note", text=engine.options["note"])
    decision = yield SweepGate(
        key="baseline-only:start",
        title="Measure the original configuration once?",
        version=vid,
        choices=("approve", "skip", "stop"),
    )
    if decision.choice == "approve":
        engine.baseline(vid)


baseline_only.NAME, baseline_only.DESCRIPTION, baseline_only.Options = NAME, DESCRIPTION, Options
