"""The one-time browser link over the table channel (issue 16): the app asks, the server mints a
link for the identity its session's secret names (never one the app could name) and answers
with the URL and how long it is valid; a server without a web front end refuses, and says so in
the welcome."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest
from table_support import SeededThinker

from casino_tui.saves import SaveStore
from casino_tui.table.hub import HubError, LocalHub
from casino_tui.table.remote import RemoteHub
from casino_tui.table.service import NO_WEB, HubService
from casino_tui.table.weblink import WebLink, WebLinks
from casino_tui.table.wire import Identity, WireClient, new_secret, socket_path

ANN = Identity("sha256-ann", "SHA256:ann", 1)
BOB = Identity("sha256-bob", "SHA256:bob", 2)


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(asyncio.wait_for(coro, 30))


class Minter:
    """Mints links like the server does: a fresh random token per request, remembered with the
    player it was made for; each one redeems once."""

    def __init__(self) -> None:
        self.tokens: dict[str, str] = {}

    def __call__(self, player: str) -> WebLink:
        token = secrets.token_urlsafe(32)
        self.tokens[token] = player
        return WebLink(f"https://games.example.org/link/{token}", 300.0)

    def redeem(self, url: str) -> str | None:
        return self.tokens.pop(url.rsplit("/", 1)[1], None)


class Served:
    def __init__(self, tmp_path: Path) -> None:
        self.hub = LocalHub(SeededThinker(), SaveStore(tmp_path / "games"))
        self.service = HubService(self.hub)
        self.path = socket_path(tmp_path)
        self.secrets: dict[Identity, str] = {}
        self.clients: list[WireClient] = []

    async def __aenter__(self) -> Served:
        await self.service.start(self.path)
        return self

    async def __aexit__(self, *exc: object) -> None:
        for client in self.clients:
            await client.close()
        await self.service.close()
        self.hub.shutdown()

    async def client(self, identity: Identity) -> WireClient:
        if identity not in self.secrets:
            self.secrets[identity] = new_secret()
            self.service.register(self.secrets[identity], identity)
        client = await WireClient.connect(self.path, self.secrets[identity])
        self.clients.append(client)
        return client


async def call(client: WireClient, args: dict[str, Any], number: int = 1) -> dict[str, Any]:
    await client.send({"type": "call", "id": number, "op": "web_link", "args": args})
    reply = await asyncio.wait_for(client.receive(), 5)
    assert reply is not None and reply["id"] == number
    return reply


def test_a_link_is_for_the_sessions_own_player_and_works_once(tmp_path: Path) -> None:
    async def main() -> None:
        async with Served(tmp_path) as served:
            minter = Minter()
            served.service.offer_web(minter)
            ann = RemoteHub(await served.client(ANN))
            links: WebLinks = ann  # the interface the app uses
            try:
                assert ann.offers_web
                first, second = await links.web_link(), await ann.web_link()
                assert first.expires_in == 300.0 and first.url != second.url
                assert first.url.startswith("https://games.example.org/link/")
                assert minter.redeem(first.url) == ANN.player
                assert minter.redeem(first.url) is None  # once only
                assert minter.redeem(second.url) == ANN.player
            finally:
                await ann.close()

    run(main())


def test_another_players_link_can_never_be_asked_for(tmp_path: Path) -> None:
    """Whatever the app sends, the link is for its secret's player: an argument naming
    someone else is refused, and so is a name or any other field of the call."""
    async def main() -> None:
        async with Served(tmp_path) as served:
            minter = Minter()
            served.service.offer_web(minter)
            await served.client(ANN)  # Ann is connected too
            bob = await served.client(BOB)
            for number, args in enumerate(({"player": ANN.player}, {"identity": ANN.player},
                                           {"table": "x"}), start=1):
                reply = await call(bob, args, number)
                assert reply["type"] == "refused" and reply["kind"] == "request", reply
            await bob.send({"type": "call", "id": 9, "op": "web_link", "args": {},
                            "name": "Ann", "player": ANN.player})
            reply = await asyncio.wait_for(bob.receive(), 5)
            assert reply is not None and reply["type"] == "result"
            link = WebLink.from_json(reply["value"])
            assert minter.redeem(link.url) == BOB.player
            assert set(minter.tokens.values()) <= {BOB.player}

    run(main())


def test_refused_when_the_server_has_no_web_front_end(tmp_path: Path) -> None:
    async def main() -> None:
        async with Served(tmp_path) as served:
            ann = RemoteHub(await served.client(ANN))
            try:
                assert not ann.offers_web
                with pytest.raises(HubError, match="no web front end"):
                    await ann.web_link()
                # Offered later (the web front end started after the tables): the welcome of
                # a new connection says so, and links are made.
                minter = Minter()
                served.service.offer_web(minter)
                bob = RemoteHub(await served.client(BOB))
                try:
                    assert bob.offers_web
                    assert minter.redeem((await bob.web_link()).url) == BOB.player
                finally:
                    await bob.close()
                served.service.offer_web(None)
                raw = await served.client(BOB)
                assert raw.welcome["web"] is False
                reply = await call(raw, {})
                assert reply == {"type": "refused", "id": 1, "reason": NO_WEB, "kind": "hub"}
            finally:
                await ann.close()

    run(main())


def test_a_damaged_link_from_the_server_is_refused() -> None:
    good = {"url": "https://h/link/t", "expires_in": 300}
    assert WebLink.from_json(good) == WebLink("https://h/link/t", 300.0)
    for bad in ({**good, "url": "javascript:alert(1)"}, {**good, "url": "http://h/\x1b[2J"},
                {**good, "url": 3}, {**good, "expires_in": 0}, {**good, "expires_in": True},
                {**good, "expires_in": float("nan")}, {"url": "https://h/"}, [], None):
        with pytest.raises(ValueError):
            WebLink.from_json(bad)
