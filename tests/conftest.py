"""Fixtures shared by several test modules."""

from __future__ import annotations

import compileall
import gc
import os
import subprocess
import sys
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
WARMING_ENV = "CASINO_TUI_TESTS_WARMING"  # set in the processes that warm the caches up
WARM_TIMEOUT = 120  # seconds; past them the workers compile what is left themselves


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


def pytest_configure(config: pytest.Config) -> None:
    """Before pytest-xdist starts its workers: compile the package's and the tests' bytecode
    once, so that the workers read it instead of each compiling it again.

    Every worker imports every test module, and pytest rewrites the asserts of each; in a fresh
    clone, or wherever bytecode is not written (PYTHONDONTWRITEBYTECODE), the four workers did
    that work four times at once (8.5 CPU-s a worker; 2.6 with the caches). Here the modules
    about to be run that have no current cache are collected once, in one process per core
    (``--collect-only``, writing pytest's cache of rewritten modules beside them, in
    ``__pycache__``), and the package is compiled (``compileall``). Nothing else changes:
    pytest checks each cached file against its source and rewrites it again if it differs."""
    if (hasattr(config, "workerinput") or os.environ.get(WARMING_ENV)
            or (getattr(config.option, "numprocesses", None) or 0) < 2
            or config.getoption("collectonly") or sys.pycache_prefix):
        return
    root = config.rootpath
    package = root / "casino_tui"
    if package.is_dir():  # the servers and games the tests start read it too
        compileall.compile_dir(package, quiet=2)  # whatever the setting; a failure is silent
    stale = _uncached_test_modules(config.args, config.invocation_params.dir)
    if stale:
        _collect_apart(stale, root)


def _uncached_test_modules(args: list[str], here: Path) -> list[Path]:
    """The test modules under ``args`` (paths or node ids, from ``here``) whose rewritten code
    pytest has not cached, or cached before their last change."""
    tag = f"{sys.implementation.cache_tag}-pytest-{pytest.__version__}"
    found: set[Path] = set()
    for arg in args:
        path = Path(arg.split("::", 1)[0])
        path = path if path.is_absolute() else here / path
        if path.is_dir():
            found.update(path.rglob("test_*.py"))
        elif path.name.startswith("test_") and path.suffix == ".py":
            found.add(path)
    stale = []
    for module in sorted(found):
        cached = module.parent / "__pycache__" / f"{module.stem}.{tag}.pyc"
        try:
            if cached.stat().st_mtime >= module.stat().st_mtime:
                continue
        except OSError:
            pass
        stale.append(module)
    return stale


def _collect_apart(modules: list[Path], root: Path) -> None:
    """Collect ``modules`` in one ``pytest --collect-only`` per core, side by side, with
    bytecode written; the groups about equal in bytes of source. A failure is left to the
    workers, which collect the same modules and report it."""
    groups: list[list[Path]] = [[] for _ in range(min(os.cpu_count() or 1, len(modules)))]
    sizes = [0] * len(groups)
    for module in sorted(modules, key=lambda m: -m.stat().st_size):
        i = sizes.index(min(sizes))
        groups[i].append(module)
        sizes[i] += module.stat().st_size
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env[WARMING_ENV] = "1"
    procs = [subprocess.Popen(
        [sys.executable, "-m", "pytest", "--collect-only", "-qq", "-n", "0",
         "-p", "no:cacheprovider", *map(str, group)],
        cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL) for group in groups]
    for proc in procs:
        try:
            proc.wait(WARM_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def pytest_unconfigure(config: pytest.Config) -> None:
    """At the end of a test process: collect the garbage the tests left (until a pass finds
    none, at most five passes), then freeze what is still alive, out of the collector's reach.

    Right after this hook pytest collects five times over (to report an exception raised in a
    finalizer), and the interpreter once more as it exits; in a worker that ran hundreds of
    tests each full pass over what they left alive took seconds, and the run waited for the
    last worker's (9-10 s between its last test and the end of the run, seen in the workers'
    stacks). The garbage is collected here as pytest would, and its finalizers' exceptions are
    reported by pytest just after; the passes that follow only look at what is new."""
    for _ in range(5):
        if not gc.collect():
            break
    gc.freeze()


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
