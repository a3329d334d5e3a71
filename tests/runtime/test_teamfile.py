"""A bad team file is refused with file, line and reason; a good one loads."""

from pathlib import Path

import pytest

from teamtui.runtime.teamfile import TeamFileError, load_team_file

from .helpers import run_cmd

GOOD = """[team]
name = "refactor-auth"
assign = "lead"

[[teammates]]
name = "hunter"
agent_type = "code-reviewer"
color = "blue"
command = "./agents/reviewer.sh"

[[tasks]]
subject = "Extract auth middleware"
[[tasks]]
subject = "Write integration tests"
blocked_by = [1]
files = ["tests/test_auth.py"]

[hooks]
task-completed = "echo $HOOK_TASK_ID >> done.txt"
"""


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "team.toml"
    p.write_text(text)
    return p


def test_good_file_loads(tmp_path):
    tf = load_team_file(write(tmp_path, GOOD))
    assert tf.team.name == "refactor-auth" and tf.team.assign == "lead" and tf.team.max_teammates == 5
    assert tf.tasks[1].blocked_by == [1] and tf.tasks[1].files == ["tests/test_auth.py"]
    assert tf.hook_commands("task-completed") == ["echo $HOOK_TASK_ID >> done.txt"]
    assert tf.base_dir == tmp_path.resolve()


@pytest.mark.parametrize(
    "old, new, line, reason",
    [
        ('assign = "lead"', 'assign = "boss"', 3, "team.assign"),
        (
            'color = "blue"',
            'color = "blue"\ncolour = "red"',
            9,
            "teammates.0.colour: not a key of [[teammates]] (did you mean color?)",
        ),
        ('command = "./agents/reviewer.sh"\n', "", 5, "teammates.0.command: Field required"),
        ("blocked_by = [1]", 'blocked_by = ["one"]', 15, "tasks.1.blocked_by.0"),
        ("blocked_by = [1]", "blocked_by = [2]", 15, "task 2 blocks itself"),
        ('name = "hunter"', 'name = "../etc"', 6, "teammates.0.name"),
        (
            "task-completed =",
            "task-complete =",
            19,
            "unknown hook event 'task-complete' (did you mean task-completed?)",
        ),
        ('subject = "Write integration tests"', 'subject = "Write integration tests', 14, "TOML syntax"),
    ],
)
def test_bad_file_refused_with_line_and_reason(tmp_path, old, new, line, reason):
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(TeamFileError) as exc:
        load_team_file(path)
    assert exc.value.line == line, str(exc.value)
    assert reason in exc.value.reason
    assert str(exc.value).startswith(f"{path}:{line}: ")


@pytest.mark.parametrize(
    "old, new, line, reason",
    [
        # A required key mistyped: the key too many is named (not the one missing), with its near miss.
        ('name = "refactor-auth"', 'nmae = "refactor-auth"', 2, "team.nmae: not a key of [team] (did you mean name?)"),
        (
            "blocked_by = [1]",
            "blockedby = [1]",
            15,
            "tasks.1.blockedby: not a key of [[tasks]] (did you mean blocked_by?)",
        ),
        # A key of another table: named with its header.
        (
            'color = "blue"',
            'color = "blue"\nmax_failure = 2',
            9,
            "teammates.0.max_failure: not a key of [[teammates]] (did you mean max_failures under [team]?)",
        ),
        ("[[tasks]]", "[[task]]", 11, "task: not a table of a team file (did you mean [[tasks]]?)"),
        ('assign = "lead"', "zzz = 1", 3, "team.zzz: not a key of [team]"),
    ],
)
def test_a_mistyped_key_gets_a_did_you_mean(tmp_path, old, new, line, reason):
    path = write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(TeamFileError) as exc:
        load_team_file(path)
    assert str(exc.value) == f"{path}:{line}: {reason}"


def test_duplicate_teammate_refused(tmp_path):
    text = GOOD.replace("[[tasks]]", '[[teammates]]\nname = "hunter"\ncommand = "x"\n\n[[tasks]]', 1)
    with pytest.raises(TeamFileError, match="defined twice"):
        load_team_file(write(tmp_path, text))


def test_cli_refuses_bad_file_with_file_line_reason(tmp_path):
    path = write(tmp_path, GOOD.replace('assign = "lead"', "max_teammates = 0"))
    res = run_cmd(["run", str(path), "--headless"])
    assert res.returncode == 1
    assert f"{path}:3: team.max_teammates" in res.stderr
    assert not (tmp_path / ".teams").exists()  # nothing was created
