"""A theme file whose name is not text is left out of the app's themes and said, not loaded as a theme
called "5" (the hostile tester, session 22)."""

from kt_tui.ui.theme import load_themes


def test_a_theme_named_by_a_number_is_a_problem_not_a_theme(hermetic):
    folder = hermetic / "config" / "themes"
    folder.mkdir(parents=True)
    (folder / "odd.toml").write_text('name = 5\nprimary = "#ff0000"\n')
    themes, problems = load_themes()
    assert {t.name for t in themes} >= {"kt-dark", "kt-light"} and 5 not in {t.name for t in themes}
    assert len(problems) == 1 and "odd.toml: its name is not text (5)" in problems[0]
