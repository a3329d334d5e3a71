"""Where `teamtui serve` listens: the socket, whether only this machine can reach it, the URL to print."""

from __future__ import annotations

import errno
import ipaddress
import os
import socket


class ServeError(Exception):
    """Why the server cannot start, in one sentence for the user."""


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on host:port (port 0: any free one)."""
    try:
        family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as exc:
        raise ServeError(f"cannot listen on {host!r}: {exc.strerror}") from None
    try:
        return socket.create_server(address, family=family)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ServeError(
                f"port {port} on {host} is in use: stop what holds it, or pick another with --port"
            ) from None
        reason = os.strerror(exc.errno) if exc.errno else str(exc)  # create_server's strerror repeats the address
        raise ServeError(f"cannot listen on {host}:{port}: {reason}") from None


def is_local(host: str) -> bool:
    """True when every address `host` names is a loopback one: nobody else on the network can connect."""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except socket.gaierror:
        return False
    return bool(infos) and all(ipaddress.ip_address(str(info[4][0]).split("%")[0]).is_loopback for info in infos)


def page_url(host: str, port: int, token: str) -> str:
    """The URL to open: a wildcard address is no place to browse to, so this machine's name stands in."""
    if host in ("", "0.0.0.0", "::"):
        host = socket.gethostname()
    if ":" in host:  # an IPv6 address goes in brackets
        host = f"[{host}]"
    return f"http://{host}:{port}/?token={token}"


__all__ = ["ServeError", "listen", "is_local", "page_url"]
