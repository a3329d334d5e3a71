"""A command given what it cannot take is a usage error: one line on stderr, exit 2 (README: Exit
codes), as argparse's own. Real `teamtui` processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def teamtui(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "XDG_STATE_HOME": str(tmp_path / "state"), "HOME": str(tmp_path)}
    return subprocess.run(
        [sys.executable, "-m", "teamtui", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


@pytest.mark.parametrize("args", [["--html", "x.html"], ["--activity"]])
def test_history_html_or_activity_without_a_team_is_a_usage_error(tmp_path: Path, args: list[str]) -> None:
    res = teamtui(tmp_path, "history", *args)
    assert (res.returncode, res.stdout) == (2, "")
    assert res.stderr == "teamtui: --html and --activity need a TEAM: teamtui history TEAM --html FILE\n"
    assert not (tmp_path / "x.html").exists()
