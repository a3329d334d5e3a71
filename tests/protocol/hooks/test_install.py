"""`teamtui hooks install|uninstall|status` on real settings files, through the CLI."""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from teamtui.protocol.hooks.event import INSTALLED_EVENTS
from teamtui.protocol.hooks.install import is_ours, uninstalled
from tests.conftest import Run

# A user's settings as they might be: other keys, and a hook of their own on two events we use.
USERS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(make test)"], "defaultMode": "default"},
    "hooks": {
        "Notification": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send 'Claude'"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh", "timeout": 5}]}],
    },
    "statusLine": {"type": "command", "command": "~/bin/status.sh"},
}


def settings_at(home: Path) -> Path:
    return home / ".claude" / "settings.json"


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))


def _ours(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    return {
        e: [h for g in groups for h in g["hooks"] if is_ours(h.get("command"))]
        for e, groups in data.get("hooks", {}).items()
    }


@pytest.fixture
def home() -> Path:
    return Path(os.environ["HOME"])


def test_install_adds_exactly_the_events_and_keeps_everything_of_the_users(cli: Run, home: Path) -> None:
    path = settings_at(home)
    _write(path, USERS)
    code, out, err = cli("hooks", "install")
    assert code == 0, err
    data = json.loads(path.read_text())
    assert {k: v for k, v in data.items() if k != "hooks"} == {k: v for k, v in USERS.items() if k != "hooks"}
    ours = _ours(data)
    assert sorted(e for e, entries in ours.items() if entries) == sorted(INSTALLED_EVENTS)
    assert not ours["PreToolUse"]  # never a per-tool event
    for event in INSTALLED_EVENTS:
        (entry,) = ours[event]
        words = shlex.split(entry["command"])
        assert os.path.isabs(words[0]) and words[-1] == "hook"
        assert entry["type"] == "command" and entry["timeout"] >= (3600 if event == "PermissionRequest" else 10)
    # The user's own hooks are still there, untouched, ahead of ours.
    assert data["hooks"]["Notification"][0] == USERS["hooks"]["Notification"][0]
    assert data["hooks"]["PreToolUse"] == USERS["hooks"]["PreToolUse"]
    assert data["hooks"]["PermissionRequest"][0]["matcher"] == "*"
    backups = list(path.parent.glob("settings.json.teamtui*.bak"))
    assert backups == [path.parent / "settings.json.teamtui.bak"] and json.loads(backups[0].read_text()) == USERS
    assert f"the previous file is kept as {backups[0]}" in out


def test_install_twice_changes_nothing_and_keeps_no_second_backup(cli: Run, home: Path) -> None:
    path = settings_at(home)
    _write(path, USERS)
    cli("hooks", "install")
    once = path.read_bytes()
    code, out, _ = cli("hooks", "install")
    assert code == 0 and "nothing changed" in out
    assert path.read_bytes() == once
    assert len(list(path.parent.glob("settings.json.teamtui*.bak"))) == 1


def test_install_into_no_file_creates_one_private_to_the_user(cli: Run, home: Path) -> None:
    path = settings_at(home)
    assert cli("hooks", "install")[0] == 0
    assert sorted(json.loads(path.read_text())["hooks"]) == sorted(INSTALLED_EVENTS)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_an_old_install_at_another_path_is_replaced_not_doubled(cli: Run, home: Path) -> None:
    path = settings_at(home)
    old = {
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/old/venv/bin/teamtui hook", "timeout": 10}]}]}
    }
    _write(path, old)
    cli("hooks", "install")
    (entry,) = _ours(json.loads(path.read_text()))["Stop"]
    assert not entry["command"].startswith("/old/")


@pytest.mark.parametrize(
    "text, why",
    [
        ('{"model": "opus",}', "not valid JSON"),
        ("[1, 2]", "not an object"),
        ('{"hooks": ["Stop"]}', '"hooks" is not an object'),
        ('{"hooks": {"Stop": {"command": "x"}}}', '"hooks.Stop" is not a list'),
    ],
)
def test_a_settings_file_it_cannot_use_is_left_untouched_with_the_reason(
    cli: Run, home: Path, text: str, why: str
) -> None:
    path = settings_at(home)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    code, _, err = cli("hooks", "install")
    assert code == 1 and why in err and "left untouched" in err
    assert path.read_text() == text
    assert list(path.parent.glob("*.bak")) == []


def test_uninstall_removes_only_teamtuis_entries(cli: Run, home: Path) -> None:
    path = settings_at(home)
    _write(path, USERS)
    cli("hooks", "install")
    code, out, _ = cli("hooks", "uninstall")
    assert code == 0 and "removed teamtui's hooks" in out
    assert json.loads(path.read_text()) == USERS  # every key and hook of the user's as it was
    assert cli("hooks", "uninstall")[1].startswith("no teamtui hook")


def test_uninstall_of_a_file_that_held_only_teamtuis_hooks_leaves_no_hooks_key(cli: Run, home: Path) -> None:
    path = settings_at(home)
    _write(path, {"model": "opus"})
    cli("hooks", "install")
    cli("hooks", "uninstall")
    assert json.loads(path.read_text()) == {"model": "opus"}


def test_one_backup_however_often_it_writes_each_named_where_it_is(cli: Run, home: Path) -> None:
    """Install, uninstall, install, uninstall: one backup, the file before the last write, and
    each write says where it is; a backup an earlier version left per write goes."""
    path = settings_at(home)
    _write(path, USERS)
    legacy = path.parent / "settings.json.teamtui-20261101-120000-ab12.bak"
    legacy.write_text("{}")
    backup = path.parent / "settings.json.teamtui.bak"
    for command in ("install", "uninstall", "install", "uninstall"):
        code, out, err = cli("hooks", command)
        assert code == 0, err
        assert f"the previous file is kept as {backup}" in out
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json", "settings.json.teamtui.bak"]
    assert json.loads(path.read_text()) == USERS
    assert json.loads(backup.read_text()) != USERS and uninstalled(json.loads(backup.read_text())) == USERS, (
        "the file as it was before the last uninstall"
    )


def test_install_then_uninstall_in_a_project_without_settings_leaves_nothing(cli: Run, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    for _ in range(2):
        assert cli("hooks", "install", "--project", str(project))[0] == 0
    code, out, err = cli("hooks", "uninstall", "--project", str(project))
    assert code == 0, err
    assert "the file is removed" in out and "kept as" not in out
    assert list(project.iterdir()) == [], "no settings.local.json holding {}, no backup, no .claude"
    assert cli("hooks", "uninstall", "--project", str(project))[1].startswith("no teamtui hook")


def test_uninstall_keeps_a_folder_and_a_backup_that_hold_the_users(cli: Run, tmp_path: Path) -> None:
    """The file held only teamtui's hooks by the uninstall, but the backup still holds a key of the
    user's (removed by hand since): that backup stays, and so does the folder with other files."""
    project = tmp_path / "proj"
    local = project / ".claude" / "settings.local.json"
    _write(local, {"model": "opus"})
    (project / ".claude" / "commands").mkdir()
    cli("hooks", "install", "--project", str(project))
    local.write_text(json.dumps({"hooks": json.loads(local.read_text())["hooks"]}))
    code, out, _ = cli("hooks", "uninstall", "--project", str(project))
    backup = local.with_name("settings.local.json.teamtui.bak")
    assert code == 0 and "the file is removed" in out and f"kept as {backup}" in out
    assert not local.exists() and json.loads(backup.read_text()) == {"model": "opus"}
    assert sorted(p.name for p in local.parent.iterdir()) == ["commands", "settings.local.json.teamtui.bak"]


def test_claude_config_dir_is_where_the_user_settings_are(
    cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc"))
    assert cli("hooks", "install")[0] == 0
    assert sorted(json.loads((tmp_path / "cc" / "settings.json").read_text())["hooks"]) == sorted(INSTALLED_EVENTS)


def test_project_install_writes_its_settings_local_json(cli: Run, tmp_path: Path, home: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    assert cli("hooks", "install", "--project", str(project))[0] == 0
    local = project / ".claude" / "settings.local.json"
    assert sorted(json.loads(local.read_text())["hooks"]) == sorted(INSTALLED_EVENTS)
    assert not settings_at(home).exists()


def test_status_says_what_is_installed_where_and_whether_it_runs(
    cli: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = settings_at(home)
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli("hooks", "status")
    assert "no teamtui hook" in out and "teamtui hooks install" in out
    # This teamtui is run as `python -m teamtui` here: the command is this interpreter's.
    cli("hooks", "install")
    code, out, _ = cli("hooks", "status", "--json")
    report = json.loads(out)
    user = report["files"][0]
    assert user["path"] == str(path) and sorted(user["events"]) == sorted(INSTALLED_EVENTS) and user["missing"] == []
    ((command, check),) = user["commands"].items()
    assert check == {"runs": True, "problem": ""}, command
    # Moved away: status says it no longer runs.
    data = json.loads(path.read_text())
    for groups in data["hooks"].values():
        for g in groups:
            for h in g["hooks"]:
                h["command"] = str(tmp_path / "gone" / "teamtui") + " hook"
    path.write_text(json.dumps(data))
    code, out, _ = cli("hooks", "status")
    assert "does NOT run" in out and "does not exist" in out


def test_the_command_written_is_this_teamtuis_absolute_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from teamtui.protocol.hooks.install import this_teamtui

    script = tmp_path / "bin" / "teamtui"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    monkeypatch.setattr(sys, "argv", [str(script), "hooks", "install"])
    assert this_teamtui() == [str(script)]
    monkeypatch.setattr(sys, "argv", ["/nowhere/__main__.py", "hooks"])
    monkeypatch.setenv("PATH", "/nonexistent")
    assert this_teamtui() == [os.path.abspath(sys.executable), "-m", "teamtui"]


@pytest.mark.parametrize(
    "command, ours",
    [
        ("/home/me/.local/bin/teamtui hook", True),
        ("'/opt/my tools/teamtui' hook", True),
        ("/usr/bin/python3 -m teamtui hook", True),
        ("/home/me/bin/teamtui-hook.sh", False),
        ("teamtui hooks", False),
        ("/usr/bin/notteamtui hook", False),
        ("echo teamtui hook", False),
        ("unbalanced 'quote", False),
    ],
)
def test_what_counts_as_teamtuis_entry(command: str, ours: bool) -> None:
    assert is_ours(command) is ours
