"""A saved game replayed, read only: step through its moves and rounds.

The positions come from :class:`~casino_tui.table.replay.Replay` (the game's moves replayed with
the engine); this screen draws one step: the table (the pile the move made highlighted), every
seat's hand (face up in finished rounds; in the round a game is still in, only what the viewer
saw at the table), the score and the log up to that move. Nothing is ever saved.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget

from casino_tui.engine import State
from casino_tui.engine.cards import ACE, rank_of
from casino_tui.table.replay import Replay, ReplayStep

from ..cardfmt import CardPainter
from ..describe import move_log_line
from ..session import SideCounts, pile_index_of, preset_title, seat_labels
from ..styles import css
from ..widgets.table import (
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

SUIT_WORDS = ("Spades", "Hearts", "Diamonds", "Clubs")
LOG_LINES = 40

REPLAY_KEYS: list[tuple[str, str]] = [
    ("← →", "the previous or next move"),
    ("↑ ↓ or PgUp PgDn", "the previous or next round (its deal)"),
    ("Home End", "the start or the end of the game"),
    ("l", "the log up to this move, every line in full"),
    ("Esc q", "close the replay"),
]


class HandsPanel(Widget):
    """Every seat's hand at the step shown, one line each (its height follows the seats)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = Text()

    def show(self, text: Text) -> None:
        self.text = text
        self.refresh(layout=True)

    def render(self) -> Text:
        return self.text


class ReplayScreen(Screen[None]):
    """A read-only replay of a saved game (from the Load screen or ``casino-tui replay``)."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("game")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Previous move", show=False, id="replay.prev"),
        Binding("right", "step(1)", "Next move", show=False, id="replay.next"),
        Binding("up,pageup", "round(-1)", "Previous round", show=False, id="replay.round_prev"),
        Binding("down,pagedown", "round(1)", "Next round", show=False, id="replay.round_next"),
        Binding("home", "jump(0)", "Start", show=False, id="replay.first"),
        Binding("end", "jump(-1)", "End", show=False, id="replay.last"),
        Binding("l", "full_log", "Log", show=False, id="replay.full_log"),
        Binding("escape,q", "close", "Close", show=False, id="replay.close"),
    ]
    HELP_TITLE = "Replay"

    def __init__(self, replay: Replay, painter: CardPainter, *, start: int = 0) -> None:
        super().__init__()
        self.replay = replay
        self.painter = painter
        self.index = min(max(start, 0), len(replay.steps) - 1)
        self._log = self._log_lines()
        self._laid_out = False

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.HELP_TITLE, REPLAY_KEYS)]

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield InfoBar(id="replay-header")
        with Horizontal(id="replay-body"):
            with Vertical(id="replay-main"):
                with Vertical(id="replay-table-box"):
                    yield TableView(id="replay-table")
                yield HandsPanel(id="replay-hands")
                yield MessageLine(id="replay-move")  # a long play wraps
            with Vertical(id="side-col"):
                yield ScorePanel(id="replay-score")
                yield LogView(id="replay-log")
        yield KeyBar(id="replay-keys")

    def on_mount(self) -> None:
        self.query_one("#replay-table-box").border_title = "Table"
        self.query_one("#replay-hands").border_title = "Hands"
        self.query_one("#replay-score").border_title = "Score"
        log = self.query_one("#replay-log")
        log.border_title = "Log"
        log.border_subtitle = "l: in full"
        self.refresh_step()

    # ------------------------------------------------------------------ moving about
    @property
    def step(self) -> ReplayStep:
        return self.replay.steps[self.index]

    def go(self, index: int) -> None:
        self.index = min(max(index, 0), len(self.replay.steps) - 1)
        self.refresh_step()

    def action_step(self, delta: int) -> None:
        self.go(self.index + delta)

    def action_round(self, delta: int) -> None:
        self.go(self.replay.jump_round(self.index, delta))

    def action_jump(self, where: int) -> None:
        self.go(where if where >= 0 else len(self.replay.steps) - 1)

    def action_close(self) -> None:
        self.dismiss(None)

    # ------------------------------------------------------------------ what is shown
    def hands_shown(self) -> list[bool]:
        """For each seat, whether its hand is face up at this step."""
        return [self.replay.shown(self.step, s) for s in range(self.replay.final.num_players)]

    def describe(self) -> str:
        """What happened at this step, in words."""
        step = self.step
        st = step.state
        if step.event is None:
            return f"Round {step.round_no}: {self.replay.names[st.dealer]} dealt"
        text = self._move_line(step)
        if step.event.game_over:
            text += " · game over"
        elif step.event.round_over:
            text += f" · round {step.round_no} over"
        return text

    def _move_line(self, step: ReplayStep) -> str:
        assert step.event is not None
        return move_log_line(step.table_before, step.event, self.replay.names,
                             self._side_names(step.state), self.painter,
                             sweeps=step.state.rules.sweep_points > 0)

    def _side_names(self, st: State) -> list[str]:
        return [" & ".join(self.replay.names[s] for s in side) for side in st.sides]

    def _log_so_far(self) -> list[tuple[str, bool]]:
        """The log up to the step shown: (text, is_note), oldest first."""
        return [(text, note) for i, text, note in self._log if i <= self.index]

    def action_full_log(self) -> None:
        from .fulllog import FullLogScreen

        self.app.push_screen(FullLogScreen(self._log_so_far(), "Log up to this move"))

    def _log_lines(self) -> list[tuple[int, str, bool]]:
        """Every line of the game's log with the step it belongs to."""
        out: list[tuple[int, str, bool]] = []
        names = self.replay.names
        for step in self.replay.steps:
            st = step.state
            if step.event is None:
                out.append((step.index, f"Round {step.round_no}: {names[st.dealer]} deals",
                            True))
                if st.initial_grant is not None:
                    seat, cards = st.initial_grant
                    out.append((step.index, f"{names[seat]} took the {len(cards)} paired "
                                "table cards", True))
                continue
            out.append((step.index, self._move_line(step), False))
            ev = step.event
            if ev.redeal and not st.is_round_over:
                out.append((step.index, "New deal" + (": the last one" if st.is_last_deal
                                                      else ""), True))
            if ev.round_over:
                out.append((step.index, f"Round {step.round_no} over", True))
        return out

    # ------------------------------------------------------------------ drawing
    def refresh_step(self) -> None:
        if not self.is_mounted:
            return
        step = self.step
        st = step.state
        replay = self.replay
        self.query_one("#replay-header", InfoBar).set_data(self._header(st, step))
        recent: set[int] = set()
        ev = step.event
        if ev is not None and ev.move.kind in ("trail", "build") and ev.move.card >= 0:
            i = pile_index_of(st.table, ev.move.card)
            if i is not None:
                recent.add(i)
        self.query_one("#replay-table", TableView).set_data(TableData(
            piles=tuple(st.table), owner_names=tuple(replay.names), painter=self.painter,
            recent=frozenset(recent)))
        hands = self.query_one("#replay-hands", HandsPanel)
        hands.show(self._hands_text())
        hands.border_subtitle = "" if replay.round_finished(step.round_no) else \
            "round in progress"
        self.query_one("#replay-move", StatusLine).set_data(LineData(
            self.painter.text(self.describe()), "move"))
        self._refresh_score(st)
        if not self._laid_out:  # the panels' heights follow their first contents
            self._laid_out = True
            self.query_one("#replay-score").refresh(layout=True)
        self.query_one("#replay-log", LogView).set_data(LogData(tuple(
            self._log_so_far()[-LOG_LINES:])))
        sym = self.painter.symbols
        lr, ud = ("←→", "↑↓") if sym else ("<>", "^v")
        self.query_one("#replay-keys", KeyBar).set_data((
            (lr, "move"), (ud, "round"), ("Home End", "start/end"), ("Esc", "close"),
            ("?", "help")))

    def _header(self, st: State, step: ReplayStep) -> InfoData:
        """Round, deal and move, with the game's title and rules where they fit."""
        replay = self.replay
        badge = "FINISHED" if replay.finished else "IN PROGRESS"
        parts = [f"Round {st.round_no}"]
        if not st.rules.draw_mode:
            parts.append(f"Deal {st.deal_no} of {len(st.deal_sizes)}")
        parts.append(f"Move {step.move_no} of {replay.moves}")
        room = self.size.width - len(badge) - 5
        preset = preset_title(st.rules.preset_name)
        for extra in ([replay.title, preset], [replay.title], []):
            left = " · ".join(["Replay", *[e for e in extra if e], *parts])
            if len(left) <= room:
                return InfoData(left, badge)
        title = replay.title
        fixed = len(" · ".join(["Replay", *parts])) + 3
        if room - fixed >= 8:
            left = " · ".join(["Replay", title[:room - fixed - 1] + "…", *parts])
        else:
            left = " · ".join(["Replay", *parts])
        return InfoData(left, badge)

    def on_resize(self) -> None:
        self.refresh_step()

    def _hands_text(self) -> Text:
        step = self.step
        st = step.state
        replay = self.replay
        names = replay.names
        width = max(len(n) for n in names)
        shown = self.hands_shown()
        played = step.event.seat if step.event is not None else None
        out = Text(no_wrap=True, overflow="ellipsis")
        for seat, name in enumerate(names):
            if seat:
                out.append("\n")
            mark = "▸" if st.current_player == seat else " "
            if not self.painter.symbols:
                mark = ">" if mark != " " else " "
            out.append(f"{mark} ")
            out.append(name.ljust(width), style="bold" if seat == played else "")
            out.append("  ")
            hand = st.hands[seat]
            if not hand:
                out.append("no cards", style="dim italic")
            elif shown[seat]:
                out.append_text(self.painter.faces(hand))
            else:
                out.append(f"{len(hand)} card{'s' if len(hand) != 1 else ''} (hidden)",
                           style="dim italic")
        return out

    def _refresh_score(self, st: State) -> None:
        rules = st.rules
        suit = 2 if rules.diamond_scoring else rules.majority_suit_index
        counts = []
        for side in st.sides:
            cards = [c for s in side for c in st.captured[s]]
            counts.append(SideCounts(
                cards=len(cards), suit=sum(1 for c in cards if c & 3 == suit),
                aces=sum(1 for c in cards if rank_of(c) == ACE),
                casinos=tuple(c for c in (rules.big_casino, rules.little_casino) if c in cards),
                sweeps=sum(st.sweeps[s] for s in side)))
        labels = seat_labels(self.replay.names)
        self.query_one("#replay-score", ScorePanel).set_data(ScoreData(
            headers=tuple(self._side_names(st)),
            labels=tuple("+".join(labels[s] for s in side) for side in st.sides),
            game=tuple(st.scores), counts=tuple(counts), suit_label=SUIT_WORDS[suit],
            big_casino=rules.big_casino, little_casino=rules.little_casino,
            painter=self.painter, sweeps=rules.sweep_points > 0))
