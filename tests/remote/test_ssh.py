"""Teams on another machine over a real OpenSSH server (tests/remote/conftest.py): they appear,
follow what changes there, take a message (written there, by the remote, under its honest sender),
and the connection dying is seen, said and recovered from."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

import psutil
import pytest

from teamtui import __version__
from teamtui.protocol.claude import ClaudeTeam
from teamtui.protocol.errors import ProtocolError
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.state import TeamState
from teamtui.session.alerts import Alerts
from teamtui.session.fleet import Fleet
from teamtui.session.remote import RemoteHost
from tests.conftest import ask_permission, shutdown_through_the_lead

from .conftest import CLAUDE_TEAM, NATIVE_TEAM, Remote, empty_local_fleet, following


def claude_inbox(remote: Remote, member: str) -> list[dict]:
    return json.loads((remote.claude / "teams" / CLAUDE_TEAM / "inboxes" / f"{member}.json").read_text())


def native_inbox(remote: Remote, member: str) -> list[dict]:
    path = remote.project / ".teams" / NATIVE_TEAM / f"{member}_inbox.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def stream_process(remote: Remote) -> tuple[int, psutil.Process]:
    """The sshd child serving this test's connection, and the `teamtui stream` process under it."""
    for pid in remote.sshd.children():
        for proc in psutil.Process(pid).children(recursive=True):
            try:
                cmd = proc.cmdline()
            except psutil.Error:
                continue
            if "stream" in cmd and "teamtui" in cmd and str(remote.project) in cmd:
                return pid, proc
    raise AssertionError("no teamtui stream process under sshd")


async def test_the_remote_teams_appear_with_their_state(remote: Remote) -> None:
    host = remote.host()
    async with following(host) as feed:
        await feed.until(lambda: host.connected, "connected")
        assert set(host.sessions) == {remote.native_key, remote.claude_key}
        native = host.sessions[remote.native_key]
        state = native.state
        assert state.config is not None and {m.name for m in state.config.members} >= {"hunter", "scout"}
        assert state.tasks and state.messages and state.logs
        assert native.state.traits.layout == "native" and native.live and not native.read_only
        claude = host.sessions[remote.claude_key]
        assert claude.state.traits.shutdown_via_lead and claude.sender == "teamtui"
        # The Claude Code team's logs are its transcripts, read there.
        await feed.until(lambda: any(claude.state.logs.values()), "the transcripts' lines")
        rows = {r.team.key: r for r in host.rows(host.clock())}
        assert set(rows) == {remote.native_key, remote.claude_key}
        assert rows[remote.native_key].cwd.startswith("box:") and rows[remote.native_key].problem is None
        assert rows[remote.claude_key].lead == "alive"
        assert host.remote_version and host.dropped == 0


async def test_a_change_there_reaches_the_local_state(remote: Remote) -> None:
    host = remote.host()
    team = NativeTeam(remote.project, NATIVE_TEAM)
    async with following(host) as feed:
        await feed.until(lambda: host.connected, "connected")
        state = host.sessions[remote.native_key].state
        task = team.create_task("written on the other machine")
        await feed.until(lambda: task.id in state.tasks, "the new task")
        assert state.tasks[task.id].subject == "written on the other machine"
        team.log("hunter", "a line over there")
        await feed.until(
            lambda: any(e.text == "a line over there" for e in state.logs.get("hunter", [])), "the log line"
        )
        team.complete_task(task.id)
        await feed.until(lambda: state.tasks[task.id].status.value == "completed", "the task completed")


async def test_m_and_b_are_written_there_by_the_remote_under_its_honest_sender(remote: Remote) -> None:
    host = remote.host()
    async with following(host) as feed:
        await feed.until(lambda: host.connected, "connected")
        claude = host.sessions[remote.claude_key]
        assert claude.send("alice", "hello over ssh") == []  # provisional: the real one comes in the stream
        await feed.until(
            lambda: any(e.get("text") == "hello over ssh" for e in claude_inbox(remote, "alice")), "in the file"
        )
        entry = next(e for e in claude_inbox(remote, "alice") if e.get("text") == "hello over ssh")
        assert entry["from"] == "teamtui"  # never the team's lead: this control room is not it
        await feed.until(
            lambda: any("message to alice: written to alice's inbox as teamtui" in n for n in feed.notices),
            "the result, as a notice",
        )
        await feed.until(
            lambda: any(m.content == "hello over ssh" for m in claude.state.messages), "back in the stream"
        )
        # A native team: the remote's own rule says who writes (its lead, when no teamtui lead runs it).
        native = host.sessions[remote.native_key]
        honest = NativeTeam(remote.project, NATIVE_TEAM).outgoing_sender("teamtui")
        assert native.sender == honest
        native.send("hunter", "from afar")
        await feed.until(
            lambda: any(e["content"] == "from afar" for e in native_inbox(remote, "hunter")), "in hunter's inbox"
        )
        assert next(e for e in native_inbox(remote, "hunter") if e["content"] == "from afar")["sender"] == honest
        recipients, changes = native.broadcast("all hands")
        expected = NativeTeam(remote.project, NATIVE_TEAM).members_for_broadcast(honest)
        assert recipients == expected and len(expected) >= 2 and changes == []
        await feed.until(
            lambda: all(any(e["content"] == "all hands" for e in native_inbox(remote, n)) for n in expected),
            "the broadcast in every inbox",
        )
        # A refusal there comes back as a notice (and the file is untouched).
        with pytest.raises(ProtocolError):
            native.send("nobody", "x")  # refused here already: not a member
        remote_key = native.actions.messages.asks.remote_key  # the team's key on its machine
        host.request("send", remote_key, "message to ghost", to="ghost", text="x")
        await feed.until(
            lambda: any("message to ghost not carried out" in n and "not a member" in n for n in feed.notices),
            "the remote's refusal",
        )


def read_here(remote: Remote) -> TeamState:
    """The Claude Code team as a local control room would read it, from the same files."""
    state = TeamState(ClaudeTeam(remote.claude, CLAUDE_TEAM))
    state.load_all()
    state.load_transcripts()
    state.take_heads(state.count_heads())
    return state


async def test_what_the_transcripts_tell_is_told_there_and_shown_here(remote: Remote) -> None:
    """The transcripts stay on the other machine; what it makes of them (each member's tokens and
    activity, the lead's row and assignments, what needs the person) arrives, as a local read has it."""
    host = remote.host()
    here = read_here(remote)
    async with following(host) as feed:
        await feed.until(lambda: host.connected, "connected")
        session = host.sessions[remote.claude_key]
        state = session.state

        def figures_in() -> bool:
            t = state.transcripts
            return (
                t is not None and t.total_tokens() is not None and set(t.members()) == set(here.transcripts.members())
            )

        await feed.until(figures_in, "the transcripts' figures")
        there = state.transcripts
        for m in here.transcripts.members():
            mine, theirs = here.transcripts.stats(m), there.stats(m)
            assert theirs.tokens.total == mine.tokens.total and theirs.last_write == mine.last_write
            assert (theirs.activity.label() if theirs.activity else None) == (
                mine.activity.label() if mine.activity else None
            )
        assert there.total_tokens() == here.transcripts.total_tokens() > 0
        lead = there.lead_view()
        assert lead is not None and lead.name == here.lead and lead.agent_type == "lead"
        # No task list there: the board shows the lead's assignments, as here.
        assert state.task_source == here.task_source == "assignments"
        assert {t.subject for t in state.board.tasks.values()} == {t.subject for t in here.board.tasks.values()}
        # A permission request there: listed here, in the team's strip and in the room's needs.
        inbox = remote.claude / "teams" / CLAUDE_TEAM / "inboxes" / f"{here.lead}.json"
        ask_permission(inbox, "perm-9", "rm -rf build", "clean the build")
        await feed.until(lambda: any(n.kind == "permission" for n in there.needs_you(time.time())), "the request, here")
        need = next(n for n in there.needs_you(time.time()) if n.kind == "permission")
        assert need.member == "alice" and "rm -rf build" in need.detail
        alerts = Alerts()
        alerts.look(remote.claude_key, session, time.time())
        listed, _ = alerts.look(remote.claude_key, session, time.time())
        assert any(n.kind == "permission" and n.member == "alice" for n in listed)


async def test_a_claude_code_shutdown_goes_through_its_lead_there(remote: Remote) -> None:
    host = remote.host()
    async with following(host) as feed:
        await feed.until(lambda: host.connected, "connected")
        session = host.sessions[remote.claude_key]
        await shutdown_through_the_lead(
            session, feed.until, lambda: claude_inbox(remote, "team-lead"), "the remote's progress"
        )


async def test_killing_the_ssh_client_shows_disconnected_and_it_comes_back(remote: Remote) -> None:
    host = remote.host()
    async with following(host) as feed:
        await feed.until(lambda: host.connected, "connected")
        session = host.sessions[remote.native_key]
        assert host.proc is not None
        t0 = time.monotonic()
        os.kill(host.proc.pid, signal.SIGKILL)
        await feed.until(lambda: host.status.startswith("disconnected since "), "disconnected", limit=10)
        assert time.monotonic() - t0 < 10
        assert all(r.problem and r.problem.startswith("disconnected since ") for r in host.rows(host.clock()))
        assert session.read_only.startswith("box is disconnected since")
        with pytest.raises(ProtocolError):
            session.send("hunter", "into the void")
        await feed.until(lambda: host.connected, "connected again (backoff 1 s)")
        assert host.sessions[remote.native_key] is session and not session.read_only


async def test_killing_the_sshd_child_shows_disconnected(remote: Remote) -> None:
    host = remote.host()
    async with following(host) as feed:
        await feed.until(lambda: host.connected, "connected")
        child, _stream = stream_process(remote)
        os.kill(child, signal.SIGKILL)
        await feed.until(lambda: host.status.startswith("disconnected since "), "disconnected", limit=10)


async def test_a_stalled_connection_is_dropped_after_the_stall_time(remote: Remote) -> None:
    host = remote.host(stall=3.0, heartbeat=0.5)
    async with following(host) as feed:
        await feed.until(lambda: host.connected, "connected")
        _child, proc = stream_process(remote)
        proc.suspend()  # the connection is up, but nothing is written: not even a heartbeat
        try:
            t0 = time.monotonic()
            await feed.until(lambda: not host.connected, "dropped", limit=10)
            assert 2.5 < time.monotonic() - t0 < 10
            assert "stalled" in host.status
        finally:
            proc.resume()
        await feed.until(lambda: host.connected, "connected again")


async def test_after_reconnecting_the_snapshot_brings_what_happened_meanwhile(remote: Remote) -> None:
    host = remote.host(backoff_first=3.0)
    team = NativeTeam(remote.project, NATIVE_TEAM)
    async with following(host) as feed:
        await feed.until(lambda: host.connected, "connected")
        session = host.sessions[remote.native_key]
        assert host.proc is not None
        os.kill(host.proc.pid, signal.SIGKILL)
        await feed.until(lambda: not host.connected, "disconnected")
        # Meanwhile, there: a task, a message, a log line; and the Claude Code team's folder is gone (its lead ended).
        task = team.create_task("done while you were away")
        team.send("hunter", "missed me?", "lead")
        team.log("scout", "said while disconnected")
        shutil.rmtree(remote.claude / "teams" / CLAUDE_TEAM)
        await feed.until(lambda: host.connected, "connected again", limit=20)
        state = session.state
        assert task.id in state.tasks
        assert any(m.content == "missed me?" for m in state.messages)
        assert any(e.text == "said while disconnected" for e in state.logs["scout"])
        # The Claude Code team that ended meanwhile: the remote's journal is its record, read-only.
        claude = host.sessions.get(remote.claude_key)
        assert claude is not None and not claude.live and "journal" in claude.read_only
        assert {r.team.key: r for r in host.rows(host.clock())}[remote.claude_key].ended
        assert any("connected again" in n for n in feed.notices)


# ------------------------------------------------------------------ a host that cannot be read


async def first_reason(host: RemoteHost) -> str:
    async with following(host) as feed:
        await feed.until(lambda: host.reason != "" and not host.connected and feed.batches, "a reason", limit=20)
        return host.status


async def test_no_teamtui_there_says_how_to_install_it(remote: Remote) -> None:
    status = await first_reason(remote.host(teamtui="/nonexistent/bin/teamtui"))
    wheel = f"teamtui-{__version__}-py3-none-any.whl"
    assert f"install it there: `make wheel` here, copy dist/{wheel} there, then `pipx install ./{wheel}`" in status
    assert "\n" not in status


async def test_a_refused_key_says_so(remote: Remote, tmp_path: Path) -> None:
    import subprocess

    other = tmp_path / "other_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True)
    status = await first_reason(remote.host(ssh_options=remote.sshd.options(key=other)))
    assert "ssh refused the key" in status and "ssh-copy-id" in status


async def test_a_host_that_is_down_says_so(remote: Remote) -> None:
    from .conftest import free_port

    options = [o if o != str(remote.sshd.port) else str(free_port()) for o in remote.sshd.options()]
    status = await first_reason(remote.host(ssh_options=options))
    assert status.startswith("cannot reach it") and "refused" in status


async def test_an_incompatible_teamtui_says_to_install_the_same_one(remote: Remote, tmp_path: Path) -> None:
    fake = tmp_path / "future_teamtui"
    fake.write_text(
        f"#!{sys.executable}\nimport json, time\n"
        "print(json.dumps({'type': 'hello', 'protocol': 99, 'teamtui': '9.0', 'host': 'x'}), flush=True)\n"
        "time.sleep(30)\n"
    )
    fake.chmod(0o755)
    status = await first_reason(remote.host(teamtui=str(fake)))
    assert "stream protocol 99" in status and "install the same teamtui on both" in status


async def test_one_host_down_leaves_the_others_and_the_local_fleet_unaffected(remote: Remote, tmp_path: Path) -> None:
    local = empty_local_fleet(tmp_path)
    good = remote.host()
    bad = remote.host(name="gone", teamtui="/nonexistent/teamtui")
    fleet = Fleet([local, good, bad])
    stop = asyncio.Event()
    batches = []

    async def run() -> None:
        async for batch in fleet.follow(stop):
            batches.append(batch)

    task = asyncio.create_task(run())
    try:
        deadline = time.monotonic() + 20
        while not (good.connected and bad.reason):
            assert time.monotonic() < deadline, (good.status, bad.status)
            await asyncio.sleep(0.05)
        keys = set(fleet.sessions)
        assert {remote.native_key, remote.claude_key} <= keys
        rows = fleet.rows()
        assert [r.name for r in rows if r.team.key[0] == "ssh:gone"] == ["gone"]  # the host's own row, saying why
        assert any("install it there" in p for p in fleet.problems)
    finally:
        stop.set()
        await asyncio.wait_for(task, 15)
