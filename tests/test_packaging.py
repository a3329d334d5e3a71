"""What a wheel of teamtui carries: an installed teamtui has no repository around it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.corpus.ptyrun import PtyProcess

ROOT = Path(__file__).resolve().parents[1]
# The terminal's own sequences (CSI, OSC), taken out to read the text a dashboard drew.
ESCAPES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
# What a broken install shows: a traceback, a stylesheet or style error, Textual's missing style.
BROKEN = ("Traceback", "Error", "MissingStyle")


def _run(argv: list[str | Path], what: str, **kw) -> subprocess.CompletedProcess[str]:
    res = subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kw)
    assert res.returncode == 0, f"{what}: exit {res.returncode}\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel of this checkout, built by the running Python."""
    tmp = tmp_path_factory.mktemp("wheel")
    # Built from a copy of the sources: a build writes build/ and *.egg-info beside them.
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for name in ("teamtui", "themes"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    _run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", tmp / "dist", src],
        "pip wheel",
        timeout=300,
    )
    (built,) = (tmp / "dist").glob("teamtui-*.whl")
    return built


def test_the_wheel_carries_the_builtin_themes_and_the_stylesheet(wheel: Path):
    names = set(zipfile.ZipFile(wheel).namelist())
    themes = {f"teamtui/themes/{p.name}" for p in (ROOT / "themes").glob("*.toml")}
    assert themes and themes <= names, sorted(n for n in names if "theme" in n)
    assert "teamtui/tui/app.tcss" in names
    assert "teamtui/serve/templates/app_index.html" in names  # `teamtui serve`'s page


class Installed:
    """The wheel in a fresh venv, and a place to run it that knows nothing of the checkout."""

    def __init__(self, venv: Path, work: Path):
        self.venv = venv
        self.bin = venv / "bin"
        self.work = work  # the cwd, HOME and TMPDIR of every run
        (work / "cwd").mkdir()
        (work / "home" / ".config").mkdir(parents=True)
        (work / "tmp").mkdir()

    @property
    def cwd(self) -> Path:
        return self.work / "cwd"

    def env(self) -> dict[str, str]:
        # No PYTHONPATH and no PATH entry into the checkout; only the venv's teamtui to be found.
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("TEAMTUI_", "TMUX", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"))
        }
        path = [
            p for p in os.environ.get("PATH", "").split(os.pathsep) if p and not Path(p).resolve().is_relative_to(ROOT)
        ]
        env.update(
            PATH=os.pathsep.join([str(self.bin), *path]),
            HOME=str(self.work / "home"),
            XDG_CONFIG_HOME=str(self.work / "home" / ".config"),
            TMPDIR=str(self.work / "tmp"),
        )
        return env


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """One fresh venv per module (a venv and its dependencies take a few seconds to install)."""
    base = tmp_path_factory.mktemp("installed")
    assert not base.resolve().is_relative_to(ROOT), "the temp folder must be outside the checkout"
    venv = base / "venv"
    _run([sys.executable, "-m", "venv", venv], "python -m venv", timeout=300)
    # Dependencies from the package index, as the machine's pip is configured.
    _run(
        [venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel],
        "pip install the wheel",
        cwd=base,
        timeout=600,
    )
    return Installed(venv, base)


def test_the_installed_package_is_the_wheel_with_its_data_files(installed: Installed):
    probe = (
        "import json, teamtui, teamtui.tui.app as app, teamtui.tui.themes as t\n"
        "from pathlib import Path\n"
        "loaded = t.load_themes([t.BUILTIN_DIR])\n"
        "print(json.dumps({'package': teamtui.__file__, 'themes_dir': str(t.BUILTIN_DIR),\n"
        "  'themes': sorted(x.name for x in loaded.themes), 'problems': loaded.problems,\n"
        "  'tcss': (Path(app.__file__).parent / app.TeamTUI.CSS_PATH).is_file()}))\n"
    )
    res = _run(
        [installed.bin / "python", "-c", probe],
        "the installed package",
        cwd=installed.cwd,
        env=installed.env(),
        timeout=60,
    )
    found = json.loads(res.stdout)
    site = installed.venv.resolve()
    for key in ("package", "themes_dir"):
        where = Path(found[key]).resolve()
        assert where.is_relative_to(site) and not where.is_relative_to(ROOT), (key, found[key])
    want = sorted(tomllib.loads(p.read_text())["name"] for p in (ROOT / "themes").glob("*.toml"))
    assert found["themes"] == want and not found["problems"], found
    assert found["tcss"], found


def test_the_installed_headless_demo_runs_its_team_to_the_end(installed: Installed):
    # --speed 20: the demo's two minutes in a few seconds; it exits 0 when every task is completed.
    res = _run(
        [installed.bin / "teamtui", "demo", "--headless", "--speed", "20", "--teammates", "4"],
        "teamtui demo --headless",
        cwd=installed.cwd,
        env=installed.env(),
        timeout=120,
    )
    out = res.stdout + res.stderr
    assert re.search(r"started \w+ \(pid \d+\)", out), out
    assert re.search(r"#\d+ .+ completed by \w+ \[\d+/15\]", out), out
    assert "all 15 tasks completed" in out and "team stopped" in out, out
    for word in BROKEN:
        assert word not in out, f"{word!r} in the demo's output:\n{out}"


def _dashboard_text(out: bytes) -> str:
    """What the dashboard drew (from its switch to the alternate screen on), without escapes."""
    _, _, screen = out.partition(b"\x1b[?1049h")
    return ESCAPES.sub(b"", screen).decode("utf-8", "replace")


def test_the_installed_dashboard_draws_the_team_in_a_terminal(installed: Installed):
    dark = tomllib.loads((ROOT / "themes" / "dark.toml").read_text())
    background = "48;2;" + ";".join(str(int(dark["background"][i : i + 2], 16)) for i in (1, 3, 5))
    env = installed.env()
    env.update(COLORTERM="truecolor", PYTHONPATH="")  # PtyProcess would point PYTHONPATH at the checkout
    proc = PtyProcess(
        ["demo", "--teammate-mode", "in-process"],
        cols=120,
        rows=40,
        env=env,
        cwd=installed.cwd,
        program=[str(installed.bin / "teamtui")],
    )
    try:
        proc.read_until(
            lambda out: re.search(r"teamtui\s+demo\s+● active", _dashboard_text(out)) is not None,
            "the header with the team's name",
            limit=60,
        )
        titles = ("Team", "Tasks", "Messages", "Log · ")
        proc.read_until(
            lambda out: all(f"╭─ {t}" in _dashboard_text(out) for t in titles), f"the panels {titles}", limit=30
        )
        proc.read_until(
            lambda out: re.search(r"claimed #\d+", _dashboard_text(out)) is not None,
            "a teammate at work in its log",
            limit=30,
        )
        end = time.monotonic() + 3  # a few seconds of a live team on the screen
        while time.monotonic() < end and proc._read(0.2):
            pass
        proc.write(b"q")
        code = proc.finish(limit=60)
    finally:
        proc.close()
    out = bytes(proc.out)
    text = ESCAPES.sub(b"", out).decode("utf-8", "replace")
    assert code == 0, text[-3000:]
    # The packaged dark theme, not Textual's fallback: its background is on the screen.
    assert re.search(rf"[\[;]{background}[;m]".encode(), out), "the teamtui-dark background"
    assert "team stopped: dashboard closed" in text, text[-3000:]
    for word in BROKEN:
        assert word not in text, f"{word!r} on the terminal:\n{text[-3000:]}"
