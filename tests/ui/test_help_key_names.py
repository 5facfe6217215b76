"""The help page names each key as it is typed: `/` for the filter, `?` for help, never Textual's
internal names (`slash`, `question_mark`)."""

from __future__ import annotations

from textual.binding import Binding

from kt_tui.ui.keys import help_text, key_for
from kt_tui.ui.sessions_screen import SessionsScreen


def test_the_filter_key_is_shown_as_a_slash():
    assert key_for({}, Binding("slash", "filter", "Filter", id="filter")) == "/"
    assert key_for({"filter": "slash"}, Binding("f", "filter", "Filter", id="filter")) == "/"


def test_the_sessions_browsers_help_has_no_internal_key_names():
    keys = [b for b in SessionsScreen.BINDINGS if isinstance(b, Binding)]
    text = help_text(keys, {}, session=False).plain
    lines = [line.split() for line in text.splitlines() if line.startswith("  ")]
    assert ["/", "Filter"] in lines
    assert not any(words[0] in ("slash", "question_mark", "escape") for words in lines)
