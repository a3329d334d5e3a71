"""Which display mode teammates get: `auto`, `in-process` or `tmux`.

`auto` means tmux when $TMUX is set and that server answers, otherwise in-process.
A dead $TMUX or a missing tmux binary falls back to in-process with a notice (a line
for the UI to toast); asking for `tmux` outside tmux raises TmuxUnavailable.
The command line wins over the config file's `teammate_mode`; the default is auto.
"""

from __future__ import annotations

import argparse
import os

from teamtui.protocol.record import FrozenRecord, init_field

TYPE_CHECKING = False  # not typing's: every CLI command imports this module for --teammate-mode
if TYPE_CHECKING:
    from collections.abc import Mapping

    from teamtui.tmux.api import TeammatePanes

MODES = ("auto", "in-process", "tmux")
# How long a tmux server gets to answer before it counts as dead.
PROBE_TIMEOUT = 2.0


class ModeDecision(FrozenRecord):
    __slots__ = ("mode", "notice")
    mode: str  # "in-process" or "tmux"
    notice: str  # for the UI to toast: why auto did not pick tmux, or a bad config value

    def __init__(self, mode: str, notice: str = ""):
        init_field(self, "mode", mode)
        init_field(self, "notice", notice)


def add_teammate_mode_option(parser: argparse.ArgumentParser, *, top: bool = True) -> None:
    """--teammate-mode for `teamtui`, `watch`, `run` and `demo` (SUPPRESS in subparsers)."""
    parser.add_argument(
        "--teammate-mode",
        choices=MODES,
        default=None if top else argparse.SUPPRESS,
        help="where teammates show: tmux panes beside the dashboard, or in-process; "
        "default auto (tmux when inside a live tmux), or teammate_mode from the config file",
    )


def _probe(socket: str, timeout: float) -> str:
    """ "" when the tmux server on `socket` answers, else why not."""
    import shutil  # here: every CLI command defines --teammate-mode, few probe tmux
    import subprocess

    tmux = shutil.which("tmux")
    if tmux is None:
        return "tmux is not installed"
    try:
        proc = subprocess.run(
            [tmux, "-S", socket, "display-message", "-p", "#{pid}"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"the tmux server at {socket} did not answer within {timeout:g} s"
    except OSError as exc:
        return f"tmux could not run: {exc.strerror or exc}"
    if proc.returncode != 0:
        return f"the tmux server at {socket} does not answer ($TMUX is stale)"
    return ""


def resolve_teammate_mode(
    requested: str | None,
    config_value: str | None = None,
    env: Mapping[str, str] | None = None,
    *,
    timeout: float = PROBE_TIMEOUT,
    config_file: str = "the config file",
) -> ModeDecision:
    """`requested` (--teammate-mode) wins over `config_value` (teammate_mode in `config_file`);
    tmux asked for where there is none is refused, naming where it was asked."""
    from teamtui.tmux.server import TmuxUnavailable, socket_from_env  # not for every CLI call's --teammate-mode

    env = os.environ if env is None else env
    notice = ""
    mode = requested
    if mode is None and config_value:
        if config_value in MODES:
            mode = config_value
        else:
            notice = f"teammate_mode {config_value!r} in the config file is not one of {', '.join(MODES)}: using auto. "
    mode = mode or "auto"
    asked = "--teammate-mode tmux" if requested else f'teammate_mode = "tmux" in {config_file}'
    if mode == "in-process":
        return ModeDecision("in-process", notice.strip())
    socket = socket_from_env(env)
    if socket is None:
        if mode == "tmux":
            raise TmuxUnavailable(f"{asked} needs teamtui to run inside tmux ($TMUX is not set)")
        return ModeDecision("in-process", notice.strip())
    why = _probe(socket, timeout)
    if not why and not env.get("TMUX_PANE"):
        why = "$TMUX_PANE is not set, so teamtui cannot tell which pane is its own"
    if why:
        if mode == "tmux":
            raise TmuxUnavailable(f"{asked}: {why}")
        return ModeDecision("in-process", f"{notice}Teammates shown in-process: {why}.")
    return ModeDecision("tmux", notice.strip())


def make_panes(
    decision: ModeDecision, team: str, env: Mapping[str, str] | None = None, *, max_panes: int | None = None
) -> tuple[TeammatePanes, str]:
    """The panes for `decision` (at most `max_panes` `follow` panes at once), and a notice
    (leftover panes closed, or why tmux failed after all)."""
    from teamtui.tmux.api import NullPanes

    if decision.mode != "tmux":
        return NullPanes(), decision.notice
    from teamtui.tmux.budget import DEFAULT_MAX_PANES
    from teamtui.tmux.panes import TmuxPanes
    from teamtui.tmux.server import TmuxError

    try:
        panes, leftovers = TmuxPanes.from_env(team, env, max_panes=max_panes or DEFAULT_MAX_PANES)
    except TmuxError as exc:
        return NullPanes(), f"Teammates shown in-process: {exc}"
    notice = decision.notice
    if leftovers:
        notice = f"{notice} Closed {len(leftovers)} pane(s) left by a teamtui that was killed.".strip()
    return panes, notice
