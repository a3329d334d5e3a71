"""`[[nats]]` in config.toml: each table checked, a mistake said in words (a near miss of a key
with its right spelling) and that table left out; a room with one reads that server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from teamtui.protocol.nats_subjects import filter_problem, host_token, parse_subject, team_token
from teamtui.protocol.settings import load_settings
from teamtui.session.fleet import open_fleet


def settings(tmp_path: Path, text: str):
    path = tmp_path / "config.toml"
    path.write_text(text)
    return load_settings(path), path


def test_a_nats_table_is_read(tmp_path: Path) -> None:
    s, _ = settings(
        tmp_path,
        '[[nats]]\nurl = "tls://nats.example.com:4222"\ncredentials = "~/nats.creds"\ntls_ca = "/etc/ca.pem"\n'
        'subjects = "teamtui.build-07.>"\nname = "fleet"\n',
    )
    assert s.problems == []
    (n,) = s.nats
    assert (n.url, n.credentials, n.tls_ca, n.subjects, n.name) == (
        "tls://nats.example.com:4222",
        str(Path("~/nats.creds").expanduser()),
        "/etc/ca.pem",
        "teamtui.build-07.>",
        "fleet",
    )


@pytest.mark.parametrize(
    ("table", "said"),
    [
        (
            'url = "nats://x:4222"\ncredential = "/f"',
            "[[nats]] #1 credential is not a setting (did you mean [[nats]] credentials?); ignored",
        ),
        ('url = "nats://x:4222"\ntls-ca = "/f"', "[[nats]] #1 tls-ca is not a setting (did you mean [[nats]] tls_ca?)"),
        (
            'url = "nats://x:4222"\nsubject = "teamtui.>"',
            "[[nats]] #1 subject is not a setting (did you mean [[nats]] subjects?)",
        ),
        (
            'url = "http://x:4222"',
            "[[nats]] #1 url must be nats://HOST:PORT or tls://HOST:PORT, got 'http://x:4222'; this server is ignored",
        ),
        ("credentials = 3", "[[nats]] #1 url is missing; this server is ignored"),
        ('url = "nats://x:4222"\nsubjects = "other.>"', "subjects must start with teamtui."),
        ('url = "nats://x:4222"\nsubjects = "teamtui.a.b.c.d"', "subjects 'b' is no host, team or wildcard"),
        ('url = "nats://x:4222"\ncredentials = 42', "[[nats]] #1 credentials must be the path of a file"),
    ],
)
def test_a_mistake_is_said_and_that_table_left_out(tmp_path: Path, table: str, said: str) -> None:
    s, path = settings(tmp_path, f'[[nats]]\n{table}\n\n[[nats]]\nurl = "nats://good:4222"\n')
    assert any(said in p and str(path) in p for p in s.problems), s.problems
    urls = [n.url for n in s.nats]
    assert "nats://good:4222" in urls
    if "is not a setting" not in said:  # an unknown key is left out alone; anything else leaves out the table
        assert urls == ["nats://good:4222"]


def test_a_server_named_twice_is_read_once(tmp_path: Path) -> None:
    s, path = settings(tmp_path, '[[nats]]\nurl = "nats://x:4222"\n\n[[nats]]\nurl = "nats://x:4222"\n')
    assert [n.url for n in s.nats] == ["nats://x:4222"]
    assert s.problems == [f"{path}: [[nats]] (nats://x:4222): it is there twice; this one is ignored"]


def test_a_secret_in_the_wrong_place_is_not_echoed(tmp_path: Path) -> None:
    s, _ = settings(tmp_path, '[[nats]]\nurl = "nats://x:4222"\ncredentials = ["s3cr3t-token"]\n')
    assert s.nats == [] and s.problems and not any("s3cr3t" in p for p in s.problems)


@pytest.mark.parametrize(
    "good", ["teamtui.>", "teamtui.*.>", "teamtui.box1.>", "teamtui.*.*.state", "teamtui.box1.*.state"]
)
def test_filters_that_name_teamtuis_subjects(good: str) -> None:
    assert filter_problem(good) == ""


@pytest.mark.parametrize("bad", ["teamtui", ">", "teamtui.>.x", "teamtui.a b.>", "teamtui.box1.*.req", "teamtui.*"])
def test_filters_that_do_not(bad: str) -> None:
    assert filter_problem(bad)


def test_tokens_are_safe_for_a_subject_and_a_team_cannot_pose_as_the_host() -> None:
    assert host_token("build-07.ci.example.com") == "build-07-ci-example-com"
    assert host_token("..") == "host"
    for name in ("a.b", "*", ">", "x y", "../etc", "\x1b[2J", "日本", "_host", ""):
        token = team_token(("native", "/srv", name))
        assert token != "_host" and not any(c in token for c in ".*> \x1b")
        assert parse_subject(f"teamtui.box1.{token}.state") == ("box1", token, "state")
    assert team_token(("native", "/a", "t")) != team_token(("native", "/b", "t")), "two folders, two teams"
    assert parse_subject("teamtui.box1.x.y.state") is None and parse_subject("teamtui.-x._host.state") is None


def test_a_room_with_a_nats_table_reads_that_server_and_one_without_loads_no_nats(tmp_path: Path) -> None:
    s, _ = settings(tmp_path, '[[nats]]\nurl = "nats://127.0.0.1:1"\n')
    empty = tmp_path / "empty"
    empty.mkdir()
    fleet = open_fleet(s, cwd=empty, claude_root=empty, registry=empty / "runs", journal=empty / "journal", nats=s.nats)
    assert [type(x).__name__ for x in fleet.sources] == ["LocalSource", "NatsSource"]
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from teamtui.protocol.settings import Settings\n"
        "from teamtui.session.fleet import open_fleet\n"
        f"e = Path({str(empty)!r})\n"
        "open_fleet(Settings(), cwd=e, claude_root=e, registry=e / 'runs', journal=e / 'journal')\n"
        "import teamtui.cli.stream_cmd\n"
        "print(sorted(m for m in sys.modules if m == 'nats' or m.startswith(('nats.', 'teamtui.session.nats'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"
