"""Helpers for the computer players' tests."""

from __future__ import annotations

import random

from casino_tui.engine import Rules, State, parse_cards


def early_position(table: str, hand: str) -> State:
    """Seat 0 to move in the first deal of a classic round: the other hand and the stock are
    hidden from it."""
    rules = Rules.preset("classic")
    t = parse_cards(table)
    h0 = parse_cards(hand)
    rest = [c for c in rules.deck_cards if c not in set(t) | set(h0)]
    random.Random(7).shuffle(rest)
    return State.from_position(rules, 2, table=t, hands=[h0, rest[:4]], to_move=0, dealer=1,
                               stock=rest[4:])


def shuffled_hidden(state: State, seat: int, rng: random.Random) -> State:
    """The same position with every card hidden from ``seat`` dealt differently, and the same
    public past (this deal's plays, from the same table): what ``seat`` sees is unchanged."""
    others = [s for s in range(state.num_players) if s != seat]
    hidden = [c for s in others for c in state.hands[s]] + list(state.stock)
    rng.shuffle(hidden)
    hands = [list(h) for h in state.hands]
    for s in others:
        n = len(hands[s])
        hands[s], hidden = hidden[:n], hidden[n:]
    twin = State.from_position(
        state.rules, state.num_players, table=state.table, hands=hands, to_move=state.to_move,
        dealer=state.dealer, stock=hidden, captured=state.captured, sweeps=state.sweeps,
        last_capturer=state.last_capturer, scores=state.scores, round_no=state.round_no,
        deal_no=state.deal_no, seed=state.seed)
    twin.history = list(state.history)
    twin.deal_start = state.deal_start
    twin.deal_table = state.deal_table
    return twin
