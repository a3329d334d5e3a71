"""Themes are data files (themes/*.toml) turned into Textual Theme objects."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from textual.theme import Theme

from teamtui.protocol.colors import TEAMMATE_COLORS
from teamtui.protocol.settings import config_path

# An installed teamtui has its themes in the package (setup.py copies them there), a checkout in themes/.
_PACKAGED = Path(__file__).resolve().parents[1] / "themes"
BUILTIN_DIR = _PACKAGED if _PACKAGED.is_dir() else Path(__file__).resolve().parents[2] / "themes"
_THEME_KEYS = (
    "primary",
    "secondary",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "success",
    "warning",
    "error",
)


@dataclass
class LoadedThemes:
    themes: list[Theme] = field(default_factory=list)
    # theme name -> teammate color name -> hex
    teammates: dict[str, dict[str, str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def theme_dirs() -> list[Path]:
    return [BUILTIN_DIR, config_path().parent / "themes"]


def load_theme_file(path: Path) -> tuple[Theme, dict[str, str]]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    name = data.get("name") or path.stem
    if not isinstance(data.get("primary"), str):
        raise ValueError("needs a primary color")
    colors = {k: data[k] for k in _THEME_KEYS if isinstance(data.get(k), str)}
    mates = {k: v for k, v in (data.get("teammates") or {}).items() if k in TEAMMATE_COLORS and isinstance(v, str)}
    variables = {f"teammate-{k}": v for k, v in mates.items()}
    theme = Theme(name=str(name), dark=bool(data.get("dark", True)), variables=variables, **colors)
    return theme, mates


def load_themes(dirs: list[Path] | None = None) -> LoadedThemes:
    out = LoadedThemes()
    for d in dirs or theme_dirs():
        try:
            files = sorted(d.glob("*.toml"))
        except OSError:
            continue
        for f in files:
            try:
                theme, mates = load_theme_file(f)
            except (OSError, ValueError, TypeError, tomllib.TOMLDecodeError) as exc:
                out.problems.append(f"theme {f}: {exc}")
                continue
            out.themes = [t for t in out.themes if t.name != theme.name] + [theme]
            out.teammates[theme.name] = mates
    return out
