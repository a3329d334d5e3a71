"""Claude Code's Workflow tool, run by the real binary (`claude -p`, the model scripted): the lead
calls Workflow on a script of two agents in parallel, then one. The files it writes have the shape
docs/formats.md ("Workflow runs") gives: while it runs, a journal and agent transcripts but no run
record; at its end the run record with its status, each agent's row naming its transcript; and when
an agent's API call fails and the script throws, "error" and "failed"; stopped, "killed". Run with
`make interop`."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.interop.harness import wait_until
from tests.interop.test_real_claude import claude_installed  # noqa: F401 - fixture
from tests.interop.workflow import AGENTS, BETA_ERROR, DESCRIPTION, PHASES, SCRIPT, WORKFLOW_NAME, WorkflowRun

pytestmark = pytest.mark.interop

RUN_ID = re.compile(r"^wf_[a-z0-9-]{6,}$")  # the pattern of Workflow's resumeFromRunId
AGENT_ID = re.compile(r"^a[0-9a-f]{16}$")
RECORD_KEYS = {
    "runId",
    "timestamp",
    "taskId",
    "script",
    "scriptPath",
    "result",
    "agentCount",
    "logs",
    "durationMs",
    "summary",
    "workflowName",
    "status",
    "startTime",
    "phases",
    "defaultModel",
    "workflowProgress",
    "totalTokens",
    "totalToolCalls",
}
AGENT_ROW_KEYS = {
    "type",
    "index",
    "label",
    "phaseIndex",
    "phaseTitle",
    "agentId",
    "model",
    "state",
    "startedAt",
    "queuedAt",
    "attempt",
    "promptPreview",
    "lastProgressAt",
    "tokens",
    "toolCalls",
    "durationMs",
}


@pytest.fixture
def run(claude_installed: None, tmp_path: Path) -> Iterator[WorkflowRun]:
    r = WorkflowRun(tmp_path)
    try:
        yield r
    finally:
        r.end()


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def agent_rows(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["label"]: row for row in record["workflowProgress"] if row["type"] == "workflow_agent"}


def notification(run: WorkflowRun) -> str:
    """The <task-notification> the lead got when the run ended (a user line of its transcript)."""
    for line in run.lead_lines():
        content = line.get("message", {}).get("content") if line.get("type") == "user" else None
        if isinstance(content, str) and content.startswith("<task-notification>"):
            return content
    return ""


def check_agent_files(run: WorkflowRun, label: str, row: dict[str, Any]) -> list[dict[str, Any]]:
    """An agent's row names its transcript: subagents/workflows/<runId>/agent-<agentId>.jsonl, with
    its .meta.json beside it. Returns the transcript's lines."""
    folder = run.run_dirs()[0]
    assert AGENT_ID.match(row["agentId"]), row
    meta = json.loads((folder / f"agent-{row['agentId']}.meta.json").read_text())
    assert meta["agentType"] == "workflow-subagent" and meta["inWorkflowRun"] is True
    assert (meta["description"], meta["workflowPhase"]) == (label, PHASES[label])
    transcript = lines(folder / f"agent-{row['agentId']}.jsonl")
    assert all(
        line.get("agentId") == row["agentId"] for line in transcript if line.get("type") in ("user", "assistant")
    )
    first = transcript[0]
    assert (first["type"], first["isSidechain"], first["parentUuid"]) == ("user", True, None)
    assert AGENTS[label][0] in first["message"]["content"]  # its prompt, framed by the harness
    return transcript


def test_a_workflow_run_writes_its_journal_then_its_record(run: WorkflowRun) -> None:
    run.start()
    # Gamma's reply is held: alpha and beta are done, the run is still going.
    run.wait_running()
    folder = run.run_dirs()[0]
    run_id = folder.name
    assert RUN_ID.match(run_id)
    assert folder == run.session_dir() / "subagents" / "workflows" / run_id
    journal = run.journal()
    assert journal[0] == {"type": "launched"}
    started = {e["label"]: e for e in journal if e["type"] == "started"}
    results = {e["agentId"]: e for e in journal if e["type"] == "result"}
    assert set(started) == {"alpha", "beta", "gamma"}
    assert {results[started[x]["agentId"]]["result"] for x in ("alpha", "beta")} == {"RESULT-A", "RESULT-B"}
    assert started["gamma"]["agentId"] not in results
    assert all(e["key"].startswith("v2:") and e["phase"] == PHASES[e["label"]] for e in started.values())
    # No run record while it runs: only the script, the journal and the agents' own files.
    assert not (run.session_dir() / "workflows" / f"{run_id}.json").exists()
    scripts = list((run.session_dir() / "workflows" / "scripts").glob("*.js"))
    assert [p.name for p in scripts] == [f"{WORKFLOW_NAME}-{run_id}.js"] and scripts[0].read_text() == SCRIPT
    wait_until(lambda: (folder / f"agent-{started['gamma']['agentId']}.meta.json").exists(), "gamma's meta.json", 10)
    for label in ("alpha", "beta"):
        assert (folder / f"agent-{started[label]['agentId']}.jsonl").exists()

    code, out, err = run.finish()
    assert code == 0, err[-2000:]
    record = wait_until(lambda: run.record_path().exists() and run.record(), "the run record", 20)
    assert RECORD_KEYS <= set(record), set(record) ^ RECORD_KEYS
    assert (record["runId"], record["status"], record["workflowName"], record["summary"]) == (
        run_id,
        "completed",
        WORKFLOW_NAME,
        DESCRIPTION,
    )
    assert record["result"] == {"a": "RESULT-A", "b": "RESULT-B", "c": "RESULT-C"}
    assert (record["agentCount"], record["logs"], record["script"]) == (3, [], SCRIPT)
    assert record["scriptPath"] == str(scripts[0])
    assert record["phases"] == [{"title": "Fan"}, {"title": "Join"}]
    assert "error" not in record
    phases = [row for row in record["workflowProgress"] if row["type"] == "workflow_phase"]
    assert phases == [
        {"type": "workflow_phase", "index": 1, "title": "Fan"},
        {"type": "workflow_phase", "index": 2, "title": "Join"},
    ]
    rows = agent_rows(record)
    assert set(rows) == {"alpha", "beta", "gamma"}
    for label, row in rows.items():
        assert AGENT_ROW_KEYS <= set(row), (label, set(row))
        assert (row["state"], row["phaseTitle"], row["resultPreview"]) == ("done", PHASES[label], AGENTS[label][1])
        assert row["agentId"] == started[label]["agentId"]
        transcript = check_agent_files(run, label, row)
        said = [
            b.get("text")
            for line in transcript
            if line.get("type") == "assistant"
            for b in line["message"]["content"]
            if b.get("type") == "text"
        ]
        assert said == [AGENTS[label][1]]
    assert record["totalTokens"] == sum(row["tokens"] for row in rows.values())
    assert len([e for e in run.journal() if e["type"] == "result"]) == 3

    # The lead's side: its Workflow call, the tool result naming the run, the notification at the end.
    results_seen = [
        line["toolUseResult"]
        for line in run.lead_lines()
        if line.get("type") == "user" and isinstance(line.get("toolUseResult"), dict)
    ]
    launched = [r for r in results_seen if r.get("taskType") == "local_workflow"]
    assert len(launched) == 1
    assert launched[0]["status"] == "async_launched" and launched[0]["runId"] == run_id
    assert launched[0]["taskId"] == record["taskId"] and launched[0]["workflowName"] == WORKFLOW_NAME
    assert launched[0]["transcriptDir"] == str(folder) and launched[0]["scriptPath"] == record["scriptPath"]
    told = notification(run)
    assert f"<task-id>{record['taskId']}</task-id>" in told and "<status>completed</status>" in told
    output = re.search(r"<output-file>(.*)</output-file>", told)
    assert output and Path(output.group(1)).is_relative_to(run.tmpdir)
    assert json.loads(Path(output.group(1)).read_text())["result"] == record["result"]


def test_an_agent_that_fails_is_an_error_row_and_a_script_that_throws_fails_the_run(run: WorkflowRun) -> None:
    run.fail = True
    run.release.set()
    run.start()
    code, out, err = run.finish()
    assert code == 0, err[-2000:]
    record = wait_until(lambda: run.run_dirs() and run.record_path().exists() and run.record(), "the run record", 20)
    assert (record["status"], record["result"]) == ("failed", None)
    assert record["error"].startswith("Error: WFBOOM after RESULT-C")
    rows = agent_rows(record)
    assert {label: row["state"] for label, row in rows.items()} == {"alpha": "done", "beta": "error", "gamma": "done"}
    assert rows["beta"]["error"] == f"API Error: 400 {BETA_ERROR}" and "resultPreview" not in rows["beta"]
    assert record["logs"] == [f"[beta] failed: API Error: 400 {BETA_ERROR}"]
    # beta's prompt went out and its transcript ends on the API error; the journal says failed.
    transcript = check_agent_files(run, "beta", rows["beta"])
    last = [line for line in transcript if line.get("type") == "assistant"][-1]
    assert (last["isApiErrorMessage"], last["apiErrorStatus"]) == (True, 400)
    journal = run.journal()
    assert {
        "type": "failed",
        "key": next(e["key"] for e in journal if e.get("label") == "beta"),
        "agentId": rows["beta"]["agentId"],
    } in journal
    # gamma still ran (beta's null went into its prompt): parallel() gives null for a failed agent.
    assert rows["gamma"]["promptPreview"] == "WFAGENTC: join RESULT-A and null"
    told = notification(run)
    assert "<status>failed</status>" in told and "WFBOOM after RESULT-C" in told


def test_a_run_stopped_by_the_lead_is_killed_with_its_running_agent_left_in_start(run: WorkflowRun) -> None:
    run.stop = True
    run.start()
    code, out, err = run.finish()
    assert code == 0, err[-2000:]
    record = wait_until(lambda: run.run_dirs() and run.record_path().exists() and run.record(), "the run record", 20)
    assert (record["status"], record["result"]) == ("killed", None)
    assert record["error"].startswith("Error: Workflow aborted")
    rows = agent_rows(record)
    assert {label: row["state"] for label, row in rows.items()} == {"alpha": "done", "beta": "done", "gamma": "start"}
    check_agent_files(run, "gamma", rows["gamma"])
    journal = run.journal()
    assert [e["type"] for e in journal if e.get("agentId") == rows["gamma"]["agentId"]] == ["started"]
