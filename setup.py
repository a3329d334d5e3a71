"""Only what pyproject.toml cannot say: the top-level themes/ ship inside the package, as
teamtui/themes/, where an installed teamtui looks for its built-in themes."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithThemes(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "teamtui" / "themes"
        self.mkpath(str(target))
        for theme in sorted((Path(__file__).resolve().parent / "themes").glob("*.toml")):
            self.copy_file(str(theme), str(target / theme.name))


setup(cmdclass={"build_py": BuildWithThemes})
