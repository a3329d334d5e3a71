"""Where the spool lives, and making sure only this user can reach it.

`$XDG_STATE_HOME/teamtui/hooks` (default `~/.local/state/teamtui/hooks`), both teamtui folders
0700 and owned by the user; a folder someone else owns, or a symlink in its place, is refused
(another user must not be able to read the requests, answer them or fake a room).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

TYPE_CHECKING = False  # not typing's: `teamtui hook` runs in Claude Code's loop
if TYPE_CHECKING:
    from collections.abc import Mapping

EVENTS = "events.jsonl"
EVENTS_OLD = "events.1.jsonl"
ROOMS_LOCK = "rooms.lock"
SPOOL_LOCK = "spool.lock"  # taken only to rotate a file
REQUESTS = "requests"
JOURNAL = "journal.jsonl"
JOURNAL_OLD = "journal.1.jsonl"


class PlaceError(OSError):
    """The spool folder cannot be made private (someone else owns it, or it is not a folder)."""


def state_home(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME") or ""
    # The XDG rule: a relative value is ignored.
    if not base or not os.path.isabs(base):
        home = env.get("HOME") or os.path.expanduser("~")
        base = os.path.join(home, ".local", "state")
    return Path(base)


def spool_dir(env: Mapping[str, str] | None = None) -> Path:
    """The hooks folder (not created)."""
    return state_home(env) / "teamtui" / "hooks"


def private_dir(path: Path) -> Path:
    """`path` as a folder of this user's, mode 0700, made if missing (its parents as usual)."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise PlaceError(f"{path} is not a folder (a symlink or a file is in its place): refusing to use it")
    if st.st_uid != os.getuid():
        raise PlaceError(f"{path} belongs to another user (uid {st.st_uid}): refusing to use it")
    if st.st_mode & 0o077:
        os.chmod(path, 0o700)
    return path


def ensure_spool(env: Mapping[str, str] | None = None) -> Path:
    """The hooks folder, made private (and its `teamtui` parent)."""
    spool = spool_dir(env)
    private_dir(spool.parent)
    return private_dir(spool)


def ensure_requests(spool: Path) -> Path:
    return private_dir(spool / REQUESTS)
