"""A team `teamtui run --headless` (or `teamtui demo --headless`) leads is in the history, as one
a dashboard shows is: `teamtui history` lists it and tells what it did."""

from __future__ import annotations

import json

from .helpers import run_cmd, team_toml


def test_a_headless_run_is_in_the_history(tmp_path):
    tf = tmp_path / "team.toml"
    tf.write_text(team_toml("recorded", teammates=["a", "b"], tasks=[("schema", []), ("api", [1])]))
    res = run_cmd(["run", str(tf), "--headless"], WORK="0")
    assert res.returncode == 0, res.stdout + res.stderr
    res = run_cmd(["history", "--json"])
    assert res.returncode == 0, res.stderr
    teams = json.loads(res.stdout)["teams"]
    assert [(t["team"], t["layout"], t["root"]) for t in teams] == [("recorded", "native", str(tmp_path.resolve()))]
    assert teams[0]["messages"] > 0  # the teammates' idle notices and shutdown replies to the lead
    res = run_cmd(["history", "recorded"])
    assert res.returncode == 0, res.stderr
    assert "task #1 completed (" in res.stdout and "task #2 completed (" in res.stdout
    assert "[shutdown_response]" in res.stdout


def test_a_headless_run_records_nothing_with_history_off(tmp_path):
    tf = tmp_path / "team.toml"
    tf.write_text(team_toml("unrecorded", teammates=["a"], tasks=[("x", [])]))
    assert run_cmd(["run", str(tf), "--headless"], WORK="0", TEAMTUI_HISTORY="0").returncode == 0
    assert "no team in the history" in run_cmd(["history"]).stdout
