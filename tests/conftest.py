"""Fixtures shared by several test modules."""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from pg_support import REQUIRE_ENV, PgCluster, PgUnavailable
from serve_support import Server, Tmux

# The modules holding the suite's longest tests (a whole game, a server with real clients, a
# browser: 15 to 45 s each), longest first. They run first, so that the workers (pytest-xdist,
# `--dist worksteal`) end on short tests together instead of one of them finishing a long one
# alone at the end. Every other module keeps its place after them; the tests of a module stay
# together (in their order), so a module-scoped fixture still starts once per worker.
LONGEST_FIRST = (
    "test_saves_kill.py", "test_serve_web_e2e.py", "test_serve_store_e2e.py",
    "ui/test_literal_text.py", "test_serve_store.py", "test_store_tables.py",
    "ui/test_stats_ui.py", "test_movegen.py", "test_conformance.py", "web/test_web_browser.py",
    "test_serve_tables_e2e.py", "test_serve.py", "test_serve_faults.py", "ui/test_play.py",
    "test_serve_bounds.py", "test_serve_computers.py", "ui/test_mouse.py",
    "test_plain_tables.py", "test_serve_fork.py", "test_properties.py",
    "ui/test_table_features.py", "ui/test_review.py", "test_arena.py",
)
TESTS = Path(__file__).parent


@pytest.hookimpl(wrapper=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> Generator[None, int, int]:
    """``-n auto``: two workers more than the cores. The end-to-end tests spend much of their
    time waiting on other processes (a server, ssh, tmux, Chromium) and on the server's own
    timers, which leaves a core idle with one worker per core; on two cores, four workers ran
    the suite in less time than three (README, Tests in parallel).
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still sets the number."""
    cores = yield
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return cores
    return cores + 2


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}

    def module_rank(item: pytest.Item) -> int:
        try:
            name = item.path.relative_to(TESTS).as_posix()
        except ValueError:  # a test file given from elsewhere
            return len(rank)
        return rank.get(name, len(rank))

    items.sort(key=module_rank)  # stable: the order within a module, and of the rest, stays


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
