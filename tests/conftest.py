"""Shared fixtures: real team directories copied from the format examples."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

# A copy of ../shared/formats/examples, so a clone tests without shared/ beside it
# (tests/protocol/test_examples.py checks the copy still matches when shared/ is there).
EXAMPLES = Path(__file__).parent / "fixtures" / "examples"
SHARED_EXAMPLES = Path(__file__).resolve().parents[2] / "shared" / "formats" / "examples"


# A CLI call in this process: (exit code, stdout, stderr).
Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Run:
    from teamtui.cli import main

    def run(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def native_root(tmp_path: Path) -> Path:
    """A project root holding the native example team `refactor-auth`."""
    root = tmp_path / "native"
    shutil.copytree(EXAMPLES / "native", root)
    return root


@pytest.fixture
def claude_root(tmp_path: Path) -> Path:
    """A Claude Code folder holding the example team `work-team`."""
    root = tmp_path / "claude"
    shutil.copytree(EXAMPLES / "claude", root)
    return root


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never read or write the developer's real config, Claude folder or tmux server."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)  # the journal goes under the private HOME
    for var in ("TEAMTUI_ROOT", "TEAMTUI_TEAM", "TEAMTUI_NAME", "TEAMTUI_AGENT_ID", "TMUX", "TMUX_PANE"):
        monkeypatch.delenv(var, raising=False)
