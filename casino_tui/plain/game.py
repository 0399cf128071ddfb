"""One game in plain mode: the table's controller, driven by typed commands, told in sentences.

Every change goes through :class:`~casino_tui.table.TableController`, as in the full-screen
game: the same moves, the same refusals, the same autosave after every move, the same saves and
statistics. What happens is appended as one sentence per event; nothing is ever redrawn.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from casino_tui.engine import (
    PRESET_DESCRIPTIONS,
    IllegalMoveError,
    Move,
    Rules,
    SeatView,
)
from casino_tui.saves import LoadedGame, SaveError, SaveSlot, SaveStore
from casino_tui.saves.storestatus import BACK as STORE_BACK
from casino_tui.saves.storestatus import StoreStatus
from casino_tui.table import GameConfig, TableController, TableEvent
from casino_tui.table.config import save_seats
from casino_tui.table.controller import ComputerTurn, MoveRefused
from casino_tui.table.rulebook import rules_intro, rules_sections

if TYPE_CHECKING:  # pragma: no cover
    from casino_tui.ai.review import Estimate

from .commands import RANK_WORDS, SUIT_WORDS
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

GAME_HELP = """\
Commands in a game (short forms in brackets):
hand (h): the cards you hold.
table (t): the piles on the table, numbered, with each build's value and owner.
score (s): the game score and what each side has taken this round.
moves (m): every legal move, numbered; type a number to play that move.
take 7 with 7; take 3 and 5 with 8; take build with 9: capture.
build 9 with 4 on 5; raise 7 to 9 with 2; add 9 to 9: build.
trail 3 (or trail 3h): put a card on the table. play 7h: the card's only move.
pluck 7, pass, claim: in the presets that have them.
Cards: 7, seven, 7h, seven of hearts; piles by number: pile 2.
The engine's notation works too: 7H, 9Cx5D+4S, 2H>7C=9.
hint: what the Hard computer would play, and why.
undo (u): take back your last play and the computers' plays after it.
log: the last plays again. rules: the rules of this game.
save NAME: save a named copy. set: your settings.
quit (q): leave the game (it is saved; continue it later).
The Tab key completes commands and card names; up and down arrows recall earlier commands."""

_VERB_WORDS = ("take", "build", "raise", "add", "trail", "play", "pluck", "pass", "claim",
               "with", "on", "to", "pile", "hand", "table", "score", "moves", "hint", "undo",
               "log", "rules", "save", "set", "help", "quit")


@dataclass
class PlainSettings:
    """Plain mode's own settings (kept in the player's settings file)."""

    cards: str = "words"  # "words" (ten of diamonds) or "short" (10D)
    turn_summary: bool = True  # at the start of your turn: your hand and the table


def rules_lines(rules: Rules, num_players: int | None, speaker: Speaker) -> list[str]:
    """The rules of a preset as sentences: each section's heading, then its sentences."""
    lines = rules_intro(rules)
    for heading, sentences in rules_sections(rules, symbols=False, num_players=num_players,
                                             pluck_key="the pluck command"):
        lines.append(f"{heading}:")
        lines += [speaker.text(s) for s in sentences]
    return lines


def change_setting(settings: PlainSettings, args: list[str],
                   save: Callable[[PlainSettings], str | None] | None) -> str:
    """``set ...``: change a setting (and keep it with ``save``), or say what they are; the
    sentence to say."""
    if len(args) == 2 and args[0] == "cards" and args[1] in ("words", "short"):
        settings.cards = args[1]
    elif len(args) == 2 and args[0] in ("summary", "brief") and args[1] in ("on", "off"):
        settings.turn_summary = (args[1] == "on") == (args[0] == "summary")
    else:
        cards = "words" if settings.cards == "words" else "short names"
        summary = "on" if settings.turn_summary else "off"
        return (f"Cards are said as {cards} (set cards words, or set cards short). The line "
                f"with your hand and the table at the start of your turn is {summary} (set "
                "summary on, or set summary off).")
    problem = save(settings) if save is not None else None
    return "Settings changed." + (f" {problem}" if problem else "")


@dataclass
class GameResult:
    """How a game left plain mode: ``over`` (played to the end) or left with quit."""

    over: bool
    quit_program: bool = False


@dataclass
class _Pending:
    """A hint being offered: the move it suggests, for ``yes``."""

    move: Move | None = None


ChooseFn = Callable[[SeatView, str, int], Move]
HintFn = Callable[[SeatView, int], tuple[Move, str]]
ReviewFn = Callable[[SeatView, Move, int], "Estimate"]
RecordFn = Callable[[SaveSlot | None, TableController], str | None]


@dataclass
class PlainGame:
    """A game played through a :class:`Console`."""

    console: Console
    config: GameConfig
    store: SaveStore | None
    settings: PlainSettings
    choose: ChooseFn
    hint: HintFn
    record: RecordFn | None = None  # adds a finished game to the ledger; a problem's text
    review: ReviewFn | None = None  # Hard's opinion of a play (the round review)
    loaded: LoadedGame | None = None
    undo_allowed: bool = True
    save_settings: Callable[[PlainSettings], str | None] | None = None
    table: TableController = field(init=False)
    slot: SaveSlot | None = field(init=False, default=None)
    # served with a shared store: the server's file that says the store is away
    store_status: StoreStatus | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        loaded = self.loaded
        if loaded is not None:
            self.table = TableController(self.config, loaded.state, resumed=True,
                                         start_position=loaded.start_position)
            self.slot = loaded.slot
        else:
            self.table = TableController(self.config)
            if self.store is not None:
                self.slot = self.store.new_game(save_seats(self.config, self.table.num_players))
        self.table.store = self.store if self.slot is not None else None
        self.table.slot = self.slot
        self._told = len(self.table.events) if loaded is not None else 0
        self._summaries_told = 0
        if loaded is not None:
            st = loaded.state
            pending = st.is_round_over or st.is_game_over
            self._summaries_told = max(0, len(st.round_summaries) - (1 if pending else 0))
        self._recent: list[str] = []
        self._hint = _Pending()
        self._turn_told: int | None = None
        self.store_status = StoreStatus.from_env()

    # ------------------------------------------------------------------ what the player is
    @property
    def speaker(self) -> Speaker:
        return Speaker(self.settings.cards)

    @property
    def names(self) -> list[str]:
        return self.table.names

    @property
    def side_names(self) -> list[str]:
        return [" and ".join(self.names[s] for s in side) for side in self.table.state.sides]

    @property
    def me(self) -> int:
        """The person whose turn it is (or the first person's seat)."""
        seat = self.table.to_move
        if seat is not None and not self.table.computer_plays(seat):
            return seat
        humans = self.table.human_seats
        return humans[0] if humans else 0

    def say(self, text: str = "") -> None:
        self.console.say(text)

    # ------------------------------------------------------------------ the game
    def play(self) -> GameResult:
        """Play until the game is over or the player leaves."""
        self.console.set_words(self._completions)
        table = self.table
        if self.loaded is not None:
            self.say(f"Continuing {self._title()}, round {table.state.round_no}.")
            if self.slot is None:
                self.say("This game is open read-only: your moves are not saved.")
            self._tell_score()
        else:
            self.say(f"New game: {self._title()}. {self._seats_sentence()}")
            table.save_now()
            self._tell_save_notice()
        while True:
            self._tell_events()
            st = table.state
            if st.is_round_over or st.is_game_over:
                if len(st.round_summaries) > self._summaries_told:
                    self._summaries_told = len(st.round_summaries)
                    summary = st.round_summaries[-1]
                    for line in self.speaker.summary(summary, self.side_names, st.rules,
                                                     st.is_game_over):
                        self.say(line)
                if st.is_game_over:
                    return self._game_over()
                answer = self._ask_between_rounds()
                if answer is not None:
                    return answer
                continue
            seat = table.to_move
            if seat is None:  # pragma: no cover - the phases above
                return GameResult(over=False)
            if table.computer_plays(seat):
                self._computer(seat)
                continue
            result = self._human_turn(seat)
            if result is not None:
                return result

    def _title(self) -> str:
        rules = self.table.state.rules
        desc = PRESET_DESCRIPTIONS.get(rules.preset_name, rules.preset_name)
        name = desc.split(":", 1)[0].split("(", 1)[0].strip() or rules.preset_name
        n = self.table.num_players
        target = (f", to {rules.target} points" if rules.game_end != "fixed_rounds" else "")
        return f"{name}, {n} players{target}"

    def _seats_sentence(self) -> str:
        parts = []
        for seat, name in enumerate(self.names):
            if self.table.is_human(seat):
                parts.append(f"{name} is you" if len(self.table.human_seats) == 1
                             else f"{name} is a person")
            else:
                parts.append(f"{name} is the {self.table.level(seat)} computer")
        sides = self.table.state.sides
        partners = ""
        if any(len(side) > 1 for side in sides):
            partners = " Partners: " + "; ".join(
                " and ".join(self.names[s] for s in side) for side in sides) + "."
        text = join_words(parts)
        return text[:1].upper() + text[1:] + "." + partners

    # ------------------------------------------------------------------ events
    def _tell_events(self) -> None:
        events = self.table.events
        for event in events[self._told:]:
            line = self._event_line(event)
            if line:
                self.say(line)
                if event.kind == "move":
                    self._recent.append(line)
                    del self._recent[:-8]
        self._told = len(events)
        self._tell_save_notice()

    def _event_line(self, event: TableEvent) -> str | None:
        return event_line(event, self.names, self.side_names,
                          self.me if len(self.table.human_seats) == 1 else None, self.speaker,
                          sweeps=self.table.state.rules.sweep_points > 0)

    def _tell_save_notice(self) -> None:
        notice = self.table.take_notice()
        if notice is not None:
            self.say(("Not saved: " if notice.error else "") + notice.text)
        status = self.store_status  # said once when the store goes away, once when it is back
        if status is not None and status.look():
            self.say(status.away if status.away is not None else STORE_BACK)

    # ------------------------------------------------------------------ computers
    def _computer(self, seat: int) -> None:
        turn = self.table.computer_turn()
        if turn is None:  # pragma: no cover - computer_plays said so
            return
        move = self._choose(turn)
        self.table.play_computer(turn, move)

    def _choose(self, turn: ComputerTurn) -> Move:
        try:
            return self.choose(turn.view, turn.level, turn.seed)
        except Exception as err:  # a broken computer player must not stop the game
            return self.table.fallback_move(turn.view, turn.seed, err)

    # ------------------------------------------------------------------ between rounds
    def _ask_between_rounds(self) -> GameResult | None:
        while True:
            line = self.console.ask("Enter for the next round> ")
            if line is None:
                self._leave()
                return GameResult(over=False, quit_program=True)
            word = line.strip().lower()
            if word in ("", "next", "n", "yes", "y", "continue"):
                self.table.next_round()
                self._tell_save_notice()
                return None
            if word in ("quit", "q", "exit", "leave"):
                self._leave()
                return GameResult(over=False)
            if word in ("undo", "u"):
                if self._undo():
                    return None
                continue
            if word in ("review", "r"):
                self._review(self.table.state.round_no)
                continue
            if not self._common(word, line):
                self.say("Press Enter for the next round, or type review, score, undo, help "
                         "or quit.")

    def _game_over(self) -> GameResult:
        st = self.table.state
        scores = join_words([f"{n} {v}" for n, v in zip(self.side_names, st.scores,
                                                          strict=False)])
        if st.winner is None:
            self.say(f"Game over after {plural(st.round_no, 'round')}: {scores}.")
        else:
            won = self.side_names[st.winner]
            self.say(f"Game over after {plural(st.round_no, 'round')}. {won} won the game: "
                     f"{scores}.")
        if self.record is not None:
            problem = self.record(self.slot, self.table)
            if problem:
                self.say(problem)
        self._close()
        if self.review is not None:
            self.say("Type review to hear Hard's opinion of your plays in the last round, or "
                     "press Enter for the menu.")
            while True:
                line = self.console.ask("Enter for the menu> ")
                if line is None:
                    return GameResult(over=True, quit_program=True)
                word = line.strip().lower()
                if word in ("review", "r"):
                    self._review(st.round_no)
                elif word in ("", "menu", "quit", "q", "next", "n"):
                    break
                elif not self._common(word, line):
                    self.say("Type review, or press Enter for the menu.")
        return GameResult(over=True)

    # ------------------------------------------------------------------ the round review
    def _review(self, round_no: int) -> None:
        """Each play of the people at this keyboard in round ``round_no``, with Hard's opinion,
        one line per play, said as it is worked out (from what the player could see then)."""
        from casino_tui.ai.review import game_start, points_text, round_plays, summary_line

        if self.review is None:
            self.say("There is no review here.")
            return
        st = self.table.state
        try:
            plays = round_plays(game_start(st, self.table.start_position), st.history, round_no)
        except IllegalMoveError as err:
            self.say(f"This round cannot be reviewed: {err}")
            return
        mine = [p for p in plays if self.table.is_human(p.seat)]
        if not mine:
            self.say("You made no play in this round.")
            return
        self.say(f"Round {round_no} review: {plural(len(mine), 'play')} of yours, each "
                 "with Hard's opinion.")
        estimates = []
        sweeps = st.rules.sweep_points > 0
        solo = len(self.table.human_seats) == 1
        for play in mine:
            said = self.speaker.event(list(play.before.table), play.event, self.names,
                                      self.side_names, play.seat if solo else None,
                                      sweeps=sweeps)
            try:
                est = self.review(play.view(), play.move, play.number)
            except Exception as err:
                self.say(f"Play {play.number}: {said} Hard could not judge it: {err}.")
                continue
            estimates.append(est)
            if est.forced:
                verdict = "It was the only move."
            elif not est.changes:
                verdict = "Hard agrees."
            else:
                better = self.speaker.move(list(play.before.table), est.best, self.names,
                                           sweeps=sweeps).rstrip(".")
                verdict = (f"Hard would rather: {better[:1].lower() + better[1:]}, about "
                           f"{points_text(est.difference)} better.")
            self.say(f"Play {play.number}: {said} {verdict}")
        line = summary_line(estimates)
        self.say(line[:1].upper() + line[1:] + ".")

    def _leave(self) -> None:
        self.say("The game is saved. Type continue to play it again." if self.slot is not None
                 else "Left the game.")
        self._close()

    def _close(self) -> None:
        """Release the game's file (the last save written first)."""
        with contextlib.suppress(SaveError):
            self.table.close()

    # ------------------------------------------------------------------ a person's turn
    def _human_turn(self, seat: int) -> GameResult | None:
        key = self.table.position_key()
        if self._turn_told != key:
            self._turn_told = key
            self._hint.move = None
            who = "Your turn" if len(self.table.human_seats) == 1 else \
                f"{self.names[seat]}'s turn"
            if self.settings.turn_summary:
                self.say(f"{who}. {self._hand_sentence(seat)} {self._table_sentence(seat)}")
            else:
                self.say(f"{who}.")
        line = self.console.ask("> ")
        if line is None:
            self._leave()
            return GameResult(over=False, quit_program=True)
        return self._command(seat, line)

    def _command(self, seat: int, line: str) -> GameResult | None:
        text = line.strip()
        word = text.lower()
        if not text:
            return None
        if word in ("quit", "q", "exit", "leave"):
            self._leave()
            return GameResult(over=False)
        if word in ("hand", "h"):
            self.say(self._hand_sentence(seat))
        elif word in ("table", "t"):
            self.say(self._table_sentence(seat))
        elif word in ("moves", "m", "list"):
            self._tell_moves(seat)
        elif word in ("hint",):
            self._give_hint(seat)
        elif word in ("yes", "y", "ok") and self._hint.move is not None:
            self._play(seat, self._hint.move)
        elif word in ("undo", "u"):
            self._undo()
        elif word in ("log", "last", "again"):
            self.say(" ".join(self._recent[-4:]) if self._recent else "Nothing played yet.")
        elif word.split()[0] in ("save",):
            self._save_copy(text[4:].strip() or None)
        elif word.split()[0] in ("say", "chat"):
            self.say("There is nobody to talk to here: say is for tables on a server.")
        elif self._common(word, text):
            pass
        else:
            self._typed_move(seat, text)
        return None

    def _common(self, word: str, text: str) -> bool:
        """Commands that work in a game and between rounds; False when ``word`` is none."""
        head = word.split()[0] if word.split() else ""
        if word in ("help", "?", "commands"):
            self.say(GAME_HELP)
        elif word in ("score", "s", "scores"):
            self._tell_score()
        elif word in ("rules",):
            self._tell_rules()
        elif head == "set" or word == "settings":
            self._set(word.split()[1:])
        else:
            return False
        return True

    # ------------------------------------------------------------------ telling
    def _view(self, seat: int) -> SeatView:
        return self.table.state.view(seat)

    def _moves(self, seat: int) -> list[Move]:
        if self.table.to_move != seat:
            return []
        return numbered_moves(self._view(seat).legal_moves())

    def _hand_sentence(self, seat: int) -> str:
        return hand_sentence(self.table.state.hands[seat], self.speaker)

    def _table_sentence(self, seat: int) -> str:
        return self.speaker.table(self.table.state.table, self.names, seat)

    def _tell_moves(self, seat: int) -> None:
        for line in moves_lines(self._moves(seat), self.table.state.table, self.names,
                                self.speaker, sweeps=self.table.state.rules.sweep_points > 0):
            self.say(line)

    def _tell_score(self) -> None:
        st = self.table.state
        view = self.table.view_for(self.me)
        parts = []
        for i, side in enumerate(st.sides):
            cards = [c for s in side for c in view.captured[s]]
            taken = plural(len(cards), "card")
            sweeps = sum(view.sweeps[s] for s in side)
            extra = f", {plural(sweeps, 'sweep')}" if sweeps and st.rules.sweep_points else ""
            parts.append(f"{self.side_names[i]} {st.scores[i]} points ({taken} taken this "
                         f"round{extra})")
        target = "" if st.rules.game_end == "fixed_rounds" else f"; the target is {st.target}"
        deal = f"Round {st.round_no}, deal {st.deal_no}."
        self.say(f"{deal} {'; '.join(parts)}{target}. "
                 f"{plural(view.stock_size, 'card')} left to deal.")

    def _tell_rules(self) -> None:
        st = self.table.state
        for line in rules_lines(st.rules, st.num_players, self.speaker):
            self.say(line)

    # ------------------------------------------------------------------ moves
    def _typed_move(self, seat: int, text: str) -> None:
        st = self.table.state
        got = resolve(text, self._moves(seat), st.table, st.hands[seat], self.names,
                      self.speaker, sweeps=st.rules.sweep_points > 0)
        if not got.understood:
            self._notation(seat, text)
            return
        if got.move is not None:
            self._play(seat, got.move)
            return
        if got.exact is not None:
            try:
                self.table.check(seat, got.exact)
            except MoveRefused as err:
                self.say(f"Not allowed: {self.speaker.text(err.reason)}")
                return
        for line in got.said:
            self.say(line)

    def _notation(self, seat: int, text: str) -> None:
        got = notation_move(text, self.table.state.table, self._moves(seat))
        if isinstance(got, str):
            self.say(got)
        else:
            self._play(seat, got)

    def _play(self, seat: int, move: Move) -> None:
        try:
            self.table.play(seat, move)
        except MoveRefused as err:
            self.say(f"Not allowed: {self.speaker.text(err.reason)}")
            return
        self._hint.move = None

    def _give_hint(self, seat: int) -> None:
        view = self._view(seat)
        try:
            move, why = self.hint(view, self.table.ai_seed())
        except Exception as err:
            self.say(f"No hint this time: {err}.")
            return
        legal = self._moves(seat)
        number = f"move {legal.index(move) + 1}: " if move in legal else ""
        sweeps = self.table.state.rules.sweep_points > 0
        described = self.speaker.move(self.table.state.table, move, self.names, sweeps=sweeps)
        head, colon, rest = why.partition(": ")
        if colon and head.split(" ", 1)[0] in ("Take", "Build", "Trail", "Raise", "Add",
                                               "Pluck", "Pass", "Claim"):
            why = rest  # the move again, in the card notation: said above in words
        why = self.speaker.text(why).strip()
        why = why[:1].upper() + why[1:]
        self.say(f"Hard suggests {number}{described} {why}"
                 + ("" if why.endswith(".") else ".") + " Type yes to play it.")
        self._hint.move = move

    def _undo(self) -> bool:
        if not self.undo_allowed:
            self.say("Undo is off in your settings.")
            return False
        humans = self.table.human_seats
        if len(humans) != 1:
            self.say("There is no undo with several people at one keyboard.")
            return False
        try:
            taken = self.table.undo(humans[0])
        except MoveRefused as err:
            self.say(f"No undo: {err.reason}.")
            return False
        st = self.table.state
        self._summaries_told = min(self._summaries_told, len(st.round_summaries))
        self._told = len(self.table.events)
        self._turn_told = None
        plays = "your play" if taken == 1 else f"your play and the {taken - 1} after it"
        self.say(f"Took back {plays}.")
        self._tell_save_notice()
        return True

    def _save_copy(self, name: str | None) -> None:
        if self.store is None or self.slot is None:
            self.say("This game is not being saved, so no copy can be made.")
            return
        try:
            entry = self.store.save_copy(self.slot, self.table.state, name)
        except SaveError as err:
            self.say(f"Not saved: {err}")
            return
        self.say(f"Saved a copy as {entry.name or entry.path.name}.")

    # ------------------------------------------------------------------ settings
    def _set(self, args: list[str]) -> None:
        self.say(change_setting(self.settings, args, self.save_settings))

    # ------------------------------------------------------------------ completion
    def _completions(self) -> Iterable[str]:
        yield from _VERB_WORDS
        yield from ("yes", "next", "summary", "cards", "words", "short")
        yield from (w for w in RANK_WORDS if w.isalpha() and len(w) > 1)
        yield from (w for w in SUIT_WORDS if w.isalpha() and len(w) > 1)

