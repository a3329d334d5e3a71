"""The team folders under one root, each with what is wrong with it (if anything), never raising.

`layout.team_names` lists only the teams that read well; the fleet lists a half-written,
unreadable or hostile folder too, with its problem, so that a person sees it rather than
wondering where a team went. Nothing here follows a symlinked folder or opens an unsafe name.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from teamtui.protocol.errors import ReadError
from teamtui.protocol.fsio import load_json_file
from teamtui.protocol.names import is_safe_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.protocol.layout import LayoutName

# Where each layout keeps its team folders under a root.
TEAMS_FOLDER: dict[LayoutName, str] = {"native": ".teams", "claude": "teams"}


def teams_folder(root: Path, layout: LayoutName) -> Path:
    return Path(root) / TEAMS_FOLDER[layout]


def _skipped(name: str) -> bool:
    # Claude Code renames a folder it is deleting to `<team>.deleted-<uuid>`; dot-names are temp files.
    return name.startswith(".") or ".deleted-" in name


# A config.json that is there but does not read: the team is still opened (its dashboard says what
# is wrong and shows the rest; a peer may be rewriting it). Every other problem keeps it closed.
CONFIG_PROBLEM = "config.json: "


def opens_despite(problem: str | None) -> bool:
    """Whether a team folder with `problem` (folder_problem's) is opened all the same."""
    return problem is None or problem.startswith(CONFIG_PROBLEM)


def folder_problem(folder: Path) -> str | None:
    """Why the team folder `folder` cannot be shown as a team, or None when its config reads."""
    name = folder.name
    if not is_safe_name(name):
        return "unsafe folder name: not read"
    try:
        st = os.lstat(folder)
    except OSError as exc:
        return f"cannot read the folder: {exc.strerror or exc}"
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link, not a folder: not followed"
    if stat.S_ISDIR(st.st_mode) and (why := folder_unreadable(folder)) is not None:
        return why  # not a config problem: nothing in it can be read
    config = folder / "config.json"
    data = load_json_file(config)
    if isinstance(data, ReadError):
        if data.reason == "file not found":
            return "half-written: no config.json yet"
        return f"{CONFIG_PROBLEM}{data.reason}"
    if not isinstance(data, dict):
        return f"{CONFIG_PROBLEM}expected a JSON object, got {type(data).__name__}"
    return None


def folder_unreadable(path: Path) -> str | None:
    """Why the folder `path` cannot be looked into (missing, not a folder, no permission), or None."""
    try:
        with os.scandir(path):  # may list it
            pass
        os.stat(os.path.join(path, "."))  # may enter it
    except (FileNotFoundError, NotADirectoryError):
        return "not a folder"
    except (OSError, ValueError) as exc:
        return f"cannot read the folder: {getattr(exc, 'strerror', None) or exc}"
    return None


def scan_teams(root: Path, layout: LayoutName, problems: list[str] | None = None) -> list[tuple[str, str | None]]:
    """(folder name, problem or None) for every team folder under `root`, by name. A teams folder
    that is there but cannot be read is said in `problems` (a missing one is no problem)."""
    base = teams_folder(root, layout)
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except (OSError, ValueError) as exc:
        if problems is not None:
            problems.append(f"{base}: cannot read the folder: {getattr(exc, 'strerror', None) or exc}")
        return []
    found: list[tuple[str, str | None]] = []
    for entry in entries:
        if _skipped(entry.name):
            continue
        try:
            is_folder = entry.is_dir(follow_symlinks=True)
        except OSError:
            is_folder = False
        # A plain file beside the teams is not a team; a symlink to a folder is shown, refused.
        if is_folder or entry.is_symlink():
            found.append((entry.name, folder_problem(Path(entry.path))))
    return found
