"""What a workflow run's files say, read into one `RunFiles`: its steps (one per `agent()` call)
from the journal, the run record and each agent's `.meta.json`, and the run's name, status and
times (docs/formats.md, "Workflow runs").

- the journal (`subagents/workflows/<runId>/journal.jsonl`): `started`, `result` and `failed`
  lines, appended while the run goes; the only progress there is before the run ends;
- the run record (`workflows/<runId>.json`): written once, when the run ends (completed, failed
  or killed), with one `workflowProgress` row per agent;
- each agent's `agent-<agentId>.meta.json` (its label, phase and model) and the first line of
  its transcript (its whole prompt, and the working directory).

The steps keep the order the journal started them in (the record's agents no journal line names
come after, by their call number): a step's number is its task id, the same while the run goes
and once it ended. Files are re-read only when they changed (`RunReader.read`).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from teamtui.protocol.claude.transcripts.render import parse_ts
from teamtui.protocol.errors import ReadError
from teamtui.protocol.fsio import load_json_file, parse_json_line, read_bytes_bounded
from teamtui.protocol.workflow.names import AGENT_ID

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_JOURNAL_BYTES = 16 * 1024 * 1024
_META_BYTES = 64 * 1024
_HEAD_BYTES = 64 * 1024
_SCRIPT_BYTES = 256 * 1024
# A result or prompt longer than this is cut (the task's detail, not a file viewer).
TEXT_LIMIT = 4000
# What Claude Code puts before an agent's prompt; the prompt follows, each line indented two spaces.
_FRAME_START = "[Workflow harness"
_FRAME_END = "The computed task text follows:\n"
_DESCRIPTION = re.compile(r"""\bdescription\s*:\s*(['"`])((?:\\.|(?!\1).){0,500})\1""", re.S)
# Agent states: `start` (queued or running), `progress` (live only), `done`, `error`.
STATES = ("start", "progress", "done", "error")
RUN_STATES = ("completed", "failed", "killed")


@dataclass(slots=True)
class Step:
    """One `agent()` call of the run."""

    agent_id: str
    number: int  # 1, 2, ...: the order the journal started the agents in (the task's id)
    label: str = ""
    phase: str = ""
    state: str = "start"
    index: int | None = None  # the record's call number
    result: str | None = None
    error: str | None = None
    prompt: str = ""
    model: str = ""
    tokens: int | None = None
    tool_calls: int | None = None
    queued_at: float | None = None
    started_at: float | None = None
    last_progress_at: float | None = None
    ended_at: float | None = None
    skipped: bool = False
    cwd: str = ""


@dataclass(slots=True)
class RunFiles:
    run_id: str
    workflow: str = ""  # meta.name
    description: str = ""  # meta.description (the record's `summary`)
    status: str | None = None  # the record's: completed, failed, killed; None while no record exists
    error: str = ""
    started_at: float | None = None
    ended_at: float | None = None
    steps: list[Step] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    total_tokens: int | None = None
    problems: list[ReadError] = field(default_factory=list)

    @property
    def ended(self) -> bool:
        """The record is written: the run completed, failed or was killed."""
        return self.status is not None

    def step(self, agent_id: str) -> Step | None:
        return next((s for s in self.steps if s.agent_id == agent_id), None)

    @property
    def cwd(self) -> str:
        return next((s.cwd for s in self.steps if s.cwd), "")


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _seconds(ms: object) -> float | None:
    """Epoch milliseconds as seconds; None when not a number a float can hold."""
    if not isinstance(ms, (int, float)) or isinstance(ms, bool) or ms <= 0:
        return None
    try:
        return ms / 1000.0
    except OverflowError:
        return None


def _int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**62 else None


def _str(v: object) -> str:
    return v if isinstance(v, str) else ""


def as_text(value: object, limit: int = TEXT_LIMIT) -> str:
    """A result as a person reads it: text as it is, anything else as JSON; cut at `limit`."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def unframe(prompt: str) -> str:
    """The prompt the script computed, without the frame Claude Code puts around it."""
    at = prompt.find(_FRAME_END)
    if not prompt.startswith(_FRAME_START) or at < 0:
        return prompt
    body = prompt[at + len(_FRAME_END) :]
    return "\n".join(line[2:] if line.startswith("  ") else line for line in body.split("\n"))


class RunReader:
    """Reads one run's files into a RunFiles, again only when one of them changed."""

    def __init__(self, run_id: str, run_dir: Path, record_path: Path, scripts_dir: Path):
        self.run_id = run_id
        self.run_dir = run_dir
        self.journal_path = run_dir / "journal.jsonl"
        self.record_path = record_path
        self.scripts_dir = scripts_dir
        self._stamp: object = None
        self._files: RunFiles | ReadError | None = None
        self._metas: dict[str, tuple[tuple[int, int, int] | None, dict[str, object]]] = {}
        self._heads: dict[str, tuple[str, str]] = {}  # agent id -> (prompt, cwd): a transcript's first line
        self._script: tuple[str, str, float | None] | None = None  # (name, description, written at)

    def read(self) -> RunFiles | ReadError:
        # The run folder's own stamp moves when a meta file or a transcript is created in it.
        stamp = (_stamp(self.journal_path), _stamp(self.record_path), _stamp(self.run_dir))
        if stamp != self._stamp or self._files is None:
            self._files = self._read(journal=stamp[0] is not None, record=stamp[1] is not None)
            self._stamp = stamp
        return self._files

    # ------------------------------------------------------------------ the files
    def _read(self, journal: bool, record: bool) -> RunFiles | ReadError:
        if not journal and not record:
            return ReadError(self.journal_path, "file not found")
        files = RunFiles(self.run_id)
        steps: dict[str, Step] = {}
        if journal:
            self._read_journal(files, steps)
        rec = self._read_record(files) if record else None
        late: list[Step] = []
        if rec is not None:
            self._apply_record(files, rec, steps, late)
        late.sort(key=lambda s: s.index if s.index is not None else 2**62)
        for s in late:
            s.number = len(steps) + 1
            steps[s.agent_id] = s
        files.steps = list(steps.values())
        for s in files.steps:
            self._apply_meta(s)
            self._apply_head(s)
        name, description, written = self._script_info()
        files.workflow = files.workflow or name
        files.description = files.description or description
        if files.started_at is None:
            files.started_at = written or min((s.started_at for s in files.steps if s.started_at), default=None)
        return files

    def _read_journal(self, files: RunFiles, steps: dict[str, Step]) -> None:
        data = read_bytes_bounded(self.journal_path, _JOURNAL_BYTES)
        if isinstance(data, ReadError):
            if data.reason != "file not found":  # gone between the stat and the read: the record says the rest
                files.problems.append(data)
            return
        # The last piece is cut short while Claude Code writes it: it is read when complete.
        for no, line in enumerate(data.split(b"\n")[:-1], 1):
            if not line.strip():
                continue
            # A line cut short is a problem; an event glued onto it is still read.
            for event in parse_json_line(self.journal_path, line, no, ("agentId",)):
                if isinstance(event, ReadError):
                    files.problems.append(event)
                elif not isinstance(event, dict):
                    files.problems.append(ReadError(self.journal_path, "expected a JSON object", no))
                else:
                    self._journal_event(event, no, files, steps)

    def _journal_event(self, event: dict[str, object], no: int, files: RunFiles, steps: dict[str, Step]) -> None:
        kind = event.get("type")
        agent_id = event.get("agentId")
        if kind not in ("started", "result", "failed") or not isinstance(agent_id, str):
            return  # launched, restoring, restored, resumed: nothing a step shows
        if not AGENT_ID.fullmatch(agent_id):
            files.problems.append(ReadError(self.journal_path, f"agentId {agent_id[:40]!r} is not a plain id", no))
            return
        step = steps.get(agent_id)
        if step is None:
            step = steps[agent_id] = Step(agent_id, len(steps) + 1)
        if kind == "started":
            step.label = step.label or _str(event.get("label"))
            step.phase = step.phase or _str(event.get("phase"))
        elif kind == "result":
            step.state = "done"
            step.result = as_text(event.get("result"))
        else:
            step.state = "error"

    def _read_record(self, files: RunFiles) -> dict[str, object] | None:
        rec = load_json_file(self.record_path)
        if isinstance(rec, ReadError):
            if rec.reason != "file not found":
                files.problems.append(rec)
            return None
        if not isinstance(rec, dict):
            files.problems.append(ReadError(self.record_path, f"expected a JSON object, got {type(rec).__name__}"))
            return None
        return rec

    def _apply_record(self, files: RunFiles, rec: dict[str, object], steps: dict[str, Step], late: list[Step]) -> None:
        status = rec.get("status")
        error = rec.get("error")
        # Claude Code's own reader: no status means failed when there is an error, else completed.
        files.status = status if isinstance(status, str) and status else "failed" if error else "completed"
        files.error = as_text(error) if error else ""
        files.workflow = _str(rec.get("workflowName"))
        files.description = _str(rec.get("summary"))
        files.started_at = _seconds(rec.get("startTime"))
        files.ended_at = parse_ts(rec.get("timestamp"))
        if files.ended_at is None:
            stamp = _stamp(self.record_path)
            files.ended_at = stamp[0] / 1e9 if stamp is not None else None
        logs = rec.get("logs")
        files.logs = [as_text(x) for x in logs[:200]] if isinstance(logs, list) else []
        files.total_tokens = _int(rec.get("totalTokens"))
        rows = rec.get("workflowProgress")
        for row in rows if isinstance(rows, list) else []:
            if not isinstance(row, dict) or row.get("type") != "workflow_agent":
                continue
            agent_id = row.get("agentId")
            if not isinstance(agent_id, str) or not AGENT_ID.fullmatch(agent_id):
                continue
            step = steps.get(agent_id)
            if step is None:
                step = next((s for s in late if s.agent_id == agent_id), None)
                if step is None:
                    step = Step(agent_id, 0)
                    late.append(step)
            _apply_row(step, row)

    def _apply_meta(self, step: Step) -> None:
        path = self.run_dir / f"agent-{step.agent_id}.meta.json"
        stamp = _stamp(path)
        known = self._metas.get(step.agent_id)
        if known is None or known[0] != stamp:
            meta = load_json_file(path, _META_BYTES) if stamp is not None else None
            known = (stamp, meta if isinstance(meta, dict) else {})
            self._metas[step.agent_id] = known
        meta = known[1]
        step.label = step.label or _str(meta.get("description"))
        step.phase = step.phase or _str(meta.get("workflowPhase"))
        step.model = step.model or _str(meta.get("model"))

    def _apply_head(self, step: Step) -> None:
        head = self._heads.get(step.agent_id)
        if head is None:
            head = _transcript_head(self.run_dir / f"agent-{step.agent_id}.jsonl")
            if head is None:
                return  # not written yet: looked at again with the next change
            self._heads[step.agent_id] = head
        prompt, cwd = head
        if prompt:
            step.prompt = prompt
        step.cwd = cwd

    def _script_info(self) -> tuple[str, str, float | None]:
        """The workflow's name and description from its script (`<meta.name>-<runId>.js`), read once."""
        if self._script is not None:
            return self._script
        suffix = f"-{self.run_id}.js"
        try:
            with os.scandir(self.scripts_dir) as it:
                entry = next((e for e in it if e.name.endswith(suffix) and len(e.name) > len(suffix)), None)
        except OSError:
            entry = None
        if entry is None:
            return ("", "", None)  # not written yet, or gone: asked again next time
        name = entry.name[: -len(suffix)]
        data = read_bytes_bounded(Path(entry.path), _SCRIPT_BYTES)
        description = ""
        if isinstance(data, bytes):
            head = data[:4096].decode("utf-8", errors="replace")
            found = _DESCRIPTION.search(head)
            description = found.group(2) if found else ""
        try:
            written: float | None = entry.stat().st_mtime
        except OSError:
            written = None
        self._script = (name, description, written)
        return self._script


def _apply_row(step: Step, row: dict[str, Any]) -> None:
    """A record's `workflow_agent` row: final, except that a journal's done or error stands."""
    state = row.get("state")
    if step.state in ("start", "progress") and state in STATES:
        step.state = "start" if state == "progress" else state
    step.index = _int(row.get("index"))
    step.label = step.label or _str(row.get("label"))
    step.phase = step.phase or _str(row.get("phaseTitle"))
    step.prompt = step.prompt or _str(row.get("promptPreview"))
    if step.result is None and isinstance(row.get("resultPreview"), str):
        step.result = row["resultPreview"]
    if row.get("error"):
        step.error = as_text(row.get("error"))
    step.skipped = bool(row.get("skipped"))
    step.model = step.model or _str(row.get("model"))
    step.tokens = _int(row.get("tokens"))
    step.tool_calls = _int(row.get("toolCalls"))
    step.queued_at = _seconds(row.get("queuedAt"))
    step.started_at = _seconds(row.get("startedAt"))
    step.last_progress_at = _seconds(row.get("lastProgressAt"))
    duration = _int(row.get("durationMs"))
    if step.started_at is not None and duration is not None and step.state in ("done", "error"):
        step.ended_at = step.started_at + duration / 1000.0


def _transcript_head(path: Path) -> tuple[str, str] | None:
    """(the prompt, the working directory) from a transcript's first line; None until it is written."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        import stat

        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ("", "")
        head = os.pread(fd, _HEAD_BYTES, 0)
    except OSError:
        return None
    finally:
        os.close(fd)
    end = head.find(b"\n")
    if end < 0:
        return None if len(head) < _HEAD_BYTES else ("", "")  # a first line longer than the head: no prompt
    try:
        rec = json.loads(head[:end])
    except (ValueError, RecursionError):
        return ("", "")
    if not isinstance(rec, dict):
        return ("", "")
    msg = rec.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    if isinstance(content, list):
        content = "\n".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    prompt = unframe(content) if rec.get("type") == "user" and isinstance(content, str) else ""
    if len(prompt) > TEXT_LIMIT:
        prompt = prompt[: TEXT_LIMIT - 1] + "…"
    return (prompt, _str(rec.get("cwd")))
