"""A one-time link that signs a browser in as the player of an SSH session (issue 16).

A server started with ``casino-tui serve --web-port PORT`` also serves the game to browsers. A
browser gets in only with a link the player asked for from their own game over SSH: the app
asks the table channel (:meth:`~casino_tui.table.remote.RemoteHub.web_link`), the server mints
a token for the identity the session's secret names (never one the app could name) and answers
with the URL and how long it stays valid. The link works once.

Nothing here but the value that crosses the channel and the interface the app sees.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from .codec import JSON

MAX_URL = 2048  # characters of a link's URL


@dataclass(frozen=True)
class WebLink:
    """``url``: open it in a browser (once); ``expires_in``: seconds it stays valid from when
    it was made."""

    url: str
    expires_in: float

    def to_json(self) -> JSON:
        return {"url": self.url, "expires_in": self.expires_in}

    @classmethod
    def from_json(cls, value: JSON) -> WebLink:
        if not isinstance(value, dict):
            raise ValueError("a link must be an object")
        url, expires = value.get("url"), value.get("expires_in")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")) \
                or len(url) > MAX_URL or not url.isprintable() or " " in url:
            raise ValueError("a link's url must be an http(s) URL")
        if isinstance(expires, bool) or not isinstance(expires, int | float) \
                or not math.isfinite(expires) or expires <= 0:
            raise ValueError("a link's expires_in must be a number of seconds")
        return cls(url, float(expires))


class WebLinks(Protocol):
    """Where the app gets a one-time link for a browser (the server's tables, when the server
    has a web front end)."""

    async def web_link(self) -> WebLink:
        """A new link for this session's own player; raises
        :class:`~casino_tui.table.hub.HubError` when the server cannot make one."""
        ...
