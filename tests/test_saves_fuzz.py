"""Fuzzing the saved-game loader: random bytes, random JSON and mutations of real saves.

Whatever the file holds, listing and loading it gives a game or a SaveError with a reason
(never another exception, never an internal error), and the file is never changed. The listing
is also rendered as the Load screen shows it (in the time zones furthest from UTC), and a game
that opens is continued and saved as Continue / --continue would.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from saves_support import FOUR, TWO, saved_game

from casino_tui.app.screens.load import entry_text
from casino_tui.engine import Rules
from casino_tui.saves import LoadedGame, SaveEntry, SaveError, SaveStore

# POSIX TZ values (no time zone database needed): UTC+14 and UTC-12, the furthest from UTC
LOCAL_ZONES = ("FAR-14", "WEST+12")


def fuzz(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def bases(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """Real saves: mid-round 2 players, 4 players in round 2, pluck phase, a finished game."""
    store = SaveStore(tmp_path_factory.mktemp("bases"))
    out = []
    for moves, seats, rules, seed in ((11, TWO, None, 1), (70, FOUR, None, 2),
                                      (9, TWO[:2], Rules.preset("pluck_cassino"), 3),
                                      (10_000, TWO, Rules.preset("classic", target=5), 4)):
        slot, _ = saved_game(store, moves, seats=seats, rules=rules, seed=seed)
        store.close(slot)
        out.append(json.loads(slot.path.read_text()))
    assert out[3]["summary"]["finished"] is True
    return out


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield tmp_path_factory.mktemp("fuzz") / "games"


def render(entry: SaveEntry) -> str:
    """The entry's text on the Load screen, in each of LOCAL_ZONES; each shows the entry's
    title (a game without a name is named by its start in local time)."""
    before = os.environ.get("TZ")
    texts = []
    try:
        for zone in LOCAL_ZONES:
            os.environ["TZ"] = zone
            time.tzset()
            texts.append(entry_text(entry).plain)
            assert entry.title in texts[-1]
    finally:
        if before is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = before
        time.tzset()
    return texts[0]


def check(root: Path, raw: bytes) -> LoadedGame | SaveError:
    """List and load a file holding ``raw``; the outcome, with the invariants checked."""
    root.mkdir(parents=True, exist_ok=True)
    for p in root.iterdir():
        p.unlink()
    path = root / "fuzz.json"
    path.write_bytes(raw)
    store = SaveStore(root)
    [entry] = store.entries()
    render(entry)
    outcome: LoadedGame | SaveError
    try:
        outcome = store.load(path, read_only=True)
    except SaveError as e:
        outcome = e
    if isinstance(outcome, SaveError):
        assert outcome.kind == "unreadable" and str(outcome)
        assert not entry.ok and entry.error and entry.error in str(outcome)
        assert "internal error" not in str(outcome), str(outcome)
    else:
        assert entry.ok and entry.moves == len(outcome.state.history)
        assert entry.num_players == outcome.state.num_players
        outcome.state.validate()
    assert path.read_bytes() == raw  # never changed
    if isinstance(outcome, LoadedGame):  # Continue: open it and save again
        game = store.load(path)
        assert game.slot is not None
        store.autosave(game.slot, game.state)
        store.close(game.slot)
        [again] = store.entries()
        assert again.ok and again.created is not None and again.updated is not None
        render(again)
    return outcome


def _iso(moment: datetime, offset: int | None, spec: str) -> str:
    tz = None if offset is None else timezone(timedelta(minutes=offset))
    return moment.replace(tzinfo=tz).isoformat(timespec=spec)


# times as a save holds them, the ends of datetime's range included (in any UTC offset)
time_values = st.one_of(
    st.sampled_from(["9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+01:00",
                     "9999-12-31T23:59:59.999999", "0001-01-01", "9999-12-31T23:59:59Z",
                     "2025-03-14T18:05:20.000Z", "yesterday", ""]),
    st.builds(_iso, st.datetimes(), st.none() | st.integers(-24 * 60 + 1, 24 * 60 - 1),
              st.sampled_from(["auto", "minutes", "milliseconds"])),
    st.none(), st.integers(), st.text(max_size=30))

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner,
                                                                max_size=5),
    max_leaves=20)


@fuzz(60)
@given(raw=st.binary(max_size=400))
def test_random_bytes(root: Path, raw: bytes) -> None:
    assert isinstance(check(root, raw), SaveError)


@fuzz(60)
@given(value=json_values)
def test_random_json(root: Path, value: Any) -> None:
    assert isinstance(check(root, json.dumps(value).encode()), SaveError)


@fuzz(60)
@given(value=st.fixed_dictionaries({
    "format": st.just("casino-tui-game"), "version": st.just(1),
    "rules": st.fixed_dictionaries({"preset": st.sampled_from(["classic", "x", "pluck"])},
                                   optional={"overrides": json_values}),
    "num_players": st.integers(-1, 7), "seed": st.integers(-5, 5) | st.text(max_size=3),
    "moves": st.lists(st.text(max_size=8), max_size=4), "summary": json_values},
    optional={"position": st.text(max_size=40), "extra": json_values}))
def test_random_records(root: Path, value: dict[str, Any]) -> None:
    check(root, json.dumps(value).encode())


def _paths(value: Any, here: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield here
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*here, i))


def _mutate(data: Any, rng: random.Random, new: Any) -> Any:
    paths = list(_paths(data))[1:]
    path = rng.choice(paths)
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    op = rng.randrange(7)
    if op == 0 and isinstance(parent, dict):
        del parent[key]
    elif op == 1 and isinstance(parent, list):
        parent.insert(key, parent[rng.randrange(len(parent))])
    elif op == 2 and isinstance(parent[key], int) and not isinstance(parent[key], bool):
        parent[key] += rng.choice([-1, 1, 52, -(10**6)])
    elif op == 3 and isinstance(parent[key], str) and parent[key]:
        text = parent[key]
        i = rng.randrange(len(text))
        parent[key] = text[:i] + rng.choice("AKQJ0123456789SHDCx>=+[],/ ") + text[i + 1:]
    elif op == 4 and isinstance(parent, list) and len(parent) > 1:
        i, j = rng.sample(range(len(parent)), 2)
        parent[i], parent[j] = parent[j], parent[i]
    else:
        parent[key] = json.loads(json.dumps(new))  # a copy: never a cycle
    return data


@fuzz(150)
@given(which=st.integers(0, 3), seed=st.integers(0, 2**32), count=st.integers(1, 3),
       new=json_values | time_values)
def test_mutated_saves(root: Path, bases: list[dict[str, Any]], which: int, seed: int,
                       count: int, new: Any) -> None:
    data = json.loads(json.dumps(bases[which]))
    rng = random.Random(seed)
    for _ in range(count):
        data = _mutate(data, rng, new)
    check(root, json.dumps(data).encode())


@fuzz(80)
@given(which=st.integers(0, 3), cut=st.integers(0, 10**6), flips=st.lists(
    st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=3))
def test_damaged_bytes(root: Path, bases: list[dict[str, Any]], which: int, cut: int,
                       flips: list[tuple[int, int]]) -> None:
    raw = bytearray(json.dumps(bases[which], indent=1).encode())
    for pos, byte in flips:
        raw[pos % len(raw)] = byte
    if cut % 3 == 0:
        raw = raw[: cut % len(raw)]
    check(root, bytes(raw))


@fuzz(80)
@given(which=st.integers(0, 3), created=st.none() | time_values,
       updated=st.none() | time_values)
def test_times(root: Path, bases: list[dict[str, Any]], which: int, created: Any,
               updated: Any) -> None:
    """Whatever its times hold, a good game stays a good game (a time that cannot be used is
    ignored, and the next save writes good ones)."""
    data = json.loads(json.dumps(bases[which]))
    for key, value in (("created", created), ("updated", updated)):
        if value is None:
            data["extra"].pop(key, None)
        else:
            data["extra"][key] = value
    assert isinstance(check(root, json.dumps(data).encode()), LoadedGame)


def test_the_bases_load(root: Path, bases: list[dict[str, Any]]) -> None:
    for data in bases:
        assert isinstance(check(root, json.dumps(data).encode()), LoadedGame)
