"""A Claude Code team of real files whose alice and bob both edit /src/app/app.py (the
claude-2.1.332-edits example), with bob's edit held back to be made during a test, and each
teammate's edit made once more as a new tool call."""

from __future__ import annotations

import shutil
from pathlib import Path

EDITS = Path(__file__).resolve().parent / "fixtures" / "examples" / "claude-2.1.332-edits" / ".claude"
SUB = "projects/-src-app/48868de5-8ae7-4125-8599-c28685a97f25/subagents"
ALICE, BOB = f"{SUB}/agent-aalice-df0585ad00aef93c.jsonl", f"{SUB}/agent-abob-464809b8192e779c.jsonl"
BOB_EDIT = slice(18, 20)  # bob's Edit of /src/app/app.py and its result
ALICE_EDIT = slice(20, 22)  # alice's Edit of the same file and its result


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def claude_team(tmp_path: Path, *, bob_edited: bool = False, where: str = "app") -> tuple[Path, list[str]]:
    """The team's .claude folder (under tmp_path/`where`); unless `bob_edited`, bob's transcript
    stops before his edit. Also bob's whole transcript, to append his edit from."""
    root = tmp_path / where / ".claude"
    shutil.copytree(EDITS, root)
    bob = lines_of(root / BOB)
    if not bob_edited:
        (root / BOB).write_text("".join(bob[: BOB_EDIT.start]), encoding="utf-8")
    return root, bob


def edit_again(root: Path, member: str, lines: list[str], n: int) -> Path:
    """Append `lines` to the transcript `member` (ALICE, BOB) as a new tool call (ids of its own, `n`)."""
    path = root / member
    fresh = [line.replace("toolu_bar", f"toolu_again{n}_").replace('"uuid":"', f'"uuid":"again{n}-') for line in lines]
    with path.open("a", encoding="utf-8") as fh:
        fh.write("".join(fresh))
    return path
