"""The round summary: every scoring item of the preset per side, round and game totals."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath
from typing import ClassVar

from rich import box
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from casino_tui.engine import Phase, RoundSummary, Rules

from ..cardfmt import CardPainter
from ..keylinks import key_link
from ..renderonce import RenderedOnce
from ..session import SessionBase
from ..styles import css
from .firstshow import FirstShow

SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def preset_items(rules: Rules) -> list[str]:
    """The scoring items a preset can award at the end of a round, in display order."""
    if rules.diamond_scoring:
        items = ["cards", "most_D", "seven_of_diamonds", "quartets"]
        if rules.sweep_points and rules.score_timing == "end_of_round":
            items.append("sweeps")
        return items
    items = []
    if rules.cards_points:
        items.append("cards")
    if rules.spade_scoring != "pagat24" and rules.majority_suit_points:
        items.append("most_" + rules.majority_suit)
    if rules.score_timing != "all_immediate":
        if rules.big_casino_points:
            items.append("big_casino")
        if rules.little_casino_points and rules.spade_scoring != "hoyle26":
            items.append("little_casino")
        if rules.ace_points:
            items.append("aces")
        if rules.spade_scoring != "none":
            items.append("spade_cards")
    if rules.sweep_points and rules.score_timing == "end_of_round":
        items.append("sweeps")
    if rules.last_capture_points:
        items.append("last_capture")
    if rules.all_eleven_rule == "bonus_point":
        items.append("all_eleven")
    return items


def item_label(item: str, rules: Rules, p: CardPainter) -> str:
    if item.startswith("most_"):
        return "Most " + SUIT_WORDS.get(item[-1], item[-1])
    return {
        "cards": "Most cards",
        "big_casino": f"Big Casino {p.label(rules.big_casino)}",
        "little_casino": f"Little Casino {p.label(rules.little_casino)}",
        "aces": "Aces",
        "spade_cards": "Spade cards",
        "sweeps": "Sweeps",
        "last_capture": "Last capture",
        "all_eleven": "All eleven bonus",
        "seven_of_diamonds": "Seven of diamonds",
        "quartets": "Quartets (7s, 6s, aces)",
    }.get(item, item.replace("_", " ").capitalize())


@dataclass(frozen=True)
class SummaryData:
    round_no: int
    sides: tuple[str, ...]
    counts: tuple[tuple[str, tuple[int, ...]], ...]  # informative counts (cards, spades)
    items: tuple[tuple[str, tuple[int, ...]], ...]  # scoring items: label, points per side
    round_totals: tuple[int, ...]
    game_totals: tuple[int, ...]
    target: int
    notes: tuple[str, ...]
    game_over: bool


def summary_data(session: SessionBase, s: RoundSummary, p: CardPainter) -> SummaryData:
    rules = session.rules
    st = session.view_for(0)  # the public part: the game's end, its winner and target
    game_over = st.phase == Phase.GAME_OVER
    items = preset_items(rules)
    for side in s.scores:  # anything the engine scored that the list does not name
        for k in side.items:
            if k not in items:
                items.append(k)
    rows = [(item_label(k, rules, p), tuple(side.items.get(k, 0) for side in s.scores))
            for k in items]
    if any(s.immediate):
        rows.append(("Scored during play", tuple(s.immediate)))
    suit = 2 if rules.diamond_scoring else rules.majority_suit_index
    suit_word = ("Spades", "Hearts", "Diamonds", "Clubs")[suit]
    counts = (("Cards taken", tuple(x.cards for x in s.scores)),
              (f"{suit_word} taken", tuple(x.suit_counts[suit] for x in s.scores)))
    notes: list[str] = []
    if s.residue:
        to = session.names[s.residue_to] if s.residue_to is not None else "nobody"
        notes.append(f"Left on the table: {p.labels(s.residue)} went to {to}.")
    if game_over:
        if st.winner is not None:
            notes.append(f"{session.side_names[st.winner]} won the game!")
    else:
        notes.append(f"Next round. First to {st.target} wins.")
    return SummaryData(
        round_no=s.round_no, sides=tuple(session.side_names), counts=counts, items=tuple(rows),
        round_totals=tuple(x.total + s.immediate[i] for i, x in enumerate(s.scores)),
        game_totals=tuple(s.game_scores), target=st.target, notes=tuple(notes),
        game_over=game_over)


def summary_table(d: SummaryData) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, expand=False)
    table.add_column("", style="bold", no_wrap=True)
    for name in d.sides:
        table.add_column(Text(name), justify="right", no_wrap=True, max_width=14)
    for label, vals in d.counts:
        table.add_row(Text(label, style="dim"), *[Text(str(v), style="dim") for v in vals])
    for label, vals in d.items:
        table.add_row(Text(label), *[str(v) if v else "·" for v in vals])
    table.add_section()
    table.add_row("Round total", *[Text(str(v), style="bold") for v in d.round_totals])
    table.add_row(f"Game (to {d.target})",
                  *[Text(str(v), style="bold reverse") for v in d.game_totals])
    return table


REVIEW_HELP = ("r", "review the round: every play with all the hands, and what Hard would "
               "have played instead of yours")


UNDO_HELP = ("u", "undo: take back your last play, the one that ended the round (and the "
             "computers' plays after it); the round goes on from there")


class RoundSummaryScreen(FirstShow, ModalScreen[str | None]):
    """Shown at the end of every round; Enter continues (the result: None). ``review``: opens
    the review of the round (``r``; None: no review, a table on a server). ``undo``: ``u``
    closes it with the result ``"undo"`` (offered where the player's last play can be taken
    back: a game against the computer, undo on). Shown at every round's end, at once by every
    player of a crowd whose rounds end together: drawn once as it is first shown
    (:class:`FirstShow`)."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("dialogs")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space,escape", "close", "Continue", id="summary.continue"),
        Binding("r", "review", "Review", show=False, id="summary.review"),
        Binding("u", "undo", "Undo", show=False, id="summary.undo"),
    ]
    HELP_TITLE = "Round summary"
    SECOND_LAYOUT = False  # laid out once as it is first shown (FirstShow)

    def __init__(self, data: SummaryData, review: Callable[[], object] | None = None,
                 undo: bool = False) -> None:
        super().__init__()
        self.data = data
        self.review = review
        self.undo = undo

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        keys = [("Enter / Space / Esc", "continue")]
        if self.review is not None:
            keys.append(REVIEW_HELP)
        if self.undo:
            keys.append(UNDO_HELP)
        return [(self.HELP_TITLE, keys)]

    def compose(self) -> ComposeResult:
        d = self.data
        with Vertical(id="summary-box", classes="dialog wide"):
            yield Static(f"Round {d.round_no} summary", classes="dialog-title")
            with VerticalScroll(id="summary-scroll"):
                # (rendered once per width: Textual asks for its lines thrice as it is shown)
                yield Static(RenderedOnce(summary_table(d)), id="summary-table")
                yield Static("\n".join(d.notes), id="summary-notes", markup=False)
            review = "   " + key_link("r: review the round", "r") \
                if self.review is not None else ""
            undo = "   " + key_link("u: undo", "u") if self.undo else ""
            yield Static(key_link("Enter: " + ("see the result" if d.game_over else
                                               "next round"), "enter") + review + undo,
                         classes="dialog-keys")

    def action_close(self) -> None:
        self.dismiss(None)

    def action_undo(self) -> None:
        if self.undo:
            self.dismiss("undo")

    def action_review(self) -> None:
        if self.review is not None:
            self.review()


def warm_up_summary() -> RoundSummaryScreen:
    """A round's summary (of a made-up round) for the fork server to show once as it warms
    up, so that no game parses its widgets' CSS or loads its code when it first shows one."""
    return RoundSummaryScreen(SummaryData(
        round_no=1, sides=("North", "South"), counts=(("Cards taken", (27, 25)),),
        items=(("Most cards", (3, 0)),), round_totals=(3, 0), game_totals=(3, 0), target=11,
        notes=("Next round. First to 11 wins.",), game_over=False))
