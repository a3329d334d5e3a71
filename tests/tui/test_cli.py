import pytest

from teamtui.cli import build_parser, main


def test_watch_parses_root_team_and_limits():
    args = build_parser().parse_args(
        ["watch", "/some/root", "--team", "t", "--health-timeout", "5", "--log-lines", "50"]
    )
    assert [str(r) for r in args.watch_roots] == ["/some/root"] and args.team == "t"
    assert args.health_timeout == 5.0 and args.log_lines == 50


def test_watch_refuses_bad_values(tmp_path, capsys):
    assert main(["watch", str(tmp_path / "nope")]) == 1
    assert capsys.readouterr().err == f"teamtui: no such folder: {tmp_path / 'nope'}\n"
    assert main(["watch", str(tmp_path), "--health-timeout", "0"]) == 2


def test_bare_roots_are_the_control_room_over_them(tmp_path):
    from teamtui.cli import bare_roots

    assert bare_roots([str(tmp_path), "ssh://box/src"]) == ["watch", str(tmp_path), "ssh://box/src"]
    assert bare_roots(["ssh://me@box:2222/src"]) == ["watch", "ssh://me@box:2222/src"]
    assert bare_roots(["status", "--all"]) == ["status", "--all"]  # a command stays a command
    # A path that is no folder is still a path: watch says what is wrong with it (not argparse's "invalid choice").
    assert bare_roots([str(tmp_path / "not-there")]) == ["watch", str(tmp_path / "not-there")]
    assert bare_roots(["~/src/typo"]) == ["watch", "~/src/typo"]
    assert bare_roots(["staus"]) == ["staus"]  # a word is a command, mistyped: argparse lists the commands


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["{tmp}/nonexistent"], "no such folder: {tmp}/nonexistent"),
        (["~/src/typo"], "no such folder: ~/src/typo"),
        (["{tmp}/a-file"], "{tmp}/a-file is a file, not a folder"),
        (["watch", "{tmp}/nonexistent"], "no such folder: {tmp}/nonexistent"),
        (["--root", "{tmp}/nonexistent", "status"], "no such folder: {tmp}/nonexistent"),
        (["--root", "{tmp}/nonexistent", "send", "ada", "hi"], "no such folder: {tmp}/nonexistent"),
        (["init", "{tmp}/nonexistent"], "no such folder: {tmp}/nonexistent"),
    ],
)
def test_a_folder_that_is_not_there_is_named_as_such(tmp_path, capsys, argv, said):
    (tmp_path / "a-file").write_text("")
    code = main([a.format(tmp=tmp_path) for a in argv])
    assert (code, capsys.readouterr().err) == (1, f"teamtui: {said.format(tmp=tmp_path)}\n")
