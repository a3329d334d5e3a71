"""The native layout: `.teams/<team>/` and `.tasks/` inside a project root (learn-claude-code's protocol).

layout: where the files are and what a changed path is; config: the team file;
inbox: the message wire format and its locking; tasks: task files and teamtui's sidecars;
team: NativeTeam, the four joined.
"""

from teamtui.protocol.native.inbox import decode_message_dict
from teamtui.protocol.native.tasks import CAMEL, CORE_TASK_KEYS, SIDECAR_KEYS, decode_task_dict
from teamtui.protocol.native.team import NativeTeam

__all__ = ["CAMEL", "CORE_TASK_KEYS", "SIDECAR_KEYS", "NativeTeam", "decode_message_dict", "decode_task_dict"]
