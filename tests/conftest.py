"""Fixtures shared by several test modules."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pg_support import REQUIRE_ENV, PgCluster, PgUnavailable
from serve_support import Server, Tmux


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    """A tmux server of the test's own, for terminal windows (closed afterwards)."""
    t = Tmux(tmp_path)
    yield t
    t.close()


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    """The casino-tui servers a test starts (stopped afterwards; none may have logged a
    traceback)."""
    started: list[Server] = []
    yield started
    for s in started:
        s.stop()
    for s in started:
        assert "Traceback" not in s.log(), s.log()


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """A throwaway PostgreSQL server for this test process (one per xdist worker). Where it
    cannot be started the tests that need it are skipped with the reason, unless
    CASINO_TUI_REQUIRE_POSTGRES is set (as `.ci/run` does): then they fail."""
    cluster = PgCluster()
    try:
        cluster.start()
    except PgUnavailable as exc:
        cluster.stop()
        if os.environ.get(REQUIRE_ENV):
            pytest.fail(f"PostgreSQL is required ({REQUIRE_ENV} is set): {exc}")
        pytest.skip(f"PostgreSQL cannot be started here: {exc}")
    yield cluster
    cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: PgCluster) -> str:
    """The URL of a new, empty database of the test's own."""
    return pg_cluster.database()
