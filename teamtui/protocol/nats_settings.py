"""`[[nats]]` in config.toml: a NATS server whose published teams the control room shows
(session/nats_source.py), each table checked, a bad one said in words (with "did you mean" for a
near miss of a key) and left out, the others kept.

    [[nats]]
    url = "nats://nats.example.com:4222"      # or tls://…
    credentials = "~/.config/teamtui/nats.creds"  # a token, an nkey seed or a .creds file (optional)
    tls_ca = "~/.config/teamtui/nats-ca.pem"   # the CA of the server's certificate (optional)
    subjects = "teamtui.>"                     # which hosts: teamtui.HOST.> for one (optional)
    name = "fleet"                             # how its problems are said (optional: the URL)
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from teamtui.protocol.nats_subjects import filter_problem

KEYS = ("url", "credentials", "tls_ca", "subjects", "name")


@dataclass
class NatsSettings:
    """One [[nats]] table."""

    url: str  # nats://host:port or tls://host:port
    credentials: str = ""  # a file: a token, an nkey seed (SU…) or a .creds file; "" for none
    tls_ca: str = ""  # a file: the CA the server's certificate is checked against; "" for the system's
    subjects: str = "teamtui.>"  # a NATS filter over teamtui.<host>.<team>.state
    name: str = ""  # said in its problems; "" for the URL


def read_nats(value: object, path: Path, problems: list[str]) -> list[NatsSettings]:
    """`[[nats]]` tables; a bad one is dropped and said (the others are kept)."""
    if not isinstance(value, list):
        problems.append(f'{path}: nats must be [[nats]] tables (url = "nats://host:4222"), got {value!r}')
        return []
    out: list[NatsSettings] = []
    for i, table in enumerate(value, 1):
        where = f"{path}: [[nats]] #{i}"
        nats = _table(table, where, problems)
        if nats is None:
            continue
        if any(n.url == nats.url and n.subjects == nats.subjects for n in out):
            problems.append(f"{where}: {nats.url} is there twice; this one is ignored")
            continue
        out.append(nats)
    return out


def _file(v: object) -> str | None:
    if v == "":
        return ""
    if not isinstance(v, str) or "\0" in v:
        return None
    try:
        return str(Path(v).expanduser())
    except RuntimeError:  # ~someone who is no user here
        return None


def _table(table: object, where: str, problems: list[str]) -> NatsSettings | None:
    if not isinstance(table, dict):
        problems.append(f"{where}: must be a table with url, got {table!r}; ignored")
        return None
    unknown = sorted(set(table) - set(KEYS))
    for key in unknown:
        near = difflib.get_close_matches(str(key).lower().replace("-", "_"), KEYS, n=1, cutoff=0.6)
        hint = f" (did you mean {near[0]}?)" if near else ""
        problems.append(f"{where}: {key!r} is not a setting of [[nats]]{hint}; ignored")
    url = table.get("url")
    if not isinstance(url, str) or url.split("://")[0] not in ("nats", "tls") or "://" not in url or " " in url:
        problems.append(f"{where}: url must be nats://HOST:PORT or tls://HOST:PORT, got {url!r}; ignored")
        return None
    nats = NatsSettings(url)
    for key in ("credentials", "tls_ca"):
        if key in table:
            file = _file(table[key])
            if file is None:
                # Not echoed: a token might have been put here in place of its file.
                problems.append(
                    f'{where}: {key} must be the path of a file, like "~/.config/teamtui/nats.creds"; ignored'
                )
                return None
            setattr(nats, key, file)
    subjects = table.get("subjects", nats.subjects)
    problem = filter_problem(subjects) if isinstance(subjects, str) else "must be a string"
    if problem:
        problems.append(f"{where}: subjects {problem}, got {subjects!r}; ignored")
        return None
    nats.subjects = subjects
    name = table.get("name", "")
    if not isinstance(name, str) or len(name) > 64 or any(ord(c) < 32 for c in name):
        problems.append(f"{where}: name must be a short line of text, got {name!r}; ignored")
        return None
    nats.name = name
    return nats


__all__ = ["KEYS", "NatsSettings", "read_nats"]
