"""Plain mode's menu: new game, continue, load, the daily deal, statistics, settings, quit.

``casino-tui --plain`` starts here (:func:`run`); the same flags as the full-screen game
choose a game to start at once (``--preset``, ``--players``, ``--seed``, ``--target``,
``--continue``, ``--load``, ``--daily``). The games, saves, statistics and settings are the
full-screen game's: start a game in one and continue it in the other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from casino_tui.engine import PRESET_DESCRIPTIONS, PRESET_NAMES, Move, SeatView
from casino_tui.engine import resolve_preset_name as _resolve
from casino_tui.saves import GameInUseError, LoadedGame, SaveError, SaveSlot, SaveStore
from casino_tui.table import GameConfig, TableController, default_seats
from casino_tui.table.config import LEVELS, loaded_config

if TYPE_CHECKING:  # pragma: no cover
    from casino_tui.ai.review import Estimate

from .console import Console
from .game import PlainGame, PlainSettings, change_setting
from .words import join_words, plural

MENU_HELP = """\
Commands:
new: a new game against the computer. Add a preset, a number of players and a level, \
in any order: new royal 4 hard. Add seed N or target N for a given deal or target.
continue (c): the game you played last.
load: your saved games, numbered; load N opens one.
daily: the daily deal, the same cards for everyone today.
tables, create, join CODE: on a server, the tables where people play each other: list them, \
make one (create royal 4, or create private), or join one by its code.
stats: your statistics.
presets: every preset with a line about it.
set: your settings (how cards are said, the turn summary).
quit (q): leave casino-tui."""

_MENU_WORDS = ("new", "continue", "load", "daily", "stats", "presets", "set", "help", "quit",
               "seed", "target", "tables", "create", "join", "private", *LEVELS)


@dataclass
class Services:
    """What the menu needs from outside: computers, saved settings, the ledger, the clock."""

    choose: Callable[[SeatView, str, int], Move]
    hint: Callable[[SeatView, int], tuple[Move, str]]
    review: Callable[[SeatView, Move, int], Estimate] | None
    save_settings: Callable[[PlainSettings], str | None]
    record: Callable[[SaveSlot | None, TableController], str | None] | None
    stats: Callable[[], list[str]]
    daily: Callable[[], tuple[GameConfig, list[str]]]
    undo_allowed: bool = True
    clock: Callable[[], datetime] | None = None
    # the server's tables (tables, create, join): runs one command, True when the input ended;
    # None where there is no server
    tables: Callable[[str, list[str]], bool] | None = None


class PlainShell:
    """The menu loop; each game is a :class:`PlainGame`."""

    def __init__(self, console: Console, store: SaveStore, settings: PlainSettings,
                 services: Services) -> None:
        self.console = console
        self.store = store
        self.settings = settings
        self.services = services
        self._listed: list[object] = []

    def say(self, text: str = "") -> None:
        self.console.say(text)

    # ------------------------------------------------------------------ the loop
    def run(self, *, config: GameConfig | None = None, resume: LoadedGame | None = None,
            notice: str | None = None, join: str | None = None) -> int:
        """The menu, after the game asked for on the command line (if any; ``join``: a
        server's table by its code). Returns the exit status (0)."""
        self.say("Casino, plain mode. Type help for the commands.")
        if notice:
            self.say(notice)
        if join is not None:
            if self._tables("join", [join]):
                return 0
        elif resume is not None:
            if self._play(loaded_config(resume), resume):
                return 0
        elif config is not None and self._play(config, None):
            return 0
        else:
            self._offer_continue()
            if self.services.tables is not None and self.services.tables("seats", []):
                return 0
        while True:
            self.console.set_words(self._words)
            line = self.console.ask("casino> ")
            if line is None:
                return 0
            if self._menu(line.strip()):
                return 0

    def _offer_continue(self) -> None:
        try:
            entry = self.store.latest_unfinished()
        except SaveError:
            return
        if entry is not None:
            self.say(f"You have a game in progress, round {entry.round_no}: type continue to "
                     "go on with it.")

    def _words(self) -> Iterable[str]:
        yield from _MENU_WORDS
        yield from PRESET_NAMES

    def _menu(self, text: str) -> bool:
        """Run a menu command; True to leave the program."""
        words = text.lower().split()
        if not words:
            return False
        head = words[0]
        if head in ("quit", "q", "exit", "bye"):
            self.say("Goodbye.")
            return True
        if head in ("help", "?", "commands"):
            self.say(MENU_HELP)
        elif head in ("new", "play", "n"):
            config = self._new_config(words[1:])
            if config is not None:
                return self._play(config, None)
        elif head in ("continue", "c", "resume"):
            return self._continue()
        elif head in ("load", "games", "list", "saves"):
            return self._load(words[1:])
        elif head == "daily":
            try:
                config, lines = self.services.daily()
            except (OSError, ValueError) as err:
                self.say(f"The daily deal cannot be played now: {err}")
                return False
            for line in lines:
                self.say(line)
            return self._play(config, None)
        elif head in ("tables", "create", "join"):
            return self._tables(head, words[1:])
        elif head in ("stats", "statistics"):
            for line in self.services.stats():
                self.say(line)
        elif head == "presets":
            for name in PRESET_NAMES:
                self.say(f"{name}: {PRESET_DESCRIPTIONS.get(name, name)}")
        elif head in ("set", "settings"):
            self._set(words[1:])
        else:
            self.say(f"I do not know {words[0]!r} here. Type help for the commands.")
        return False

    # ------------------------------------------------------------------ games
    def _play(self, config: GameConfig, loaded: LoadedGame | None) -> bool:
        """Play a game; True when the input ended (leave the program)."""
        game = PlainGame(self.console, config, self.store, self.settings,
                         choose=self.services.choose, hint=self.services.hint,
                         record=self.services.record, review=self.services.review,
                         loaded=loaded,
                         undo_allowed=self.services.undo_allowed,
                         save_settings=self.services.save_settings)
        result = game.play()
        if result.quit_program:
            return True
        if result.over:
            self.say("Type new for another game, or quit.")
        else:
            self.say("Back at the menu. Type continue to go on with that game, or help.")
        return False

    def _tables(self, command: str, args: list[str]) -> bool:
        """A command of the server's tables; True when the input ended."""
        if self.services.tables is None:
            self.say("There are no tables here: tables are on a casino-tui server (connect "
                     "with ssh -t -p PORT HOST plain).")
            return False
        if command == "join" and len(args) != 1:
            self.say("Say join and the table's code, like join KAMIRO.")
            return False
        return self.services.tables(command, args)

    def _new_config(self, words: list[str]) -> GameConfig | None:
        preset, players, level, seed, target = "classic", None, "medium", None, None
        i = 0
        while i < len(words):
            w = words[i]
            if w in ("seed", "target") and i + 1 < len(words):
                if not words[i + 1].isdigit() or not 0 < int(words[i + 1]) <= 9999:
                    self.say(f"The {w} is a whole number from 1 to 9999.")
                    return None
                if w == "seed":
                    seed = int(words[i + 1])
                else:
                    target = int(words[i + 1])
                i += 2
                continue
            if w.isdigit():
                players = int(w)
            elif w in LEVELS:
                level = w
            else:
                try:
                    preset = _resolve(w)
                except (KeyError, ValueError):
                    self.say(f"I do not know {w!r}: say a preset (type presets to hear them), "
                             f"a number of players, a level ({join_words(list(LEVELS))}), "
                             "seed N or target N.")
                    return None
            i += 1
        config = GameConfig(preset=preset)
        rules = config.rules()
        n = players or (2 if 2 in rules.player_counts else rules.player_counts[0])
        if n not in rules.player_counts:
            allowed = join_words([str(c) for c in rules.player_counts])
            self.say(f"{preset} is played by {allowed} players, not {n}.")
            return None
        return replace(config, players=n, seats=default_seats(n, 1, level), seed=seed,
                       target=target)

    def _continue(self) -> bool:
        try:
            entry = self.store.latest_unfinished()
        except SaveError as err:
            self.say(str(err))
            return False
        if entry is None:
            self.say(self.store.continue_blocked() or "There is no unfinished game to continue.")
            return False
        return self._open(entry)

    def _open(self, target: object) -> bool:
        try:
            game = self.store.load(target)  # type: ignore[arg-type]
        except GameInUseError:
            self.say("That game is open in another window: quit it there first.")
            return False
        except SaveError as err:
            self.say(str(err))
            return False
        if game.notice:
            self.say(game.notice)
        return self._play(loaded_config(game), game)

    def _load(self, args: list[str]) -> bool:
        if args and args[0].isdigit():
            if not self._listed:
                self._list_saves()
            n = int(args[0])
            if not 1 <= n <= len(self._listed):
                self.say(f"There is no game {n}. Type load to hear the list.")
                return False
            return self._open(self._listed[n - 1])
        self._list_saves()
        return False

    def _list_saves(self) -> None:
        try:
            entries = self.store.entries()
        except SaveError as err:
            self.say(str(err))
            return
        self._listed = list(entries)
        if not entries:
            self.say("You have no saved games.")
            return
        self.say(f"{plural(len(entries), 'saved game')}, the latest first; load N opens one:")
        for i, e in enumerate(entries, 1):
            if not e.ok:
                self.say(f"{i}. {e.path.name}: cannot be opened: {e.error}")
                continue
            name = e.name or PRESET_DESCRIPTIONS.get(e.preset, e.preset).split(":")[0]
            state = "finished" if e.finished else f"round {e.round_no}"
            scores = ", ".join(str(s) for s in e.scores)
            when = e.last_played.strftime("%Y-%m-%d %H:%M")
            self.say(f"{i}. {name}, {e.num_players} players, {state}, scores {scores}, "
                     f"played {when}.")

    def _set(self, args: list[str]) -> None:
        self.say(change_setting(self.settings, args, self.services.save_settings))
