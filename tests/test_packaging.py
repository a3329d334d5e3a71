"""What a wheel of teamtui carries: an installed teamtui has no repository around it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_wheel_carries_the_builtin_themes_and_the_stylesheet(tmp_path):
    # Built from a copy of the sources: a build writes build/ and *.egg-info beside them.
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for name in ("teamtui", "themes"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(tmp_path / "dist"), str(src)],
        check=True, capture_output=True, timeout=300,
    )
    (wheel,) = (tmp_path / "dist").glob("teamtui-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    themes = {f"teamtui/themes/{p.name}" for p in (ROOT / "themes").glob("*.toml")}
    assert themes and themes <= names, sorted(n for n in names if "theme" in n)
    assert "teamtui/tui/app.tcss" in names
