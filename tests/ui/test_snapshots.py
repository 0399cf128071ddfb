"""Snapshot tests of every screen at 80x24 and 120x40 (and the too-small message).

Deterministic: seeded positions, no cursor blink, no animation, instant computer speed with an
in-process player, and every picture is taken once the game has settled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from casino_tui.app.players import InProcessChooser
from casino_tui.engine import State
from casino_tui.table.hub import LocalHub, Person

from .big_tables import table_5p, table_6p
from .conftest import make_app, settle
from .lobby_support import ANN, BOB, EVE, lobby_app, make_hub, people
from .positions import (
    biggest_build,
    greedy_first,
    last_play,
    longest_hint,
    new_deal_4p,
    table_2p,
    table_4p,
)

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


def run(snap_compare: Any, app: Any, size: tuple[int, int], *keys: str) -> bool:
    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return snap_compare(app, terminal_size=size, run_before=before)


def at_table(state_fn: Callable[[], State], humans: int = 1, **kw: Any) -> Any:
    return make_app(state_fn(), humans=humans, **kw)


@pytest.mark.parametrize("size", SIZES)
def test_title(snap_compare: Any, size: tuple[int, int]) -> None:
    assert run(snap_compare, make_app(), size)


@pytest.mark.parametrize("size", SIZES)
def test_setup(snap_compare: Any, size: tuple[int, int]) -> None:
    assert run(snap_compare, make_app(), size, "enter")


@pytest.mark.parametrize("size", SIZES)
def test_table_two_players(snap_compare: Any, size: tuple[int, int]) -> None:
    assert run(snap_compare, at_table(table_2p), size)


@pytest.mark.parametrize("size", SIZES)
def test_table_four_players(snap_compare: Any, size: tuple[int, int]) -> None:
    """The three computers have just played (their plays stay highlighted)."""
    assert run(snap_compare, at_table(table_4p), size)


@pytest.mark.parametrize("size", SIZES)
def test_move_preview(snap_compare: Any, size: tuple[int, int]) -> None:
    """Card 4 (A♥), third move: a build previewed on the piles it uses."""
    assert run(snap_compare, at_table(table_2p), size, "4", "down", "down")


@pytest.mark.parametrize("size", SIZES)
def test_free_selection(snap_compare: Any, size: tuple[int, int]) -> None:
    assert run(snap_compare, at_table(table_2p), size, "2", "space", "tab", "space", "tab")


@pytest.mark.parametrize("size", SIZES)
def test_move_list(snap_compare: Any, size: tuple[int, int]) -> None:
    assert run(snap_compare, at_table(table_2p), size, "m", "9")


@pytest.mark.parametrize("size", SIZES)
def test_illegal_move(snap_compare: Any, size: tuple[int, int]) -> None:
    """9♠ on a free selection it cannot take: the engine's reason in full (wrapped), its cards
    in the player's style; nothing changes."""
    assert run(snap_compare, at_table(table_2p), size,
               "2", "space", "tab", "space", "tab", "space", "enter")


@pytest.mark.parametrize("size", SIZES)
def test_round_summary(snap_compare: Any, size: tuple[int, int]) -> None:
    assert run(snap_compare, at_table(last_play), size, "enter")


@pytest.mark.parametrize("size", SIZES)
def test_game_over(snap_compare: Any, size: tuple[int, int]) -> None:
    app = make_app(last_play(scores=[15, 18]))
    assert run(snap_compare, app, size, "enter", "enter")


@pytest.mark.parametrize("size", SIZES)
def test_help(snap_compare: Any, size: tuple[int, int]) -> None:
    assert run(snap_compare, at_table(table_2p), size, "question_mark")


@pytest.mark.parametrize("size", SIZES)
def test_rules(snap_compare: Any, size: tuple[int, int]) -> None:
    assert run(snap_compare, at_table(table_2p), size, "r")


@pytest.mark.parametrize("size", SIZES)
def test_settings(snap_compare: Any, size: tuple[int, int]) -> None:
    assert run(snap_compare, at_table(table_2p), size, "o", "down", "right")


@pytest.mark.parametrize("size", SIZES)
def test_privacy(snap_compare: Any, size: tuple[int, int]) -> None:
    """Two people at the keyboard: the table is hidden until South presses a key."""
    assert run(snap_compare, at_table(table_2p, humans=2), size)


@pytest.mark.parametrize("size", [pytest.param((79, 24), id="79x24"),
                                  pytest.param((50, 15), id="50x15"),
                                  pytest.param((40, 10), id="40x10"),
                                  pytest.param((20, 5), id="20x5")])
def test_too_small(snap_compare: Any, size: tuple[int, int]) -> None:
    assert run(snap_compare, at_table(table_2p), size)


@pytest.mark.parametrize("size", SIZES)
def test_ascii_four_colour(snap_compare: Any, size: tuple[int, int]) -> None:
    """ASCII cards (--ascii) with the four-colour deck."""
    from casino_tui.settings import Settings

    app = at_table(table_4p, settings=Settings(speed="instant", four_colour=True), ascii=True)
    assert run(snap_compare, app, size)


@pytest.mark.parametrize("size", SIZES)
def test_load_screen(snap_compare: Any, size: tuple[int, int], tmp_path: Any,
                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The example saves and a file that cannot be read, with its reason."""
    import shutil
    import time
    from pathlib import Path

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    games = tmp_path / "data" / "games"
    games.mkdir(parents=True)
    for f in (Path(__file__).resolve().parents[2] / "saves").glob("*.json"):
        shutil.copy(f, games / f.name)
    (games / "broken.json").write_text("{not json")
    try:
        assert run(snap_compare, make_app(), size, "l")
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.parametrize("size", SIZES)
def test_hint(snap_compare: Any, size: tuple[int, int]) -> None:
    """h: Hard's suggestion (the in-process test hint) previewed, with its reason in full."""
    assert run(snap_compare, at_table(table_2p), size, "h")


@pytest.mark.parametrize("size", SIZES)
def test_table_six_players(snap_compare: Any, size: tuple[int, int]) -> None:
    """California for six: the others in one panel, short seat labels heading the scores."""
    assert run(snap_compare, at_table(table_6p), size)


@pytest.mark.parametrize("size", SIZES)
def test_table_five_players(snap_compare: Any, size: tuple[int, int]) -> None:
    """The five-player preset (sweeps score: shown in the panel and the score)."""
    assert run(snap_compare, at_table(table_5p), size)


@pytest.mark.parametrize("size", SIZES)
def test_title_continue(snap_compare: Any, size: tuple[int, int], tmp_path: Any) -> None:
    """A saved game to continue: its name and round on the Continue line."""
    import shutil
    from pathlib import Path

    games = tmp_path / "data" / "games"
    games.mkdir(parents=True)
    shutil.copy(Path(__file__).resolve().parents[2] / "saves" / "mid-round-builds.json", games)
    assert run(snap_compare, make_app(), size)


@pytest.mark.parametrize("size", SIZES)
def test_ascii_only_title(snap_compare: Any, size: tuple[int, int]) -> None:
    """A terminal that shows only ASCII (LC_ALL=C, --ascii): the logo, suits, the menu's
    border and the key line in ASCII."""
    assert run(snap_compare, make_app(ascii_only=True), size)


@pytest.mark.parametrize("size", SIZES)
def test_ascii_only_table(snap_compare: Any, size: tuple[int, int]) -> None:
    """The table in ASCII: +-| borders, - separators, the chosen card's frame in # and =."""
    assert run(snap_compare, at_table(table_2p, ascii_only=True), size)


GROWING = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40"),
           pytest.param((160, 50), id="160x50")]


@pytest.mark.parametrize("size", GROWING)
def test_cards_grow(snap_compare: Any, size: tuple[int, int]) -> None:
    """One position at three sizes: small cards at 80x24, big ones from 100x32 up (the rank
    and suit in the corners, the table in rows of them, a build's value and owner under its
    cards); card 4's build previewed on the piles it uses, the cursor on the second pile."""
    assert run(snap_compare, at_table(table_2p), size, "4", "down", "down", "tab", "tab")


@pytest.mark.parametrize("size", GROWING[1:])
def test_cards_grow_in_ascii(snap_compare: Any, size: tuple[int, int]) -> None:
    """Big cards in ASCII (--ascii): +-| frames, the chosen card's in # and =, suits as
    letters."""
    assert run(snap_compare, at_table(table_2p, ascii_only=True), size,
               "4", "down", "down", "tab", "tab", "space")


@pytest.mark.parametrize("size", SIZES)
def test_not_saving(snap_compare: Any, size: tuple[int, int],
                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk is full: the save line under the messages (why, where, what to do) stays while
    saving fails, after the toast that said it once has gone."""
    import errno
    from pathlib import Path

    from casino_tui.saves import SaveError, SaveStore

    games = Path("/home/ann/.local/share/casino-tui/games")

    def full(self: SaveStore, slot: Any, state: State) -> None:
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError as cause:
            slot.last_error = SaveError(
                "The disk is full: your game could not be saved. Play continues; free some "
                f"space to save again. The saves are in {games}.", "disk_full",
                games / "20250101-120000-ab12cd34.json")
            raise slot.last_error from cause

    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        pilot.app.clear_notifications()  # as when the toast's time is up
        await pilot.pause()

    monkeypatch.setattr(SaveStore, "autosave", full)
    assert snap_compare(at_table(table_2p), terminal_size=size, run_before=before)


# ---------------------------------------------------------------------- tables on a server
def lobby(snap_compare: Any, size: tuple[int, int], setup: Callable[[LocalHub], Any],
          *keys: str) -> bool:
    """The app at the tables of an in-process hub (fixed join codes) as Ann: ``setup`` makes
    the tables through the hub, then ``keys`` are pressed from the title screen."""
    hub = make_hub()

    async def before(pilot: Pilot[None]) -> None:
        await setup(hub)
        for key in keys:
            await pilot.press(key)
            for _ in range(3):
                await pilot.pause()

    return snap_compare(lobby_app(hub), terminal_size=size, run_before=before)


async def _some_tables(hub: LocalHub) -> None:
    bob = await hub.create_table(people("person", "person", "hard"), BOB)
    await hub.spectate(bob.table_id, EVE)
    odd = Person("key-odd", "[b]Max[/b]")
    royal = await hub.create_table(people("person", "person", "person", "easy",
                                          preset="royal"), odd)
    await hub.take_seat(royal.table_id, Person("key-zoe", "Zoë"))
    await hub.start(royal.table_id, odd)
    await hub.create_table(people("person", "person"), EVE, public=False)  # not listed


@pytest.mark.parametrize("size", SIZES)
def test_tables_list(snap_compare: Any, size: tuple[int, int]) -> None:
    """A table waiting (a computer, one watching) and a royal one playing (a name that looks
    like markup, shown as it is); Eve's private table is not listed."""
    assert lobby(snap_compare, size, _some_tables, "t")


async def _nothing(hub: LocalHub) -> None:
    pass


@pytest.mark.parametrize("size", SIZES)
def test_create_table(snap_compare: Any, size: tuple[int, int]) -> None:
    assert lobby(snap_compare, size, _nothing, "t", "n")


async def _ann_waits(hub: LocalHub) -> None:
    info = await hub.create_table(people("person", "person", "person", "hard"), ANN)
    await hub.take_seat(info.table_id, BOB)


@pytest.mark.parametrize("size", SIZES)
def test_table_waiting(snap_compare: Any, size: tuple[int, int]) -> None:
    """Ann created a table for four: Bob has joined, a seat is open, a computer plays one."""
    assert lobby(snap_compare, size, _ann_waits, "t", "enter")


@pytest.mark.parametrize("size", SIZES)
def test_table_person_away(snap_compare: Any, size: tuple[int, int]) -> None:
    """A table on a server (an in-process hub, a seeded deal, a fixed clock): Ann has played,
    Bob trailed and then went away two minutes ago; Ann is to move."""
    from table_support import SeededThinker

    from casino_tui.table.hub import LocalHub

    from .test_table_game import ANN, BOB, Clock, new_table, plays, settle_table, sit_at

    clock = Clock()
    hub = LocalHub(SeededThinker(), clock=clock)
    app = make_app(hub=hub, person=ANN)
    app.table_clock = clock

    async def before(pilot: Pilot[None]) -> None:
        tid = await new_table(hub)
        await sit_at(pilot, hub, tid, 0)
        await pilot.press("enter")
        await settle_table(pilot, hub, tid)
        await plays(hub, tid, BOB, "trail")
        await hub.mark_away(tid, BOB)
        clock.now += 125
        await settle_table(pilot, hub, tid)

    assert snap_compare(app, terminal_size=size, run_before=before)


# ------------------------------------------------------------------ the longest texts at 80x24
# (issue 30: every message, reason and log entry read in full at 80x24, nothing cut)


def test_longest_refusal_80x24(snap_compare: Any) -> None:
    """Every pile selected with 8♣ and Enter: the selection's line and the engine's reason,
    each wrapped in full (the table gives up the rows)."""
    keys = ["tab", "space"] * 5
    assert run(snap_compare, at_table(table_2p), (80, 24), *keys, "enter")


def test_longest_hint_80x24(snap_compare: Any) -> None:
    """A hint reason as long as Hard's longest, on four lines."""
    app = make_app(table_2p(), chooser_factory=lambda: InProcessChooser(
        greedy_first, hint_fn=longest_hint))
    assert run(snap_compare, app, (80, 24), "h")


def four_players_after_a_new_deal() -> Any:
    return make_app(new_deal_4p(), chooser_factory=lambda: InProcessChooser(biggest_build))


def test_multi_build_and_four_player_log_80x24(snap_compare: Any) -> None:
    """South ends a deal; in the new one West builds seven cards: the table's line of plays
    says "New deal ... · West built [...]=7 multiple" in full (wrapped), the log panel a line
    an entry (cut with …, its border saying l shows them in full)."""
    assert run(snap_compare, four_players_after_a_new_deal(), (80, 24), "t")


def test_full_log_80x24(snap_compare: Any) -> None:
    """l: the whole log of the game, every entry in full."""
    assert run(snap_compare, four_players_after_a_new_deal(), (80, 24), "t", "l")
