"""One-time links and signed session cookies for the web front end (standard library only).

A browser reaches a game only through a link the player was given (``casino-tui web`` prints
one; over SSH the title screen shows one): :class:`LinkIssuer` mints a random token that works
once and for a few minutes, naming an identity. Redeeming it sets a cookie signed by
:class:`CookieSigner` (HMAC-SHA256 over the identity and the cookie's expiry), which the web
server checks on every page and websocket. The key lives in a file of the data directory
(:func:`load_or_create_key`), so cookies outlive a restart of the server.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["KEY_BYTES", "CookieSigner", "LinkIssuer", "load_or_create_key", "valid_identity"]

KEY_BYTES = 32
TOKEN_BYTES = 32
_IDENTITY = re.compile(r"[A-Za-z0-9_=-]{1,200}")


def valid_identity(identity: str) -> bool:
    """True for an identity a link or cookie may name: 1-200 of ``[A-Za-z0-9_=-]`` (the SSH
    server's ``sha256-...`` player ids, ``local``), so the signed text needs no escaping."""
    return _IDENTITY.fullmatch(identity) is not None


class LinkIssuer:
    """One-time links: ``issue(identity)`` gives a url-safe random token, ``redeem(token)`` gives
    its identity once, within ``ttl_seconds`` of the issue; an unknown, expired or already used
    token gives None. Expired tokens are swept on every call, so the table stays small."""

    def __init__(self, ttl_seconds: float = 300,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not ttl_seconds > 0:
            raise ValueError("a link must live for some time")
        self.ttl_seconds = ttl_seconds
        self._clock = clock
        self._tokens: dict[str, tuple[str, float]] = {}  # token -> (identity, expires at)

    def issue(self, identity: str) -> str:
        if not valid_identity(identity):
            raise ValueError(f"not an identity: {identity!r}")
        self._sweep()
        token = secrets.token_urlsafe(TOKEN_BYTES)
        self._tokens[token] = (identity, self._clock() + self.ttl_seconds)
        return token

    def redeem(self, token: str) -> str | None:
        self._sweep()
        entry = self._tokens.pop(token, None)
        return None if entry is None else entry[0]

    def pending(self) -> int:
        """How many issued links are neither used nor expired."""
        self._sweep()
        return len(self._tokens)

    def _sweep(self) -> None:
        now = self._clock()
        for token in [t for t, (_, expires) in self._tokens.items() if expires <= now]:
            del self._tokens[token]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


class CookieSigner:
    """Signed session cookies: ``IDENTITY.EXPIRES.MAC`` where EXPIRES is the cookie's end (whole
    seconds of ``clock``) and MAC the HMAC-SHA256 of ``IDENTITY.EXPIRES`` under the key
    (url-safe base64). ``verify`` gives the identity of a cookie that is well formed, carries
    the right MAC (compared in constant time) and has not expired; else None."""

    def __init__(self, key: bytes, max_age_seconds: float = 7 * 86400,
                 clock: Callable[[], float] = time.time) -> None:
        if len(key) < 16:
            raise ValueError("the cookie key is too short (at least 16 bytes)")
        if not max_age_seconds > 0:
            raise ValueError("a cookie must live for some time")
        self._key = key
        self.max_age_seconds = max_age_seconds
        self._clock = clock

    def _mac(self, text: str) -> str:
        return _b64(hmac.new(self._key, text.encode("ascii"), hashlib.sha256).digest())

    def sign(self, identity: str) -> str:
        if not valid_identity(identity):
            raise ValueError(f"not an identity: {identity!r}")
        text = f"{identity}.{int(self._clock() + self.max_age_seconds)}"
        return f"{text}.{self._mac(text)}"

    def verify(self, value: str | None) -> str | None:
        if not value or len(value) > 400:
            return None
        parts = value.split(".")
        if len(parts) != 3:
            return None
        identity, expires, mac = parts
        if not valid_identity(identity) or not expires.isdigit() or not mac.isascii():
            return None
        if not hmac.compare_digest(self._mac(f"{identity}.{expires}"), mac):
            return None
        if int(expires) <= self._clock():
            return None
        return identity


def load_or_create_key(path: Path) -> bytes:
    """The cookie key kept at ``path``: 32 random bytes, created on first use (mode 0600,
    written to a temporary file and renamed into place, so a reader never sees half a key and
    two servers starting together agree on one key). A file that is not a key is replaced."""
    try:
        key = path.read_bytes()
    except FileNotFoundError:
        key = b""
    if len(key) == KEY_BYTES:
        return key
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(KEY_BYTES)
    fd, tmp = tempfile.mkstemp(prefix=".web-key-", dir=path.parent)  # mode 0600
    moved = False
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(key)
            handle.flush()
            os.fsync(handle.fileno())
        try:  # in place only if there is still no file: another server may have made one
            os.link(tmp, path)
        except FileExistsError:
            existing = path.read_bytes()
            if len(existing) == KEY_BYTES:
                return existing
            os.replace(tmp, path)  # not a key: replaced
            moved = True
    finally:
        if not moved:
            os.unlink(tmp)
    return key
