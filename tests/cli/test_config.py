"""Settings: one pydantic model, flags > environment > config.toml, one error format."""

import json

import pytest

from kt_tui.cli import build_parser
from kt_tui.config import FLAT_STRATEGY_KEYS, ConfigError, load_settings, setting_fields
from kt_tui.errors import UserError
from kt_tui.front.session import session_options
from kt_tui.tomlfile import TomlError

from ..conftest import EXAMPLES


def write_config(hermetic, text):
    path = hermetic / "config" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


def test_flags_beat_the_environment_which_beats_the_file(hermetic, monkeypatch):
    write_config(hermetic, 'model = "from-file"\nrounds = 3\ntheme = "kt-light"\n')
    monkeypatch.setenv("KT_TUI_MODEL", "from-env")
    s = load_settings({})
    assert (s.model, session_options(s, "config-search")["rounds"], s.theme) == ("from-env", 3, "kt-light")
    s = load_settings({"model": "from-flag", "rounds": None})
    assert (s.model, session_options(s, "config-search")["rounds"]) == ("from-flag", 3)
    assert session_options(load_settings({"rounds": 4}), "config-search")["rounds"] == 4
    monkeypatch.setenv("KT_TUI_MODEL", "")  # an empty variable is unset
    assert load_settings({}).model == "from-file"


def test_only_the_documented_variables_are_read(hermetic, monkeypatch):
    monkeypatch.setenv("KT_TUI_ROUNDS", "not read")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    s = load_settings({})
    assert session_options(s, "config-search")["rounds"] == 6 and s.base_url == "http://127.0.0.1:9/v1"


def test_the_api_key_is_read_from_the_environment_only_and_never_stored(hermetic, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-written-77")
    s = load_settings({})
    assert s.api_key == "sk-never-written-77"
    assert "sk-never-written-77" not in repr(s) + str(s.public()) + s.model_dump_json()
    config = write_config(hermetic, 'api_key = "sk-in-a-file"\n')
    with pytest.raises(ConfigError) as e:
        load_settings({})
    assert str(e.value).startswith(f"{config}: api_key: ") and "OPENAI_API_KEY" in str(e.value)


@pytest.mark.parametrize(
    "text, says",
    [
        ("gpus = true\n", "gpus: "),
        ("keys = {start = 3}\n", "keys.start: must be a string, not 3"),
        ("mystery = 1\n", "mystery: unknown setting (known: allow_mixed"),
        ("rounds = \n", "not valid TOML"),
        ("llm_timeout_s = 0\n", "llm_timeout_s: must be more than 0"),
    ],
)
def test_every_config_problem_is_one_error_saying_file_key_problem(hermetic, text, says):
    config = write_config(hermetic, text)
    with pytest.raises(TomlError) as e:
        load_settings({})
    assert isinstance(e.value, UserError) and str(e.value).startswith(f"{config}: ") and says in str(e.value)
    assert "\n" not in str(e.value)


def test_an_environment_problem_names_the_variable(hermetic, monkeypatch):
    monkeypatch.setenv("KT_TUI_THEME", "nope")
    with pytest.raises(ConfigError, match="^KT_TUI_THEME: nope: no such theme"):
        load_settings({})


def test_the_model_is_the_list_of_settings(hermetic):
    dests = {a.dest for sub in build_parser()._subparsers._group_actions[0].choices.values() for a in sub._actions}
    fields = setting_fields()
    flagged = {
        "db",
        "backend",
        "sim_cache",
        "strategy",
        "base_url",
        "model",
        "llm",
        "theme",
        "timeout_s",
        "llm_timeout_s",
        "gpus",
        "ray_address",
        "allow_mixed",
    }
    assert flagged <= dests & set(fields)
    assert all(f.description for name, f in fields.items() if name != "api_key")
    # the strategy knobs are the strategies' own options now, set by the same flags
    from kt_tui.engine.registry import BUILTIN, options_model

    options = set().union(*(options_model(name).model_fields for name in BUILTIN))
    assert set(FLAT_STRATEGY_KEYS) == options and not options & set(fields)
    assert set(FLAT_STRATEGY_KEYS) - {"search_options", "plateau_rounds", "space_edits"} <= dests


def test_an_older_config_with_flat_strategy_keys_still_loads_with_a_note(capsys, hermetic):
    config = write_config(hermetic, 'strategy = "autonomous"\nthreshold = 0.5\nmax_configs = 4\n')
    s = load_settings({})
    err = capsys.readouterr().err
    assert err.startswith(f"kt-tui: {config}: threshold, max_configs: ") and "[strategy.NAME]" in err
    assert err.count("\n") == 1
    assert session_options(s, "autonomous")["threshold"] == 0.5 and session_options(s, "sweep")["max_configs"] == 4
    assert "threshold" not in session_options(s, "sweep")  # only a strategy that has the option takes it
    load_settings({})
    assert capsys.readouterr().err == ""  # one note per file
    write_config(hermetic, "threshold = 0.5\nrounds = 0\n[strategy.autonomous]\nthreshold = 0.25\n")
    assert session_options(load_settings({}), "autonomous")["threshold"] == 0.25  # its table wins
    assert session_options(load_settings({"threshold": 0.125}), "autonomous")["threshold"] == 0.125  # a flag too
    with pytest.raises(UserError, match=f"^{config}: rounds: must be at least 1, not 0$"):
        session_options(load_settings({}), "config-search")


def test_a_flag_the_strategy_has_no_option_for_is_one_line_and_exit_2(capsys, hermetic):
    from kt_tui.store import Store

    from ..conftest import EXAMPLES
    from ..helpers import run_cli

    argv = ("run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim")
    code, out = run_cli(capsys, *argv, "--rounds", "3")
    assert code == 2 and out["error"].startswith("--rounds: the strategy 'sweep' has no such option (known: search")
    assert "\n" not in out["error"]
    assert not (hermetic / "sessions.db").exists() or Store(hermetic / "sessions.db").sessions() == []
    code, out = run_cli(capsys, *argv, "--max-configs", "3")  # one it has reaches the session's options
    stored = json.loads(Store(hermetic / "sessions.db").session(out["session"])["settings"])
    assert code == 0 and stored["strategy_options"]["max_configs"] == 3 and "max_configs" not in stored


def test_a_huge_value_in_a_strategy_table_is_refused_in_one_short_line(tmp_path, monkeypatch, capsys):
    from kt_tui.cli import main

    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "config.toml").write_text('[strategy.sweep]\nsearch = "' + "x" * 200_000 + '"\n')
    monkeypatch.setenv("KT_TUI_CONFIG_DIR", str(cfg))
    monkeypatch.setenv("KT_TUI_DATA_DIR", str(tmp_path / "data"))
    try:
        code = main(["run", str(EXAMPLES / "vector_add.cu"), "--auto", "--json"])
    except SystemExit as e:
        code = e.code
    err = capsys.readouterr().err
    assert code == 2 and "strategy.sweep.search" in err
    assert len(err) < 500 and err.count("\n") == 1  # before: the 200 KB value echoed whole


@pytest.mark.parametrize(
    "text, says",
    [
        ("llm_retries = 0\n", "llm_retries: must be at least 1, not 0"),
        ("llm_max_tokens = 1.5\n", "llm_max_tokens: must be an integer, not 1.5"),
        ("timeout_s = inf\n", "timeout_s: must be a finite number, not inf"),
        ("timeout_s = -2\n", "timeout_s: must be more than 0, not -2"),
        ("llm_timeout_s = 1e10\n", "llm_timeout_s: must be below 1e+09, not 10000000000.0"),
        ('allow_mixed = "yes"\n', "allow_mixed: must be true or false, not 'yes'"),
        ("model = 3\n", "model: must be a string, not 3"),
        ('base_url = "ftp://x"\n', "base_url: must be an http:// or https:// URL, not 'ftp://x'"),
        ('keys = "q"\n', "keys: must be a table, not 'q'"),
        ("[strategy]\nsweep = 1\n", "strategy.sweep: expected a table [strategy.NAME]"),
    ],
)
def test_each_settings_check_says_what_it_did_with_pydantic(hermetic, text, says):
    """The settings are checked by pydantic-core schemas now, not a pydantic model (~270 M instructions
    before the TUI's first frame): the same checks, the same words."""
    config = write_config(hermetic, text)
    with pytest.raises(ConfigError) as e:
        load_settings({})
    assert str(e.value) == f"{config}: {says}" or str(e.value).startswith(f"{config}: {says}")


def test_checked_settings_keep_their_types_and_defaults(hermetic, monkeypatch):
    write_config(hermetic, 'gpus = 2\ntimeout_s = 3\nkeys = {start = "S"}\n[strategy.sweep]\nmax_configs = 5\n')
    monkeypatch.setenv("KT_TUI_BACKEND", "sim")
    s = load_settings({"rounds": 4}, flag_names={"rounds": "--rounds"})
    assert (s.gpus, s.timeout_s, s.keys, s.backend) == (2, 3, {"start": "S"}, "sim")
    assert s.strategy_tables == {"sweep": {"max_configs": 5}} and s.strategy_flags == {"rounds": ("--rounds", 4)}
    assert {"gpus", "timeout_s", "keys", "backend", "strategy_tables", "strategy_flags"} <= s.model_fields_set
    assert not {"llm_retries", "strategy", "theme"} & s.model_fields_set  # given: the defaults are not
    assert (s.llm_retries, s.llm_timeout_s, s.strategy, s.model) == (3, 120.0, "sweep", None)
    other = load_settings({})
    assert other.strategy_defaults == {} and other.strategy_defaults is not load_settings({}).strategy_defaults
