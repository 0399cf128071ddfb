"""Fixtures shared by several test modules."""

from __future__ import annotations

import compileall
import gc
import json
import os
import subprocess
import sys
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from pg_support import REQUIRE_ENV, PgCluster, PgUnavailable
from serve_support import Server, Tmux

TESTS = Path(__file__).parent
# The wall time of the tests that took half a second or more in a recent run of the whole suite
# (``python -m benchmarks.suitecpu FILE --durations tests/durations.json``), by node id: the
# order in which the tests start (pytest_collection_modifyitems). A test not in it counts as
# SHORT_TEST; a stale figure only makes the order less good, never a test fail.
DURATIONS = TESTS / "durations.json"
SHORT_TEST = 0.06  # seconds: the mean of the tests under half a second
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


# The test process's garbage collector (gc.set_threshold): a collection of the youngest objects
# every 50,000 allocations net (Python's default: 700), of the middle generation every 20 of
# those (10), of everything every 100 of the middle ones (10). A worker keeps hundreds of
# thousands of objects alive (Textual, rich, Playwright, Hypothesis, the tests' modules and what
# the tests leave in caches), and with the defaults a full pass over them came every few tests:
# a third of a Pilot test module's CPU went to the collector (12 of 44 CPU-s in
# tests/ui/test_snapshots.py, test_lobby.py and tests/test_ai.py, run together), 2-3.5 with
# these. Only when garbage is freed changes, not what a test checks; the processes the tests
# start (servers, games) keep Python's defaults.
GC_THRESHOLDS = (50_000, 20, 100)


def pytest_configure(config: pytest.Config) -> None:
    """Set the collector's thresholds (:data:`GC_THRESHOLDS`). Then, before pytest-xdist
    starts its workers: compile the package's and the tests' bytecode
    once, so that the workers read it instead of each compiling it again.

    Every worker imports every test module, and pytest rewrites the asserts of each; in a fresh
    clone, or wherever bytecode is not written (PYTHONDONTWRITEBYTECODE), the four workers did
    that work four times at once (8.5 CPU-s a worker; 2.6 with the caches). Here the modules
    about to be run that have no current cache are collected once, in one process per core
    (``--collect-only``, writing pytest's cache of rewritten modules beside them, in
    ``__pycache__``), and the package is compiled (``compileall``). Nothing else changes:
    pytest checks each cached file against its source and rewrites it again if it differs."""
    gc.set_threshold(*GC_THRESHOLDS)
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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Start the longest tests first, on every worker at once.

    ``--dist worksteal`` gives each of the N workers a contiguous Nth of the tests, in the
    collected order, and a worker that runs out takes the second half of the longest queue
    left. So the tests are laid out here as N such parts of about equal length (the recorded
    durations, :data:`DURATIONS`), each longest first: the whole games, servers and browsers
    start at once on every worker, and the run ends on short tests, which move to whichever
    worker is free. The tests of a module with a module-scoped fixture (a browser, a set of
    saves) stay together, in their order, so that the fixture starts once. Every worker
    computes the same order (pytest-xdist requires it; its workers are not told the ``--dist``
    mode, so the layout is worksteal's whatever the mode). Without workers (``-n 0``) the
    order stays as collected."""
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    if workers < 2 or len(items) < 2:
        return
    known = _recorded_durations()
    units = _units(items)
    cost = [sum(known.get(item.nodeid, SHORT_TEST) for item in unit) for unit in units]
    order = worksteal_layout(cost, [len(unit) for unit in units], workers)
    items[:] = [item for i in order for item in units[i]]


def worksteal_layout(cost: list[float], size: list[int], workers: int) -> list[int]:
    """The units (``cost`` seconds and ``size`` tests each) in the order to collect them: as
    many parts as ``workers``, of the numbers of tests xdist's first handout gives each worker
    (``len(pending) // workers_left`` in turn), about equal in cost, each longest first."""
    order = sorted(range(len(cost)), key=lambda i: -cost[i])  # stable: ties keep their place
    room, left = [], sum(size)
    for k in range(workers, 0, -1):
        room.append(left // k)
        left -= room[-1]
    parts: list[list[int]] = [[] for _ in range(workers)]
    load = [0.0] * workers
    for i in order:  # the longest first, each to the least loaded part that has room for it
        fits = [p for p in range(workers) if room[p] >= size[i]] or [
            max(range(workers), key=lambda p: room[p])]
        p = min(fits, key=lambda p: load[p])
        parts[p].append(i)
        load[p] += cost[i]
        room[p] -= size[i]
    return [i for part in parts for i in part]


def _recorded_durations() -> dict[str, float]:
    try:
        found = json.loads(DURATIONS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: float(v) for k, v in found.items() if isinstance(v, (int, float))} \
        if isinstance(found, dict) else {}


def _units(items: list[pytest.Item]) -> list[list[pytest.Item]]:
    """The tests in the units they are scheduled in: the tests of a module that has a
    module-scoped fixture together, every other test alone."""
    together: dict[Path, list[pytest.Item]] = {}
    units: list[list[pytest.Item]] = []
    for item in items:
        if _uses_a_module_fixture(item):
            unit = together.get(item.path)
            if unit is None:
                unit = together[item.path] = []
                units.append(unit)
            unit.append(item)
        else:
            units.append([item])
    return units


def _uses_a_module_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    defs = getattr(info, "name2fixturedefs", {}) if info is not None else {}
    return any(fixturedefs and fixturedefs[-1].scope == "module"
               for fixturedefs in defs.values())


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
