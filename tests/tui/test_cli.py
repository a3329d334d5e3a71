from pathlib import Path

from teamtui.cli import build_parser, main


def test_watch_parses_root_team_and_limits():
    args = build_parser().parse_args(
        ["watch", "/some/root", "--team", "t", "--health-timeout", "5", "--log-lines", "50"]
    )
    assert [str(r) for r in args.watch_roots] == ["/some/root"] and args.team == "t"
    assert args.health_timeout == 5.0 and args.log_lines == 50


def test_watch_refuses_bad_values(tmp_path, capsys):
    assert main(["watch", str(tmp_path / "nope")]) == 1
    assert "is not a directory" in capsys.readouterr().err
    assert main(["watch", str(tmp_path), "--health-timeout", "0"]) == 2


def test_bare_roots_are_the_control_room_over_them(tmp_path):
    from teamtui.cli import bare_roots

    assert bare_roots([str(tmp_path), "ssh://box/src"]) == ["watch", str(tmp_path), "ssh://box/src"]
    assert bare_roots(["ssh://me@box:2222/src"]) == ["watch", "ssh://me@box:2222/src"]
    assert bare_roots(["status", "--all"]) == ["status", "--all"]  # a command stays a command
    assert bare_roots([str(tmp_path / "not-there")]) == [str(tmp_path / "not-there")]  # argparse says what is wrong
