"""The login CPU tool (python -m benchmarks.logincpu) over real SSH on loopback, quick: two
logins one after another with asyncssh, and with OpenSSH's ssh, each to its title and out
again; the CPU of every process on a login's path comes back per login."""

from __future__ import annotations

import asyncio
import json
import shutil
from typing import Any

import pytest

from benchmarks import logincpu


def _figures(*argv: str) -> dict[str, Any]:
    args = logincpu.build_parser().parse_args(["--logins", "2", "--settle", "0", "--gap", "0",
                                               *argv])
    return asyncio.run(logincpu.measure(args))


def _check(figures: dict[str, Any]) -> None:
    json.dumps(figures)
    assert figures["logins"] == 2
    assert 0 < figures["title_s_median"] < 30
    # the server (key exchange, authentication, the session, relaying the title), the forked
    # games (fork to exit) and the client all spent CPU on each login; the fork server too
    for name in ("server_ms", "server_threads_ms", "games_ms", "client_ms"):
        assert figures[name] > 0, (name, figures)
    assert figures["fork_server_ms"] > 0
    assert figures["pool_ms"] >= 0
    assert figures["output_chunks"] >= 1


def test_logins_with_asyncssh_and_a_key_exchange_asked_for() -> None:
    _check(_figures("--kex", "curve25519-sha256"))


@pytest.mark.skipif(shutil.which("ssh") is None, reason="needs OpenSSH's ssh")
def test_logins_with_openssh_report_each_process_cpu() -> None:
    _check(_figures("--openssh"))
