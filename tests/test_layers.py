"""The layer rule of DESIGN.md: protocol, runtime and tmux work without the UI."""

import ast
import subprocess
import sys
from pathlib import Path


def test_core_layers_import_no_textual() -> None:
    code = (
        "import sys, pkgutil, importlib\n"
        "import teamtui.protocol, teamtui.runtime, teamtui.tmux, teamtui.cli.protocol_cmds\n"
        "for pkg in (teamtui.protocol, teamtui.runtime, teamtui.tmux):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(m.name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"textual imported by a core layer: {out.stdout.strip()}"


CLI = Path(__file__).resolve().parents[1] / "teamtui" / "cli"
TUI = CLI.parent / "tui"
# The CLI modules of the protocol commands and `follow`; run_cmds and app_cmds open the dashboard.
CLI_PROTOCOL_MODULES = ("__init__.py", "common.py", "protocol_cmds.py", "status_cmds.py", "tmux_cmds.py", "terminal.py")


def _imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at its top or inside a function."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def test_the_cli_protocol_commands_import_nothing_from_the_tui() -> None:
    for name in CLI_PROTOCOL_MODULES:
        bad = sorted(m for m in _imported_modules(CLI / name) if m == "teamtui.tui" or m.startswith("teamtui.tui."))
        assert bad == [], f"teamtui/cli/{name} imports {bad}"
    code = (
        "import sys\n"
        "import teamtui.cli, teamtui.cli.protocol_cmds, teamtui.cli.tmux_cmds\n"
        "print(','.join(sorted(m for m in sys.modules if m.startswith(('teamtui.tui', 'textual', 'rich')))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_shared_homes_live_below_the_ui() -> None:
    code = (
        "import sys\n"
        "from teamtui.protocol.colors import TEAMMATE_COLORS, color_name\n"
        "from teamtui.protocol.settings import Settings, config_path, load_settings, save_theme\n"
        "print(','.join(sorted(m for m in sys.modules if m.startswith(('teamtui.tui', 'textual')))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
    assert not (TUI / "config.py").exists(), "settings live in teamtui/protocol/settings.py"
    defined = {
        f"{path.relative_to(TUI)}:{node.name}"
        for path in TUI.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.name in ("find_teams", "color_name", "looked_at")
    }
    assert defined == set(), f"moved to teamtui.protocol, still defined in the tui: {sorted(defined)}"


# The screens that make the controllers (and the app that switches them): a controller importing
# one back would be a second app, making and switching screens behind the app's back.
SERVED = {"teamtui.tui.app", "teamtui.tui.screens.dashboard", "teamtui.tui.screens.fleet"}


def test_no_controller_imports_the_screens_it_serves() -> None:
    for path in sorted((TUI / "controllers").glob("*.py")):
        bad = sorted(m for m in _imported_modules(path) if m in SERVED)
        assert bad == [], f"tui/controllers/{path.name} imports {bad}"


def _stand_ins(tree: ast.AST) -> dict[str, int]:
    """Per class, how many of its methods only raise NotImplementedError."""
    out = {}
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef):
            raising = [
                f
                for f in cls.body
                if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                and [s for s in f.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
                and all(isinstance(s, ast.Raise) for s in f.body if not isinstance(s, ast.Expr))
                and "NotImplementedError" in ast.unparse(f.body[-1])
            ]
            out[cls.name] = len(raising)
    return out


def test_no_stand_in_base_class_in_the_tui() -> None:
    """An import cycle is broken with a typing Protocol, not a base class of NotImplementedErrors."""
    assert _stand_ins(ast.parse("class A:\n    def f(self):\n        raise NotImplementedError\n")) == {"A": 1}
    for path in sorted(TUI.rglob("*.py")):
        bad = {name: n for name, n in _stand_ins(ast.parse(path.read_text(), str(path))).items() if n >= 3}
        assert bad == {}, f"{path.relative_to(TUI)}: {bad}"


def test_no_class_in_the_tui_over_40_methods() -> None:
    """A screen or controller that grows past this has taken on a second job: split it."""
    for path in sorted(TUI.rglob("*.py")):
        for cls in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(cls, ast.ClassDef):
                n = sum(isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) for f in cls.body)
                assert n <= 40, f"{path.relative_to(TUI)} {cls.name}: {n} methods"
