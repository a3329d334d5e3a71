"""A thin, error-checked layer over libtmux.Server: every call names its target by pane or window id."""

from __future__ import annotations

import os
from collections.abc import Mapping

from teamtui.protocol.errors import ProtocolError


class TmuxError(ProtocolError):
    """A tmux command failed (or tmux is missing)."""


class TmuxUnavailable(TmuxError):
    """tmux mode was asked for but there is no live tmux server around this process."""


def socket_from_env(env: Mapping[str, str] | None = None) -> str | None:
    """The socket path in $TMUX ("<socket>,<server pid>,<session id>"), or None."""
    value = (os.environ if env is None else env).get("TMUX", "")
    if not value:
        return None
    # The socket path itself may contain commas: the last two fields are the pid and the session.
    parts = value.rsplit(",", 2)
    return parts[0] or None


class Tmux:
    """One tmux server, addressed by socket path (never the default server by accident)."""

    def __init__(self, socket_path: str):
        # Here, not at the top: deciding the teammate mode needs socket_from_env, not libtmux (~0.1 s).
        from libtmux import Server

        self.socket_path = socket_path
        self.server = Server(socket_path=socket_path)

    def run(self, *args: str) -> list[str]:
        """Run a tmux command; raise TmuxError with tmux's own message when it fails."""
        from libtmux import exc as tmux_exc

        try:
            proc = self.server.cmd(*args)
        except tmux_exc.TmuxCommandNotFound:
            raise TmuxError("tmux is not installed (no `tmux` on PATH)") from None
        if proc.returncode != 0:
            raise TmuxError(f"tmux {args[0]}: {' '.join(proc.stderr) or 'failed'}")
        return list(proc.stdout)

    def try_run(self, *args: str) -> list[str] | None:
        """Like run, but None on failure: for panes that may have vanished meanwhile."""
        try:
            return self.run(*args)
        except TmuxError:
            return None

    def pane_exists(self, pane_id: str) -> bool:
        out = self.try_run("display-message", "-p", "-t", pane_id, "#{pane_id}")
        return out[0] == pane_id if out else False

    def pane_info(self, pane_id: str, fmt: str) -> str | None:
        out = self.try_run("display-message", "-p", "-t", pane_id, fmt)
        return out[0] if out else None

    def list_panes(self, fields: list[str]) -> list[dict[str, str]]:
        """Every pane on the server, each as {field: value}."""
        fmt = "\t".join("#{%s}" % f for f in fields)
        rows = self.try_run("list-panes", "-a", "-F", fmt) or []
        # A value holding a tab yields more parts: the fields asked for take the first ones.
        return [dict(zip(fields, row.split("\t"), strict=False)) for row in rows]
