"""config.toml's fleet settings: fleet_keep_hours and roots, and what is said of bad values."""

from __future__ import annotations

from pathlib import Path

import pytest

from teamtui.protocol.settings import Settings, load_settings


def _load(tmp_path: Path, text: str) -> Settings:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return load_settings(path)


def test_the_defaults(tmp_path: Path) -> None:
    s = _load(tmp_path, "")
    assert (s.fleet_keep_hours, s.roots, s.problems) == (24.0, [], [])


def test_roots_are_expanded_and_keep_hours_taken(tmp_path: Path) -> None:
    s = _load(tmp_path, 'roots = ["~/src/api", "/srv/web"]\nfleet_keep_hours = 0.5\n')
    assert s.roots == [Path.home() / "src" / "api", Path("/srv/web")]
    assert (s.fleet_keep_hours, s.problems) == (0.5, [])


@pytest.mark.parametrize("value", ["0", "-3", '"24"', "true", "nan", "[24]"])
def test_a_bad_keep_hours_is_said_and_the_default_kept(tmp_path: Path, value: str) -> None:
    s = _load(tmp_path, f"fleet_keep_hours = {value}\n")
    assert s.fleet_keep_hours == 24.0
    [problem] = s.problems
    assert problem.startswith(f"{tmp_path / 'config.toml'}: fleet_keep_hours must be a positive number, got ")


def test_roots_that_are_not_a_list_are_said(tmp_path: Path) -> None:
    s = _load(tmp_path, 'roots = "~/src/api"\n')
    assert s.roots == []
    assert s.problems == [
        f"{tmp_path / 'config.toml'}: roots must be a list of folders, like roots = [\"~/src/api\"], got '~/src/api'"
    ]


def test_each_bad_root_is_said_and_the_good_ones_kept(tmp_path: Path) -> None:
    s = _load(tmp_path, 'roots = ["~/ok", "relative", 3, "", "~no-such-user-here/x"]\n')
    assert s.roots == [Path.home() / "ok"]
    assert [p.rpartition("got ")[2] for p in s.problems] == [
        "'relative'; ignored",
        "3; ignored",
        "''; ignored",
        "'~no-such-user-here/x'; ignored",
    ]
