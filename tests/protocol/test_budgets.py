"""Budgets: which threshold a spend reached, the calls made once per threshold and period (kept on
disk, so a restart does not repeat them), and the [budgets] table of config.toml."""

from __future__ import annotations

import json
import time
from decimal import Decimal
from pathlib import Path

from teamtui.notify.events import NotifyEvent, NotifyKind
from teamtui.notify.notifier import Notifier
from teamtui.protocol.budgets import BudgetBook, TeamBill, day_crossing, level, row_mark, team_crossings
from teamtui.protocol.cost import Cost, today
from teamtui.protocol.settings import BudgetSettings, load_settings

D = Decimal


def test_the_threshold_reached() -> None:
    assert [level(D(x), 10.0) for x in ("0", "7.99", "8", "9.99", "10", "25")] == [0, 0, 80, 80, 100, 100]
    assert level(D(100), None) == 0, "no budget, no call"


def test_a_team_and_its_teammates_each_against_their_budget() -> None:
    budgets = BudgetSettings(team=10.0, teammate=4.0)
    bill = TeamBill("k", "api", Cost(D("8.5")), {"alice": Cost(D("4.2")), "bob": Cost(D(1)), "carol": None})
    crossings = team_crossings(budgets, bill)
    assert [(c.what, c.member, c.percent) for c in crossings] == [("team", "", 80), ("teammate", "alice", 100)]
    assert crossings[0].text() == "$8.50, 80% of the team budget of $10.00"
    assert crossings[1].text() == "alice: $4.20, reached the teammate budget of $4.00"
    assert row_mark(crossings) == "alice 100%"
    assert team_crossings(BudgetSettings(), bill) == []


def test_the_day_is_every_teams_spend_of_today() -> None:
    now = time.time()
    day = today(now)
    costs = [Cost(D(30), days={day: D(30), "2000-01-01": D(99)}), Cost(D(15), days={day: D(15)}), None]
    spent, crossing = day_crossing(BudgetSettings(day=50.0), costs, now)
    assert spent == D(45) and crossing is not None and crossing.percent == 80
    assert crossing.key == f"day:{day}:80" and crossing.text().startswith("today, every team: $45.00, 80% of")


def test_a_call_is_made_once_per_threshold_and_period_across_restarts(tmp_path: Path) -> None:
    path = tmp_path / "budgets.json"
    budgets = BudgetSettings(team=10.0)
    at_80 = team_crossings(budgets, TeamBill("team-1", "api", Cost(D(9)), {}))
    assert BudgetBook(path).first_time(at_80) == at_80
    assert BudgetBook(path).first_time(at_80) == [], "a new book (a restart) reads what was called"
    at_100 = team_crossings(budgets, TeamBill("team-1", "api", Cost(D(12)), {}))
    assert BudgetBook(path).first_time(at_100) == at_100
    # Another life of a team of that name is another period; a team found at 100 % is not told 80 % after.
    again = team_crossings(budgets, TeamBill("team-2", "api", Cost(D(12)), {}))
    assert BudgetBook(path).first_time(again) == again
    assert BudgetBook(path).first_time(team_crossings(budgets, TeamBill("team-2", "api", Cost(D(9)), {}))) == []


def test_a_book_that_does_not_read_is_started_again(tmp_path: Path) -> None:
    path = tmp_path / "budgets.json"
    for junk in ("{", "[]", '{"called": 3}', '{"called": {"x": "y"}}'):
        path.write_text(junk)
        crossings = team_crossings(BudgetSettings(team=1.0), TeamBill(junk, "t", Cost(D(2)), {}))
        assert BudgetBook(path).first_time(crossings) == crossings
        assert crossings[0].key in json.loads(path.read_text())["called"]


def test_two_budget_calls_of_one_team_both_get_through_the_rate_limit() -> None:
    sent: list[NotifyEvent] = []

    class Sink:
        def send(self, event: NotifyEvent) -> None:
            sent.append(event)

    n = Notifier([Sink()])
    assert n.notify(NotifyEvent(NotifyKind.BUDGET, "api", "$8.50, 80% of the team budget of $10.00"))
    assert n.notify(NotifyEvent(NotifyKind.BUDGET, "api", "alice: $4.20, reached the teammate budget of $4.00"))
    assert n.notify(NotifyEvent(NotifyKind.NEEDS_YOU, "api", "a"))
    assert not n.notify(NotifyEvent(NotifyKind.NEEDS_YOU, "api", "b")), "other kinds stay rate-limited"
    assert len(sent) == 3


def test_budgets_in_config_toml(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[budgets]\nteam = 25\nteammate = 7.5\nday = 0\nweek = 100\n")
    s = load_settings(path)
    assert s.budgets == BudgetSettings(team=25.0, teammate=7.5, day=None)
    assert [p.removeprefix(f"{path}: ") for p in s.problems] == [
        "[budgets] day must be a positive number of dollars, like 20 or 7.5, got 0; the default is used",
        "[budgets] week is not a setting; ignored",
    ]
    path.write_text("budget = 25\n")
    assert load_settings(path).problems == [f"{path}: budget is not a setting (did you mean [budgets]?); ignored"]
