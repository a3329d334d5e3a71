"""The NATS subjects teamtui publishes on and reads from: one family per host, one per team.

    teamtui.<host>.<team>.state    stored (stream TEAMTUI): the team's snapshot, then its changes
    teamtui.<host>._host.state     stored: the host's hello, its problems, any other line of its own
                                   (the last of each type), which teams it has now
    teamtui.<host>._host.beat      not stored: a heartbeat every few seconds
    teamtui.<host>.<team>.req      not stored: a request about the team (send, broadcast, shutdown ...)
    teamtui.<host>._host.req       not stored: a request about the host (ping)

A team's snapshot is published with `Nats-Rollup: sub`: the server drops everything older on that
subject, so the subject holds exactly the last snapshot and the changes after it, in order, and a
room that starts late reads each team whole from the stream. The answers to a request go to the
requester's own reply subject (its inbox), never to a shared one.

Each token is safe for a subject (letters, digits, `-`, `_`), so no name can add a token or a
wildcard: a host's token is its name as given (`--name`, or the machine's name made safe); a
team's is its name made safe plus a hash of its full key (two teams of one name in two folders
stay apart). A host may publish only under `teamtui.<its token>.`: the server's permissions say
so (README: NATS), and the room takes the host from the subject, never from what it says.
"""

from __future__ import annotations

import hashlib
import json
import re

PREFIX = "teamtui"
STREAM = "TEAMTUI"  # the JetStream stream holding every `.state` subject
HOST = "_host"  # the token of a host's own subjects (a team's token ends in `_` and ten hex digits)
STORED = f"{PREFIX}.*.*.state"  # what the stream holds
HOST_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
TEAM_TOKEN = re.compile(r"[A-Za-z0-9-]{0,40}_[0-9a-f]{10}")
_UNSAFE = re.compile(r"[^A-Za-z0-9-]+")


def host_token(name: str) -> str:
    """A machine's name as a host token: what is not a letter, digit, `-` or `_` becomes `-`."""
    token = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-_")[:64]
    return token if HOST_TOKEN.fullmatch(token) else "host"


def team_token(key: tuple[str, str, str]) -> str:
    """A team's token: its name made safe (at most 40 characters), `_`, a hash of its whole key."""
    digest = hashlib.blake2b(json.dumps(list(key)).encode(), digest_size=5).hexdigest()
    return f"{_UNSAFE.sub('-', key[2]).strip('-')[:40]}_{digest}"


def state_subject(host: str, token: str) -> str:
    return f"{PREFIX}.{host}.{token}.state"


def host_subject(host: str) -> str:
    return f"{PREFIX}.{host}.{HOST}.state"


def beat_subject(host: str) -> str:
    return f"{PREFIX}.{host}.{HOST}.beat"


def request_subject(host: str, token: str) -> str:
    return f"{PREFIX}.{host}.{token}.req"


def parse_subject(subject: str) -> tuple[str, str, str] | None:
    """(host, team token or `_host`, kind) of one of teamtui's subjects; None for anything else."""
    parts = subject.split(".")
    if len(parts) != 4 or parts[0] != PREFIX or not HOST_TOKEN.fullmatch(parts[1]):
        return None
    host, token, kind = parts[1:]
    if token != HOST and not TEAM_TOKEN.fullmatch(token):
        return None
    return host, token, kind


def filter_problem(subjects: str) -> str:
    """Why `subjects` is no filter over teamtui's stored subjects ("" when it is one), e.g.
    `teamtui.>`, `teamtui.box1.>`, `teamtui.*.*.state`."""
    parts = subjects.split(".")
    if parts[0] != PREFIX or len(parts) < 2:
        return f"must start with {PREFIX}., like {PREFIX}.> or {PREFIX}.HOST.>"
    for i, part in enumerate(parts[1:], 1):
        if part == ">" and i == len(parts) - 1:
            continue
        if part == "*" or (i == 1 and HOST_TOKEN.fullmatch(part)) or (i == 2 and part in (HOST, "*")):
            continue
        if i == 2 and TEAM_TOKEN.fullmatch(part) or i == 3 and part == "state":
            continue
        return f"{part!r} is no host, team or wildcard of teamtui.<host>.<team>.state"
    if len(parts) > 4 or (len(parts) < 4 and parts[-1] != ">"):
        return f"must name teamtui.<host>.<team>.state (or end with >), like {PREFIX}.> or {PREFIX}.HOST.>"
    return ""


def beats_of(subjects: str) -> str:
    """The heartbeat subjects of the hosts a filter names."""
    parts = subjects.split(".")
    host = parts[1] if len(parts) > 1 and parts[1] != ">" else "*"
    return beat_subject(host)


__all__ = [
    "HOST",
    "PREFIX",
    "STORED",
    "STREAM",
    "beat_subject",
    "beats_of",
    "filter_problem",
    "host_subject",
    "host_token",
    "parse_subject",
    "request_subject",
    "state_subject",
    "team_token",
]
