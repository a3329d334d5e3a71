"""Claude Code's `Workflow` tool run by the real binary, with only the model scripted: the lead calls
Workflow on a small script (two agents in parallel, then one), and each agent's request is answered
by the fake model like any other. docs/formats.md ("Workflow runs") says what it writes.

Print mode (`claude -p`) is enough: it waits for the background run and writes the same files an
interactive session does, in two or three seconds. By hand: `python -m tests.interop.workflow
<dir> [fail|stop]` runs one and leaves its HOME there; with `--fixture <dest>` it also copies what the
binary wrote, paths rewritten, into <dest>/running and <dest>/completed (or <dest>/failed, <dest>/killed), as the
checked-in examples under tests/fixtures/claude-workflow/ were made.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.interop.fakeapi import FakeApi, Reply, Request
from tests.interop.harness import Folders, Session, claude_bin, wait_until

LEAD = "WFLEAD"
LEAD_PROMPT = f"{LEAD}: use a workflow to probe"
WORKFLOW_NAME = "probe-flow"
DESCRIPTION = "Two agents in parallel, then one"
# agent label -> (marker in its prompt, its reply)
AGENTS = {"alpha": ("WFAGENTA", "RESULT-A"), "beta": ("WFAGENTB", "RESULT-B"), "gamma": ("WFAGENTC", "RESULT-C")}
PHASES = {"alpha": "Fan", "beta": "Fan", "gamma": "Join"}

# The script the fake model passes to Workflow. `args.fail` makes it throw after its last agent.
SCRIPT = f"""export const meta = {{ name: '{WORKFLOW_NAME}', description: '{DESCRIPTION}', phases: [{{ title: 'Fan' }}, {{ title: 'Join' }}] }}
phase('Fan')
const [a, b] = await parallel([
  () => agent('WFAGENTA: say A', {{ label: 'alpha', phase: 'Fan' }}),
  () => agent('WFAGENTB: say B', {{ label: 'beta', phase: 'Fan' }}),
])
phase('Join')
const c = await agent(`WFAGENTC: join ${{a}} and ${{b}}`, {{ label: 'gamma', phase: 'Join' }})
if (args && args.fail) throw new Error('WFBOOM after ' + c)
return {{ a, b, c }}
"""
BETA_ERROR = "WFBROKEN: the fake model refuses"


def agent_of(req: Request) -> str:
    """Which workflow agent (label) sent a request, or "lead", or ""."""
    first = req.first_user_text
    for label, (marker, _) in AGENTS.items():
        if marker in first:
            return label
    return "lead" if LEAD in first else ""


@dataclass
class WorkflowRun(Folders):
    """One `claude -p` whose model calls Workflow on SCRIPT, in a private HOME under `base`.

    fail: beta's request gets an API error (400, which Claude Code gives up on after a few tries:
    beta ends in state "error") and the script throws after gamma (the run ends "failed").
    stop: once gamma has started, the lead calls TaskStop on the run (it ends "killed").
    Gamma's reply waits until `release` is set: until then the run is caught running."""

    base: Path
    fail: bool = False
    stop: bool = False
    release: threading.Event = field(default_factory=threading.Event)
    session: Session | None = None
    proc: subprocess.Popen[str] | None = None

    def script(self, req: Request) -> Reply:
        who = agent_of(req)
        if who == "beta" and self.fail:
            return Reply(text=BETA_ERROR, error_status=400)
        if who == "gamma":
            self.release.wait(60)
        if who in AGENTS:
            return Reply(text=AGENTS[who][1])
        if who == "lead" and "Workflow" not in req.tool_calls():
            args: dict[str, Any] = {"script": SCRIPT}
            if self.fail:
                args["args"] = {"fail": True}
            return Reply(tools=[("Workflow", args)])
        if who == "lead" and self.stop and "TaskStop" not in req.tool_calls():
            task = re.search(r"Task ID: (\w+)", req.all_text)
            if task:
                self.wait_running()
                return Reply(tools=[("TaskStop", {"task_id": task.group(1)})])
        return Reply(text="WFLEADDONE")

    # ------------------------------------------------------------------ paths (home, claude_dir, cwd: Folders)
    tmpdir = property(lambda self: self.base / "tmp")

    def project_dir(self) -> Path:
        """projects/<slug>/: the cwd with every character outside [A-Za-z0-9] made `-`."""
        return self.claude_dir / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(self.cwd))

    def session_id(self) -> str | None:
        leads = sorted(self.project_dir().glob("*.jsonl"))
        return leads[0].stem if leads else None

    def session_dir(self) -> Path:
        sid = self.session_id()
        assert sid is not None, "no lead transcript yet"
        return self.project_dir() / sid

    def run_dirs(self) -> list[Path]:
        """subagents/workflows/<runId>/, one per run (its journal and agent transcripts)."""
        sid = self.session_id()
        return sorted((self.project_dir() / sid / "subagents" / "workflows").glob("wf_*")) if sid else []

    def run_id(self) -> str:
        dirs = self.run_dirs()
        assert len(dirs) == 1, dirs
        return dirs[0].name

    def record_path(self) -> Path:
        return self.session_dir() / "workflows" / f"{self.run_id()}.json"

    def record(self) -> dict[str, Any]:
        return json.loads(self.record_path().read_text())

    def journal(self) -> list[dict[str, Any]]:
        path = self.run_dirs()[0] / "journal.jsonl"
        text = path.read_text() if path.exists() else ""
        return [json.loads(line) for line in text[: text.rfind("\n") + 1].splitlines() if line.strip()]

    def lead_lines(self) -> list[dict[str, Any]]:
        text = (self.project_dir() / f"{self.session_id()}.jsonl").read_text()
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    # ------------------------------------------------------------------ running it
    def start(self) -> WorkflowRun:
        binary = claude_bin()
        if binary is None:
            raise RuntimeError("claude is not installed: run `make interop`")
        self.base.mkdir(parents=True, exist_ok=True)
        self.tmpdir.mkdir(exist_ok=True)
        # The run's task output goes to $TMPDIR/claude-<uid>/…: kept inside base.
        s = Session(self.base, "in-process", script=self.script, extra_env={"TMPDIR": str(self.tmpdir)})
        s.api = FakeApi(s.script, s.record).start()
        default = s.api.server.handle_error

        def handle_error(request: Any, client_address: Any) -> None:
            if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
                default(request, client_address)
            # else: claude hung up on a reply held back (gamma's, in a run stopped meanwhile)

        s.api.server.handle_error = handle_error  # type: ignore[method-assign]
        s.write_home()
        self.session = s
        self.proc = subprocess.Popen(
            [str(binary), "-p", LEAD_PROMPT, "--dangerously-skip-permissions"],
            cwd=self.cwd,
            env=s.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        return self

    def wait_running(self, timeout: float = 60) -> None:
        """Until gamma has started (alpha and beta are done) and its transcript begun; its reply is held."""

        def gamma() -> str:
            return (
                next(
                    (e["agentId"] for e in self.journal() if e.get("type") == "started" and e.get("label") == "gamma"),
                    "",
                )
                if self.run_dirs()
                else ""
            )

        wait_until(
            lambda: gamma() and (self.run_dirs()[0] / f"agent-{gamma()}.jsonl").exists(),
            "the run to start gamma",
            timeout,
        )

    def finish(self, timeout: float = 90) -> tuple[int, str, str]:
        assert self.proc is not None
        if not self.stop:  # a run being stopped is stopped with gamma still waiting
            self.release.set()
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
            raise AssertionError(f"claude -p did not end in {timeout:.0f}s: {err[-2000:]}") from None
        return self.proc.returncode, out, err

    def end(self) -> None:
        self.release.set()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        if self.session is not None and self.session.api is not None:
            self.session.api.stop()

    # ------------------------------------------------------------------ an example for tests/fixtures
    def copy_example(self, dest: Path) -> None:
        """The project folder and the task output file, with this run's paths replaced the way the
        examples in tests/fixtures/examples are (HOME /home/dev, cwd /src/app, uid 1000)."""
        slug = self.project_dir().name
        subs = [
            (str(self.tmpdir / "claude-0" / slug), "/tmp/claude-1000/-src-app"),
            (str(self.tmpdir), "/tmp"),
            (str(self.home), "/home/dev"),
            (str(self.cwd), "/src/app"),
            (slug, "-src-app"),
        ]

        def put(src: Path, rel: str) -> None:
            text = src.read_text(encoding="utf-8")
            for old, new in subs:
                text = text.replace(old, new)
            if str(self.base) in text:
                raise AssertionError(f"{src} still names {self.base}")
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")

        if dest.exists():
            shutil.rmtree(dest)
        for src in sorted(self.project_dir().rglob("*")):
            if src.is_file():
                put(src, "projects/-src-app/" + str(src.relative_to(self.project_dir())))
        for src in sorted(self.tmpdir.glob("claude-*/*/*/tasks/*.output")):
            put(src, "tmp/claude-1000/-src-app/" + str(src.relative_to(self.tmpdir / "claude-0" / slug)))


def main(argv: list[str]) -> int:
    base = Path(argv[0])
    fail, stop = "fail" in argv[1:], "stop" in argv[1:]
    fixture = Path(argv[argv.index("--fixture") + 1]) if "--fixture" in argv else None
    if base.exists():
        shutil.rmtree(base)
    run = WorkflowRun(base, fail=fail, stop=stop).start()
    try:
        run.wait_running()
        if fixture is not None and not (fail or stop):
            run.copy_example(fixture / "running")
        code, out, err = run.finish()
        wait_until(lambda: run.record_path().exists(), "the run record", 30)
        print(code, out.strip(), err.strip()[-2000:])
        print(json.dumps({k: v for k, v in run.record().items() if k != "script"}, indent=1))
        if fixture is not None:
            run.copy_example(fixture / ("failed" if fail else "killed" if stop else "completed"))
    finally:
        run.end()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
