"""The example saves in ``saves/``: real output of the save code, and compatibility fixtures.

Every future version of casino-tui must keep opening these exact files. Do not regenerate or
edit them: when the format changes, add new examples next to them.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path

import pytest
from saves_support import EXAMPLES_DIR, REPO

from casino_tui.engine import Build
from casino_tui.engine.serialize import game_to_dict
from casino_tui.saves import LoadedGame, SaveStore, Seat

PINNED = {
    "fresh-game.json": "9e23b34de1db727f56d4d4ea0b97cb759e956937f8854aefb017ee1398ce4e99",
    "mid-round-builds.json": "f8951f80254b4983b1f42b7b95c04b8c496d5811cd64783a660f9df9c741054c",
    "partnership-4p.json": "d99af346a4aa6c4a1cc47498093170916c047de89fd0eb9eb2631012d5087f1a",
    "finished-game.json": "e5c5087b19a2882a08da16fd01684cac618a82fda255bb4c41c6fba7fb7a70be",
}


def check_examples(directory: Path, store: SaveStore) -> dict[str, LoadedGame]:
    """Open the four examples of ``directory`` and check what each one shows."""
    games = {name: store.load(directory / name, read_only=True) for name in PINNED}
    fresh = games["fresh-game.json"]
    assert fresh.state.history == [] and fresh.state.round_no == 1
    assert fresh.seats == (Seat.human("You"), Seat.computer("Computer", "medium"))
    mid = games["mid-round-builds.json"]
    assert any(isinstance(p, Build) for p in mid.state.table)
    assert mid.state.current_player == 0 and mid.seats[0].is_human
    assert mid.state.stock and mid.state.hands[0] and not mid.state.is_round_over
    four = games["partnership-4p.json"]
    assert four.state.num_players == 4 and four.state.sides == [[0, 2], [1, 3]]
    assert four.state.round_no >= 2 and not four.state.is_game_over
    assert [s.kind for s in four.seats] == ["human", "computer", "computer", "computer"]
    done = games["finished-game.json"]
    assert done.state.is_game_over and done.state.winner is not None
    for name, game in games.items():
        assert game.name and game.created and game.updated, name
    return games


def test_the_examples_are_pinned() -> None:
    found = {p.name for p in EXAMPLES_DIR.iterdir() if p.is_file()}
    assert set(PINNED) <= found
    for name, digest in PINNED.items():
        assert hashlib.sha256((EXAMPLES_DIR / name).read_bytes()).hexdigest() == digest, (
            f"saves/{name} changed: the examples are compatibility fixtures; add new ones "
            "instead of changing them")


def test_the_examples_load(tmp_path: Path) -> None:
    store = SaveStore(tmp_path / "games")
    games = check_examples(EXAMPLES_DIR, store)
    for name, game in games.items():  # each file is what the save code writes
        data = json.loads((EXAMPLES_DIR / name).read_text())
        again = game_to_dict(game.state, data["extra"])
        assert {k: again[k] for k in data} == data, name
    assert not store.root.exists()  # opening them read-only writes nothing anywhere


def test_the_examples_are_listed(tmp_path: Path) -> None:
    store = SaveStore(tmp_path / "games")
    root = tmp_path / "games"
    root.mkdir()
    for name in PINNED:
        (root / name).write_bytes((EXAMPLES_DIR / name).read_bytes())
    entries = {e.path.name: e for e in store.entries()}
    assert all(e.ok and e.verified for e in entries.values())
    assert entries["finished-game.json"].finished
    assert entries["finished-game.json"].winner_name == "Ada"
    assert entries["partnership-4p.json"].side_names() == ["South & North", "West & East"]
    latest = store.latest_unfinished()
    assert latest is not None and latest.path.name == "partnership-4p.json"


def test_opening_an_example_to_play_copies_it(tmp_path: Path) -> None:
    store = SaveStore(tmp_path / "games")
    before = (EXAMPLES_DIR / "mid-round-builds.json").read_bytes()
    game = store.load(EXAMPLES_DIR / "mid-round-builds.json")  # casino-tui --load saves/...
    assert game.slot is not None and game.slot.path.parent == store.root
    game.state.apply(game.state.legal_moves()[0])
    store.autosave(game.slot, game.state)
    store.close(game.slot)
    assert (EXAMPLES_DIR / "mid-round-builds.json").read_bytes() == before
    [entry] = store.entries()
    assert entry.name == "Builds on the table" and entry.moves == 15


def test_the_script_makes_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("make_example_saves",
                                                  REPO / "tools" / "make_example_saves.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    assert module.main([str(tmp_path / "out")]) == 0
    check_examples(tmp_path / "out", SaveStore(tmp_path / "games"))
