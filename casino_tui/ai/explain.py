"""Reasons for a hint, in a player's words."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine import Move, SeatView
from ..engine.cards import card_str, rank_of, suit_of
from ..engine.moves import Build
from .heuristic import Knowledge, captured_by, score_move

if TYPE_CHECKING:
    from .search import SearchResult


def _c(card: int) -> str:
    return card_str(card, symbols=True)


def _cards(cards: list[int]) -> str:
    return " ".join(_c(c) for c in cards)


def _highlights(view: SeatView, taken: list[int]) -> list[str]:
    rules = view.rules
    out: list[str] = []
    if rules.big_casino in taken and rules.big_casino_points:
        out.append(f"Big Casino ({_c(rules.big_casino)})")
    if rules.little_casino in taken and rules.little_casino_points:
        out.append(f"Little Casino ({_c(rules.little_casino)})")
    aces = sum(1 for c in taken if rank_of(c) == 0)
    if aces and rules.ace_points:
        out.append("an ace" if aces == 1 else f"{aces} aces")
    suit = rules.majority_suit_index
    names = ("spades", "hearts", "diamonds", "clubs")
    n_suit = sum(1 for c in taken if suit_of(c) == suit)
    if n_suit >= 2:
        out.append(f"{n_suit} {names[suit]}")
    if len(taken) >= 4:
        out.append(f"{len(taken)} cards")
    return out


def explain(view: SeatView, result: SearchResult) -> str:
    move: Move = result.move
    know = Knowledge.of(view)
    scored = next((s for s in result.ranked if s.move == move), None) or score_move(know, move)
    table = view.table
    kind = move.kind
    exact = " (worked out to the end of the round)" if result.solved and result.worlds else ""
    legal = view.legal_moves()
    if len(legal) == 1:
        what = {"trail": f"Trail {_c(move.card)}", "capture": f"Take with your {_c(move.card)}",
                "build": f"Build {move.value_str()} with your {_c(move.card)}",
                "pass": "Pass"}.get(kind, str(move))
        return f"{what}: it is your only move."
    if kind == "claim":
        return "Claim the game now: the points you have already won reach the target."
    if kind == "pass":
        return "Don't pluck: nothing on the table is worth taking."
    if kind == "pluck":
        return f"Pluck {_c(move.card)}: a free card for your pile."
    if kind == "capture":
        taken = captured_by(table, move)
        builds = [table[i] for i in move.piles if isinstance(table[i], Build)]
        others = [c for c in taken if c != move.card]
        text = f"Take {_cards(others)} with your {_c(move.card)}"
        reasons: list[str] = []
        if scored.sweep:
            reasons.append("it sweeps the table")
        if any(isinstance(b, Build) and know.side_of[b.owner] != know.my_side for b in builds):
            reasons.append("it takes your opponent's build")
        reasons += [f"it wins {h}" for h in _highlights(view, taken)][:2]
        if not reasons:
            reasons.append("it is the safest way to add cards to your pile")
        return f"{text}: {' and '.join(reasons)}{exact}."
    if kind == "build":
        hand = [c for c in view.hand if c != move.card]
        rules = view.rules
        holders = [c for c in hand if (rank_of(c) + 1 == move.value if move.court
                                       else move.value in rules.capturer_values[c])]
        what = move.value_str()
        piles = [table[i] for i in move.piles]
        on = _cards([c for p in piles for c in (p.cards if isinstance(p, Build) else (p,))])
        text = f"Build {what} with your {_c(move.card)} on {on}"
        hold = f"you keep {_c(holders[0])} to take it next turn" if holders else ""
        risky = scored.risk > 0.5 * max(scored.builds, 0.01)
        safe = "few unseen cards could steal it" if not risky else "it is worth the risk"
        steal = any(isinstance(p, Build) and know.side_of[p.owner] != know.my_side
                    for p in piles)
        lead = "it takes over your opponent's build, " if steal else ""
        return f"{text}: {lead}{hold}, and {safe}{exact}."
    if kind == "trail":
        text = f"Trail {_c(move.card)}"
        if any(m.kind == "capture" for m in legal):
            return (f"{text}: the captures on offer would leave your opponent more than they "
                    f"win{exact}.")
        trails = sum(1 for m in legal if m.kind == "trail")
        why = ("it gives your opponent the least to take" if trails > 1 or scored.risk < 0.2
               else "building would give away more")
        return f"{text}: there is nothing to take, and {why}{exact}."
    return str(move)
