"""The team file's keys for real coding agents: a teammate's `protocol` and `worktree`."""

from pathlib import Path

import pytest

from teamtui.runtime.teamfile import TeamFileError, load_team_file

BASE = """[team]
name = "agents"
{team}

[[teammates]]
name = "ada"
command = "claude -p {{subject}}"
{ada}

[[teammates]]
name = "bob"
command = "node teammate.js"
{bob}
"""


def load(tmp_path: Path, team: str = "", ada: str = "", bob: str = ""):
    p = tmp_path / "team.toml"
    p.write_text(BASE.format(team=team, ada=ada, bob=bob))
    return load_team_file(p)


def test_files_is_the_default_protocol_and_worktrees_are_off(tmp_path):
    tf = load(tmp_path)
    assert [t.protocol for t in tf.teammates] == ["files", "files"]
    assert tf.teammates[0].command == "claude -p {subject}"
    assert not any(tf.uses_worktree(t) for t in tf.teammates)


def test_each_teammate_names_its_protocol(tmp_path):
    tf = load(tmp_path, ada='protocol = "per-task"', bob='protocol = "jsonrpc"')
    assert [t.protocol for t in tf.teammates] == ["per-task", "jsonrpc"]


def test_a_teammate_worktree_overrides_the_teams(tmp_path):
    tf = load(tmp_path, team="worktree = true", bob="worktree = false")
    assert [tf.uses_worktree(t) for t in tf.teammates] == [True, False]
    tf = load(tmp_path, ada="worktree = true")
    assert [tf.uses_worktree(t) for t in tf.teammates] == [True, False]


@pytest.mark.parametrize(
    "team, ada, line, reason",
    [
        ("", 'protocol = "json-rpc"', 8, "teammates.0.protocol: Input should be 'files', 'jsonrpc' or 'per-task'"),
        ("", "protocol = 1", 8, "teammates.0.protocol: Input should be 'files', 'jsonrpc' or 'per-task'"),
        ("", 'worktree = "yes"', 8, "teammates.0.worktree: Input should be a valid boolean"),
        ('worktree = "true"', "", 3, "team.worktree: Input should be a valid boolean"),
        ("worktree = 1", "", 3, "team.worktree: Input should be a valid boolean"),
    ],
)
def test_bad_values_are_refused_with_line_and_reason(tmp_path, team, ada, line, reason):
    with pytest.raises(TeamFileError) as err:
        load(tmp_path, team=team, ada=ada)
    assert err.value.line == line
    assert reason in err.value.reason
