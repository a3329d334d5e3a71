"""Did you mean ...?: the known key nearest a mistyped one, for the files a person writes
(config.toml's settings, a team file)."""

from __future__ import annotations

import re


def norm(key: str) -> str:
    """A key as it may be mistyped: any case, `-`, `.` or a space for `_`."""
    return re.sub(r"[-. ]", "_", key.strip().lower())


def did_you_mean(key: str, forms: dict[str, str]) -> str:
    """ " (did you mean WORDS?)" for the form (a normed key) nearest `key`, WORDS being how
    `forms` names it; "" when none is near."""
    import difflib  # only a mistyped key needs it

    match = difflib.get_close_matches(norm(key), list(forms), n=1, cutoff=0.75)
    return f" (did you mean {forms[match[0]]}?)" if match else ""


__all__ = ["did_you_mean", "norm"]
