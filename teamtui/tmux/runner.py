"""What a TmuxSpawner pane runs: the teammate command, its output shown in the pane AND
appended to its log. `python -m teamtui.tmux.runner --log LOG -- COMMAND`.

Why a small runner instead of `cmd | tee`: the exit status must survive (a pipeline
reports tee's), tee must not die of the SIGTERM meant for the teammate before the last
lines are logged, and the pane must stay (remain-on-exit) until the spawner has read
the status. The status is also stored in the pane option @teamtui-exit (as the Popen
convention, -N for a signal): tmux 3.3 does not always fill `#{pane_dead_status}`.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

from teamtui.protocol.errors import WriteError
from teamtui.protocol.fsio import write_whole
from teamtui.protocol.teammate import PANE_TTY_ENV
from teamtui.tmux.server import socket_from_env

EXIT_OPTION = "@teamtui-exit"


def _set_own_pane_option(option: str, value: str) -> None:
    pane = os.environ.get("TMUX_PANE", "")
    socket = socket_from_env()
    if pane and socket:
        subprocess.run(
            ["tmux", "-S", socket, "set-option", "-p", "-t", pane, option, value],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=5,
            check=False,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="teamtui-runner")
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    parts = args.command[1:] if args.command[:1] == ["--"] else args.command
    command = " ".join(parts)
    _set_own_pane_option("remain-on-exit", "on")
    # The signal reaches the whole process group: the runner keeps copying output until the child ends.
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: None)
    # A closed pane hangs up its terminal, and the kernel tells the session leader (this runner)
    # alone: pass it on to the group once, or the teammate outlives its pane unseen.
    hung_up = False

    def hangup(*_: object) -> None:
        nonlocal hung_up
        if not hung_up:
            hung_up = True
            os.killpg(os.getpgrp(), signal.SIGHUP)

    signal.signal(signal.SIGHUP, hangup)
    args.log.parent.mkdir(exist_ok=True)  # the logs folder, in a team folder that must still be there
    env = dict(os.environ)
    if os.isatty(1):  # teammates using the Teammate API show their log lines on the pane too
        env[PANE_TTY_ENV] = os.ttyname(1)
    child = subprocess.Popen(["/bin/sh", "-c", command], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    if hung_up:  # the pane closed while the child was being started: the hangup must reach it too
        os.killpg(os.getpgrp(), signal.SIGHUP)
    assert child.stdout is not None
    fd = child.stdout.fileno()
    show = True
    logging = True
    log = os.open(args.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        while True:
            data = os.read(fd, 65536)
            if not data:
                break
            if logging:
                try:
                    write_whole(log, args.log, data)  # a short write completed, a failed one taken back
                except WriteError as exc:  # a full disk: keep the pane going, say why the log stops
                    logging = False
                    data += f"\n[teamtui: {exc}; not logging any more]\n".encode()
            if show:
                try:
                    os.write(1, data)
                except OSError:  # the pane is gone: keep logging
                    show = False
    finally:
        os.close(log)
    code = child.wait()
    # tmux 3.3 sometimes never reaps a dead pane's process, leaving #{pane_dead_status} empty.
    _set_own_pane_option(EXIT_OPTION, str(code))
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main())
