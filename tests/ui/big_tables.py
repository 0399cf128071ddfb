"""Five- and six-player positions for the layout tests (see positions.py for the helpers)."""

from __future__ import annotations

from casino_tui.engine import Build, State

from .positions import cards, position


def table_6p() -> State:
    """California, six players, round 2: Northeast and Southeast play, then South."""
    return position(
        "california_cassino", 6,
        table=[*cards("7C QH 9D"), Build(tuple(cards("3S 5H")), 8, True, 1)],
        hands=["AS 8D KH 4C", "2H 8S 5C", "JD 6S", "7D 3D", "QS 9H 4H", "KC 10H 6D"],
        to_move=4, dealer=3, captured=["2S", "", "AD 5D", "10S 2D", "", ""], stock=24,
        scores=[4, 2, 6, 3, 5, 1])


def table_5p() -> State:
    """The five-player preset, sweeps scored: Northeast and East play, then South."""
    return position(
        "five_player", 5,
        table=[*cards("7C QH 9D"), Build(tuple(cards("3S 5H")), 8, True, 1)],
        hands=["AS 8D KH 4C", "9C 7S", "JD 6S 3H", "QS 9H 4H", "KC 10H 6D"],
        to_move=3, dealer=2, captured=["2S", "", "AD", "", "3C"], stock=25,
        sweeps=[1, 0, 0, 2, 0], scores=[6, 2, 9, 3, 5])
