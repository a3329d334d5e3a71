"""A stand-in for Claude Code's lead showing a pane teammate's permission dialog, in a real tmux pane.

It draws the dialog as 2.1.332 does (tests/fixtures/examples/claude-2.1.332-hooks/tmux/lead-dialog.txt;
the options as given, e.g. "Yes,Yes and switch to auto mode,No"), takes one key from its terminal,
and writes what the real lead then writes: a `permission_response` with `lead_sig` into the
teammate's inbox (`success` for the key of Yes, `error` "Permission denied" for No). It records
every key it got in KEYS_OUT, so a test sees that nothing else was pressed.

    python fake_lead_dialog.py INBOX TEAMMATE COMMAND REQUEST_ID OPTIONS KEYS_OUT
"""

from __future__ import annotations

import json
import os
import sys
import termios
import time
import tty
import uuid
from datetime import datetime, timezone

inbox, teammate, command, request_id, options, keys_out = sys.argv[1:7]
choices = options.split(",")
rule = "╌" * 65
lines = [
    "",
    " ▐▛███▛█   Claude Code v2.1.332",
    "",
    "❯ LEADGO please spawn the team",
    "",
    "─" * 65,
    f" Bash command · from the {teammate} agent",
    ' Tip: auto mode handles these prompts for you — choose "switch',
    ' to auto mode" below',
    f" {teammate} probe",
    rule,
    *(f" {command[i : i + 63]}" for i in range(0, len(command), 63)),
    rule,
    " Do you want to proceed?",
    *((" ❯ " if i == 0 else "   ") + f"{i + 1}. {text}" for i, text in enumerate(choices)),
    "",
    " Esc to cancel · Tab to amend",
]
sys.stdout.write("\n".join(lines) + "\n")
sys.stdout.flush()

fd = sys.stdin.fileno()
saved = termios.tcgetattr(fd)
tty.setcbreak(fd)
try:
    key = os.read(fd, 1).decode()
finally:
    termios.tcsetattr(fd, termios.TCSADRAIN, saved)
with open(keys_out, "a") as fh:
    fh.write(key)
text = choices[int(key) - 1] if key.isdigit() and 0 < int(key) <= len(choices) else ""
payload = {"type": "permission_response", "request_id": request_id, "tool_use_id": "toolu_probe"}
if text.startswith("Yes"):
    payload.update(subtype="success", approved_request={"tool_use_id": "toolu_probe", "tool_name": "Bash"})
else:
    payload.update(subtype="error", error="Permission denied")
entry = {
    "from": "team-lead",
    "text": json.dumps(payload, separators=(",", ":")),
    "timestamp": datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    "msgV": 1,
    "msg_id": str(uuid.uuid4()),
    "type": "message",
    "read": False,
    "lead_sig": "c2lnbmVkLWJ5LXRoZS1sZWFk",
}
time.sleep(0.2)  # the real lead answers a moment after the key
try:
    entries = json.loads(open(inbox).read())
except (OSError, ValueError):
    entries = []
entries.append(entry)
tmp = inbox + ".tmp"
with open(tmp, "w") as fh:
    json.dump(entries, fh)
os.replace(tmp, inbox)
sys.stdout.write("\x1b[2J\x1b[H")  # the dialog goes, as the real lead's does
print(f"answered {key}", flush=True)
time.sleep(3600)
