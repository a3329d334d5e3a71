"""Where teammates show, tmux panes or in-process: decided once per command that shows them.

`watch` (and the bare `teamtui`), `run` and `demo` call teammate_mode() once, before anything is
created (a folder, the team, the dashboard), and pass the ModeDecision it returns along to
teamtui.tmux.mode.make_panes, which opens the panes. Nothing else in the CLI decides the mode.
"""

from __future__ import annotations

from teamtui.cli.common import EXIT_USAGE, CliError, Context, inert

TYPE_CHECKING = False  # not typing's: importing it costs ~2 ms
if TYPE_CHECKING:
    from teamtui.protocol.settings import Settings
    from teamtui.tmux.mode import ModeDecision


def teammate_mode(ctx: Context, settings: Settings | None = None) -> ModeDecision:
    """--teammate-mode, else the config file's teammate_mode (from `settings`, else loaded here),
    else auto; see teamtui.tmux.mode.resolve_teammate_mode. `--teammate-mode tmux` outside a live
    tmux is a usage error: one line, exit 2, no traceback."""
    from teamtui.protocol.settings import config_path
    from teamtui.tmux.mode import resolve_teammate_mode
    from teamtui.tmux.server import TmuxUnavailable

    if settings is None:
        from teamtui.cli.common import settings as load_settings  # what is wrong with the file, on stderr

        settings = load_settings()
    try:
        return resolve_teammate_mode(
            getattr(ctx.args, "teammate_mode", None), settings.teammate_mode, config_file=str(config_path())
        )
    except TmuxUnavailable as exc:
        raise CliError(inert(str(exc)), EXIT_USAGE) from None


__all__ = ["teammate_mode"]
