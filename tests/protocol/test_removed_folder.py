"""A write into a team folder that was removed fails and makes nothing: a late log line, message or
result never brings back a team its owner took away (a demo's temp folder removed while its lead
still shut the team down)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from teamtui.protocol import NativeTeam
from teamtui.protocol.errors import FolderGoneError, NotFoundError
from teamtui.protocol.fsio import ensure_dir
from teamtui.protocol.touching import record_touch

TEAM = "refactor-auth"

NATIVE_WRITES: dict[str, Callable[[NativeTeam], object]] = {
    "a log line": lambda s: s.log("lead", "sending SIGTERM to ada"),
    "a shutdown result": lambda s: s.write_shutdown_result("abcd1234", {"outcome": "clean"}),
    "a touch": lambda s: record_touch(s, "src/app.py", "hunter"),
}


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root.parent)) for p in root.parent.rglob("*"))


@pytest.mark.parametrize("write", list(NATIVE_WRITES))
@pytest.mark.parametrize("removed", ["the project root", "the team folder"])
def test_a_native_write_into_a_removed_folder_makes_nothing(native_root: Path, write: str, removed: str) -> None:
    store = NativeTeam(native_root, TEAM)
    gone = native_root if removed == "the project root" else store.team_dir
    shutil.rmtree(gone)
    before = _files(native_root)
    with pytest.raises(OSError) as caught:  # the lead's progress lines catch an OSError
        NATIVE_WRITES[write](store)
    assert isinstance(caught.value, NotFoundError), "the CLI says a NotFoundError in one line"
    assert _files(native_root) == before
    assert not gone.exists()


def test_ensure_dir_makes_what_is_missing_below_a_root_that_is_there(tmp_path: Path) -> None:
    made = ensure_dir(tmp_path / "a" / "b" / "c", tmp_path)
    assert made.is_dir()
    with pytest.raises(FolderGoneError, match="it is gone"):
        ensure_dir(tmp_path / "gone" / "logs", tmp_path / "gone")
    assert not (tmp_path / "gone").exists()


def test_creating_a_team_may_make_its_root(tmp_path: Path) -> None:
    store = NativeTeam.create_team(tmp_path / "new" / "project", "fresh")
    assert store.config_path.is_file()
