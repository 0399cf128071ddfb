"""The review of a round just played: every play in turn, with every hand of that moment face
up, the table, the captures and the play highlighted; for each play of a person at the keyboard,
what Hard would have played and how many points Hard expects the difference to be.

Opened from the round summary and from game over (``r``). Left/Right step through the plays,
Home/End jump to the first and the last; Esc goes back. Hard's estimates
(:func:`casino_tui.ai.review.estimate`) come from the chooser (the worker process), one play at a
time in the background: the keys never wait for them, each is shown as soon as it arrives, and a
line says how many are done. They are kept (``estimates``), so opening the review again does not
ask twice.
"""

from __future__ import annotations

import asyncio
import zlib
from pathlib import PurePath
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen

from casino_tui.ai.review import Estimate, Play, game_start, points_text, round_plays, summary_line
from casino_tui.engine import CasinoError

from ..background import in_background
from ..describe import move_log_line, move_preview
from ..players import Chooser
from ..session import GameSession, pile_index_of
from ..styles import css
from ..widgets.review import HandRow, HandsData, HandsList
from ..widgets.table import (
    HandData,
    HandView,
    InfoBar,
    InfoData,
    KeyBar,
    LineData,
    LogData,
    LogView,
    MessageLine,
    ScoreData,
    ScorePanel,
    StatusLine,
    TableData,
    TableView,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..app import CasinoApp

SUIT_WORDS = ("Spades", "Hearts", "Diamonds", "Clubs")
REVIEW_KEYS: list[tuple[str, str]] = [
    ("← →", "the previous, the next play"),
    ("Home End", "the first, the last play of the round"),
    ("l", "the plays so far, every line in full"),
    ("Esc / q", "back"),
]

# A play's review: Hard's estimate, or why there is none (the estimate failed).
Reviewed = Estimate | str


class ReviewScreen(Screen[None]):
    """Steps through the plays of round ``round_no`` of ``session``'s game. ``estimates``:
    Hard's estimates already made for this round, by play number (filled as they arrive)."""

    # the table's panels, and the review's own lines (at the end of game.tcss)
    CSS_PATH: ClassVar[list[str | PurePath]] = css("game")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Previous", show=False, id="review.prev"),
        Binding("right", "step(1)", "Next", show=False, id="review.next"),
        Binding("home", "first", "First", show=False, id="review.first"),
        Binding("end", "last", "Last", show=False, id="review.last"),
        Binding("l", "full_log", "Plays", show=False, id="review.full_log"),
        Binding("escape,q", "close", "Back", show=False, id="review.close"),
    ]
    HELP_TITLE = "Round review"

    def __init__(self, session: GameSession, chooser: Chooser, round_no: int,
                 estimates: dict[int, Reviewed] | None = None) -> None:
        super().__init__()
        self.session = session
        self.chooser = chooser
        self.round_no = round_no
        state = session.state
        self.problem = ""  # why the round cannot be shown
        try:
            self.plays: list[Play] = round_plays(
                game_start(state, session.table.start_position), state.history, round_no)
        except CasinoError as err:
            self.plays = []
            self.problem = f"this round cannot be replayed ({err})"
        self.reviewed_seats = tuple(session.human_seats)
        self.estimates: dict[int, Reviewed] = estimates if estimates is not None else {}
        self.index = 0

    # ------------------------------------------------------------------ app glue
    @property
    def casino(self) -> CasinoApp:
        return self.app  # type: ignore[return-value]

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.HELP_TITLE, REVIEW_KEYS)]

    @property
    def to_review(self) -> list[Play]:
        """The plays Hard gives its opinion of: those of the people at the keyboard."""
        return [p for p in self.plays if p.seat in self.reviewed_seats]

    @property
    def pending(self) -> int:
        """Plays whose estimate has not arrived yet."""
        return sum(1 for p in self.to_review if p.number not in self.estimates)

    @property
    def play(self) -> Play | None:
        """The play on screen."""
        return self.plays[self.index] if self.plays else None

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield InfoBar(id="review-header")
        yield StatusLine(id="review-sum")
        with Horizontal(id="game-body"):
            with Vertical(id="main-col"):
                yield HandsList(id="review-hands")
                with Vertical(id="table-box"):
                    yield TableView(id="table")
                yield HandView(id="hand")
                yield MessageLine(id="review-play")  # a long play wraps
                yield MessageLine(id="review-estimate")
            with Vertical(id="side-col"):
                yield ScorePanel(id="score")
                yield LogView(id="log")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        others = self.session.num_players - 1
        hands = self.query_one("#review-hands", HandsList)
        hands.styles.height = others + 2
        hands.border_title = "Other hands" if others > 1 else "Other hand"
        self.query_one("#table-box").border_title = "Table"
        self.query_one("#score").border_title = "Captures"
        log = self.query_one("#log")
        log.border_title = "Plays"
        log.border_subtitle = "l: in full"
        self._draw()
        if self.pending:
            in_background(self, "review", self._estimate_all, exclusive=True)

    def on_unmount(self) -> None:
        self.workers.cancel_group(self, "review")

    # ------------------------------------------------------------------ Hard's estimates
    def _seed(self, play: Play) -> int:
        return zlib.crc32(f"{self.session.seed}/review/{self.round_no}/{play.number}".encode())

    async def _estimate_all(self) -> None:
        """Ask for every missing estimate, one play at a time (so that closing the review
        leaves at most one in the worker), and show each as it arrives."""
        for play in self.to_review:
            if play.number in self.estimates:
                continue
            try:
                result: Reviewed = await self.chooser.review(play.view(), play.move,
                                                             self._seed(play))
            except asyncio.CancelledError:
                raise
            except Exception as err:  # a failed estimate is said on its play; the rest go on
                result = str(err) or type(err).__name__
            self.estimates[play.number] = result
            if self.is_mounted:
                self.refresh_all()
            await asyncio.sleep(0)  # the keys between two estimates made in this process

    # ------------------------------------------------------------------ drawing
    def settings_changed(self) -> None:
        self.refresh_all()

    def refresh_all(self) -> None:
        if self.is_mounted:
            self._draw()

    def _draw(self) -> None:
        painter = self.casino.painter
        session = self.session
        self.query_one("#review-sum", StatusLine).set_data(self._summary())
        sym = painter.symbols
        self.query_one("#keys", KeyBar).set_data((
            ("←→" if sym else "<>", "play"), ("Home End", "first, last"), ("Esc", "back"),
            ("?", "help")))
        play = self.play
        if play is None:
            self.query_one("#review-header", InfoBar).set_data(
                InfoData(f"Round {self.round_no} review · no play"))
            self.query_one("#review-play", StatusLine).set_data(
                LineData(self.problem or "nobody played in this round", "error"))
            return
        st = play.before
        parts = [f"Round {self.round_no} review", f"Play {play.number} of {len(self.plays)}"]
        if not st.rules.draw_mode:
            parts.append(f"Deal {st.deal_no} of {len(st.deal_sizes)}")
        parts.append(f"Stock {len(st.stock)}")
        self.query_one("#review-header", InfoBar).set_data(InfoData(" · ".join(parts)))
        names = session.names
        n = session.num_players
        self.query_one("#review-hands", HandsList).set_data(HandsData(tuple(
            HandRow(names[s], self._detail(s), tuple(st.hands[s]))
            for s in ((play.seat + i) % n for i in range(1, n))), painter))
        move = play.move
        highlight: set[int] = set()
        if move.kind in ("capture", "build"):
            highlight.update(move.piles)
        elif move.kind == "pluck" and (i := pile_index_of(st.table, move.card)) is not None:
            highlight.add(i)
        self.query_one("#table", TableView).set_data(TableData(
            piles=tuple(st.table), owner_names=tuple(names), painter=painter,
            highlight=frozenset(highlight)))
        hand = tuple(st.hands[play.seat])
        chosen = hand.index(move.card) if move.kind in ("trail", "capture", "build") \
            and move.card in hand else None
        box = self.query_one("#hand", HandView)
        box.border_title = Content(f"{names[play.seat]} plays · {self._detail(play.seat)}")
        box.set_data(HandData(cards=hand, count=len(hand), selected=chosen, painter=painter,
                              active=True))
        line = move_log_line(st.table, play.event, names, session.side_names, painter,
                             sweeps=session.sweeps_score)
        self.query_one("#review-play", StatusLine).set_data(LineData(line, "move"))
        self.query_one("#review-estimate", MessageLine).set_data(self._estimate_line(play))
        view = st.view(play.seat)
        reviewed = [session.side_of(s) for s in self.reviewed_seats]
        self.query_one("#score", ScorePanel).set_data(ScoreData(
            headers=tuple("+".join(names[s] for s in side) for side in st.sides),
            labels=tuple(session.side_labels), game=tuple(st.scores),
            counts=tuple(session.side_counts(view)), suit_label=SUIT_WORDS[session.majority_suit],
            big_casino=st.rules.big_casino, little_casino=st.rules.little_casino,
            painter=painter, sweeps=session.sweeps_score,
            highlight=reviewed[0] if len(set(reviewed)) == 1 else None))
        self.query_one("#log", LogView).set_data(LogData(self._plays_so_far()))

    def _plays_so_far(self) -> tuple[tuple[str, bool], ...]:
        """The plays up to the one shown (the others' in italics, as notes)."""
        return tuple((self._log_text(p), p.seat not in self.reviewed_seats)
                     for p in self.plays[:self.index + 1])

    def action_full_log(self) -> None:
        from .fulllog import FullLogScreen

        self.app.push_screen(FullLogScreen(self._plays_so_far(), "Plays of the round so far"))

    def _detail(self, seat: int) -> str:
        return "person" if self.session.is_human(seat) else self.session.level(seat)

    def _log_text(self, play: Play) -> str:
        s = self.session
        text = move_log_line(play.before.table, play.event, s.names, s.side_names,
                             self.casino.painter, sweeps=s.sweeps_score)
        est = self.estimates.get(play.number)
        mark = "! " if isinstance(est, Estimate) and est.changes else ""
        return f"{mark}{play.number}. {text}"

    def _summary(self) -> LineData:
        seats = self.reviewed_seats
        if not seats:
            return LineData("Computers only: every play shown, none reviewed", "info")
        pending = self.pending
        total = len(self.to_review)
        right = f"Hard is reviewing: {total - pending} of {total} plays" if pending else ""
        parts = []
        for seat in seats:
            done = [e for p in self.plays if p.seat == seat
                    and isinstance(e := self.estimates.get(p.number), Estimate)]
            text = summary_line(done)
            parts.append(text if len(seats) == 1 else f"{self.session.names[seat]}: {text}")
        text = " · ".join(parts)
        if pending:
            text += " so far"
        return LineData(text[0].upper() + text[1:], "move", right)

    def _estimate_line(self, play: Play) -> LineData:
        session = self.session
        if play.seat not in self.reviewed_seats:
            return LineData(f"{session.names[play.seat]} is a computer "
                            f"({session.level(play.seat)}): not reviewed")
        est = self.estimates.get(play.number)
        if est is None:
            return LineData("Hard is looking at this play…", "thinking")
        if isinstance(est, str):
            return LineData(f"Hard could not review this play ({est})", "error")
        if est.forced:
            return LineData("The only legal move", "ok")
        if est.best == est.played:
            return LineData("Hard would play the same", "ok")
        better = move_preview(play.before.table, est.best, self.casino.painter,
                              sweeps=session.sweeps_score)
        if not est.changes:
            return LineData(f"Hard might rather: {better} (about the same)", "ok")
        return LineData(f"Hard would rather: {better} (about {points_text(est.difference)} "
                        "more)", "error")

    # ------------------------------------------------------------------ keys
    def _go(self, index: int) -> None:
        if not self.plays:
            return
        index = max(0, min(len(self.plays) - 1, index))
        if index != self.index:
            self.index = index
            self.refresh_all()

    def action_step(self, delta: int) -> None:
        self._go(self.index + delta)

    def action_first(self) -> None:
        self._go(0)

    def action_last(self) -> None:
        self._go(len(self.plays) - 1)

    def action_close(self) -> None:
        self.dismiss(None)
