"""Teams published through a real nats-server (tests/nats/conftest.py): a host's
`teamtui stream --publish` → the room's rows; a change there → its row here; a room that starts
late gets each team's last state; the server restarted → everything that changed meanwhile,
each change once; a host that stops → "disconnected since", and back."""

from __future__ import annotations

import os
import signal
from collections import Counter

from teamtui.protocol.native import NativeTeam
from teamtui.protocol.nats_subjects import STREAM

from .conftest import NATIVE_TEAM, Server, box_followed, following, key_of, room


def contents(session) -> list[str]:
    return [m.content for m in session.state.messages]


async def test_a_published_team_is_a_row_with_its_state(server: Server, hosts) -> None:
    async with box_followed(server, hosts) as (box, source, feed):
        host = source.hosts["box1"]
        session = source.sessions[key_of(box)]
        state = session.state
        assert state.config is not None and {m.name for m in state.config.members} >= {"hunter", "scout"}
        assert state.tasks and state.messages and state.logs
        assert session.live and not session.read_only and state.traits.layout == "native"
        rows = {r.team.key: r for r in source.rows(source.clock())}
        row = rows[key_of(box)]
        assert row.cwd == f"box1:{os.path.realpath(box.project)}" and row.problem is None
        assert (row.tasks_done, row.tasks_total) == state.board.progress()
        # The host's hello is a message of its own subject: it may land a moment after the team's.
        await feed.until(lambda: bool(host.connected and host.remote_version), "the host's hello")
        assert source.dropped == 0 and host.dropped == 0
    # Its stdin is /dev/null, as under a service: no request comes from there, and it goes on, quietly.
    assert box.proc is not None and box.proc.poll() is None, box.said()
    assert "Traceback" not in box.said()


async def test_a_change_there_reaches_its_row(server: Server, hosts) -> None:
    box = hosts("box1")
    box.publish(server.url)
    source = room(server.url)
    team = NativeTeam(box.project, NATIVE_TEAM)
    async with following(source) as feed:
        await feed.until(lambda: key_of(box) in source.sessions, "the published team")
        total = len(source.sessions[key_of(box)].state.tasks)
        task = team.create_task("written on the publishing host")

        def row():
            return next(r for r in source.rows(source.clock()) if r.team.key == key_of(box))

        await feed.until(lambda: row().tasks_total == total + 1, "the new task in the row")
        state = source.sessions[key_of(box)].state
        assert state.tasks[task.id].subject == "written on the publishing host"
        team.complete_task(task.id)
        await feed.until(lambda: state.tasks[task.id].status.value == "completed", "completed")
        team.log("hunter", "a line over there")
        await feed.until(lambda: any(e.text == "a line over there" for e in state.logs.get("hunter", [])), "the log")
        assert any(key_of(box) in b.changes for b in feed.batches[1:]), "said as a change of its row"


async def test_a_room_that_starts_late_gets_each_teams_last_state(server: Server, hosts) -> None:
    box, other = hosts("box1"), hosts("box2")
    box.publish(server.url)
    other.publish(server.url)
    team = NativeTeam(box.project, NATIVE_TEAM)
    first = room(server.url)
    async with following(first) as feed:
        await feed.until(lambda: key_of(box) in first.sessions and key_of(other) in first.sessions, "both hosts")
        for i in range(30):  # many changes after the snapshot
            team.send("hunter", f"late {i}", sender="scout")
        await feed.until(lambda: "late 29" in contents(first.sessions[key_of(box)]), "the last change")
    late = room(server.url)
    async with following(late) as feed:
        await feed.until(lambda: late.caught_up, "caught up")
        first_batch = feed.batches[0]
        assert {key_of(box), key_of(other)} <= set(first_batch.appeared), "every team on the first screen"
        session = late.sessions[key_of(box)]
        said = contents(session)
        assert [f"late {i}" for i in range(30)] == [c for c in said if c.startswith("late ")]
        assert Counter(said) == Counter(contents(first.sessions[key_of(box)]))


async def test_the_server_restarted_everything_meanwhile_arrives_once(server: Server, hosts) -> None:
    async with box_followed(server, hosts) as (box, source, feed):
        team = NativeTeam(box.project, NATIVE_TEAM)
        team.send("hunter", "before the restart", sender="scout")
        await feed.until(lambda: "before the restart" in contents(source.sessions[key_of(box)]), "before")
        server.stop()
        for i in range(10):  # the server is away: the host keeps them in its spool
            team.send("hunter", f"while away {i}", sender="scout")
        task = team.create_task("made while the server was away")
        await feed.until(lambda: "is away" in box.said(), "the host noticed", limit=15)
        server.start()
        session = source.sessions[key_of(box)]
        await feed.until(lambda: "while away 9" in contents(session), "what changed meanwhile", limit=40)
        await feed.until(lambda: task.id in session.state.tasks, "the task made meanwhile")
        said = Counter(contents(session))
        assert said["before the restart"] == 1
        assert all(said[f"while away {i}"] == 1 for i in range(10)), said
        assert "connected again" in box.said()
    # A room started after it all reads the same, once each.
    again = room(server.url)
    async with following(again) as feed:
        await feed.until(lambda: key_of(box) in again.sessions and again.caught_up, "the team")
        said = Counter(contents(again.sessions[key_of(box)]))
        assert said["before the restart"] == 1 and all(said[f"while away {i}"] == 1 for i in range(10))


async def test_a_host_that_stops_shows_disconnected_and_catches_up_when_back(server: Server, hosts) -> None:
    box, other = hosts("box1"), hosts("box2")
    box.publish(server.url)
    other.publish(server.url)
    team = NativeTeam(box.project, NATIVE_TEAM)
    source = room(server.url, stall=3.0)
    async with following(source) as feed:
        await feed.until(lambda: key_of(box) in source.sessions and key_of(other) in source.sessions, "both")
        box.stop(signal.SIGKILL)  # no goodbye: only the missing heartbeats tell
        host = source.hosts["box1"]
        await feed.until(lambda: host.status.startswith("disconnected since"), "box1 disconnected", limit=15)
        row = next(r for r in source.rows(source.clock()) if r.team.key == key_of(box))
        assert row.problem is not None and row.problem.startswith("disconnected since")
        assert source.sessions[key_of(box)].read_only.startswith("box1 is disconnected since")
        assert source.hosts["box2"].connected, "the other host is unaffected"
        team.create_task("while its publisher was down")
        team.send("hunter", "while down", sender="scout")
        box.publish(server.url)  # back: a new process, a new epoch, its teams whole again
        session = source.sessions[key_of(box)]
        await feed.until(lambda: host.connected, "connected again", limit=20)
        await feed.until(lambda: "while down" in contents(session), "what happened meanwhile")
        assert Counter(contents(session))["while down"] == 1
        assert any("box1: connected again" in n for n in feed.notices)
        assert not session.read_only


async def test_a_team_that_ended_while_nobody_published_leaves_the_room(server: Server, hosts) -> None:
    import shutil

    box = hosts("box1")
    box.publish(server.url)
    first = room(server.url)
    async with following(first) as feed:
        await feed.until(lambda: key_of(box) in first.sessions, "the team")
    box.stop()
    shutil.rmtree(box.project / ".teams" / NATIVE_TEAM)
    box.publish(server.url)  # it no longer lists the team
    late = room(server.url)
    async with following(late) as feed:
        await feed.until(lambda: "box1" in late.hosts and late.hosts["box1"].remote_version, "the host")
        await feed.until(lambda: key_of(box) not in late.sessions, "the team gone")
        assert not any(r.team.key == key_of(box) for r in late.rows(late.clock()))


async def test_the_stream_keeps_each_team_snapshot_and_changes_since_only(server: Server, hosts) -> None:
    """Rollups: the server holds one snapshot per team and what changed after it, not its history."""
    import nats

    box = hosts("box1")
    box.publish(server.url, "--heartbeat", "0.5")
    team = NativeTeam(box.project, NATIVE_TEAM)
    source = room(server.url)
    async with following(source) as feed:
        await feed.until(lambda: key_of(box) in source.sessions, "the team")
        for i in range(5):
            team.send("hunter", f"n{i}", sender="scout")
        await feed.until(lambda: "n4" in contents(source.sessions[key_of(box)]), "the changes")
    nc = await nats.connect(server.url)
    try:
        js = nc.jetstream()
        info = await js.stream_info(STREAM, subjects_filter="teamtui.>")
        assert info.state.subjects is not None
        assert info.state.subjects["teamtui.box1._host.state"] == 1  # the host's state: its last only
        (subject,) = [s for s in info.state.subjects if "._host." not in s]
        sub = await js.subscribe(subject, stream=STREAM, ordered_consumer=True)
        held = [await sub.next_msg(timeout=2) for _ in range(info.state.subjects[subject])]
        assert [m.headers.get("Teamtui-Snapshot") for m in held] == ["1"] + [None] * (len(held) - 1)
        assert held[0].headers.get("Nats-Rollup") == "sub" and b'"full":true' in held[0].data
        revs = [int(m.headers["Teamtui-Rev"]) for m in held]
        assert revs == list(range(revs[0], revs[0] + len(revs))), "the changes after it, in order"
    finally:
        await nc.close()


async def test_a_server_started_on_an_empty_store_gets_every_team_whole_again(server: Server, hosts) -> None:
    import shutil

    box = hosts("box1")
    box.publish(server.url)
    team = NativeTeam(box.project, NATIVE_TEAM)
    first = room(server.url)
    async with following(first) as feed:
        await feed.until(lambda: key_of(box) in first.sessions, "the team")
    server.stop()
    shutil.rmtree(server.folder / "store")  # the stream and everything in it: gone
    server.start()
    team.send("hunter", "after the store was lost", sender="scout")
    late = room(server.url)
    async with following(late) as feed:
        await feed.until(lambda: key_of(box) in late.sessions, "the team, sent whole again", limit=40)
        await feed.until(lambda: "after the store was lost" in contents(late.sessions[key_of(box)]), "the change")
        assert Counter(contents(late.sessions[key_of(box)]))["after the store was lost"] == 1


async def test_the_spool_is_bounded_while_the_server_is_away_and_the_team_sent_whole_after(
    server: Server, hosts, tmp_path
) -> None:
    """In-process: the real Streamer over this machine's team, its sink's spool held to 30 KB."""
    import asyncio

    from teamtui.protocol.settings import Settings
    from teamtui.session.local import LocalSource
    from teamtui.session.nats_link import NatsLink
    from teamtui.session.nats_publish import NatsSink
    from teamtui.session.stream_server import Streamer

    box = hosts("box1")
    empty = tmp_path / "empty"
    empty.mkdir()
    local = LocalSource(
        Settings(), roots=[box.project], cwd=empty, claude_root=empty, registry=empty / "runs", journal=empty / "j"
    )
    said: list[str] = []
    sink = NatsSink(NatsLink(server.url), "box1", spool_bytes=30_000, say=said.append)
    run = asyncio.ensure_future(Streamer(local, heartbeat=0.5, host="box1", sink=sink).run())
    team = NativeTeam(box.project, NATIVE_TEAM)
    source = room(server.url)
    try:
        async with following(source) as feed:
            await feed.until(lambda: key_of(box) in source.sessions, "the team")
            server.stop()
            await feed.until(lambda: any("is away" in s for s in said), "the sink noticed")
            for i in range(300):
                team.send("hunter", f"spooled {i} " + "x" * 200, sender="scout")
                if i % 20 == 0:
                    await asyncio.sleep(0.05)  # batches, as a busy team's
            await feed.until(lambda: sink.dropped > 0, "the spool full")
            assert sink.spooled <= 30_000 + sink.max_payload
            assert any("the spool is full" in s for s in said)
            server.start()
            session = source.sessions[key_of(box)]
            await feed.until(lambda: "spooled 299 " + "x" * 200 in contents(session), "the team whole", limit=40)
            said_here = Counter(contents(session))
            assert all(said_here[f"spooled {i} " + "x" * 200] == 1 for i in range(300))
    finally:
        run.cancel()
        await asyncio.gather(run, return_exceptions=True)


async def test_a_publishing_hosts_watcher_that_fails_is_said_restarted_and_said_over(
    server: Server, hosts, tmp_path
) -> None:
    """The one error path on the publishing side: its watcher failing (a disk gone away, injected
    once) is a problem of that host in the room, the stream goes on, the watcher starts again, the
    problem is said to be over, and a change made meanwhile still reaches its row."""
    import asyncio

    from teamtui.protocol.settings import Settings
    from teamtui.session.local import LocalSource
    from teamtui.session.nats_link import NatsLink
    from teamtui.session.nats_publish import NatsSink
    from teamtui.session.stream_server import Streamer

    class BreaksOnce(LocalSource):
        broke = False

        async def follow(self, stop):
            async for batch in super().follow(stop):
                yield batch
                if not BreaksOnce.broke and batch.changes:
                    BreaksOnce.broke = True
                    raise OSError(5, "Input/output error")

    box = hosts("box1")
    empty = tmp_path / "empty"
    empty.mkdir()
    local = BreaksOnce(
        Settings(), roots=[box.project], cwd=empty, claude_root=empty, registry=empty / "runs", journal=empty / "j"
    )
    run = asyncio.ensure_future(
        Streamer(local, heartbeat=0.5, host="box1", sink=NatsSink(NatsLink(server.url), "box1")).run()
    )
    team = NativeTeam(box.project, NATIVE_TEAM)
    source = room(server.url)
    try:
        async with following(source) as feed:
            await feed.until(lambda: key_of(box) in source.sessions, "the team")
            team.create_task("the change that breaks the watcher")
            down = "box1: this machine stopped updating (OSError: [Errno 5] Input/output error)"
            await feed.until(lambda: any(p.startswith(down) for p in source.problems), "the failure said", 30)
            await feed.until(lambda: not any("stopped updating" in p for p in source.problems), "said over", 30)
            task = team.create_task("made after the watcher started again")
            session = source.sessions[key_of(box)]
            await feed.until(lambda: task.id in session.state.tasks, "a later change reaches the room", 30)
    finally:
        run.cancel()
        await asyncio.gather(run, return_exceptions=True)
