"""`teamtui doctor`: what is wrong with config.toml, and what a Claude Code team's transcripts hold
that teamtui does not know.

A newer Claude Code may write entries of a new type, new top-level keys, or a `version` newer than
the releases teamtui was tested against (teamtui/protocol/claude_versions.py). The dashboard says
so in one line; this lists each kind with its count, where it first appears and an example. It
reads every line of every member's transcript, for the Claude Code teams under the config dir
(or the one --root/--team names). First it lists every problem the control room would say (a root
that is not a folder or cannot be read, a team folder that does not read): its header shows the
first few. Then what config.toml holds that teamtui cannot use (an unknown key, a value of the
wrong kind), and which prices are in use (genai-prices' bundled data, and its date); per team, what
it cost and which models it could not price. Exit status 0: nothing unknown and no problem; 1:
something was (a model without a price is said, not counted).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from teamtui.cli.common import CliError, Context, inert, out

TYPE_CHECKING = False  # not typing's: `teamtui --help` imports this module, and typing costs ~2 ms
if TYPE_CHECKING:
    from typing import Any

    from teamtui.protocol.cost import Cost, PriceData
    from teamtui.protocol.settings import Settings
    from teamtui.protocol.store import TeamStore

FOUND = 1  # the exit status when config.toml or a transcript holds something teamtui does not know


def register(sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser], only: str | None = None) -> None:
    p = sub.add_parser(
        "doctor",
        parents=parents,
        help="list what config.toml and Claude Code transcripts hold that teamtui does not know",
        description="Say what config.toml holds that teamtui cannot use (an unknown key, a value of the wrong "
        "kind: each is left out, the rest applies). Read every line of each member's transcript of the Claude "
        "Code team(s) under the config dir (~/.claude or $CLAUDE_CONFIG_DIR; or the team --root/--team "
        "select) and list what teamtui does not know: entries of a Claude Code newer than those tested, unknown entry types, unknown keys; each "
        "with a count, where it first appears and an example. Exit status 1 when there is any.",
    )
    p.add_argument("--json", action="store_true", help="print the findings as JSON")
    p.add_argument(
        "roots",
        nargs="*",
        metavar="ROOT",
        help="the control room's roots (as given to `teamtui ROOT…`): their problems too",
    )
    p.set_defaults(handler=cmd_doctor)


def _room_problems(ctx: Context, settings: Settings) -> list[str]:
    """Every problem the control room would say (a root, a teams folder, a team folder), in full:
    its header shows the first few. Not config.toml's: those are said once, under settings."""
    from teamtui.protocol.fleet.discover import discover_fleet

    roots = [*ctx.args.roots, *([ctx.root] if ctx.root is not None else [])]
    fleet = discover_fleet(roots, settings=settings, ended=False)
    return [
        *(p for p in fleet.problems if p not in settings.problems),
        *(f"team {t.name} ({t.root}): {t.problem}" for t in fleet.teams if t.problem),
    ]


def _config_problems(settings: Settings, config: Path) -> list[str]:
    """What config.toml holds that teamtui cannot use: the settings' problems, and the [keymap]
    remaps the app refuses (its own check: protocol/keymap.py)."""
    from teamtui.protocol.keymap import checked_keymap

    return [*settings.problems, *checked_keymap(settings.keymap, config)[1]]


def _stores(ctx: Context) -> tuple[Path, list[TeamStore]]:
    """The teams to check: the one selected, else every Claude Code team under the config dir."""
    from teamtui.protocol.layout import find_team, team_names

    if ctx.root is not None or ctx.team is not None:
        store = ctx.store()
        return store.root, [store]
    from teamtui.protocol.claude import default_claude_root

    root = default_claude_root()
    return root, [find_team(root, name, "claude") for name in team_names(root, "claude")]


def _check(store: TeamStore) -> dict[str, Any]:
    """One team's transcripts, read in full: {team, transcripts: [(member, path, lines)], report}."""
    from teamtui.protocol.claude.transcripts.known import Drift, drift_report
    from teamtui.protocol.claude.transcripts.locate import TranscriptFinder
    from teamtui.protocol.errors import ReadError

    cfg = store.load_config()
    if isinstance(cfg, ReadError):
        raise CliError(f"cannot read {cfg.path}: {cfg.reason}")
    sources = TranscriptFinder(store.root, dict(cfg.raw)).resolve()
    from teamtui.protocol.cost import total

    drifts: list[Drift] = []
    read: list[tuple[str, Path, int | None, str]] = []
    costs: dict[str, Cost | None] = {}
    for member, source in sorted(sources.items()):
        drift = Drift(source.path)
        try:
            with source.path.open("rb") as fh:
                for no, line in enumerate(fh, 1):
                    if line.strip():
                        drift.see_all(line.rstrip(b"\r\n"), no)
        except OSError as exc:
            read.append((member, source.path, None, str(exc)))
            continue
        drifts.append(drift)
        read.append((member, source.path, drift.lines, ""))
        costs[member] = _cost_of(source.path)
    return {
        "team": store.name,
        "root": store.root,
        "transcripts": read,
        "report": drift_report(drifts),
        "cost": total(costs.values()),
    }


def _cost_of(path: Path) -> Cost | None:
    """What one transcript's messages cost (read again, whole, priced as the dashboard prices them)."""
    from teamtui.protocol.claude.transcripts.reader import TranscriptReader

    reader = TranscriptReader(path)
    reader.read()
    return reader.stats.cost


def _where(path: Path, root: Path, line: int | None) -> str:
    try:
        shown = str(path.relative_to(root))
    except ValueError:
        shown = str(path)
    return inert(shown) + (f":{line}" if line is not None else "")


def cmd_doctor(ctx: Context) -> int:
    from teamtui.protocol.claude.transcripts.known import newest_tested
    from teamtui.protocol.claude_versions import TESTED_CLAUDE_CODE
    from teamtui.protocol.cost import cost_json, price_data
    from teamtui.protocol.settings import config_path, load_settings

    config = config_path()
    settings = load_settings(config)
    problems = _room_problems(ctx, settings)
    config_problems = _config_problems(settings, config)
    prices = price_data()  # loads genai-prices: every transcript is priced as it is read
    root, stores = _stores(ctx)
    teams = [_check(s) for s in stores if s.has_transcripts]
    found = any(t["report"] for t in teams) or bool(problems) or bool(config_problems)
    if ctx.args.json:
        out(
            json.dumps(
                {
                    "problems": problems,
                    "settings": {"path": str(config), "problems": config_problems},
                    "prices": {
                        "source": "genai-prices",
                        "version": prices.version,
                        "bundled": prices.bundled,
                        "newest_price_date": prices.newest,
                        "error": prices.error,
                    },
                    "root": str(root),
                    "tested": list(TESTED_CLAUDE_CODE),
                    "teams": [
                        {
                            "team": t["team"],
                            "transcripts": [
                                {"member": m, "path": str(p), "lines": n, "error": e or None}
                                for m, p, n, e in t["transcripts"]
                            ],
                            "versions": t["report"].versions,
                            "cost": cost_json(t["cost"]),
                            "summary": t["report"].summary(),
                            "unknown": [
                                {
                                    "kind": i.kind,
                                    "name": i.name,
                                    "count": i.count,
                                    "path": str(i.path),
                                    "line": i.line,
                                    "example": i.example,
                                }
                                for i in t["report"].items
                            ],
                        }
                        for t in teams
                    ],
                },
                ensure_ascii=True,
                indent=2,
            )
        )
        return FOUND if found else 0
    if problems:
        out(f"control room: {len(problems)} problem{'s' if len(problems) != 1 else ''}")
        for problem in problems:
            out(f"  - {inert(problem)}")
        out()
    if config_problems:
        out(
            f"settings: {len(config_problems)} problem{'s' if len(config_problems) != 1 else ''} (each left out, the rest applies)"
        )
        for problem in config_problems:
            out(f"  - {inert(problem)}")
    else:
        out(
            f"settings: {inert(str(config))}: ok"
            if config.exists()
            else f"settings: no {inert(str(config))}: the defaults"
        )
    out(_prices_line(prices))
    out(f"teamtui was tested with Claude Code {', '.join(TESTED_CLAUDE_CODE)} (newest {newest_tested()})")
    if not teams:
        what = (
            f"team {stores[0].name} keeps no Claude Code transcripts" if stores else f"no Claude Code team under {root}"
        )
        out(inert(what))
        return FOUND if problems else 0
    for t in teams:
        report = t["report"]
        out()
        out(f"team {inert(t['team'])} ({inert(str(t['root']))})")
        for member, path, lines, error in t["transcripts"]:
            said = f"unreadable: {inert(error)}" if error else f"{lines} lines"
            out(f"  {inert(member)}: {_where(path, t['root'], None)} ({said})")
        if not t["transcripts"]:
            out("  no transcript found")
        if report.versions:
            out(f"  Claude Code versions seen: {', '.join(inert(v) for v in report.versions)}")
        out(f"  {_cost_line(t['cost'])}")
        if not report:
            out("  ok: nothing teamtui does not know")
            continue
        out(f"  {inert(report.summary())}")
        for item in report.items:
            out(
                f"  - {inert(item.what)}: {item.count} line{'s' if item.count != 1 else ''}, first at {_where(item.path, t['root'], item.line)}"
            )
            out(f"      e.g. {item.example}")
    return FOUND if found else 0


def _prices_line(prices: PriceData) -> str:
    if prices.error:
        return f"prices: none ({inert(prices.error)}): every cost says 'price unknown'"
    where = "its bundled data, never updated at run time" if prices.bundled else "data fetched at run time"
    return f"prices: genai-prices {prices.version}, {where}; its newest price takes effect {prices.newest}"


def _cost_line(cost: Cost | None) -> str:
    from teamtui.protocol.cost import money

    if cost is None:
        return "cost: not known (a transcript could not be read whole)"
    said = f"cost: {money(cost.usd)}"
    if cost.unknown:
        said += (
            f"; no price for model {', '.join(inert(m) for m in cost.unknown)} ({cost.unpriced_tokens} tokens left out)"
        )
    return said
