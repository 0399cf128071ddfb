"""A server's tables in plain mode: list them, create one, join one by its code, and play at a
seat with people who may use the full-screen game.

Only on a server (``ssh -t HOST plain``, or ``plain join CODE``): the session's environment
names the table channel, as for the full-screen game. The game is the hub's; this side holds
only the seat's view and the table's events (:class:`~casino_tui.table.client.SeatClient`), told
as sentences as they come, also while the player is typing. Moves, chat lines and "ready for
the next round" are sent to the hub, which checks them and says why it refuses one.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from casino_tui.engine import Move, Phase, SeatView
from casino_tui.names import clean_display_name
from casino_tui.table import GameConfig, default_seats
from casino_tui.table.client import SeatClient, TableUpdate
from casino_tui.table.codec import summary_from_json
from casino_tui.table.codes import normalize_code, spoken
from casino_tui.table.controller import MoveRefused
from casino_tui.table.events import TableEvent
from casino_tui.table.hub import HubError, Person, TableHub, TableInfo

from .console import Console
from .turns import (
    event_line,
    hand_sentence,
    moves_lines,
    notation_move,
    numbered_moves,
    resolve,
)
from .words import Speaker, join_words, plural

if TYPE_CHECKING:  # pragma: no cover
    from casino_tui.stats import GameRecord
    from casino_tui.table.events import TableView

TABLE_HELP = """\
At a table: hand, table, score, moves (numbered; type a number to play it), and moves in \
words as in a game against the computer (take 7 with 7, build 9 with 4 on 5, trail 3).
say TEXT: a line to everyone at the table.
who: the seats and who plays them.
start: for the table's creator, begin the game (empty seats get computers).
Enter: ready for the next round, after a round's result.
hint: what the Hard computer would play. There is no undo at a server's table.
leave: leave the table (your seat waits for you; come back with join and its code)."""

HUB_ERRORS = (HubError, OSError)


def _why(err: Exception) -> str:
    if isinstance(err, HubError):
        return err.reason[:1].upper() + err.reason[1:] + "."
    return "The server's tables cannot be reached: try again in a moment."


@dataclass
class TableSettings:
    """What the table front needs of the player's settings."""

    display_name: str
    save_name: Callable[[str], str | None]  # keeps a chosen name; a problem's text


class PlainTables:
    """The tables of ``hub`` for ``console``'s player."""

    def __init__(self, console: Console, hub: TableHub, player: str, settings: TableSettings,
                 speaker: Callable[[], Speaker],
                 hint: Callable[[SeatView], tuple[Move, str]],
                 add_record: Callable[[GameRecord], str | None] | None = None) -> None:
        self.console = console
        self.add_record = add_record  # a finished game into the player's ledger
        self.hub = hub
        self.player = player
        self.settings = settings
        self.speaker = speaker
        self.hint = hint
        self._moves_seen = 0
        self._turn_told: tuple[str, int] | None = None
        self._round_over = False
        self._started = False
        self._info: TableInfo | None = None
        self._recorded: set[str] = set()  # the games already in the player's statistics

    def say(self, text: str) -> None:
        self.console.say(text)

    async def ask(self, prompt: str) -> str | None:
        return await asyncio.get_running_loop().run_in_executor(None, self.console.ask, prompt)

    # ------------------------------------------------------------------ who the player is
    async def person(self) -> Person | None:
        """The player at the tables, under their display name (asked for once, and kept)."""
        name = self.settings.display_name
        while not name:
            line = await self.ask("Your name at the tables (what the other players hear)> ")
            if line is None or not line.strip():
                return None
            try:
                name = clean_display_name(line)
            except ValueError as err:
                self.say(f"{err}. Try another name.")
                continue
            problem = self.settings.save_name(name)
            self.say(f"You are {name} at the tables." + (f" {problem}" if problem else ""))
        return Person(self.player, name)

    # ------------------------------------------------------------------ the list
    async def list_tables(self, person: Person) -> None:
        try:
            tables = await self.hub.list_tables(person)
        except HUB_ERRORS as err:
            self.say(_why(err))
            return
        if not tables:
            self.say("There are no tables. Type create to make one; your friends join it by "
                     "its code.")
            return
        self.say(f"{plural(len(tables), 'table')}:")
        for t in tables:
            self.say(self._table_line(t))

    async def in_progress(self, person: Person) -> None:
        """Tell the player about games in progress where they hold a seat (they left, or their
        connection dropped): join brings them back."""
        with contextlib.suppress(*HUB_ERRORS):
            for t in await self.hub.list_tables(person):
                if t.your_seat is not None and t.started and not t.finished:
                    self.say(f"You have a seat at table {t.code}, round {t.round_no}: type "
                             f"join {t.code} to go back to it.")

    def _table_line(self, t: TableInfo) -> str:
        state = ("finished" if t.finished else f"playing round {t.round_no}" if t.started
                 else f"waiting, {plural(t.open_seats, 'open seat')}")
        mine = " You have a seat there." if t.your_seat is not None else ""
        return (f"{t.code} ({spoken(t.code)}): {t.rules.preset_name}, "
                f"{t.num_players} players, by {t.creator}, {state}.{mine}")

    # ------------------------------------------------------------------ create, join
    async def create(self, person: Person, config: GameConfig, *, public: bool) -> bool:
        try:
            info = await self.hub.create_table(config, person, public=public)
            await self.hub.take_seat(info.table_id, person)
        except HUB_ERRORS as err:
            self.say(_why(err))
            return False
        self.say(f"Table {info.code} is yours, read aloud {spoken(info.code)}. Your friends "
                 f"type join {info.code}, or connect with ssh -t HOST plain join {info.code}. "
                 "Type start when everyone is here; empty seats get computers.")
        return await self.sit(person, info)

    async def join(self, person: Person, code: str) -> bool:
        normal = normalize_code(code)
        if normal is None:
            self.say(f"{code!r} is not a table's code: a code is six letters, like KAMIRO.")
            return False
        try:
            info = await self.hub.join(normal, person)
            if info.your_seat is None:
                await self.hub.take_seat(info.table_id, person)
        except HUB_ERRORS as err:
            self.say(_why(err))
            return False
        return await self.sit(person, info)

    # ------------------------------------------------------------------ at the table
    async def sit(self, person: Person, info: TableInfo) -> bool:
        """Play at the table until the player leaves; True when their input ended."""
        self._info = info
        self._started = info.started
        client = SeatClient(self.hub, info.table_id, person)
        try:
            update = await client.open()
            if client.seat is not None:
                seat = client.view.seats[client.seat]
                if seat.away_since is not None or seat.stand_in:
                    await self.hub.come_back(info.table_id, person)
        except HUB_ERRORS as err:
            client.close()
            self.say(_why(err))
            return False
        view = update.view
        me = client.seat
        where = "watching" if me is None else f"in seat {me + 1}, as {view.seats[me].name}"
        self.say(f"You are at table {info.code}, {where}. Type help for the commands at a "
                 "table.")
        if not self._started:
            self.say("Type start to begin the game." if info.yours
                     else f"Waiting for {info.creator} to start the game.")
        self._recorded = {view.game} if view.phase == Phase.GAME_OVER else set()
        self._tell(update, history=True)
        follow = asyncio.create_task(self._follow(client))
        try:
            while True:
                line = await self.ask("> ")
                if line is None:
                    await self._leave(client)
                    return True
                if await self._command(client, line.strip()):
                    return False
        finally:
            follow.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await follow
            client.close()

    async def _follow(self, client: SeatClient) -> None:
        while True:
            try:
                update = await client.next_update()
            except HUB_ERRORS as err:
                self.say(f"{_why(err)} Type leave, then join the table again.")
                return
            self._tell(update)
            view = update.view
            if view.phase == Phase.GAME_OVER and view.seat is not None \
                    and view.game not in self._recorded:
                self._recorded.add(view.game)
                await self._record(client, view)

    async def _record(self, client: SeatClient, view: TableView) -> None:
        """A game finished at the player's seat: into their statistics, built from their view
        of its end and the game's events (which hold no hidden card)."""
        from casino_tui.stats import record_from_play
        from casino_tui.stats.daily import utc_now

        if self.add_record is None or view.seat is None:
            return
        try:
            seats, summaries = await client.played_game(view)
        except HUB_ERRORS as err:
            self.say(f"This game could not be added to your statistics: {_why(err)}")
            return
        record = record_from_play(
            preset=view.rules.preset_name, players=view.num_players, sides=view.sides,
            seats=seats, summaries=summaries, round_no=view.round_no, scores=view.scores,
            sweeps=view.sweeps, winner=view.winner, game=f"table-{view.game}",
            ended=utc_now(), seat=view.seat)
        problem = self.add_record(record)
        if problem:
            self.say(problem)

    def _names(self, view: TableView) -> list[str]:
        return [s.name for s in view.seats]

    def _side_names(self, view: TableView) -> list[str]:
        names = self._names(view)
        return [" and ".join(names[s] for s in side) for side in view.sides]

    def _tell(self, update: TableUpdate, *, history: bool = False) -> None:
        view = update.view
        speaker = self.speaker()
        names, sides = self._names(view), self._side_names(view)
        sweeps = view.rules.sweep_points > 0
        events: Sequence[TableEvent] = update.events
        if history or update.fresh:  # a table opened: only its latest plays
            self._moves_seen = sum(1 for e in events if e.kind == "move")
            events = [e for e in events if e.kind in ("move", "chat")][-3:]
        for event in events:
            if event.kind == "move":
                self._moves_seen += 1
                self._started = True
            if event.kind == "note" and event.text.startswith("The game begins"):
                self._started = True
            if event.kind == "round_over" and "summary" in event.data:
                summary = summary_from_json(event.data["summary"])
                for line in speaker.summary(summary, sides, view.rules,
                                            view.phase == Phase.GAME_OVER):
                    self.say(line)
                if view.phase != Phase.GAME_OVER:
                    self._round_over = True
                    self.say("Press Enter when you are ready for the next round.")
                continue
            if event.kind == "game_over":
                winner = event.data.get("winner")
                who = sides[winner] if isinstance(winner, int) and winner < len(sides) \
                    else "nobody"
                self.say(f"Game over: {who} won. Type leave to go back to the menu.")
                continue
            told = event_line(event, names, sides, view.seat, speaker, sweeps=sweeps)
            if told:
                self.say(told)
        self._tell_turn(view)

    def _tell_turn(self, view: TableView) -> None:
        if view.seat is None or view.to_move != view.seat or not self._started \
                or view.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
            return
        key = (view.epoch, self._moves_seen)
        if self._turn_told == key:
            return
        self._turn_told = key
        self._round_over = False
        speaker = self.speaker()
        self.say(f"Your turn. {hand_sentence(view.hand, speaker)} "
                 f"{speaker.table(view.table, self._names(view), view.seat)}")

    # ------------------------------------------------------------------ commands
    async def _command(self, client: SeatClient, text: str) -> bool:
        """Run one typed line; True when the player has left the table."""
        view = client.view
        word = text.lower()
        head = word.split()[0] if word else ""
        speaker = self.speaker()
        names = self._names(view)
        if not text:
            if self._round_over:
                self._round_over = False
                await self._call(client.next_round(), "Ready for the next round.")
            return False
        if word in ("leave", "quit", "q", "exit"):
            await self._leave(client)
            return True
        if word in ("help", "?", "commands"):
            self.say(TABLE_HELP)
        elif head in ("say", "chat") or text.startswith("/"):
            line = text[1:] if text.startswith("/") else text.split(" ", 1)[1:]
            said = line if isinstance(line, str) else (line[0] if line else "")
            if not said.strip():
                self.say("Say what? Type say and your words.")
            else:
                await self._call(client.chat(said.strip()))
        elif word == "start":
            if self._info is not None:
                await self._call(self.hub.start(self._info.table_id, client.person))
        elif word in ("who", "seats"):
            parts = []
            for i, s in enumerate(view.seats):
                kind = ("you" if i == view.seat else "a person" if s.human and not s.stand_in
                        else f"the {s.level or 'medium'} computer")
                away = ", away" if s.away_since is not None else ""
                parts.append(f"{s.name}: {kind}{away}")
            self.say("; ".join(parts) + ".")
        elif word in ("hand", "h"):
            self.say(hand_sentence(view.hand, speaker))
        elif word in ("table", "t"):
            self.say(speaker.table(view.table, names, view.seat))
        elif word in ("score", "s"):
            self.say(join_words([f"{n} {v}" for n, v in zip(self._side_names(view),
                                                              view.scores, strict=False)])
                     + f"; the target is {view.target}.")
        elif word in ("undo", "u"):
            self.say("There is no undo at a server's table: every play there is final.")
        elif view.seat is None:
            self.say("You are watching: you have no seat to play.")
        elif view.to_move != view.seat or not self._started:
            self.say("It is not your turn." if self._started else "The game has not begun.")
        elif word in ("moves", "m"):
            for line in moves_lines(self._moves(view), view.table, names, speaker,
                                    sweeps=view.rules.sweep_points > 0):
                self.say(line)
        elif word == "hint":
            await self._hint(view)
        else:
            await self._typed(client, view, text)
        return False

    def _moves(self, view: TableView) -> list[Move]:
        return numbered_moves(view.seat_view().legal_moves())

    async def _typed(self, client: SeatClient, view: TableView, text: str) -> None:
        speaker = self.speaker()
        got = resolve(text, self._moves(view), view.table, view.hand, self._names(view),
                      speaker, sweeps=view.rules.sweep_points > 0)
        move = got.move or got.exact
        if not got.understood:
            found = notation_move(text, view.table, self._moves(view))
            if isinstance(found, str):
                self.say(found)
                return
            move = found
        if move is None:
            for line in got.said:
                self.say(line)
            return
        try:
            await client.submit(move)
        except MoveRefused as err:
            self.say(f"Not allowed: {speaker.text(err.reason)}")
        except HUB_ERRORS as err:
            self.say(_why(err))

    async def _hint(self, view: TableView) -> None:
        loop = asyncio.get_running_loop()
        try:
            move, why = await loop.run_in_executor(None, self.hint, view.seat_view())
        except Exception as err:
            self.say(f"No hint this time: {err}.")
            return
        speaker = self.speaker()
        moves = self._moves(view)
        number = f"move {moves.index(move) + 1}: " if move in moves else ""
        said = speaker.move(view.table, move, self._names(view),
                            sweeps=view.rules.sweep_points > 0)
        self.say(f"Hard suggests {number}{said} {speaker.text(why)}")

    async def _call(self, call: Awaitable[object], done: str | None = None) -> None:
        try:
            await call
        except HUB_ERRORS as err:
            self.say(_why(err))
            return
        if done:
            self.say(done)

    async def _leave(self, client: SeatClient) -> None:
        with contextlib.suppress(*HUB_ERRORS):
            await client.leave()
        self.say("You left the table; your seat waits for you. Back at the menu.")


def table_config(words: list[str]) -> tuple[GameConfig, bool] | str:
    """``create`` 's words: a preset, a number of players, ``private``; the config of a table
    whose seats are all for people (a computer takes each one still empty at the start), and
    whether it is public; or why the words do not make one."""
    from casino_tui.engine import Rules, resolve_preset_name

    preset, players, public = "classic", None, True
    for w in words:
        if w.isdigit():
            players = int(w)
        elif w in ("private", "secret"):
            public = False
        elif w == "public":
            public = True
        else:
            try:
                preset = resolve_preset_name(w)
            except (KeyError, ValueError):
                return (f"I do not know {w!r}: say a preset (type presets to hear them), a "
                        "number of players, or private.")
    rules = Rules.preset(preset)
    n = players or (2 if 2 in rules.player_counts else rules.player_counts[0])
    if n not in rules.player_counts:
        return f"{preset} is played by {join_words([str(c) for c in rules.player_counts])} " \
               f"players, not {n}."
    return GameConfig(preset=preset, players=n, seats=default_seats(n, humans=n)), public
