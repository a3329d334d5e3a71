"""The [notify] table of config.toml: good values are taken, a bad one is said and its default kept."""

from __future__ import annotations

from pathlib import Path

from teamtui.protocol.settings import NotifySettings, load_settings


def _load(tmp_path: Path, text: str) -> tuple[NotifySettings, list[str]]:
    cfg = tmp_path / "config.toml"
    cfg.write_text(text, encoding="utf-8")
    s = load_settings(cfg)
    return s.notify, s.problems


def test_defaults_without_a_notify_table(tmp_path: Path) -> None:
    notify, problems = _load(tmp_path, 'theme = "x"\n')
    assert notify == NotifySettings()
    assert (notify.bell, notify.desktop, notify.command, notify.mute_minutes, notify.command_timeout) == (
        True,
        True,
        [],
        30.0,
        10.0,
    )
    assert problems == []


def test_good_values_are_taken(tmp_path: Path) -> None:
    notify, problems = _load(
        tmp_path,
        (
            "[notify]\n"
            "bell = false\n"
            "desktop = true\n"
            'command = ["notify-send", "teamtui"]\n'
            "command_timeout = 3\n"
            "mute_minutes = 5.5\n"
            "desktop_osc = [777, 777]\n"
        ),
    )
    assert problems == []
    assert notify == NotifySettings(
        bell=False,
        desktop=True,
        desktop_osc=[777],
        command=["notify-send", "teamtui"],
        command_timeout=3.0,
        mute_minutes=5.5,
    )


def test_bad_values_are_said_and_keep_their_default(tmp_path: Path) -> None:
    notify, problems = _load(
        tmp_path,
        (
            "[notify]\n"
            'bell = "yes"\n'
            "desktop = 1\n"
            'command = ["curl", 3]\n'
            "command_timeout = 0\n"
            "mute_minutes = -5\n"
            "desktop_osc = [99]\n"
            "comand = []\n"
        ),
    )
    assert notify == NotifySettings()
    assert len(problems) == 7, problems
    text = "\n".join(problems)
    for needle in (
        "[notify] bell must be true or false, got 'yes'; the default is used",
        "[notify] desktop must be true or false, got 1; the default is used",
        "[notify] command must be a program and its arguments as a list of strings",
        "[notify] command_timeout must be a positive number of seconds, got 0; the default is used",
        "[notify] mute_minutes must be a positive number of minutes, got -5; the default is used",
        "[notify] desktop_osc must be a list of 9 and/or 777, got [99]; the default is used",
        "[notify] comand is not a setting (did you mean [notify] command?); ignored",
    ):
        assert needle in text, needle
    assert all(p.startswith(str(tmp_path / "config.toml")) for p in problems)


def test_a_command_given_as_a_string_is_refused_without_echoing_it(tmp_path: Path) -> None:
    # A webhook URL is a secret: the problem says what is wrong, never the value.
    notify, problems = _load(tmp_path, '[notify]\ncommand = "curl https://hooks.example/T0/SECRET"\n')
    assert notify.command == []
    assert len(problems) == 1 and "got a string" in problems[0] and "SECRET" not in problems[0]


def test_an_empty_command_means_none(tmp_path: Path) -> None:
    notify, problems = _load(tmp_path, "[notify]\ncommand = []\n")
    assert notify.command == [] and problems == []


def test_notify_that_is_no_table(tmp_path: Path) -> None:
    notify, problems = _load(tmp_path, "notify = false\n")
    assert notify == NotifySettings()
    assert len(problems) == 1 and "notify must be a table" in problems[0]


def test_other_settings_still_load_beside_a_bad_notify_table(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('theme = "mine"\n[notify]\nbell = "no"\n', encoding="utf-8")
    s = load_settings(cfg)
    assert s.theme == "mine" and s.notify.bell is True and len(s.problems) == 1
