"""Plain mode (``casino-tui --plain``): the game as lines of text, for screen readers and braille
displays.

Nothing is redrawn in place and nothing is drawn in boxes: every event is one sentence,
appended; the terminal's own cursor sits at the prompt; no colour and no escape sequence. The
same engine, table controller, saves, statistics and settings as the full-screen game (this
package sits beside :mod:`casino_tui.app` on the table layer and never imports Textual or rich).

* :mod:`~casino_tui.plain.words`: cards, piles, moves and scores as sentences;
* :mod:`~casino_tui.plain.commands`: moves typed in words (``take 7 with 7``);
* :mod:`~casino_tui.plain.console`: lines out, commands in (readline history and completion);
* :mod:`~casino_tui.plain.game`: one game (:class:`~casino_tui.plain.game.PlainGame`);
* :mod:`~casino_tui.plain.shell`: the menu, and :func:`run`, which wires them together.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from casino_tui.engine import Move, SeatView
from casino_tui.saves import LoadedGame, SaveSlot, SaveStore
from casino_tui.table import GameConfig, TableController

from .console import Console, TerminalConsole
from .game import PlainSettings
from .shell import PlainShell, Services

if TYPE_CHECKING:  # pragma: no cover
    from casino_tui.ai.review import Estimate
    from casino_tui.stats import GameRecord

__all__ = ["PlainSettings", "run", "services"]
REVIEW_BUDGET = 0.8  # seconds Hard thinks about each play of the round review


def _settings() -> PlainSettings:
    from casino_tui.settings import load_settings

    s = load_settings()
    return PlainSettings(cards=s.plain_cards, turn_summary=s.plain_summary)


def _save_settings(plain: PlainSettings) -> str | None:
    from casino_tui.settings import load_settings, save_settings

    saved = save_settings(load_settings().with_(plain_cards=plain.cards,
                                                plain_summary=plain.turn_summary))
    return None if saved is not None else "They could not be saved, so they last until you quit."


def _record(store: SaveStore, clock: Callable[[], datetime] | None
            ) -> Callable[[SaveSlot | None, TableController], str | None]:
    def record(slot: SaveSlot | None, table: TableController) -> str | None:
        """Add a finished game to the ledger (as the full-screen game does); a problem's
        text, or None."""
        from casino_tui.stats import record_from_game
        from casino_tui.stats.daily import utc_now

        state = table.state
        if slot is None or not state.is_game_over or len(slot.seats) != state.num_players:
            return None
        rec = record_from_game(state, slot.seats, game=slot.game_id, ended=utc_now(clock),
                               created=slot.created, undo=slot.undo)
        return _add_record(store)(rec)

    return record


def _stats(store: SaveStore) -> Callable[[], list[str]]:
    def stats() -> list[str]:
        from casino_tui.stats.cache import ledger_figures
        from casino_tui.stats.figures import preset_label

        found = ledger_figures(store.root.parent, store)
        f = found.figures
        lines = [found.report] if found.report else []
        if not f.total.played:
            return [*lines, "No finished games yet: play a game to the end to see your "
                    "statistics."]
        rate = "" if f.total.win_rate is None else f" ({round(100 * f.total.win_rate)}%)"
        lines.append(f"You have played {f.total.played} games and won {f.total.won}{rate}.")
        for label, tallies, name in (("By preset", f.by_preset, preset_label),
                                     ("By opponent level", f.by_level, str)):
            parts = [f"{name(k)}: {t.won} of {t.played} won" for k, t in tallies.items()]
            if parts:
                lines.append(f"{label}: " + "; ".join(parts) + ".")
        if f.points_per_round is not None:
            lines.append(f"Points per round: {f.points_per_round:.2f}. Sweeps per round: "
                         f"{(f.sweeps_per_round or 0):.2f}.")
        if f.highest_score is not None:
            lines.append(f"Highest game score: {f.highest_score}.")
        lines.append(f"Winning streak: {f.current_streak} now, best {f.best_streak}. "
                     f"Daily deals played: {f.daily}.")
        return lines

    return stats


def _daily(store: SaveStore, clock: Callable[[], datetime] | None
           ) -> Callable[[], tuple[GameConfig, list[str]]]:
    def daily() -> tuple[GameConfig, list[str]]:
        import os

        from casino_tui.stats import DAILY_LEVEL, DAILY_PRESET, Ledger, daily_seed
        from casino_tui.stats.daily import (
            daily_ranking,
            daily_result,
            players_dir_from_environment,
            utc_today,
        )
        from casino_tui.table import default_seats

        day = utc_today(clock)
        found = Ledger(store.root.parent).load(store)
        lines = [f"The daily deal of {day.isoformat()}: classic, against the {DAILY_LEVEL} "
                 "computer."]
        mine = daily_result(found.records, day)
        if mine is not None and mine.score is not None:
            lines.append(f"You played it today and scored {mine.score}; only your first game "
                         "of the day counts.")
        players = players_dir_from_environment(os.environ)
        if players is not None:
            rows = daily_ranking(players, day, me=store.root.parent)
            for i, row in enumerate(rows[:10], 1):
                lines.append(f"{i}. {row.name}: {row.points} points.")
        config = GameConfig(preset=DAILY_PRESET, players=2,
                            seats=default_seats(2, 1, DAILY_LEVEL), seed=daily_seed(day))
        return config, lines

    return daily


def _add_record(store: SaveStore) -> Callable[[GameRecord], str | None]:
    def add(record: GameRecord) -> str | None:
        """Append a finished game to the player's ledger; a problem's text, or None."""
        from casino_tui.stats import Ledger, LedgerError
        from casino_tui.stats.cache import ledger_figures

        data = store.root.parent
        try:
            Ledger(data).record(record, store)
        except LedgerError as err:
            return str(err)
        return ledger_figures(data, store).report

    return add


def _tables(console: Console, settings: PlainSettings, hint: Callable[[SeatView], tuple[Move, str]],
            store: SaveStore) -> Callable[[str, list[str]], bool] | None:
    """The server's tables, when this session has them (its environment names the table
    channel): each command connects, runs, and closes the channel."""
    import os

    from casino_tui.table.wire import link_from_environment

    if link_from_environment(os.environ) is None:
        return None

    def save_name(name: str) -> str | None:
        from casino_tui.settings import load_settings, save_settings

        saved = save_settings(load_settings().with_(display_name=name))
        return None if saved is not None else "It could not be saved: you will be asked again."

    async def session(command: str, args: list[str]) -> bool:
        from casino_tui.settings import load_settings
        from casino_tui.table.hub import HubError, Person
        from casino_tui.table.remote import hub_from_environment

        from .tables import PlainTables, TableSettings, table_config
        from .words import Speaker

        try:
            hub = await hub_from_environment()
        except HubError as err:
            console.say(f"{err.reason}. Games against the computer work as usual.")
            return False
        if hub is None:  # pragma: no cover - the environment was checked above
            return False
        try:
            tables = PlainTables(console, hub, hub.player,
                                 TableSettings(load_settings().display_name, save_name),
                                 lambda: Speaker(settings.cards), hint, _add_record(store))
            if command == "seats":  # at start: the table games in progress with a seat
                await tables.in_progress(Person(hub.player, load_settings().display_name))
                return False
            person = await tables.person()
            if person is None:
                return False
            if command == "tables":
                await tables.list_tables(person)
                return False
            if command == "join":
                return await tables.join(person, args[0])
            made = table_config(args)
            if isinstance(made, str):
                console.say(made)
                return False
            config, public = made
            return await tables.create(person, config, public=public)
        finally:
            await hub.close()

    def run_command(command: str, args: list[str]) -> bool:
        import asyncio

        return asyncio.run(session(command, args))

    return run_command


def services(store: SaveStore, *, clock: Callable[[], datetime] | None = None,
             iterations: int | None = None, undo_allowed: bool = True,
             console: Console | None = None, settings: PlainSettings | None = None) -> Services:
    """The real computers, ledger, statistics and daily deal (``iterations``: a fixed effort
    for Hard's moves and hints, which makes them reproducible)."""

    def choose(view: SeatView, level: str, seed: int) -> Move:
        from casino_tui.ai import choose_move

        return choose_move(view, level, seed=seed, iterations=iterations if level == "hard"
                           else None)

    def hint(view: SeatView, seed: int) -> tuple[Move, str]:
        from casino_tui.ai import hint as ai_hint

        return ai_hint(view, seed=seed, iterations=iterations)

    def review(view: SeatView, played: Move, seed: int) -> Estimate:
        from casino_tui.ai.review import estimate

        return estimate(view, played, seed=seed, budget=None if iterations else REVIEW_BUDGET,
                        iterations=iterations)

    def table_hint(view: SeatView) -> tuple[Move, str]:
        return hint(view, 0)

    tables = (_tables(console, settings, table_hint, store)
              if console is not None and settings is not None else None)
    return Services(choose=choose, hint=hint, review=review, save_settings=_save_settings,
                    record=_record(store, clock), stats=_stats(store),
                    daily=_daily(store, clock), undo_allowed=undo_allowed, clock=clock,
                    tables=tables)


def run(store: SaveStore, *, config: GameConfig | None = None,
        resume: LoadedGame | None = None, notice: str | None = None, daily: bool = False,
        join: str | None = None, console: Console | None = None,
        history: Path | None = None) -> int:
    """``casino-tui --plain``: the menu (or the game asked for) on standard input and output."""
    from casino_tui.settings import load_settings

    own = console is None
    term = TerminalConsole(history=history) if console is None else console
    settings = _settings()
    svc = services(store, undo_allowed=load_settings().undo, console=term, settings=settings)
    shell = PlainShell(term, store, settings, svc)
    try:
        if daily:
            daily_config, lines = svc.daily()
            notice = "\n".join([*([notice] if notice else []), *lines])
            config = daily_config
        return shell.run(config=config, resume=resume, notice=notice, join=join)
    except KeyboardInterrupt:
        term.say("")
        return 130
    finally:
        if own and isinstance(term, TerminalConsole):
            term.close()
