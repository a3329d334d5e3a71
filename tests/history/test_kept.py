"""What a team cost and what its teammates changed, kept in the history as it happens: each
teammate's cost per local day (genai-prices' own figures, to the digit), each edit with its counts
and hunks (the hunks bounded per team, every edit recorded once however many recorders saw it),
`teamtui history` listing each team's cost, and an ended team read back with both."""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from teamtui.protocol.claude import ClaudeTeam
from teamtui.protocol.cost import PRICES
from teamtui.protocol.history import db_path, ops
from teamtui.protocol.history.query import (
    load_state,
    open_history,
    spend_by_day,
    spend_by_team,
    team_by_key,
    team_costs,
    team_edits,
)
from teamtui.protocol.history.recorder import ident_of
from teamtui.protocol.history.writer import shared_writer
from teamtui.session.local_team import open_local
from tests.conftest import EDITS
from tests.tui.test_cost_screens import TEAM as COST_TEAM, claude_team, library

EDITS_TEAM = "session-48868de5"


def read_whole(store: ClaudeTeam):
    """A team opened as the room opens it (its recorder attached), its transcripts read whole, priced."""
    PRICES.load()
    session, state = open_local(store, log_limit=1000, health_timeout=60.0)
    state.load_all()
    state.load_transcripts()
    assert shared_writer().flush(10)
    return session, state


def history():
    return open_history(db_path(), import_journals=False)


def test_each_teammates_cost_per_day_is_kept_as_genai_prices_says_and_an_ended_team_shows_it(tmp_path: Path, cli):
    root, paths = claude_team(tmp_path)
    store = ClaudeTeam(root, COST_TEAM)
    _, state = read_whole(store)
    want = library(paths)
    assert state.transcripts.cost() == want  # what the room shows: the library's own figure
    con = history()
    ident = ident_of(store)
    team = team_by_key(con, (ident.layout, ident.root, ident.name))
    assert team is not None
    usd, unknown = spend_by_team(con)[team.id]
    assert usd == want.usd and unknown  # claude-fable-9 has no price: said, never guessed
    assert spend_by_day(con) == {d: v for d, v in want.days.items() if v}  # per local day, across teams
    kept = team_costs(con, team.id)
    for member in ("alice", "bob"):
        assert kept[member].days == library(paths, member).days, member
        assert sum(kept[member].day_tokens[d][1] for d in kept[member].day_tokens) > 0  # output tokens per day
    # Read again (a second room, a restart): the same rows, not twice the cost.
    read_whole(ClaudeTeam(root, COST_TEAM))
    assert spend_by_team(history())[team.id] == (want.usd, True)
    # The team ended and its folder went: read back from the history alone, it shows its cost.
    shutil.rmtree(root / "teams")
    ended = load_state(history(), team.id)
    assert ended.transcripts.cost().usd == want.usd
    assert ended.transcripts.member_cost("alice").days == library(paths, "alice").days
    # `teamtui history` lists it with its cost; --json says it exactly.
    code, out, err = cli("history")
    assert code == 0, err
    line = next(li for li in out.splitlines() if li.startswith(COST_TEAM))
    from teamtui.protocol.cost import money

    assert f"{money(want.usd)} + price unknown" in line
    code, out, _ = cli("history", "--json")
    (row,) = [t for t in json.loads(out)["teams"] if t["team"] == COST_TEAM]
    assert Decimal(row["cost"]["usd"]) == want.usd and row["cost"]["price_unknown"] is True
    code, out, _ = cli("history", COST_TEAM)
    assert "alice cost $" in out and " on 20" in out  # each day's figure, in the team's record


def edits_team(tmp_path: Path, where: str = "t") -> ClaudeTeam:
    root = tmp_path / where / ".claude"
    shutil.copytree(EDITS, root)
    return ClaudeTeam(root, EDITS_TEAM)


def test_every_edit_is_kept_with_its_counts_and_hunks_once(tmp_path: Path) -> None:
    store = edits_team(tmp_path)
    _, state = read_whole(store)
    seen = {
        (e.member, e.path, e.tool, e.added, e.removed)
        for e in state.transcripts.edits.edits("alice", "/src/app/app.py")
    }
    con = history()
    ident = ident_of(store)
    team = team_by_key(con, (ident.layout, ident.root, ident.name))
    kept = team_edits(con, team.id)
    assert {(e.member, e.path, e.tool, e.added, e.removed) for e in kept if e.member == "alice"} == seen
    assert sorted(e.member for e in kept) == ["alice", "alice", "bob"]
    live = state.transcripts.edits.edits("bob", "/src/app/app.py")[0]
    (bob,) = [e for e in kept if e.member == "bob"]
    assert bob.hunks == live.hunks and bob.at == live.at and not bob.dropped  # the diff itself
    read_whole(ClaudeTeam(store.root, EDITS_TEAM))  # the same files read again by another recorder: nothing twice
    assert len(team_edits(history(), team.id)) == 3
    hits = history().execute("SELECT count(*) FROM search WHERE search MATCH 'app'").fetchone()[0]
    assert hits >= 1  # the changed file's path is searchable


def test_a_teams_diffs_in_the_history_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ops, "DIFF_BUDGET", 100)  # characters of diff text a team keeps (8 MiB in use)
    store = edits_team(tmp_path)
    read_whole(store)
    con = history()
    ident = ident_of(store)
    team = team_by_key(con, (ident.layout, ident.root, ident.name))
    kept = team_edits(con, team.id)
    assert len(kept) == 3  # every edit: its path and counts
    assert any(e.dropped and not e.hunks for e in kept)  # past the budget: the counts only
    held = sum(len(x) for e in kept for h in e.hunks for x in h.lines)
    assert 0 < held <= 100  # the first recorded kept its hunks (65-86 characters each); the others past it
    assert sum(not e.dropped for e in kept) == 1
