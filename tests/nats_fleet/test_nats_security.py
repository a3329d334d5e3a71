"""Who may say what through NATS: the README's server config run for real (a user per host that may
publish only its own subjects, a person who may act, one who may only watch), a refused credential
said with its fix, and a hostile publisher: nothing it sends is painted as it sent it, nothing crashes."""

from __future__ import annotations

import asyncio
import json
import os
import time

import nats
import pytest

from teamtui.protocol import stream as wire
from teamtui.protocol.nats_subjects import STREAM, host_subject, state_subject, team_token
from teamtui.session.nats_link import NatsUnavailable

from .conftest import NATIVE_TEAM, Host, Server, Users, following, key_of, room, stream_made


def inbox(host: Host, member: str) -> list[dict]:
    path = host.project / ".teams" / NATIVE_TEAM / f"{member}_inbox.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# ------------------------------------------------------------------ the README's config


async def test_the_readme_config_hosts_publish_their_own_people_watch_and_act(
    secured: tuple[Server, Users], hosts
) -> None:
    server, users = secured
    box1, box2 = hosts("box1"), hosts("box2")
    box1.publish(server.url, "--creds", users.creds("box1"))
    box2.publish(server.url, "--creds", users.creds("box2"))
    await stream_made(server.url, users.creds("ann"))
    ann = room(server.url, credentials=users.creds("ann"))
    async with following(ann) as feed:
        await feed.until(lambda: key_of(box1) in ann.sessions and key_of(box2) in ann.sessions, "both hosts")
        session = ann.sessions[key_of(box1)]
        session.send("hunter", "from ann, through NATS")
        await feed.until(
            lambda: any(e["content"] == "from ann, through NATS" for e in inbox(box1, "hunter")), "written there"
        )
        await feed.until(lambda: any("message to hunter: written to" in n for n in feed.notices), "the result")
    ben = room(server.url, credentials=users.creds("ben"))
    async with following(ben) as feed:
        await feed.until(lambda: key_of(box1) in ben.sessions, "ben watches")
        ben.sessions[key_of(box1)].send("hunter", "from ben, who may only watch")
        await feed.until(
            lambda: any("does not let you act on box1's teams" in n for n in feed.notices), "refused, in words"
        )
    assert not any(e["content"] == "from ben, who may only watch" for e in inbox(box1, "hunter"))
    assert box1.proc is not None and box1.proc.poll() is None, box1.said()


async def test_a_host_user_cannot_publish_on_another_hosts_subjects(secured: tuple[Server, Users], hosts) -> None:
    server, users = secured
    box2 = hosts("box2")
    box2.publish(server.url, "--creds", users.creds("box2"))
    await stream_made(server.url, users.creds("ann"))
    errors: list[str] = []

    async def said(exc: Exception) -> None:
        errors.append(str(exc))

    # box1's own client, with box1's key, tries to write a team into box2's subjects.
    nc = await nats.connect(server.url, nkeys_seed=users.creds("box1"), inbox_prefix="_INBOX.box1", error_cb=said)
    try:
        token = team_token(("native", "/srv/evil", "forged"))
        forged = wire.dumps({"type": "team", "team": ["native", "/srv/evil", "forged"], "full": True, "row": {}})
        with pytest.raises(nats.errors.TimeoutError):
            await nc.jetstream().publish(
                state_subject("box2", token),
                forged,
                stream=STREAM,
                timeout=1,
                headers={"Teamtui-Epoch": "1", "Teamtui-Rev": "1", "Teamtui-Snapshot": "1"},
            )
        assert any('permissions violation for publish to "teamtui.box2.' in e for e in errors), errors
        # It may publish on its own.
        ack = await nc.jetstream().publish(state_subject("box1", token), b"", stream=STREAM, timeout=5)
        assert ack.seq > 0
    finally:
        await nc.close()
    ann = room(server.url, credentials=users.creds("ann"))
    async with following(ann) as feed:
        await feed.until(lambda: ann.caught_up and "box2" in ann.hosts, "the room")
        assert not any(k[2] == "forged" for k in ann.sessions), "nothing box1 forged is shown as box2's"
    # The publishing command, given box1's key but box2's name, stops and says why.
    box1 = hosts("box1")
    done = box1.run(server.url, "--creds", users.creds("box1"), "--name", "box2", timeout=60)
    assert done.returncode == 1
    assert "does not let this user publish there" in done.stderr and "publishes as `box2` (--name)" in done.stderr


# ------------------------------------------------------------------ credentials


async def test_a_wrong_credential_is_said_with_its_fix(secured: tuple[Server, Users], hosts, tmp_path) -> None:
    import nkeys

    server, _users = secured
    stranger = tmp_path / "stranger.nk"
    stranger.write_bytes(nkeys.encode_seed(os.urandom(32), nkeys.PREFIX_BYTE_USER) + b"\n")
    box1 = hosts("box1")
    done = box1.run(server.url, "--creds", str(stranger))
    assert done.returncode == 1, done.stderr
    assert f"refused the credentials in {stranger}" in done.stderr
    assert "give --creds a token, an nkey seed or a .creds file" in done.stderr
    assert "Traceback" not in done.stderr
    # No credential at all, and an unreadable file: said too.
    done = box1.run(server.url)
    assert done.returncode == 1 and "refused no credentials" in done.stderr and "give --creds" in done.stderr
    done = box1.run(server.url, "--creds", str(tmp_path / "nosuch.nk"))
    assert done.returncode == 1 and "cannot read the credentials file" in done.stderr
    # The room: its problem names the setting to fix.
    source = room(server.url, credentials=str(stranger))
    async with following(source) as feed:
        await feed.until(lambda: feed.error is not None or source.reason, "refused")
    assert isinstance(feed.error, NatsUnavailable) and feed.error.fatal
    assert any(
        f"refused the credentials in {stranger}" in p and "credentials = in [[nats]]" in p for p in source.problems
    )
    row = source.rows(source.clock())[0]  # the server's own row: not a team, its few words (the fix is a problem's)
    assert row.no_team and row.problem == "⚠ not connected"


async def test_an_unreachable_server_is_said_and_the_publisher_keeps_trying(server: Server, hosts) -> None:
    box = hosts("box1")
    server.stop()
    box.publish(server.url)
    deadline = time.monotonic() + 15
    while "cannot reach" not in box.said():
        assert time.monotonic() < deadline, box.said()
        await asyncio.sleep(0.1)
    assert "is nats-server running there" in box.said() and "trying again in" in box.said()
    server.start()
    source = room(server.url)
    async with following(source) as feed:
        await feed.until(lambda: key_of(box) in source.sessions, "published once the server is there", limit=40)


# ------------------------------------------------------------------ a hostile publisher

ESC = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x9b31m"


def header(key: list[str], **over) -> dict:
    line = {
        "type": "team",
        "team": key,
        "full": True,
        "live": True,
        "read_only": "",
        "layout": "native",
        "appends_to_inboxes": True,
        "sender": "lead",
        "row": {"team": key[2], "root": key[1], "layout": "native", "cwd": key[1], "label": "native"},
        "config": {"name": key[2], "lead": "lead", "members": [{"name": f"ann{ESC}", "status": "working"}]},
        "views": [],
        "errors": [],
    }
    line.update(over)
    return line


async def test_a_hostile_publisher_paints_nothing_and_crashes_nothing(server: Server, hosts) -> None:
    honest = hosts("box2")
    honest.publish(server.url)
    nc = await nats.connect(server.url)
    js = nc.jetstream()
    source = room(server.url, stall=30)
    try:
        async with following(source) as feed:
            await feed.until(lambda: key_of(honest) in source.sessions, "the honest host")

            async def put(subject: str, data: bytes, **headers: str) -> None:
                await js.publish(subject, data, stream=STREAM, headers=headers or None)

            hello = wire.dumps({"type": "hello", "protocol": wire.PROTOCOL, "teamtui": "0.1.0", "host": "box2"})
            key = ["native", f"/srv/{ESC}", f"evil{ESC}[b]x[/b]"]
            token = team_token(tuple(key))  # type: ignore[arg-type]
            subject = state_subject("evil", token)
            await put(host_subject("evil"), hello + wire.dumps({"type": "ready", "teams": 1, "tokens": [token]}))
            snapshot = {"Teamtui-Epoch": "5", "Teamtui-Rev": "1", "Teamtui-Snapshot": "1"}
            await put(subject, wire.dumps(header(key)), **snapshot)
            # Lies and garbage, each on its own message.
            other = ["native", "/srv/p", "refactor-auth"]  # the honest host's team, claimed from evil's subject
            await put(subject, wire.dumps(header(other)), **{**snapshot, "Teamtui-Rev": "2"})
            await put(subject, b"\xff\xfe not json\n[[[[[[[[\n" + b"{" * 50_000, **{**snapshot, "Teamtui-Rev": "3"})
            await put(subject, wire.dumps(header(key, full=False)))  # no epoch, no rev
            await put(subject, wire.dumps(header(key)), **{**snapshot, "Teamtui-Rev": "x" * 30})
            await put(subject, wire.dumps({"type": "result", "id": "r1", "ok": True}), **snapshot)
            await put(state_subject("evil", "not-a-token"), wire.dumps(header(key)), **snapshot)
            await put(state_subject("box2", token), wire.dumps(header(key)))  # the honest host's subject, no rev
            messages = {
                "type": "messages",
                "team": key,
                "messages": [{"sender": f"x{ESC}", "recipient": "ann", "content": f"[red]{ESC}hi", "timestamp": 1.0}]
                * 3000,
                "update": False,
            }
            await put(subject, wire.dumps(messages), **{"Teamtui-Epoch": "5", "Teamtui-Rev": "4"})
            # A change that skips a rev, and one replayed: neither applied.
            await put(subject, wire.dumps(messages), **{"Teamtui-Epoch": "5", "Teamtui-Rev": "9"})
            await put(subject, wire.dumps(messages), **{"Teamtui-Epoch": "5", "Teamtui-Rev": "4"})
            # The replayed rev 4 is the last message published (the second duplicate, after the result
            # line's rev 1): once it is dropped, every one was read (the honest host's messages count
            # in source.messages too: that count says nothing here).
            await feed.until(
                lambda: "evil" in source.hosts and source.hosts["evil"].duplicates >= 2, "every message read"
            )
            await feed.until(lambda: any(k[0] == "nats:evil" for k in source.sessions), "evil's one team")
            (shown,) = [k for k in source.sessions if k[0] == "nats:evil"]
            state = source.sessions[shown].state
            # Its own team only, cleaned; no team of the honest host's taken over.
            assert shown[1:] == (f"/srv/{wire.name(ESC)}", wire.name(f"evil{ESC}[b]x[/b]"))
            assert source.sessions[key_of(honest)].state.traits.layout == "native"
            assert ("nats:evil", "/srv/p", "refactor-auth") not in source.sessions
            assert len(state.messages) == wire.MESSAGES_CAP and all("\x1b" not in m.content for m in state.messages)
            assert state.messages and state.messages[0].content.startswith("[red]")  # markup stays text
            assert all("\x1b" not in m.name and "\x9b" not in m.name for m in state.config.members)
            host = source.hosts["evil"]
            assert host.gaps >= 1 and host.duplicates == 2 and source.dropped >= 3
            for row in source.rows(source.clock()):
                text = " ".join(str(getattr(row, f)) for f in row.__slots__) + str(row.team.key)
                assert "\x1b" not in text and "\x9b" not in text and "\x07" not in text
            assert source.hosts["box2"].connected and source.sessions[key_of(honest)].state.tasks
    finally:
        await nc.close()
