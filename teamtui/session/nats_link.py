"""A connection to a NATS server, for a publishing host (session/nats_publish.py) and a room
(session/nats_source.py) alike: the credentials and TLS as given, reconnection with a backoff, the
stream checked, and every way it can fail said in words that name the fix.

The client is nats-py; this module imports it, so only what talks to NATS imports this module.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nats
import nats.errors
import nats.js.errors
from nats.aio.client import Client
from nats.js.api import DiscardPolicy, StorageType, StreamConfig

from teamtui.protocol.nats_subjects import STORED, STREAM

BACKOFF_FIRST, BACKOFF_MAX = 1.0, 30.0
CREDENTIALS_CAP = 64 * 1024  # bytes of a credentials file
KEEP_DAYS = 7  # a subject no host has published on for this long leaves the stream (hosts refresh daily)
DUPLICATE_WINDOW = 120.0  # seconds the server remembers a message id: a publish sent again is stored once


class NatsUnavailable(Exception):
    """The server cannot be used as it is: `fatal` when trying again cannot help (a refused credential)."""

    def __init__(self, text: str, *, fatal: bool = False):
        super().__init__(text)
        self.fatal = fatal


@dataclass(frozen=True)
class NatsLink:
    """Where the server is and how to prove who this is."""

    url: str
    credentials: str = ""  # a file: a .creds file (JWT and seed), an nkey seed, or a token
    tls_ca: str = ""  # a CA file the server's certificate is checked against
    label: str = ""  # what the server's monitoring calls this connection
    fix: str = "--creds"  # where the credentials are given, for the words of a refusal

    @property
    def shown(self) -> str:
        """The URL without any user or password in it."""
        from urllib.parse import urlsplit

        parts = urlsplit(self.url)
        if parts.password is None and parts.username is None:
            return self.url
        return f"{parts.scheme}://{parts.hostname}" + (f":{parts.port}" if parts.port else "")


def credential(path: str) -> tuple[str, str]:
    """("creds" | "nkey" | "token", the path or the token) for a credentials file; ValueError in words."""
    file = Path(path).expanduser()
    try:
        data = file.read_bytes()[: CREDENTIALS_CAP + 1]
    except OSError as exc:
        raise ValueError(f"cannot read the credentials file {file}: {exc.strerror or exc}") from None
    if len(data) > CREDENTIALS_CAP:
        raise ValueError(f"{file} is no credentials file (over {CREDENTIALS_CAP // 1024} KiB)")
    text = data.decode("utf-8", errors="replace")
    if "-----BEGIN NATS USER JWT-----" in text:
        return "creds", str(file)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if len(lines) == 1 and lines[0].startswith("SU") and len(lines[0]) == 58:
        return "nkey", str(file)
    if len(lines) == 1 and not any(c.isspace() for c in lines[0]):
        return "token", lines[0]
    raise ValueError(f"{file} holds no token, nkey seed (SU...) or .creds file (BEGIN NATS USER JWT)")


def options(link: NatsLink) -> dict[str, Any]:
    """nats-py's connect options for the link (ValueError in words for a bad file)."""
    out: dict[str, Any] = {"servers": [link.url], "name": link.label or "teamtui"}
    if link.credentials:
        kind, value = credential(link.credentials)
        out[{"creds": "user_credentials", "nkey": "nkeys_seed", "token": "token"}[kind]] = value
    if link.tls_ca:
        ca = Path(link.tls_ca).expanduser()
        try:
            out["tls"] = ssl.create_default_context(cafile=str(ca))
        except (OSError, ssl.SSLError) as exc:
            raise ValueError(f"cannot read the CA file {ca}: {exc}") from None
    return out


def backoff(first: float = BACKOFF_FIRST, most: float = BACKOFF_MAX) -> Callable[[list, dict], tuple[Any, float]]:
    """nats-py's reconnect hook: each server again after 1, 2, 4 ... 30 s."""

    def pick(servers: list, info: dict) -> tuple[Any, float]:
        server = min(servers, key=lambda s: s.reconnects)
        return server, min(most, first * 2 ** min(server.reconnects - 1, 16)) if server.reconnects else 0.0

    return pick


Callback = Callable[[], Awaitable[None]]


async def connect(
    link: NatsLink,
    *,
    error_cb: Callable[[Exception], Awaitable[None]] | None = None,
    disconnected_cb: Callback | None = None,
    reconnected_cb: Callback | None = None,
    closed_cb: Callback | None = None,
    inbox_prefix: str | None = None,
    first: float = BACKOFF_FIRST,
    most: float = BACKOFF_MAX,
) -> Client:
    """Connected, or NatsUnavailable saying why (fatal for a refused credential). Once connected,
    nats-py reconnects by itself with the backoff; what goes wrong later goes to `error_cb`."""
    try:
        opts = options(link)
    except ValueError as exc:
        raise NatsUnavailable(str(exc), fatal=True) from None
    nc = Client()
    first_error: asyncio.Future[Exception] = asyncio.get_running_loop().create_future()
    up = False

    async def on_error(exc: Exception) -> None:
        if not up:
            if not first_error.done():
                first_error.set_result(exc)
        elif error_cb is not None:
            await error_cb(exc)

    extra: dict[str, Any] = {"inbox_prefix": inbox_prefix} if inbox_prefix else {}
    task = asyncio.ensure_future(
        nc.connect(
            **opts,
            **extra,
            error_cb=on_error,
            disconnected_cb=disconnected_cb,
            reconnected_cb=reconnected_cb,
            closed_cb=closed_cb,
            allow_reconnect=True,
            max_reconnect_attempts=-1,
            reconnect_to_server_handler=backoff(first, most),
            connect_timeout=5,
            ping_interval=5,
            max_outstanding_pings=2,
        )
    )
    waits: set[asyncio.Future[Any]] = {task, first_error}
    done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    if task in done and task.exception() is None:
        up = True
        return nc
    task.cancel()
    with contextlib.suppress(BaseException):
        await task
    with contextlib.suppress(Exception):
        await nc.close()
    cause = first_error.result() if first_error.done() else task.exception()
    raise NatsUnavailable(explain(cause, link), fatal=refused(cause))


def refused(exc: BaseException | None) -> bool:
    """The server said no to who this is: trying again as the same cannot help."""
    text = str(exc).lower()
    return "authorization violation" in text or "authentication" in text or "user credentials" in text


def explain(exc: BaseException | None, link: NatsLink) -> str:
    """What went wrong with the server, and what to do about it."""
    where = link.shown
    said = " ".join(f"{exc}".split()).replace("nats: ", "")[:200] or type(exc).__name__
    if refused(exc):
        given = f"the credentials in {link.credentials}" if link.credentials else "no credentials"
        return (
            f"{where} refused {given} ({said}): give {link.fix} a token, an nkey seed or a .creds file that the "
            "server's config accepts (README: NATS)"
        )
    if isinstance(exc, ssl.SSLCertVerificationError) or "certificate verify failed" in said:
        return f"{where}: its TLS certificate is not trusted ({said}): give the CA that signed it with --tls-ca (tls_ca = in [[nats]])"
    if isinstance(exc, ssl.SSLError):
        return f"{where}: TLS failed ({said}): is it a TLS port, and is --tls-ca the CA that signed its certificate?"
    if "secure connection required" in said.lower() or "tls required" in said.lower():
        return f"{where} requires TLS: use tls:// and give its CA with --tls-ca"
    if isinstance(exc, (OSError, asyncio.TimeoutError, nats.errors.NoServersError, nats.errors.TimeoutError)):
        return f"cannot reach {where} ({said}): is nats-server running there, and are the host and port right?"
    return f"{where}: {said}"


async def ensure_stream(js: Any, link: NatsLink) -> Any:
    """The stream every host publishes into, made when it is not there yet (NatsUnavailable in words);
    when it was made (a stream made anew since holds none of what was published before)."""
    try:
        info = await js.stream_info(STREAM)
    except nats.js.errors.NotFoundError:
        info = None
    except nats.errors.NoRespondersError:
        raise NatsUnavailable(
            f"{link.shown} has no JetStream for this user: start nats-server with JetStream "
            "(`jetstream {}` in its config, `jetstream: enabled` in the account; README: NATS)"
        ) from None
    except (TimeoutError, nats.errors.TimeoutError):
        raise NatsUnavailable(
            f"{link.shown} did not answer about the stream {STREAM}: may this user read it "
            f"($JS.API.STREAM.INFO.{STREAM} in its permissions; README: NATS)?"
        ) from None
    if info is not None:
        if not info.config.allow_rollup_hdrs:
            raise NatsUnavailable(
                f"the stream {STREAM} on {link.shown} does not allow rollups (each team's snapshot replaces what "
                "was before it): delete it (`nats stream rm TEAMTUI`) and a publishing host makes it anew"
            )
        return info.created
    config = StreamConfig(
        name=STREAM,
        description="teamtui: each team's last snapshot and its changes since (teamtui.<host>.<team>.state)",
        subjects=[STORED],
        storage=StorageType.FILE,
        discard=DiscardPolicy.OLD,
        max_age=KEEP_DAYS * 86400.0,
        allow_rollup_hdrs=True,
        duplicate_window=DUPLICATE_WINDOW,
    )
    try:
        return (await js.add_stream(config)).created
    except nats.js.errors.APIError as exc:
        if "already in use" in str(exc):  # another host made it meanwhile
            return (await js.stream_info(STREAM)).created
        raise NatsUnavailable(f"{link.shown}: cannot make the stream {STREAM}: {exc.description or exc}") from None
    except (TimeoutError, nats.errors.TimeoutError):
        raise NatsUnavailable(
            f"there is no stream {STREAM} on {link.shown} yet, and this user may not make it: start a publishing "
            f"host first, or allow $JS.API.STREAM.CREATE.{STREAM} (README: NATS)"
        ) from None


__all__ = ["NatsLink", "NatsUnavailable", "connect", "credential", "ensure_stream", "explain", "options", "refused"]
