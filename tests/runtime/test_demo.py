"""`teamtui demo --headless` runs the built-in team to completion, with its crash and its pending work."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .helpers import ROOT, env_for_run, processes_of, run_cmd, tasks_on_disk


def test_demo_headless_completes_every_task(tmp_path):
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "teamtui",
            "demo",
            "--headless",
            "--speed",
            "20",
            "--teammates",
            "4",
            "--dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=90,
        env=env_for_run(),
        cwd=ROOT,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    tasks = tasks_on_disk(tmp_path)
    assert len(tasks) == 15 and all(t["status"] == "completed" for t in tasks.values())
    assert "otto crashed (exit code 3)" in res.stdout and "restarted otto" in res.stdout
    results = {
        r["teammate"]: r
        for r in (json.loads(p.read_text()) for p in (tmp_path / ".teams/demo/shutdown").glob("*.json"))
    }
    assert results["ada"]["outcome"] == "in progress" and results["ada"]["pending_work"]
    levels = {
        json.loads(line)["level"]
        for n in ("ada", "hunter", "otto", "scribe")
        for line in (tmp_path / f".teams/demo/logs/{n}.jsonl").read_text().splitlines()
    }
    assert {"info", "error"} <= levels
    assert processes_of(tmp_path) == []


@pytest.mark.parametrize("teammates", [4, 6])
def test_demo_starts_as_many_teammates_as_it_is_told(tmp_path, teammates):
    # Three tasks are ready at first: the lead's own rule alone started four of six.
    res = run_cmd(
        ["demo", "--headless", "--speed", "20", "--teammates", str(teammates), "--dir", str(tmp_path)], timeout=90
    )
    assert res.returncode == 0, res.stdout + res.stderr
    started = {line.split(" started ", 1)[1].split()[0] for line in res.stdout.splitlines() if " started " in line}
    assert started == {"ada", "otto", "hunter", "scribe", "mira", "rex"} if teammates == 6 else len(started) == 4
    members = json.loads((tmp_path / ".teams/demo/config.json").read_text())["members"]
    assert len({m["name"] for m in members} - {"lead"}) == teammates


@pytest.mark.parametrize(
    "args, said",
    [
        (["--teammates", "9"], "--teammates must be between 4 and 6, got 9"),
        (["--teammates", "3"], "--teammates must be between 4 and 6, got 3"),
        (["--speed", "0"], "--speed must be more than 0"),
    ],
)
def test_a_demo_out_of_its_limits_is_a_usage_error(tmp_path, args, said):
    res = run_cmd(["demo", "--headless", "--dir", str(tmp_path / "never"), *args])
    assert (res.returncode, res.stdout, res.stderr) == (2, "", f"teamtui: {said}\n")
    assert not (tmp_path / "never").exists()


def test_three_teammates_are_busy_before_the_first_task_completes(tmp_path):
    # At normal speed: what a person sees in the first seconds of `make demo`.
    proc = subprocess.Popen(
        [sys.executable, "-m", "teamtui", "demo", "--headless", "--dir", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env_for_run(),
        cwd=ROOT,
    )
    busy: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if " completed by " in line or "crashed" in line:
                break
            if " → " in line:
                busy.append(line.rsplit(" → ", 1)[1].strip())
            if len(busy) == 3:
                break
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    assert len(set(busy)) == 3, f"before the first completion only {busy} were given work"
    assert processes_of(tmp_path) == []


def test_runtime_imports_no_textual():
    code = "import sys, teamtui.runtime.lead, teamtui.protocol.teammate, teamtui.demo.teammate; print('textual' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env_for_run(), cwd=ROOT, check=True
    )
    assert out.stdout.strip() == "False"


def test_a_demo_in_its_own_temp_folder_removes_it_at_exit(tmp_path):
    res = run_cmd(["demo", "--headless", "--speed", "40", "--teammates", "4"], timeout=90, TMPDIR=str(tmp_path))
    assert res.returncode == 0, res.stdout + res.stderr
    made = res.stdout.split("teamtui demo: team 'demo' in ", 1)[1].split("\n", 1)[0]
    assert made.startswith(str(tmp_path / "teamtui-demo-"))
    assert not any(tmp_path.iterdir()), "the demo left its folder behind"
    assert f"removed {made}" in res.stdout
    # Its folder went, its record stays: the history lists it.
    listed = run_cmd(["history"]).stdout
    assert listed.startswith("demo  native  ") and made in listed
