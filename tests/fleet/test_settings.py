"""config.toml through its one model: what is taken, and what is said of an unknown key or a bad value
(naming the key and the file, with "did you mean" for a near miss), while the rest of the file applies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from teamtui.protocol.settings import HostSettings, NotifySettings, Settings, load_settings


def _load(tmp_path: Path, text: str) -> Settings:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return load_settings(path)


def _said(tmp_path: Path, text: str) -> list[str]:
    """The problems, without the file's name they all start with."""
    s = _load(tmp_path, text)
    prefix = f"{tmp_path / 'config.toml'}: "
    assert all(p.startswith(prefix) for p in s.problems), s.problems
    return [p.removeprefix(prefix) for p in s.problems]


def test_the_defaults(tmp_path: Path) -> None:
    s = _load(tmp_path, "")
    assert (s.fleet_keep_hours, s.roots, s.problems) == (24.0, [], [])
    assert load_settings(tmp_path / "none.toml") == Settings()


def test_roots_are_expanded_and_keep_hours_taken(tmp_path: Path) -> None:
    s = _load(tmp_path, 'roots = ["~/src/api", "/srv/web"]\nfleet_keep_hours = 0.5\n')
    assert s.roots == [Path.home() / "src" / "api", Path("/srv/web")]
    assert (s.fleet_keep_hours, s.problems) == (0.5, [])


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("0", "must be a positive number, got 0"),
        ("-3", "must be a positive number, got -3"),
        ('"24"', "must be a positive number, got '24'"),
        ("true", "must be a positive number, got True"),
        ("nan", "must be a positive number, got nan"),
        ("[24]", "must be a positive number, got [24]"),
    ],
)
def test_a_bad_keep_hours_is_said_and_the_default_kept(tmp_path: Path, value: str, said: str) -> None:
    s = _load(tmp_path, f"fleet_keep_hours = {value}\n")
    assert s.fleet_keep_hours == 24.0
    assert s.problems == [f"{tmp_path / 'config.toml'}: fleet_keep_hours {said}; the default is used"]


def test_roots_that_are_not_a_list_are_said(tmp_path: Path) -> None:
    s = _load(tmp_path, 'roots = "~/src/api"\n')
    assert s.roots == []
    assert s.problems == [
        f'{tmp_path / "config.toml"}: roots must be a list of folders, like roots = ["~/src/api"], '
        "got '~/src/api'; the default is used"
    ]


def test_each_bad_root_is_said_and_the_good_ones_kept(tmp_path: Path) -> None:
    s = _load(tmp_path, 'roots = ["~/ok", "relative", 3, "", "~no-such-user-here/x"]\n')
    assert s.roots == [Path.home() / "ok"]
    assert [p.rpartition(": ")[2] for p in s.problems] == [
        "roots #2 must be an absolute folder or start with ~, got 'relative'; ignored",
        "roots #3 must be an absolute folder or start with ~, got 3; ignored",
        "roots #4 must be an absolute folder or start with ~, got ''; ignored",
        "roots #5 must be an absolute folder or start with ~, got '~no-such-user-here/x'; ignored",
    ]


# ------------------------------------------------------------------ unknown keys, and what they were meant as


def test_a_notify_key_written_at_the_top_is_said_with_where_it_belongs(tmp_path: Path) -> None:
    # The mistake the issue names: no notification, and before this no word why.
    s = _load(tmp_path, 'notify_command = ["notify-send", "teamtui"]\n')
    assert s.notify.command == []
    assert s.problems == [
        f"{tmp_path / 'config.toml'}: notify_command is not a setting (did you mean [notify] command?); ignored"
    ]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Log-Lines = 5\n", "Log-Lines is not a setting (did you mean log_lines?); ignored"),
        ("max_pane = 5\n", "max_pane is not a setting (did you mean max_panes?); ignored"),
        ('command = ["x"]\n', "command is not a setting (did you mean [notify] command?); ignored"),
        ("[notify]\ncomand = []\n", "[notify] comand is not a setting (did you mean [notify] command?); ignored"),
        (
            "[notify]\nmute-minutes = 5\n",
            "[notify] mute-minutes is not a setting (did you mean [notify] mute_minutes?); ignored",
        ),
        # A top-level key written after a [table] header lands in that table.
        (
            '[notify]\nbell = false\ntheme = "nord"\n',
            "[notify] theme is not a setting (did you mean theme, at the top of the file before any [table]?); ignored",
        ),
        (
            '[[hosts]]\nname = "box"\nssh = "box"\nsssh = "x"\n',
            "[[hosts]] #1 (box) sssh is not a setting (did you mean [[hosts]] ssh?); ignored",
        ),
        ("colour_scheme_of_the_day = 1\n", "colour_scheme_of_the_day is not a setting; ignored"),
        ("[budget_alarms]\nx = 1\n", "budget_alarms is not a setting; ignored"),
    ],
)
def test_an_unknown_key_is_said_with_a_near_miss(tmp_path: Path, text: str, said: str) -> None:
    assert _said(tmp_path, text) == [said]


def test_a_wrong_type_names_the_key_the_file_and_the_value(tmp_path: Path) -> None:
    assert _said(tmp_path, 'log_lines = "many"\nteammate_mode = "panes"\n[notify]\nbell = "yes"\n') == [
        "log_lines must be a positive whole number, got 'many'; the default is used",
        "teammate_mode must be 'auto', 'in-process' or 'tmux', got 'panes'; the default is used",
        "[notify] bell must be true or false, got 'yes'; the default is used",
    ]


def test_one_bad_key_drops_only_that_key(tmp_path: Path) -> None:
    s = _load(
        tmp_path,
        'theme = "nord"\nlog_lines = 0\nnotify_command = ["x"]\nmax_panes = 3\nroots = ["/srv", 5]\n'
        '[keymap]\nquit = "ctrl+q"\nhelp = 1\n'
        '[notify]\nbell = false\nmute_minutes = "ten"\ncommand = ["notify-send", "teamtui"]\n'
        '[[hosts]]\nname = "box"\nssh = "-oProxyCommand=sh"\n'
        '[[hosts]]\nname = "gpu"\nssh = "me@gpu"\nport = 22\n',
    )
    assert len(s.problems) == 7, s.problems
    # Everything else in the file applies.
    assert (s.theme, s.max_panes, s.roots, s.keymap) == ("nord", 3, [Path("/srv")], {"quit": "ctrl+q"})
    assert s.notify == NotifySettings(bell=False, command=["notify-send", "teamtui"])
    assert s.hosts == [HostSettings("gpu", "me@gpu")]
    assert s.log_lines == 1000 and s.notify.mute_minutes == 30.0


def test_a_file_that_is_no_toml_is_said_and_the_defaults_used(tmp_path: Path) -> None:
    s = _load(tmp_path, "theme = \n")
    [problem] = s.problems
    s.problems = []
    assert s == Settings()
    assert problem.startswith(f"{tmp_path / 'config.toml'}: ") and problem.endswith("; using defaults")


def test_problems_is_no_key_of_the_file(tmp_path: Path) -> None:
    assert _said(tmp_path, 'problems = ["x"]\n') == ["problems is not a setting; ignored"]


def test_every_key_is_typed_and_documented() -> None:
    for table in (Settings, NotifySettings, HostSettings):
        for name, info in table.__pydantic_fields__.items():  # type: ignore[attr-defined]
            if name != "problems":
                assert info.description, f"{table.__name__}.{name} has no description"
                assert info.annotation is not None


# ------------------------------------------------------------------ where the problems are said


def _config(text: str) -> Path:
    from teamtui.protocol.settings import config_path

    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_doctor_says_what_is_wrong_with_the_file(cli, claude_root: Path) -> None:
    path = _config('notify_command = ["notify-send"]\nlog_lines = "all"\n')
    code, out, _err = cli("doctor", "--root", str(claude_root))
    assert code == 1, "a problem with the file is a finding"
    assert "settings: 2 problems (each left out, the rest applies)" in out
    assert f"  - {path}: notify_command is not a setting (did you mean [notify] command?); ignored" in out
    assert f"  - {path}: log_lines must be a positive whole number, got 'all'; the default is used" in out
    code, out, _err = cli("doctor", "--root", str(claude_root), "--json")
    import json

    said = json.loads(out)["settings"]
    assert said["path"] == str(path) and len(said["problems"]) == 2


def test_doctor_says_a_good_file_is_ok(cli, claude_root: Path) -> None:
    path = _config('theme = "nord"\n')
    code, out, _err = cli("doctor", "--root", str(claude_root))
    assert code == 0 and f"settings: {path}: ok" in out


def test_a_command_that_reads_the_file_says_its_problems_on_stderr(cli, tmp_path: Path) -> None:
    path = _config("fleet_keep_hour = 2\n")
    code, out, err = cli("status", "--all", "--root", str(tmp_path))
    assert code == 0
    assert f"teamtui: {path}: fleet_keep_hour is not a setting (did you mean fleet_keep_hours?); ignored" in err


def test_doctor_says_a_config_problem_once(cli, claude_root: Path) -> None:
    """The control room's problems start with config.toml's: doctor says those under settings only."""
    path = _config("fleet_keep_hour = 2\n")
    code, out, _err = cli("doctor", "--root", str(claude_root))
    line = f"{path}: fleet_keep_hour is not a setting (did you mean fleet_keep_hours?); ignored"
    assert code == 1 and out.count(line) == 1 and "control room:" not in out, out
    said = json.loads(cli("doctor", "--root", str(claude_root), "--json")[1])
    assert said["problems"] == [] and said["settings"]["problems"] == [line]


def test_doctor_says_the_keymap_problem_the_app_finds(cli, claude_root: Path) -> None:
    """A remap to a key a terminal sends as another: the app refuses it (a toast, the room's line);
    doctor says the very same words, not `config.toml: ok`."""
    from teamtui.tui.app import TeamTUI

    path = _config('[keymap]\nfilter_tasks = "ctrl+m"\nbroadcast = "w"\n')
    app = TeamTUI.watching(claude_root, None, None, config_path=path, cursor_blink=False)
    [refused] = app.settings.problems
    assert 'filter_tasks = "ctrl+m" is ignored: a terminal sends ctrl+m as enter' in refused
    code, out, _err = cli("doctor", "--root", str(claude_root))
    assert code == 1, "a refused remap is a finding"
    assert f"settings: 1 problem (each left out, the rest applies)\n  - {refused}\n" in out
    assert ": ok" not in out.split("prices:")[0]
    assert json.loads(cli("doctor", "--root", str(claude_root), "--json")[1])["settings"]["problems"] == [refused]
