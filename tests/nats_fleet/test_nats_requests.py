"""m, b and S from a room, through NATS: each a request on the publishing host's subject, carried
out there by that machine's rules (its honest sender; a Claude Code team's shutdown through its
lead) and answered to the room's own inbox; a host that is away answers nothing, and says so."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

from teamtui.protocol.native import NativeTeam
from tests.conftest import EDITS, set_lead, shutdown_through_the_lead

from .conftest import CLAUDE_TEAM, NATIVE_TEAM, Host, Server, box_followed, following, key_of, room


def native_inbox(host: Host, member: str) -> list[dict]:
    path = host.project / ".teams" / NATIVE_TEAM / f"{member}_inbox.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def claude_inbox(host: Host, member: str) -> list[dict]:
    return json.loads((host.claude / "teams" / CLAUDE_TEAM / "inboxes" / f"{member}.json").read_text())


async def test_m_and_b_are_carried_out_by_the_publishing_host_under_its_honest_sender(server: Server, hosts) -> None:
    async with box_followed(server, hosts) as (box, source, feed):
        session = source.sessions[key_of(box)]
        honest = NativeTeam(box.project, NATIVE_TEAM).outgoing_sender("teamtui")
        assert session.sender == honest
        assert session.send("hunter", "through NATS") == []  # provisional: what the host wrote comes in the stream
        await feed.until(lambda: any(e["content"] == "through NATS" for e in native_inbox(box, "hunter")), "written")
        assert next(e for e in native_inbox(box, "hunter") if e["content"] == "through NATS")["sender"] == honest
        await feed.until(
            lambda: any(f"box1: message to hunter: written to hunter's inbox as {honest}" in n for n in feed.notices),
            "the result, as a notice",
        )
        await feed.until(lambda: any(m.content == "through NATS" for m in session.state.messages), "back")
        recipients, changes = session.broadcast("all hands, through NATS")
        expected = NativeTeam(box.project, NATIVE_TEAM).members_for_broadcast(honest)
        assert recipients == expected and len(expected) >= 2 and changes == []
        for member in expected:
            await feed.until(
                lambda m=member: any(e["content"] == "all hands, through NATS" for e in native_inbox(box, m)),
                f"the broadcast in {member}'s inbox",
            )
        # A member the team does not have: refused here, nothing sent.
        try:
            session.send("nobody-here", "x")
        except Exception as exc:  # noqa: BLE001 - the refusal is the point
            assert "nobody-here" in str(exc)
        else:
            raise AssertionError("a stranger was messaged")


async def test_s_on_a_native_team_runs_the_shutdown_there_and_reports_its_progress(server: Server, hosts) -> None:
    async with box_followed(server, hosts) as (box, source, feed):
        session = source.sessions[key_of(box)]
        news = []
        controller = session.shutdown(None, news.append, lambda d, f: None, lambda w, d: None)
        targets = session.live_teammates()
        assert targets
        controller.start(targets, "wrapping up, through NATS", 60.0)
        await feed.until(lambda: any(n.run is not None and n.run.teammates for n in news), "the host's progress")
        for member in targets:
            await feed.until(
                lambda m=member: any("shutdown_request" in json.dumps(e) for e in native_inbox(box, m)),
                f"{member} asked to shut down, there",
            )
        assert any("shutdown of the team started" in n for n in feed.notices)
        controller.stop()


async def test_s_on_a_claude_code_team_goes_through_its_lead_there(server: Server, hosts) -> None:
    box = hosts("box1", claude=True)
    lead = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    try:
        set_lead(box.claude, CLAUDE_TEAM, lead.pid)
        box.publish(server.url)
        source = room(server.url)
        async with following(source) as feed:
            await feed.until(lambda: key_of(box, claude=True) in source.sessions, "the Claude Code team")
            session = source.sessions[key_of(box, claude=True)]
            await shutdown_through_the_lead(
                session, feed.until, lambda: claude_inbox(box, "team-lead"), "the host's progress"
            )
    finally:
        lead.kill()
        lead.wait()


async def test_a_request_to_a_host_that_is_away_says_nobody_answered(server: Server, hosts) -> None:
    # stall=30: still counted as up: the request itself finds nobody
    async with box_followed(server, hosts, stall=30.0) as (box, source, feed):
        box.stop()
        session = source.sessions[key_of(box)]
        session.send("hunter", "into the void")
        await feed.until(
            lambda: any("message to hunter not carried out: nobody answers for box1" in n for n in feed.notices),
            "said: nobody answered",
        )


EDITS_TEAM = "session-48868de5"
APP = "/src/app/app.py"


async def test_any_op_the_host_carries_out_travels_and_every_line_answering_it_comes_back(
    server: Server, hosts
) -> None:
    """The request subject knows no op: `diff` (answered by a `diff` line, then the result) goes
    the way m, b and S go, as the permission answers will; nothing of an answer is stored."""
    import nats

    from teamtui.protocol import stream_edits
    from teamtui.protocol.nats_subjects import STREAM, request_subject, state_subject, team_token

    from .conftest import copy_tree

    box = hosts("box1")
    copy_tree(EDITS, box.claude)
    box.publish(server.url)
    source = room(server.url)
    async with following(source) as feed:
        await feed.until(lambda: any(k[2] == EDITS_TEAM for k in source.sessions), "the Claude Code team")
        key = next(k for k in source.sessions if k[2] == EDITS_TEAM)
        remote = ("claude", key[1], key[2])
        # The room's own request path: any op, its result said. The team's row may come before the
        # host has read its transcripts' edits: until then the host says so, and it is asked again.
        for attempt in range(20):
            said = len(feed.notices)
            source.hosts["box1"].request("diff", remote, f"alice's app.py ({attempt})", member="alice", path=APP)
            await feed.until(lambda: len(feed.notices) > said, "the result")
            if any(f"2 edits of alice to {APP}" in n for n in feed.notices[said:]):
                break
            assert "no change of alice" in feed.notices[-1], feed.notices[-1]
            await asyncio.sleep(0.2)
        assert any(f"2 edits of alice to {APP}" in n for n in feed.notices), feed.notices[-3:]
    # A requester of its own: every line of the answer comes to its inbox, with its own id.
    nc = await nats.connect(server.url)
    try:
        inbox = nc.new_inbox()
        sub = await nc.subscribe(inbox)
        ask = {"id": "mine-1", "op": "diff", "team": list(remote), "member": "alice", "path": APP}
        await nc.publish(request_subject("box1", team_token(remote)), json.dumps(ask).encode(), reply=inbox)
        diff = json.loads((await sub.next_msg(timeout=10)).data)
        result = json.loads((await sub.next_msg(timeout=10)).data)
        assert (diff["type"], diff["id"], result["type"], result["id"], result["ok"]) == (
            "diff",
            "mine-1",
            "result",
            "mine-1",
            True,
        )
        got = stream_edits.read_diff(diff)
        assert got is not None and [e.tool for e in got["edits"]] == ["Write", "Edit"]
        # The team's subject holds its state, never an answer.
        js, subject = nc.jetstream(), state_subject("box1", team_token(remote))
        stored = await js.subscribe(subject, stream=STREAM, ordered_consumer=True)
        info = await js.stream_info(STREAM, subjects_filter=subject)
        assert info.state.subjects is not None
        held = [await stored.next_msg(timeout=5) for _ in range(info.state.subjects[subject])]
        assert held and not any(b'"type":"diff"' in m.data or b'"type":"result"' in m.data for m in held)
    finally:
        await nc.close()


async def test_a_request_of_no_team_goes_on_the_hosts_own_subject(server: Server, hosts) -> None:
    """An op about no team (ping; an answer to a permission request of no team) on `_host.req`;
    one naming a team there is refused (a team's request goes on its own subject)."""
    import nats

    from teamtui.protocol.nats_subjects import HOST, request_subject

    from .conftest import stream_made

    box = hosts("box1")
    box.publish(server.url)
    await stream_made(server.url)
    nc = await nats.connect(server.url)
    try:
        subject = request_subject("box1", HOST)
        for _ in range(100):  # until the host has subscribed
            try:
                reply = await nc.request(subject, json.dumps({"id": "p1", "op": "ping"}).encode(), timeout=5)
                break
            except nats.errors.NoRespondersError:
                await asyncio.sleep(0.1)
        assert json.loads(reply.data) == {"type": "result", "id": "p1", "ok": True, "error": "", "detail": ""}
        team = ["native", os.path.realpath(box.project), NATIVE_TEAM]
        asked = {"id": "s1", "op": "send", "team": team, "to": "hunter", "text": "via the host's subject"}
        refused = json.loads((await nc.request(subject, json.dumps(asked).encode(), timeout=5)).data)
        assert refused["ok"] is False and "goes on that team's subject" in refused["error"]
        assert not any(e["content"] == "via the host's subject" for e in native_inbox(box, "hunter"))
    finally:
        await nc.close()


async def test_a_line_of_the_hosts_own_the_sink_does_not_know_is_stored_with_the_host(server: Server, tmp_path) -> None:
    """What a newer Streamer writes about the host itself (what its hooks wait on, ...) reaches the
    rooms with no code of the sink's knowing it: the last of each type, in the host's stored state."""
    import nats

    from teamtui.protocol import stream as wire
    from teamtui.protocol.nats_subjects import STREAM, host_subject
    from teamtui.session.nats_link import NatsLink
    from teamtui.session.nats_publish import NatsSink

    sink = NatsSink(NatsLink(server.url), "box1", say=lambda text: None)

    class Streamer:
        def team_lines(self, key, *, full: bool) -> None: ...

    await sink.open(Streamer())  # type: ignore[arg-type]
    serving = asyncio.ensure_future(sink.serve(Streamer()))  # type: ignore[arg-type]
    nc = await nats.connect(server.url)
    try:
        for line in (
            {"type": "hello", "protocol": wire.PROTOCOL, "teamtui": "9", "host": "box1"},
            {"type": "newer", "items": ["first"]},
            {"type": "newer", "items": ["second"]},
            {"type": "ready", "teams": 0},
        ):
            sink.put(line, wire.dumps(line))
        await sink.flush()
        js = nc.jetstream()
        for _ in range(100):
            try:
                held = await js.get_last_msg(STREAM, host_subject("box1"))
                break
            except Exception:  # noqa: BLE001 - not stored yet
                await asyncio.sleep(0.1)
        lines = [json.loads(x) for x in held.data.splitlines()]
        assert [x["type"] for x in lines] == ["hello", "newer", "ready"]
        assert lines[1]["items"] == ["second"], "the last of its type"
    finally:
        serving.cancel()
        await asyncio.gather(serving, return_exceptions=True)
        await sink.close()
        await nc.close()
