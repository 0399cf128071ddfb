"""Hand-made positions for the UI tests (built with the engine's public State.from_position)."""

from __future__ import annotations

from collections.abc import Sequence

from casino_tui.engine import Build, Move, Rules, SeatView, State, card_str, parse_cards
from casino_tui.table import GameConfig, SeatConfig, default_seats


def cards(text: str) -> list[int]:
    return parse_cards(text)


def _rest(rules: Rules, used: Sequence[int]) -> list[int]:
    taken = set(used)
    return [c for c in rules.deck_cards if c not in taken]


def position(preset: str, n: int, *, table: list, hands: list[str], to_move: int,
             captured: list[str] | None = None, stock: int | None = None, dealer: int | None = None,
             sweeps: list[int] | None = None, scores: list[int] | None = None, round_no: int = 2,
             last_capturer: int | None = None, **overrides: object) -> State:
    """A complete position: the cards not placed go to the stock (``stock`` of them, the rest
    to the captured piles of seat 0 and 1 alternately, so every card is somewhere)."""
    rules = Rules.preset(preset, **overrides)
    hand_cards = [cards(h) for h in hands]
    cap = [cards(c) for c in (captured or [""] * n)]
    used: list[int] = []
    for p in table:
        used.extend(p.cards if isinstance(p, Build) else [p])
    for h in hand_cards:
        used.extend(h)
    for c in cap:
        used.extend(c)
    rest = _rest(rules, used)
    k = len(rest) if stock is None else stock
    stock_cards = rest[:k]
    for i, c in enumerate(rest[k:]):
        cap[i % n].append(c)
    return State.from_position(
        rules, n, table=table, hands=hand_cards, to_move=to_move, dealer=dealer,
        stock=stock_cards, captured=cap, sweeps=sweeps, scores=scores, round_no=round_no,
        last_capturer=last_capturer if last_capturer is not None else 1, seed=11)


def table_2p() -> State:
    """South to move; South owns a build of 8, North a build of 9; 3 deals left."""
    return position(
        "classic", 2,
        table=[*cards("3C 6D KS"), Build(tuple(cards("5H 3S")), 8, True, 0),
               Build(tuple(cards("7C 2D")), 9, True, 1)],
        hands=["8C 9S 10D AH", "4C JD QH 9H"], to_move=0, dealer=1,
        captured=["2S 5C 5D", "AC QS QD KH 6H 6C"], stock=24, sweeps=[1, 0], scores=[12, 9])


def table_4p() -> State:
    """West to move: the three computers play (West builds 7, North takes its build of 6, East
    trails), then South, with South's build of 8 and West's build of 7 on the table."""
    return position(
        "classic", 4,
        table=[*cards("AD 4S 10C"), Build(tuple(cards("5H 3S")), 8, True, 0),
               Build(tuple(cards("2H 4D 6S")), 6, False, 2)],
        hands=["8C 9S 10D", "KH 2C 7S", "6C QC JC", "QS JH 5C"], to_move=1, dealer=0,
        captured=["2S 5D", "AC QD", "KD", "3C"], stock=16, sweeps=[0, 1, 0, 0],
        scores=[7, 10])


def last_play(scores: list[int] | None = None, target: int = 21) -> State:
    """South's last card ends the round (scores decide whether the game ends too)."""
    return position(
        "classic", 2, table=[*cards("4C 9H")], hands=["4H", ""], to_move=0, dealer=1,
        captured=["10D 2S AS AH 3S 4S 5S 6S 7S KS QS", ""], stock=0, scores=scores or [5, 3],
        target=target)


def config_for(state: State, humans: int = 1, level: str = "easy",
               names: Sequence[str] | None = None) -> GameConfig:
    n = state.num_players
    seats = default_seats(n, humans, level)
    if names:
        seats = tuple(SeatConfig(names[i], s.human, s.level) for i, s in enumerate(seats))
    return GameConfig(preset=state.rules.preset_name, players=n, seats=seats,
                      seed=None if isinstance(state.seed, str) else int(state.seed))


def greedy_first(view: SeatView, level: str, *, seed: int) -> Move:
    """A deterministic test player: the capture taking most cards, else a build, else the
    first trail (ties by the engine's order). Never a claim; plucks only when nothing else."""
    moves = [m for m in view.legal_moves() if m.kind != "claim"]
    table = view.table

    def size(m: Move) -> int:
        return sum(len(table[i].cards) if isinstance(table[i], Build) else 1 for i in m.piles)

    caps = [m for m in moves if m.kind == "capture"]
    if caps:
        return max(caps, key=size)
    for kind in ("build", "trail", "pass", "pluck"):
        for m in moves:
            if m.kind == kind:
                return m
    return moves[0]


def greedy_hint(view: SeatView, *, seed: int) -> tuple[Move, str]:
    """A deterministic test hint: the test player's move and a reason as long as Hard's, with
    a card in the engine's notation (``9S``: the screen shows it in the player's style)."""
    move = greedy_first(view, "hard", seed=seed)
    return move, (f"it takes the most cards with your {card_str(move.card)}, and what stays on "
                  "the table is worth the least to your opponent")


def new_deal_4p() -> State:
    """South's last card ends a deal (South deals): the last deal is dealt, and West, North and
    East play before South again; with :func:`biggest_build` West builds seven table cards."""
    return position("classic", 4, table=[*cards("3H 4H 2C 5D AS 6S")], hands=["8C", "", "", ""],
                    to_move=0, dealer=0, stock=16, captured=["2S 5C", "AC QD", "KD", "3C"],
                    sweeps=[0, 1, 0, 0], scores=[7, 10])


def biggest_build(view: SeatView, level: str, *, seed: int) -> Move:
    """A test player that makes the build using the most table cards when it can (the longest
    lines a play writes), else plays as :func:`greedy_first`."""
    table = view.table

    def size(m: Move) -> int:
        return sum(len(table[i].cards) if isinstance(table[i], Build) else 1 for i in m.piles)

    builds = [m for m in view.legal_moves() if m.kind == "build"]
    if builds:
        return max(builds, key=size)
    return greedy_first(view, level, seed=seed)


def longest_hint(view: SeatView, *, seed: int) -> tuple[Move, str]:
    """The test player's move with a reason as long as Hard's longest (ai/explain.py: a build
    that takes over the opponent's, worked out to the end of the round)."""
    move = greedy_first(view, "hard", seed=seed)
    return move, ("Build 9 with your AH on 3C 5H 3S: it takes over your opponent's build, you "
                  "keep 9S to take it next turn, and it is worth the risk (worked out to the "
                  "end of the round).")
