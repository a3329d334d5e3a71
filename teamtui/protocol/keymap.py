"""The [keymap] of config.toml as a terminal can deliver it: a key sent as the very bytes of
another is refused. No Textual: the app applies what is kept, `teamtui doctor` says the same refusals."""

from __future__ import annotations

# Keys a terminal sends as the very bytes of another key, so bound to one they fire on the other
# (a message dialog opened by ctrl+m opens again on the enter that should send it).
SAME_BYTES = {
    "ctrl+m": "enter",
    "ctrl+i": "tab",
    "ctrl+[": "escape",
    "ctrl+left_square_bracket": "escape",
    "ctrl+left_square_brace": "escape",
    "ctrl+h": "backspace",
    "ctrl+?": "backspace",
    "ctrl+question_mark": "backspace",
}


def checked_keymap(keymap: dict[str, str], where: object) -> tuple[dict[str, str], list[str]]:
    """`keymap` without the bindings a terminal cannot tell from another key, and why each was left out."""
    kept: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, keys in keymap.items():
        taken = [k.strip() for k in keys.split(",") if k.strip().lower() in SAME_BYTES]
        if taken:
            other = SAME_BYTES[taken[0].lower()]
            problems.append(
                f'{where}: [keymap] {binding_id} = "{keys}" is ignored: a terminal sends {taken[0]} as {other}, '
                f"so the two cannot be told apart; choose another key"
            )
        else:
            kept[binding_id] = keys
    return kept, problems
