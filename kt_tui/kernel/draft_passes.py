"""The passes kernel/draft.py runs over a kernel's drafted arguments once each has a first value: each
reads the code for a role the first values missed (a threshold on scaled data, a decay, a draw, a weight,
a carried state, a pixel, a label, a state machine's cells, a row stride, a range's bounds, a mass pushed
along edges, a rate kept below 1) and corrects the values it drafts (or what is said of them), said as a guess."""

from __future__ import annotations

from . import (
    cuda_ast,
    draft_carried,
    draft_decay,
    draft_draws,
    draft_floats,
    draft_mass,
    draft_pixels,
    draft_rows,
    draft_spans,
    draft_states,
    draft_values,
    draft_weights,
)
from .spec import Arg


def over_args(
    fn: cuda_ast.Function, unit: cuda_ast.Unit, floats: set[str], args: list[Arg], guesses: list[tuple[str, str]]
) -> None:
    """Every pass over `args` (the kernel's drafted arguments, in order), in turn."""
    draft_values.scale_thresholds(fn, args, guesses)
    draft_decay.decayed(fn, args, guesses)
    draft_draws.drawn(fn, floats, args, guesses)
    draft_weights.weighted(fn, args, guesses)
    draft_carried.carried(fn, args, guesses)
    draft_pixels.intensities(fn, args, guesses)
    draft_weights.labelled(fn, args, guesses)
    draft_states.states(fn, args, guesses)
    draft_rows.strides_past_spans(fn, args, guesses, "an int that sizes nothing")
    draft_spans.ordered(fn, args, guesses)
    draft_mass.moved(fn, args, guesses)
    draft_floats.one_less(fn, args, guesses)
