"""A source offers what it really has and nothing else: this machine's finds teams, takes what
its lead drains, follows the hooks and drops its old ended teams; a host is asked over its stream. A room of hosts alone
asks none of them for what only this machine has."""

from __future__ import annotations

from pathlib import Path

from teamtui.session.fleet import Fleet
from teamtui.session.source import AnswersLoose, AsksHosts, FindsTeams, FollowsHooks, Prunes, TakesDrained

from .conftest import Remote, empty_local_fleet


def test_each_source_offers_only_what_it_has(remote: Remote, tmp_path: Path) -> None:
    local, host = empty_local_fleet(tmp_path), remote.host()
    assert all(isinstance(local, c) for c in (FindsTeams, TakesDrained, FollowsHooks, AnswersLoose, Prunes))
    assert not isinstance(local, AsksHosts), "the room asks this machine's database itself"
    assert isinstance(host, AsksHosts) and isinstance(host, AnswersLoose)
    assert not any(isinstance(host, c) for c in (FindsTeams, TakesDrained, FollowsHooks, Prunes))
    fleet = Fleet([host])
    assert fleet.looked_at() == [] and fleet.left_out() == [] and fleet.ingest("lead", []) == {} and fleet.prune() == []
    assert fleet.hook_spool is None and not fleet.recheck_hooks() and fleet.hook_news() == []
    assert fleet.next_hook_deadline() is None
    assert [name for name, _ in fleet.loose()] == [host.name]
