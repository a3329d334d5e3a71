"""The lead's non-blocking shutdown for the dashboard (`Lead.request_shutdown`), its ladder, and
its health check, with a real lead and real teammate processes."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from pathlib import Path

import pytest
from watchfiles import watch

from teamtui.runtime.lead import Lead, LeadEvent
from teamtui.protocol.shutdown import Outcome
from teamtui.runtime.teamfile import load_team_file

from .helpers import WORKER, processes_of, tasks_on_disk, team_toml, wait_until


class Running:
    """A lead on a thread of its own, as `teamtui run` runs it under the dashboard."""

    def __init__(self, tmp_path: Path, toml: str):
        tf = tmp_path / "team.toml"
        tf.write_text(toml)
        self.root = tmp_path
        self.events: list[LeadEvent] = []
        self.lead = Lead(load_team_file(tf), tmp_path, on_event=self.events.append)
        self.result: list = []
        self.ended = threading.Event()
        self.thread = threading.Thread(target=self._run, name="test-lead")

    def _run(self) -> None:
        try:
            self.result.append(asyncio.run(self.lead.run()))
        finally:
            self.ended.set()

    def __enter__(self) -> "Running":
        self.thread.start()
        assert self.lead.started.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self.lead.stop("test over", 0)
        self.thread.join(30)
        assert not self.thread.is_alive()

    def wait_working(self, count: int) -> None:
        def working() -> bool:
            return sum(t["status"] == "in_progress" for t in tasks_on_disk(self.root).values()) >= count

        wait_until([self.root], working)

    def texts(self) -> list[str]:
        return [e.text for e in self.events]


class Progress:
    """Collects what `on_progress` receives, and on which thread."""

    def __init__(self) -> None:
        self.snapshots: list = []
        self.threads: set[int] = set()
        self.first_after_return: bool | None = None
        self.returned = threading.Event()
        self.changed = threading.Condition()

    def __call__(self, snap) -> None:
        if self.first_after_return is None:
            # Had request_shutdown waited for the run to start, this would wait in vain.
            self.first_after_return = self.returned.wait(10)
        self.threads.add(threading.get_ident())
        with self.changed:
            self.snapshots.append(snap)
            self.changed.notify_all()

    def wait_for(self, predicate, timeout: float = 30) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: predicate(self.snapshots), timeout), self.snapshots


def _finals(snap) -> int:
    return sum(t.outcome.final for t in snap.teammates.values())


def test_request_shutdown_returns_at_once_and_reports_each_change_in_order(tmp_path, monkeypatch):
    monkeypatch.setenv("WORK", "1")
    toml = team_toml(
        "snap", teammates=["a", "b"], tasks=[("one", []), ("two", []), ("three", [1, 2])], settings="restarts = 0\n"
    )
    with Running(tmp_path, toml) as team:
        team.wait_working(2)
        progress = Progress()
        assert team.lead.request_shutdown("from the dashboard", 10, progress) is None
        progress.returned.set()
        progress.wait_for(lambda snaps: snaps and snaps[-1].finished_at is not None and snaps[-1].results_written)
        team.thread.join(30)
    snaps = progress.snapshots
    assert progress.first_after_return is True
    assert progress.threads == {team.thread.ident}  # always the lead's thread, never the caller's
    first, last = snaps[0], snaps[-1]
    # The run as it starts: one request each, nobody answered yet.
    assert set(first.teammates) == {"a", "b"}
    assert all(t.request_id and t.outcome is Outcome.REQUESTED for t in first.teammates.values())
    assert first.reason == "from the dashboard" and first.deadline_seconds == 10
    # Every change after: answers only accumulate, and the last snapshot is the finished run.
    assert [_finals(s) for s in snaps] == sorted(_finals(s) for s in snaps)
    assert {n: t.outcome for n, t in last.teammates.items()} == {"a": Outcome.CLEAN, "b": Outcome.CLEAN}
    assert last.done and len(last.results_written) == 2
    # Snapshots are copies the lead no longer touches.
    assert all(t.outcome is Outcome.REQUESTED for t in first.teammates.values())
    assert len({id(s) for s in snaps}) == len(snaps) and all(s is not team.lead.shutdown_run for s in snaps)
    assert team.result and team.result[0].code == 0
    assert processes_of(tmp_path) == []


def test_a_teammate_ignoring_the_request_is_terminated_then_killed(tmp_path, monkeypatch):
    monkeypatch.setenv("WORK", "0.2")
    stubborn = f'sleep 300 & IGNORE_SHUTDOWN=1 WORK=60 exec "$TEAMTUI_PYTHON" {WORKER}'
    toml = team_toml(
        "stub",
        teammates=["good", "stubborn"],
        tasks=[("one", []), ("two", []), ("three", [1, 2])],
        settings="shutdown_grace = 0.5\nrestarts = 0\n",
        commands={"stubborn": stubborn},
    )
    with Running(tmp_path, toml) as team:
        # good has done its task and waits for #3; stubborn holds the other for a minute.
        statuses = lambda: sorted(t["status"] for t in tasks_on_disk(tmp_path).values())  # noqa: E731
        wait_until([tmp_path], lambda: statuses() == ["completed", "in_progress", "pending"])
        progress = Progress()
        progress.returned.set()
        team.lead.request_shutdown("stop now", 0.5, progress)
        progress.wait_for(lambda snaps: snaps and snaps[-1].results_written)
        team.thread.join(30)
    snaps = progress.snapshots
    assert {n: t.outcome for n, t in snaps[-1].teammates.items()} == {
        "good": Outcome.CLEAN,
        "stubborn": Outcome.TIMED_OUT,
    }
    # The deadline's verdict reached the listener as a change of its own, before the run was closed.
    timed_out = next(i for i, s in enumerate(snaps) if s.teammates["stubborn"].outcome is Outcome.TIMED_OUT)
    assert timed_out < len(snaps) - 1
    assert snaps[timed_out].teammates["good"].outcome is Outcome.CLEAN
    texts = team.texts()
    term, kill = texts.index("sending SIGTERM to stubborn"), texts.index("sending SIGKILL to stubborn")
    assert term < kill
    assert not any("SIGTERM to good" in t or "SIGKILL to good" in t for t in texts)
    stubborn_log = (tmp_path / ".teams/stub/logs/stubborn.jsonl").read_text()
    pid = int(stubborn_log.split("(pid ", 1)[1].split(")", 1)[0])
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert processes_of(tmp_path) == []  # the `sleep` in its group went too


def test_no_run_is_reported_when_the_lead_is_already_stopping_or_ended(tmp_path, monkeypatch):
    monkeypatch.setenv("WORK", "0.5")
    toml = team_toml("twice", teammates=["a"], tasks=[("one", []), ("two", [1])])
    with Running(tmp_path, toml) as team:
        team.wait_working(1)
        first, second = Progress(), Progress()
        first.returned.set()
        second.returned.set()
        team.lead.request_shutdown("first", 10, first)
        first.wait_for(lambda snaps: len(snaps) >= 1)
        team.lead.request_shutdown("second", 10, second)
        second.wait_for(lambda snaps: len(snaps) >= 1)
        assert second.snapshots == [None]
        assert first.snapshots[0] is not None
        team.thread.join(30)
    ended = Progress()
    ended.returned.set()
    team.lead.request_shutdown("too late", 10, ended)
    ended.wait_for(lambda snaps: len(snaps) >= 1)
    assert ended.snapshots == [None]
    assert threading.get_ident() not in ended.threads


def test_config_never_gets_a_health_key(tmp_path, monkeypatch):
    """The lead's health is its own: writing it into config.json would make every dashboard reload the config."""
    monkeypatch.setenv("WORK", "0.1")
    toml = team_toml("quiet", teammates=["a", "b"], tasks=[("one", []), ("two", []), ("three", [1]), ("four", [2, 3])])
    seen: list[dict] = []
    with Running(tmp_path, toml) as team:
        config = tmp_path / ".teams/quiet/config.json"
        for _ in watch(config.parent, stop_event=team.ended, debounce=5, step=5, rust_timeout=30_000):
            seen.append(json.loads(config.read_text()))
    seen.append(json.loads(config.read_text()))
    assert team.result and team.result[0].code == 0
    assert any(m.get("pid") for c in seen for m in c["members"])  # it did watch the teammates run
    assert all("health" not in m for c in seen for m in c["members"])


def test_a_silent_teammate_holding_a_task_disappears_and_comes_back(tmp_path, monkeypatch):
    """The lead's health check (the shared rule): silent past health_timeout while holding a task."""
    monkeypatch.setenv("WORK", "2")
    toml = team_toml(
        "silent", teammates=["a"], tasks=[("slow", [])], settings='health_timeout = 0.5\non_disappeared = "flag"\n'
    )
    with Running(tmp_path, toml) as team:
        team.thread.join(30)
    texts = team.texts()
    gone = texts.index("a disappeared: no activity for 0.5s while holding a task")
    back = texts.index("a is active again")
    assert gone < back < texts.index("the 1 task completed")
    assert team.result[0].code == 0
