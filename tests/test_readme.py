"""The README's set-up and install commands, run as a newcomer runs them, in a copy of the
sources outside the checkout: `make install` says one line per step (and everything when a step
fails), and every install command the README shows works here. "box" is another machine: what
`scp … box:` copies lands in a home of its own, and what `ssh box …` runs runs there."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent  # the test extra's pipx and uv
SOURCES = ("Makefile", "pyproject.toml", "setup.py", "README.md", "teamtui", "themes")
INSTALLS = ("make wheel", "scp ", "ssh box ", "pipx install ", "uv tool install ")


def readme_commands() -> list[str]:
    """Every command of the README's sh blocks (an `# or: …` in a comment is one too), and the
    inline `pipx install …` / `uv tool install …` of its prose."""
    text = (ROOT / "README.md").read_text()
    out: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            command, _, comment = line.partition(" #")
            out.append(command.strip())
            out += [alt.strip() for alt in re.findall(r"or: (.+?)(?:$|;| \()", comment)]
    out += re.findall(r"`((?:pipx|uv tool) install [^`]+)`", text)
    return [c for c in out if c]


def _env(home: Path) -> dict[str, str]:
    """A machine of its own: its HOME, where pipx and uv put their tools, nothing of the checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEAMTUI_", "PYTHONPATH", "VIRTUAL_ENV"))}
    local = home / ".local"
    env.update(
        HOME=str(home),
        PATH=os.pathsep.join([str(local / "bin"), str(BIN), *os.environ.get("PATH", "").split(os.pathsep)]),
        PIPX_HOME=str(local / "pipx"),
        PIPX_BIN_DIR=str(local / "bin"),
        PIPX_MAN_DIR=str(local / "man"),
        UV_TOOL_DIR=str(local / "uv-tools"),
        UV_TOOL_BIN_DIR=str(local / "bin"),
        UV_PYTHON_DOWNLOADS="never",  # the Python here, as pipx uses
        UV_PYTHON=sys.executable,
    )
    return env


def _run(argv: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 600):
    # As from a shell: not as a sub-make of the `make test` that may run this (it would say "Entering directory").
    env = {
        k: v for k, v in (os.environ if env is None else env).items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")
    }
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sources as a fresh clone has them (no .venv yet), in a git repository of their own."""
    where = tmp_path_factory.mktemp("clone") / "teamtui"
    where.mkdir()
    for name in SOURCES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, where / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(src, where / name)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "clone"]):
        assert _run([*git, *step], where).returncode == 0
    return where


@pytest.fixture(scope="module")
def set_up(clone: Path) -> subprocess.CompletedProcess[str]:
    return _run(["make", "install", f"PYTHON={sys.executable}"], clone)


def test_set_up_says_one_line_per_step(set_up: subprocess.CompletedProcess[str]) -> None:
    assert set_up.returncode == 0, set_up.stdout + set_up.stderr
    assert set_up.stdout.splitlines() == [
        f"make: creating .venv with {sys.executable}",
        "make: upgrading pip in .venv",
        "make: installing teamtui into .venv (editable)",
    ]
    assert set_up.stderr == ""  # no "Editable installation" box, no pip notice


def test_a_failing_step_shows_what_the_tool_said(clone: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(clone, broken, ignore=shutil.ignore_patterns(".venv", ".git"))
    (broken / "pyproject.toml").write_text((broken / "pyproject.toml").read_text().replace("[project]", "[project"))
    done = _run(["make", "install", f"PYTHON={sys.executable}"], broken)
    assert done.returncode != 0
    assert "make: installing teamtui into .venv (editable): failed" in done.stderr
    assert "Expected ']' at the end of a table declaration" in done.stderr, done.stderr  # the tool's own words


def test_every_install_command_of_the_readme_works(
    clone: Path, set_up: subprocess.CompletedProcess[str], tmp_path: Path
) -> None:
    assert set_up.returncode == 0
    commands = [c for c in readme_commands() if c.startswith(INSTALLS)]
    version = re.search(r'^version = "(.+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert version
    wheel = f"teamtui-{version.group(1)}-py3-none-any.whl"
    assert "make wheel" in commands and f"scp dist/{wheel} box:" in commands, commands
    box = tmp_path / "box"
    box.mkdir()
    ran = []
    for i, command in enumerate(commands):
        argv = shlex.split(command)
        if command == "make wheel":
            done = _run(argv, clone)
            assert done.returncode == 0, done.stdout + done.stderr
            assert done.stdout.splitlines() == [f"make: building dist/{wheel}"]
            assert [p.name for p in (clone / "dist").iterdir()] == [wheel]
            ran.append(command)
            continue
        if argv[0] == "scp":
            assert argv[2] == "box:"
            shutil.copy(clone / argv[1], box)
            ran.append(command)
            continue
        # An installer: on box (ssh box …, after scp), or here in the clone; each in a home of its own.
        on_box = argv[:2] == ["ssh", "box"]
        argv = argv[2:] if on_box else argv
        home = tmp_path / f"home-{i}"
        home.mkdir()
        cwd = box if on_box else clone
        if argv[-1] == "git+URL":  # your clone's URL: here, this one's
            argv[-1] = f"git+file://{clone}"
        done = _run(argv, cwd, _env(home))
        assert done.returncode == 0, f"{command}: {done.stdout}{done.stderr}"
        teamtui = home / ".local" / "bin" / "teamtui"
        said = _run([str(teamtui), "--version"], home, _env(home), timeout=60)
        assert said.stdout.strip() == f"teamtui {version.group(1)}", (command, said.stderr)
        ran.append(command)
    assert ran == commands
    assert {c.split()[0] for c in ran if not c.startswith(("make", "scp"))} >= {"ssh", "pipx", "uv"}
