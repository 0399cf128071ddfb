"""The order in which the suite hands its tests to pytest-xdist's workers (tests/conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import DURATIONS, worksteal_layout


def parts(order: list[int], size: list[int], counts: list[int]) -> list[list[int]]:
    """``order`` cut where xdist's first handout cuts it: ``counts`` tests a worker."""
    out: list[list[int]] = []
    at = 0
    for count in counts:
        part: list[int] = []
        while sum(size[i] for i in part) < count:
            part.append(order[at])
            at += 1
        out.append(part)
    assert at == len(order)
    return out


def test_every_worker_starts_with_a_long_test_and_the_parts_are_even() -> None:
    # four long tests, a module of three tests kept together, and 21 short ones: 4 workers
    cost = [30.0, 20.0, 12.0, 10.0, 9.0] + [0.1] * 21
    size = [1, 1, 1, 1, 3] + [1] * 21
    order = worksteal_layout(cost, size, 4)
    assert sorted(order) == list(range(len(cost)))  # every test once
    # xdist hands 28 tests out as 7, 7, 7, 7
    cut = parts(order, size, [7, 7, 7, 7])
    assert {part[0] for part in cut} == {0, 1, 2, 3}  # the four longest start at once
    # the module (9 s) joins the least loaded part then: the one of the 10 s test
    assert next(part for part in cut if 4 in part)[0] == 3
    for part in cut:  # each part longest first
        assert [cost[i] for i in part] == sorted((cost[i] for i in part), reverse=True)
    loads = sorted(sum(cost[i] for i in part) for part in cut)
    assert loads[-1] == pytest.approx(30.0 + 0.1 * 6)  # the longest's part: short ones only


def test_the_handout_counts_are_xdists() -> None:
    # 10 tests on 4 workers: xdist hands out 2, 2, 3, 3 (len(pending) // workers_left)
    order = worksteal_layout([5.0, 4.0, 3.0, 2.0] + [0.1] * 6, [1] * 10, 4)
    cut = parts(order, [1] * 10, [2, 2, 3, 3])
    assert [part[0] for part in cut] == [0, 1, 2, 3]


def test_the_recorded_durations_are_read_and_name_the_suites_modules() -> None:
    """A stale entry (a test renamed or moved since) only makes the order less good, so a few
    are allowed; a file that no longer matches the suite at all is not."""
    recorded = json.loads(DURATIONS.read_text(encoding="utf-8"))
    assert isinstance(recorded, dict) and len(recorded) > 100
    assert all(isinstance(v, (int, float)) and v >= 0 for v in recorded.values())
    root = Path(__file__).parent.parent
    found = sum((root / node_id.split("::")[0]).is_file() for node_id in recorded)
    assert found >= 0.9 * len(recorded)
