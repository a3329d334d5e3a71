"""[[hosts]] in config.toml and ssh:// on the command line: what is taken, and what is said of bad values."""

from __future__ import annotations

from pathlib import Path

import pytest

from teamtui.protocol.settings import HostSettings, load_settings
from teamtui.session.remote import hosts_for, parse_ssh_url


def load(tmp_path: Path, text: str):
    path = tmp_path / "config.toml"
    path.write_text(text)
    return load_settings(path)


def test_hosts_are_read_with_their_defaults(tmp_path: Path) -> None:
    s = load(
        tmp_path,
        '[[hosts]]\nname = "box"\nssh = "me@box"\n\n[[hosts]]\nname = "gpu-1"\nssh = "gpu"\n'
        'ssh_options = ["-p", "2222", "-i", "~/.ssh/gpu"]\nroots = ["~/src/api", "/srv/web"]\n'
        'teamtui = "~/.local/bin/teamtui"\n',
    )
    assert s.problems == []
    assert s.hosts == [
        HostSettings("box", "me@box"),
        HostSettings(
            "gpu-1", "gpu", ["-p", "2222", "-i", "~/.ssh/gpu"], ["~/src/api", "/srv/web"], "~/.local/bin/teamtui"
        ),
    ]
    assert s.hosts[0].teamtui == "teamtui" and s.hosts[0].roots == []


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('hosts = "box"', "hosts must be [[hosts]] tables"),
        ('hosts = ["box"]', "must be a table with name and ssh"),
        ('[[hosts]]\nssh = "box"', "[[hosts]] #1 name is missing; this host is ignored"),
        ('[[hosts]]\nname = "my box"\nssh = "box"', "name must be letters"),
        ('[[hosts]]\nname = "box"', "[[hosts]] #1 (box) ssh is missing; this host is ignored"),
        ('[[hosts]]\nname = "box"\nssh = "-oProxyCommand=sh"', "ssh must be a destination"),
        ('[[hosts]]\nname = "box"\nssh = "me@box; rm -rf ~"', "ssh must be a destination"),
        ('[[hosts]]\nname = "box"\nssh = "box"\nssh_options = "-p 22"', "ssh_options must be a list"),
        ('[[hosts]]\nname = "box"\nssh = "box"\nssh_options = ["-p", 22]', "ssh_options must be a list"),
        ('[[hosts]]\nname = "box"\nssh = "box"\nroots = "~/src"', "roots must be a list of folders there"),
        ('[[hosts]]\nname = "box"\nssh = "box"\nteamtui = ""', "teamtui must be the command"),
        ('[[hosts]]\nname = "box"\nssh = "box"\nteamtui = "a\\nb"', "teamtui must be the command"),
    ],
)
def test_a_bad_host_is_said_and_left_out(tmp_path: Path, text: str, said: str) -> None:
    s = load(tmp_path, text)
    assert s.hosts == []
    assert len(s.problems) == 1 and said in s.problems[0]


def test_a_name_used_twice_and_unknown_keys_are_said(tmp_path: Path) -> None:
    s = load(tmp_path, '[[hosts]]\nname = "box"\nssh = "a"\nport = 22\n[[hosts]]\nname = "box"\nssh = "b"\n')
    assert [h.ssh for h in s.hosts] == ["a"]
    path = tmp_path / "config.toml"
    assert s.problems == [
        f"{path}: [[hosts]] #1 (box) port is not a setting; ignored",
        f"{path}: [[hosts]] (box): the name is used again; this one is ignored",
    ]


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("ssh://box", HostSettings("box", "box")),
        ("ssh://me@box.lan:2222/srv/api", HostSettings("box.lan", "me@box.lan", ["-p", "2222"], ["/srv/api"])),
        ("ssh://box/~/src/api", HostSettings("box", "box", [], ["~/src/api"])),
        ("ssh://box/my%20src", HostSettings("box", "box", [], ["/my src"])),
    ],
)
def test_an_ssh_url_is_a_host(url: str, host: HostSettings) -> None:
    assert parse_ssh_url(url) == host


@pytest.mark.parametrize(
    "url", ["ssh://", "http://box/x", "ssh://box:99999/x", "ssh://-oProxyCommand=x/y", "ssh://-me@box/x"]
)
def test_a_bad_ssh_url_is_refused(url: str) -> None:
    with pytest.raises(ValueError):
        parse_ssh_url(url)


def test_a_url_naming_a_configured_host_adds_its_root_to_that_one_connection() -> None:
    configured = [HostSettings("box", "me@box", ["-i", "k"], ["/a"])]
    hosts = hosts_for(configured, ["ssh://box/b", "ssh://box/a", "ssh://other/c"])
    assert hosts == [
        HostSettings("box", "me@box", ["-i", "k"], ["/a", "/b"]),
        HostSettings("other", "other", [], ["/c"]),
    ]
    assert configured[0].roots == ["/a"]  # the settings are not changed


def test_watch_refuses_a_bad_ssh_url(cli) -> None:
    code, _out, err = cli("watch", "ssh://box:notaport/x")
    assert code == 2 and "port must be a number" in err
