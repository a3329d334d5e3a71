"""A person restarts a stuck teammate where `teamtui run` leads it: the ask goes into the running
lead's inbox (need_answers.ask_restart, what `teamtui answer stuck:…|gone:… restart` calls), and the
lead stops the teammate, puts its task back without counting a failure, and starts it again."""

from __future__ import annotations

from pathlib import Path

import pytest

from teamtui.protocol import need_answers
from teamtui.protocol.errors import UnsupportedError
from teamtui.protocol.hooks import journal
from teamtui.protocol.hooks.place import ensure_spool
from teamtui.protocol.native import NativeTeam

from .helpers import tasks_on_disk, team_toml, wait_until
from .test_request_shutdown import Running


def test_a_restart_asked_of_the_running_lead_restarts_the_teammate_uncounted(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("WORK", "60")  # it holds its task for a minute: the person wants it restarted
    toml = team_toml("rs", teammates=["a"], tasks=[("slow", [])], settings="restarts = 0\n")
    with Running(tmp_path, toml) as team:
        team.wait_working(1)
        store = NativeTeam(tmp_path, "rs")
        slot = team.lead.teammates.by_name["a"]
        first = slot.proc.pid if slot.proc else None
        rid = need_answers.ask_restart(store, "a", "stuck on the network", "teamtui")
        wait_until([tmp_path], lambda: slot.runs == 2 and slot.proc is not None and slot.proc.pid != first)
        task = next(iter(tasks_on_disk(tmp_path).values()))
        assert task.get("metadata", {}).get("failure_count", 0) == 0  # a person's restart is no failure
        texts = team.texts()
        assert any("asked to restart a (stuck on the network)" in t for t in texts), texts
        assert any("restarting a: a person asked for it" in t for t in texts), texts
    (entry,) = [j for j in journal.read(ensure_spool()) if j.get("decision") == "restart"]
    assert (entry["target"], entry["request_id"], entry["team"]) == ("a", rid, "rs")


def test_without_a_running_lead_a_restart_cannot_be_asked(tmp_path: Path) -> None:
    store = NativeTeam.create_team(tmp_path, "idle")
    store.add_member("a")
    with pytest.raises(UnsupportedError, match="no `teamtui run` leads idle"):
        need_answers.ask_restart(store, "a", "", "teamtui")
