"""``casino-tui serve --web-port``: browser players on the SSH server (issue 16), without a
browser. The flags and their checks; the server's web front end in its own event loop; a link
asked for over the table channel is for the session's own player and works once; a browser
session's app gets exactly what an SSH session of that key gets, and its secret of the table
channel is forgotten when it ends."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from casino_tui.serve import build_parser, config_from_args, main
from casino_tui.serve.config import ServeConfig
from casino_tui.serve.players import (
    PLAYERS_DIR,
    PlayerDirs,
    fingerprint_of,
    player_id,
)
from casino_tui.serve.pty_session import NOTICE_ENV, PLAYERS_ENV
from casino_tui.serve.server import GameServer
from casino_tui.serve.webfront import COOKIE_KEY_FILE, LINK_MINUTES, WebFrontError
from casino_tui.table.hub import HubError
from casino_tui.table.remote import hub_from_environment
from casino_tui.table.wire import SECRET_ENV, SOCKET_ENV, Refused, WireClient, socket_path

ANN = "SHA256:ann+key/1"
BOB = "SHA256:bob+key/2"


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(asyncio.wait_for(coro, 60))


# ====================================================================== the flags
def test_the_web_flags() -> None:
    args = build_parser().parse_args([])
    assert (args.web_port, args.web_host, args.web_public_url) == (None, None, None)
    cfg = config_from_args(args)
    assert cfg.web_port is None and cfg.web_host == "127.0.0.1"
    args = build_parser().parse_args(["--web-port", "8080", "--web-host", "0.0.0.0",
                                      "--web-public-url", "HTTPS://Games.Example.org:8443/"])
    cfg = config_from_args(args)
    assert (cfg.web_port, cfg.web_host, cfg.web_public_url) == (
        8080, "0.0.0.0", "https://games.example.org:8443")
    assert config_from_args(build_parser().parse_args(["--web-port", "0"])).web_port == 0
    # under a path (a reverse proxy's prefix): kept, without its trailing slash
    for url, kept in (("https://Example.org/casino/", "https://example.org/casino"),
                      ("http://example.org:8080/games/Cassino_2", "http://example.org:8080/"
                                                                 "games/Cassino_2")):
        args = build_parser().parse_args(["--web-port", "8080", "--web-public-url", url])
        assert config_from_args(args).web_public_url == kept
    # The SSH port on another address is allowed; on the same one it is not.
    assert build_parser().parse_args(["--web-port", "2222", "--web-host", "::1"])


@pytest.mark.parametrize("argv, message", [
    (["--web-host", "0.0.0.0"], "--web-host needs --web-port PORT"),
    (["--web-public-url", "https://x.org"], "--web-public-url needs --web-port PORT"),
    (["--web-host", "::", "--web-public-url", "https://x.org"],
     "--web-host and --web-public-url need --web-port PORT"),
    (["--web-port", "2222"], "--web-port 2222 is the SSH port"),
    (["--port", "2300", "--web-port", "2300"], "--web-port 2300 is the SSH port"),
    (["--web-port", "65536"], "not a port number"),
    (["--web-port", "-1"], "must not be negative"),
    (["--web-port", "80", "--web-public-url", "ftp://x.org"], "not an http:// or https://"),
    (["--web-port", "80", "--web-public-url", "games.example.org"], "not an http://"),
    (["--web-port", "80", "--web-public-url", "https://x.org/?a=1"], "only the scheme"),
    (["--web-port", "80", "--web-public-url", "https://x.org/casino#top"], "only the scheme"),
    (["--web-port", "80", "--web-public-url", "https://x.org/a//b"], "the path may hold only"),
    (["--web-port", "80", "--web-public-url", "https://x.org/a/../b"], "the path may hold only"),
    (["--web-port", "80", "--web-public-url", "https://x.org/c%22asino"], "the path may hold"),
    (["--web-port", "80", "--web-public-url", 'https://x.org/c"><b>'], "the path may hold"),
    (["--web-port", "80", "--web-public-url", "https://me:pw@x.org"], "only the scheme"),
    (["--web-port", "80", "--web-public-url", "https://x.org:99999"], "not a URL"),
    (["--web-port", "80", "--web-public-url", "https://x.org:0"], "cannot be used"),
    (["--web-port", "80", "--web-public-url", "https://x y.org"], "cannot be used"),
])
def test_bad_web_flags_are_refused(argv: list[str], message: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in " ".join(capsys.readouterr().err.split())


def test_serve_help_names_the_web_flags(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    for option in ("--web-port", "--web-host", "--web-public-url"):
        assert option in text
    assert "one-time link" in text and "reverse proxy" in text


def test_a_player_id_gives_back_its_fingerprint() -> None:
    for fingerprint in (ANN, BOB, "SHA256:AbC+/x09", "SHA256:" + "q" * 43):
        assert fingerprint_of(player_id(fingerprint)) == fingerprint
    for bad in ("local", "sha256-", "sha256-a+b", "sha256-a/b", "-abc", "sha256-a.b", ""):
        with pytest.raises(ValueError):
            fingerprint_of(bad)


# ====================================================================== the server
# For a server in whose tests no game process starts and no computer moves: no fork server
# to warm up and no pool of computer players started (each about 0.6 CPU-s of a server's
# start, in processes of their own).
NO_GAMES: dict[str, Any] = {"fork_server": False, "computers": 0}


def web_server(data: Path, **kw: Any) -> GameServer:
    return GameServer(ServeConfig(data_dir=data, port=0, web_port=0, hangup_grace=0.5, **kw))


async def redeem(url: str) -> tuple[int, str]:
    """Open a link as a browser would (without following the redirect): the status and the
    cookie it sets."""
    async with aiohttp.ClientSession() as http, http.get(url, allow_redirects=False) as r:
        cookie = next(iter(r.cookies.values())).value if r.cookies else ""
        return r.status, cookie


def test_a_link_asked_for_over_ssh_is_the_players_own_and_works_once(tmp_path: Path) -> None:
    async def main() -> None:
        server = web_server(tmp_path / "data", **NO_GAMES)
        await server.start()
        try:
            front = server.web_front
            assert front is not None and front.web is not None
            assert front.url.startswith("http://127.0.0.1:") and front.web.port > 0
            assert (tmp_path / "data" / COOKIE_KEY_FILE).stat().st_mode & 0o077 == 0
            env: dict[str, str] = {}
            server._table_secret(3, ANN, env)  # Ann's SSH session
            hub = await hub_from_environment(env)
            assert hub is not None and hub.offers_web
            try:
                link = await hub.web_link()
                again = await hub.web_link()
            finally:
                await hub.close()
            assert link.url.startswith(f"{front.url}/link/") and link.url != again.url
            assert link.expires_in == LINK_MINUTES * 60
            status, cookie = await redeem(link.url)
            assert status == 303 and front.web.signer.verify(cookie) == player_id(ANN)
            assert (await redeem(link.url))[0] == 403  # once only
            assert front.web.links.redeem(again.url.rsplit("/", 1)[1]) == player_id(ANN)
        finally:
            await server.close()
        assert server.web_front is None

    run(main())


def test_without_a_web_port_a_link_is_refused(tmp_path: Path) -> None:
    async def main() -> None:
        server = GameServer(ServeConfig(data_dir=tmp_path / "data", port=0, **NO_GAMES))
        await server.start()
        try:
            assert server.web_front is None
            env: dict[str, str] = {}
            server._table_secret(1, ANN, env)
            hub = await hub_from_environment(env)
            assert hub is not None and not hub.offers_web
            try:
                with pytest.raises(HubError, match="no web front end"):
                    await hub.web_link()
            finally:
                await hub.close()
        finally:
            await server.close()

    run(main())


def test_a_web_port_in_use_stops_the_server_at_start(tmp_path: Path) -> None:
    async def main() -> None:
        blocker = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = blocker.sockets[0].getsockname()[1]
        try:
            server = GameServer(ServeConfig(data_dir=tmp_path / "data", port=0,
                                            web_port=port, **NO_GAMES))
            with pytest.raises(WebFrontError, match=f"cannot serve browsers on 127.0.0.1 "
                                                    f"port {port}"):
                await server.start()
            assert server.hub is None and server.web_front is None  # all closed again
        finally:
            blocker.close()

    run(main())


def test_a_browser_session_gets_what_an_ssh_session_of_that_key_gets(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The player's directories, the players' directory, --continue with a saved game, a
    table channel secret for the player (forgotten at the end), the notice when the player's
    files cannot be written, the server's --session-nice; nothing else of the server's
    environment."""
    monkeypatch.setenv("SERVER_SECRET_TOKEN", "must-not-leak")
    data = tmp_path / "data"

    async def main() -> None:
        server = web_server(data, session_nice=7, fork_server=False)  # no game starts
        await server.start()
        try:
            front = server.web_front
            assert front is not None
            dirs = PlayerDirs.for_fingerprint(data, ANN)
            launch = await front.launch(player_id(ANN), 100, 30)
            assert launch.nice == 7  # below the server's priority, as over SSH
            env = launch.env
            assert "SERVER_SECRET_TOKEN" not in env
            assert env["CASINO_TUI_DATA_DIR"] == str(dirs.data)
            assert env["CASINO_TUI_CONFIG_DIR"] == str(dirs.config)
            assert env["HOME"] == str(dirs.root) and env[PLAYERS_ENV] == str(data / PLAYERS_DIR)
            assert env[SOCKET_ENV] == str(socket_path(data)) and NOTICE_ENV not in env
            assert launch.argv[1:] == ["-m", "casino_tui"]  # no save yet: no --continue
            assert launch.cwd == dirs.root and dirs.data.is_dir()
            assert '"sessions": 1' in (dirs.root / "player.json").read_text()
            # The app's secret speaks for Ann, and stops working when the app has ended.
            client = await WireClient.connect(socket_path(data), env[SECRET_ENV])
            assert client.player == player_id(ANN) and client.welcome["web"] is True
            await client.close()
            assert launch.on_end is not None
            await launch.on_end()
            with pytest.raises(Refused):
                await WireClient.connect(socket_path(data), env[SECRET_ENV])
            # With a saved game: --continue, as over SSH.
            (dirs.data / "games").mkdir()
            (dirs.data / "games" / "x.json").write_text("{}")
            monkeypatch.setattr("casino_tui.serve.players._unfinished_via_saves",
                                lambda data_dir: True)
            launch = await front.launch(player_id(ANN), 80, 24)
            assert launch.argv[-1] == "--continue"
            # Bob's files cannot be written (his directory is taken by a file): he plays,
            # and his game tells him.
            bob = PlayerDirs.for_fingerprint(data, BOB)
            bob.root.write_text("in the way")
            launch = await front.launch(player_id(BOB), 80, 24)
            assert "could not write your player files" in launch.env[NOTICE_ENV]
            assert launch.cwd == data
        finally:
            await server.close()

    run(main())


def test_a_new_session_goes_back_to_the_game_left_last_a_table_or_a_solo_save(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With an unfinished solo save and a seat in a table game in progress, a new session
    (a page reload, an SSH reconnection) resumes the one the player opened or played last:
    --continue for the solo save, none for the table (the game goes back to it at start)."""
    from casino_tui.table import GameConfig, SeatConfig
    from casino_tui.table.hub import Person

    data = tmp_path / "data"
    monkeypatch.setattr("casino_tui.serve.players._unfinished_via_saves", lambda data_dir: True)
    saved_at: list[float] = [0.0]
    monkeypatch.setattr("casino_tui.serve.server.latest_save_time", lambda data_dir: saved_at[0])

    async def main() -> None:
        # (no game process starts; the table's computer moves in the pool)
        server = GameServer(ServeConfig(data_dir=data, port=0, fork_server=False))
        await server.start()
        try:
            dirs = PlayerDirs.for_fingerprint(data, ANN)
            assert await server.game_arguments(dirs, ANN) == ["--continue"]  # no table yet
            env: dict[str, str] = {}
            server._table_secret(1, ANN, env)
            hub = await hub_from_environment(env)
            assert hub is not None and server.hub_service is not None
            try:
                ann = Person("", "Ann")
                seats = (SeatConfig("South", True), SeatConfig("North", False, "easy"))
                info = await hub.create_table(GameConfig(players=2, seats=seats, seed=3), ann)
                sub = await hub.subscribe(info.table_id, ann, 0)  # the waiting room
                sub.close()
                # Not started: the solo save still comes first.
                assert await server.game_arguments(dirs, ANN) == ["--continue"]
                await hub.start(info.table_id, ann)
                sub = await hub.subscribe(info.table_id, ann, 0)  # the game at her seat
                sub.close()
                last = server.hub_service.last_at_table(player_id(ANN))
                assert last is not None and last[0] == info.table_id
                assert await server.game_arguments(dirs, ANN) == []
                assert await server.game_arguments(dirs, ANN, ascii=True) == ["--ascii"]
                saved_at[0] = last[1] + 1  # a solo move after it
                assert await server.game_arguments(dirs, ANN) == ["--continue"]
                assert server.hub_service.last_at_table(player_id(BOB)) is None
            finally:
                await hub.close()
        finally:
            await server.close()

    run(main())
