"""Search: a person's text never breaks FTS5 (anything typed either searches or is one clear
QueryError), results carry team, who, when and the match marked, and filter by team, time, kind."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from teamtui.protocol.history.db import connect
from teamtui.protocol.history.ops import TeamIdent, Txn
from teamtui.protocol.history.search import QueryError, fts_query, search, segments

NOW = time.time()


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> sqlite3.Connection:
    c = connect(tmp_path_factory.mktemp("search") / "h.sqlite3")
    txn = Txn(c)
    c.execute("BEGIN")
    alpha, beta = TeamIdent("", "native", "/p", "alpha"), TeamIdent("box", "claude", "/c", "beta")
    txn.apply(("header", alpha, NOW - 7200, ("lead", "", None, [("ada", "", "", "", "", None)], {}, True)))
    txn.apply(
        (
            "message",
            alpha,
            NOW - 7200,
            ("lead", "ada", "message", "the build broke on main", "", NOW - 7200, None, False),
        )
    )
    txn.apply(
        ("message", alpha, NOW - 60, ("ada", "lead", "message", "fixed: the build passes", "", NOW - 60, None, True))
    )
    txn.apply(
        (
            "entries",
            beta,
            NOW - 30,
            ("transcript", [("bob", NOW - 30, "info", "Bash: pytest -q  # build? NOT sure", 7)]),
        )
    )
    txn.apply(("task", beta, NOW - 10, ("task", "4", "Déploiement du build", "naïve café", "pending", "", [])))
    txn.apply(("change", beta, NOW - 5, ("bob", "src/build/deploy.py", "modified", "4", 3, 1, None)))
    txn.finish()
    c.execute("COMMIT")
    return c


def test_results_are_newest_first_with_team_who_when_and_the_match_marked(con: sqlite3.Connection) -> None:
    hits = search(con, "build")
    assert [(h.team, h.kind, h.who) for h in hits] == [
        ("beta", "change", "bob"),
        ("beta", "task", ""),
        ("beta", "transcript", "bob"),
        ("alpha", "message", "ada"),
        ("alpha", "message", "lead"),
    ]
    first_message = hits[-1]
    assert first_message.ref == "ada" and abs(first_message.at - (NOW - 7200)) < 1e-6
    assert first_message.segments == [("the ", False), ("build", True), (" broke on main", False)]
    assert hits[0].key == ("ssh:box", "/c", "beta") and hits[-1].key == ("native", "/p", "alpha")
    assert search(con, "deploiement cafe")[0].ref == "4", "accents fold"


def test_filters_by_team_time_and_kind(con: sqlite3.Connection) -> None:
    assert {h.team for h in search(con, "build", team="alpha")} == {"alpha"}
    assert search(con, "build", team="nobody") == []
    assert [h.who for h in search(con, "build", since=NOW - 120)] == ["bob", "", "bob", "ada"]
    assert [h.kind for h in search(con, "build", kinds=("message",))] == ["message", "message"]
    assert len(search(con, "build", limit=2)) == 2


def test_the_syntax_a_person_uses(con: sqlite3.Connection) -> None:
    assert [h.who for h in search(con, '"build passes"')] == ["ada"]
    assert [h.who for h in search(con, "build NOT passes", team="alpha")] == ["lead"]
    assert {h.kind for h in search(con, "pytest OR deploy")} == {"transcript", "change"}
    assert [h.kind for h in search(con, "depl*")] == ["change", "task"]
    # FTS5's own words and punctuation are plain text: "NOT" in lower case, a column name, parentheses.
    assert [h.kind for h in search(con, "not sure")] == ["transcript"]
    assert [h.team for h in search(con, "text:main)")] == [], "text:main is a phrase of two words"
    assert [h.who for h in search(con, "main)")] == ["lead"] and search(con, "NEAR(build main)") == []
    for bad, why in (
        ("", "nothing to search for"),
        ("  (( ))  ", "nothing to search for"),
        ('"build', "a quote is not closed"),
        ("NOT build", "NOT needs a word before it"),
        ("build OR", "OR needs a word after it"),
        ("build AND OR main", "AND needs a word after it"),
    ):
        with pytest.raises(QueryError, match=why):
            search(con, bad)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(list("ab \"*():^-+{}[]\\'\x00é\u202e.,/") + [" OR ", " NOT ", " AND ", "NEAR", "text:"]),
        max_size=20,
    )
)
def test_no_text_breaks_the_search(con: sqlite3.Connection, parts: list[str]) -> None:
    text = "".join(parts)
    try:
        expr = fts_query(text)
    except QueryError:
        return
    search(con, text)  # raises nothing else
    assert expr.count('"') % 2 == 0


def test_match_marks_in_text_cannot_confuse_the_result() -> None:
    assert segments("a\x02b\x03c") == [("a", False), ("b", True), ("c", False)]
    assert segments("\x02whole\x03") == [("whole", True)]
    assert segments("cut \x02open") == [("cut ", False), ("open", True)]


def test_text_with_the_marks_or_bad_unicode_is_stored_clean(tmp_path: Path) -> None:
    c = connect(tmp_path / "h.sqlite3")
    txn = Txn(c)
    c.execute("BEGIN")
    team = TeamIdent("", "native", "/p", "t")
    txn.apply(("entries", team, NOW, ("log", [("ada", None, "info", "x\x02y\x03z lone \ud800 surrogate", 1)])))
    txn.finish()
    c.execute("COMMIT")
    [hit] = search(c, "surrogate")
    assert hit.text == "xyz lone \ufffd surrogate"


def test_a_prefix_needs_three_letters(con: sqlite3.Connection) -> None:
    with pytest.raises(QueryError, match="at least 3 letters before"):
        search(con, "bu*")
    assert [h.kind for h in search(con, "bui*", team="alpha")] == ["message", "message"]
    assert [h.kind for h in search(con, '"the bui"*', team="alpha")] == ["message", "message"]


def test_the_limit_keeps_the_newest_by_time_not_the_last_written(tmp_path: Path) -> None:
    """A batch written out of time order (a team first seen, a journal read in late): the newest
    three are the three latest in time, whichever was written last."""
    c = connect(tmp_path / "h.sqlite3")
    txn = Txn(c)
    c.execute("BEGIN")
    team = TeamIdent("", "native", "/p", "t")
    txn.apply(
        ("entries", team, NOW, ("log", [("ada", NOW - 100 + i, "info", f"deploy step {i}", i) for i in range(5)]))
    )
    # Read in after: older records, written last.
    txn.apply(("entries", team, NOW, ("log", [("bob", NOW - 900 + i, "info", f"deploy old {i}", i) for i in range(5)])))
    txn.finish()
    c.execute("COMMIT")
    assert [h.text for h in search(c, "deploy", limit=3)] == ["deploy step 4", "deploy step 3", "deploy step 2"]


def test_a_result_on_one_line_has_its_line_breaks_as_spaces(con: sqlite3.Connection) -> None:
    [task] = search(con, "cafe")
    assert "\n" in task.text, "the task's subject, then its description"
    assert "".join(s for s, _ in task.one_line()) == task.text.replace("\n", " ")
    assert [hit for _, hit in task.one_line()] == [hit for _, hit in task.segments]
