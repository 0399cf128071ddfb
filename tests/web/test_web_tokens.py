"""One-time links and signed cookies (casino_tui.web.tokens): no server, fixed clocks."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from casino_tui.web.tokens import (
    KEY_BYTES,
    CookieSigner,
    LinkIssuer,
    load_or_create_key,
    valid_identity,
)


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_link_works_once() -> None:
    links = LinkIssuer(ttl_seconds=60, clock=Clock())
    token = links.issue("local")
    assert len(token) >= 43 and token.replace("-", "").replace("_", "").isalnum()
    assert links.redeem(token) == "local"
    assert links.redeem(token) is None


def test_links_are_distinct_and_name_their_identity() -> None:
    links = LinkIssuer(clock=Clock())
    a = links.issue("sha256-AAA")
    b = links.issue("sha256-BBB")
    assert a != b
    assert links.redeem(b) == "sha256-BBB"
    assert links.redeem(a) == "sha256-AAA"


def test_an_unknown_link_is_refused() -> None:
    links = LinkIssuer(clock=Clock())
    links.issue("local")
    assert links.redeem("nope") is None
    assert links.redeem("") is None


def test_a_link_expires_and_is_swept() -> None:
    clock = Clock()
    links = LinkIssuer(ttl_seconds=300, clock=clock)
    old = links.issue("local")
    clock.now += 299
    fresh = links.issue("local")
    assert links.pending() == 2
    clock.now += 1  # the first one's end
    assert links.pending() == 1
    assert links.redeem(old) is None
    assert links.redeem(fresh) == "local"
    assert links.pending() == 0


def test_links_refuse_bad_identities_and_lifetimes() -> None:
    with pytest.raises(ValueError):
        LinkIssuer(ttl_seconds=0)
    links = LinkIssuer()
    for bad in ("", "a b", "a.b", "ä", "x" * 201, "a;b"):
        with pytest.raises(ValueError):
            links.issue(bad)


def test_identities() -> None:
    assert valid_identity("local")
    assert valid_identity("sha256-Ab_9=")
    assert not valid_identity("a.b")
    assert not valid_identity("")


KEY = bytes(range(32))


def test_a_cookie_names_its_identity() -> None:
    signer = CookieSigner(KEY, clock=Clock())
    value = signer.sign("sha256-Xy_z=")
    assert signer.verify(value) == "sha256-Xy_z="


def test_a_cookie_expires() -> None:
    clock = Clock()
    signer = CookieSigner(KEY, max_age_seconds=100, clock=clock)
    value = signer.sign("local")
    clock.now += 99
    assert signer.verify(value) == "local"
    clock.now += 1
    assert signer.verify(value) is None


def test_forged_cookies_are_refused() -> None:
    clock = Clock()
    signer = CookieSigner(KEY, clock=clock)
    value = signer.sign("local")
    identity, expires, mac = value.split(".")
    other = CookieSigner(bytes(32), clock=clock)
    forged = [
        other.sign("local"),  # another key
        f"admin.{expires}.{mac}",  # another identity, same MAC
        f"{identity}.{int(expires) + 1000}.{mac}",  # a later expiry, same MAC
        f"{identity}.{expires}.{mac[:-1]}",
        f"{identity}.{expires}.{mac}x",
        f"{identity}.{expires}",
        f"{value}.extra",
        "", "...", "local.-5.abc", f"{identity}.{expires}.{mac.replace(mac[0], 'é')}",
        "x" * 1000,
    ]
    for value in forged:
        assert signer.verify(value) is None, value
    assert signer.verify(None) is None


def test_a_cookie_signer_needs_a_real_key() -> None:
    with pytest.raises(ValueError):
        CookieSigner(b"short")
    with pytest.raises(ValueError):
        CookieSigner(KEY, max_age_seconds=0)
    with pytest.raises(ValueError):
        CookieSigner(KEY).sign("not an identity")


def test_the_key_is_made_once_private_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "web" / "cookie.key"
    key = load_or_create_key(path)
    assert len(key) == KEY_BYTES
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert load_or_create_key(path) == key
    assert sorted(p.name for p in path.parent.iterdir()) == ["cookie.key"]  # no temporary left


def test_a_damaged_key_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "cookie.key"
    path.write_bytes(b"half")
    key = load_or_create_key(path)
    assert len(key) == KEY_BYTES and path.read_bytes() == key
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cookie.key"]


def test_keys_differ_between_data_dirs(tmp_path: Path) -> None:
    assert load_or_create_key(tmp_path / "a") != load_or_create_key(tmp_path / "b")
