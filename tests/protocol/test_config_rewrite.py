"""A config.json rewritten in place by its peer (empty, then whole) while a one-shot command reads
it: `status`, `status --all` and `broadcast` see the whole team, not an empty one; a config that stays
broken is still said, after a bounded wait. The room keeps its last good config and waits for the
rewrite's own event instead (test_a_watcher_keeps_its_read_and_waits_for_the_rewrites_event)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from teamtui.protocol.claude import ClaudeTeam
from teamtui.protocol.state import TeamState
from tests.conftest import Run

TEAM = "work-team"


@contextmanager
def rewritten(config: Path, empty_for: float) -> Iterator[None]:
    """config.json as a peer rewriting it in place leaves it: truncated, then (after `empty_for`
    seconds) written whole again. The body runs while the file is empty."""
    whole = config.read_bytes()
    config.write_bytes(b"")

    def finish() -> None:
        time.sleep(empty_for)
        config.write_bytes(whole)

    writer = threading.Thread(target=finish)
    writer.start()
    try:
        yield
    finally:
        writer.join()


def members(claude_root: Path) -> list[str]:
    return sorted(m["name"] for m in json.loads((claude_root / "teams" / TEAM / "config.json").read_text())["members"])


def test_status_caught_during_a_rewrite_shows_the_whole_team(cli: Run, claude_root: Path) -> None:
    expected = [n for n in members(claude_root) if n != "team-lead"]
    with rewritten(claude_root / "teams" / TEAM / "config.json", empty_for=0.15):
        code, out, err = cli("status", "--json", "--root", str(claude_root), "--team", TEAM)
    assert code == 0, err
    data = json.loads(out)
    assert sorted(m["name"] for m in data["members"]) == expected
    assert data["errors"] == []


def test_status_all_caught_during_a_rewrite_counts_every_member(cli: Run, claude_root: Path) -> None:
    code, out, err = cli("status", "--all", "--json", str(claude_root))
    assert code == 0, err
    before = next(r for r in json.loads(out) if r["team"] == TEAM)
    with rewritten(claude_root / "teams" / TEAM / "config.json", empty_for=0.15):
        code, out, err = cli("status", "--all", "--json", str(claude_root))
    assert code == 0, err
    during = next(r for r in json.loads(out) if r["team"] == TEAM)
    assert during["members"] == before["members"] and during["errors"] == 0


def test_a_config_that_stays_broken_is_said_after_the_wait(cli: Run, claude_root: Path) -> None:
    config = claude_root / "teams" / TEAM / "config.json"
    config.write_text('{"name": "work-team", "members": [')  # cut short, and nobody finishes it
    code, out, err = cli("status", "--json", "--root", str(claude_root), "--team", TEAM)
    assert code == 0, err
    data = json.loads(out)
    assert data["members"] == []
    assert [e["reason"] for e in data["errors"] if e["path"] == str(config)] == [
        "invalid JSON: Expecting value at line 1 column 35"
    ]


def test_a_watcher_keeps_its_read_and_waits_for_the_rewrites_event(claude_root: Path) -> None:
    """No settle for the room: it does not sleep on the loop, and the rewrite's own event brings the
    config (here, the next apply)."""
    config = claude_root / "teams" / TEAM / "config.json"
    state = TeamState(ClaudeTeam(claude_root, TEAM))
    with rewritten(config, empty_for=0.15):
        state.load_all()
        assert state.config is None and [e.reason for e in state.all_errors()] == ["empty file"]
    state.apply(config)
    assert state.config is not None and state.all_errors() == []


def test_a_broadcast_during_a_rewrite_reaches_every_member(cli: Run, claude_root: Path) -> None:
    expected = [n for n in members(claude_root) if n != "team-lead"]
    with rewritten(claude_root / "teams" / TEAM / "config.json", empty_for=0.15):
        code, out, err = cli("broadcast", "all hands", "--root", str(claude_root), "--team", TEAM)
    assert code == 0, err
    got = []
    for name in expected:
        inbox = json.loads((claude_root / "teams" / TEAM / "inboxes" / f"{name}.json").read_text())
        got += [name for m in inbox if m["text"] == "all hands"]
    assert got == expected
