"""Plain mode's typed moves and sentences, without a terminal: the words match the legal
moves of real positions (engine notation), and cards, piles and moves read as sentences."""

from __future__ import annotations

import pytest

from casino_tui.engine import Build, Move, Rules, parse_card
from casino_tui.engine.notation import parse_position
from casino_tui.plain.commands import (
    CardSpec,
    CommandError,
    as_move,
    match_moves,
    parse_request,
    parse_specs,
)
from casino_tui.plain.words import Speaker, join_words

C = parse_card


def position(text: str, preset: str = "classic"):
    return parse_position(text, Rules.preset(preset), complete=False)


def test_specs_in_every_spelling() -> None:
    assert parse_specs(["7"]) == [CardSpec(rank=6)]
    assert parse_specs(["seven", "of", "hearts"]) == [CardSpec(rank=6, suit=1)]
    assert parse_specs(["7h"]) == [CardSpec(rank=6, suit=1)]
    assert parse_specs(["10d"]) == [CardSpec(rank=9, suit=2)]
    assert parse_specs(["ace", "spades"]) == [CardSpec(rank=0, suit=0)]
    assert parse_specs(["k"]) == [CardSpec(rank=12)]
    assert parse_specs(["pile", "2"]) == [CardSpec(pile=1)]
    assert parse_specs(["the", "build"]) == [CardSpec(any_build=True)]
    with pytest.raises(CommandError, match="I do not know the card 'zebra'"):
        parse_specs(["zebra"])


def test_requests_read_each_verb() -> None:
    r = parse_request("take 3 and 5 with 8")
    assert r is not None and r.verb == "capture"
    assert r.played == CardSpec(rank=7) and r.targets == [CardSpec(rank=2), CardSpec(rank=4)]
    r = parse_request("build 9 with 4 on 5")
    assert r is not None and (r.verb, r.value) == ("build", 9)
    r = parse_request("raise 7 to 9 with 2")
    assert r is not None and (r.verb, r.value, r.targets) == ("build", 9, [CardSpec(rank=6)])
    assert parse_request("hand") is None
    with pytest.raises(CommandError):
        parse_request("trail")
    with pytest.raises(CommandError):
        parse_request("build nine nine with 4")


def test_take_seven_with_seven_and_a_choice() -> None:
    st = position("turn=0 table=7C,7D,3S hands=7H,4H,9S/2C,2D,2H,2S")
    legal = st.legal_moves()
    found = match_moves(parse_request("take 7 with 7"), legal, st.table)  # type: ignore[arg-type]
    # the seven takes both sevens at once, or one: naming one seven leaves a choice
    assert found and all(m.kind == "capture" and m.card == C("7H") for m in found)
    exact = match_moves(parse_request("take 7c with 7"), legal, st.table)  # type: ignore[arg-type]
    assert [st.table[i] for i in exact[0].piles] == [C("7C")]
    both = match_moves(parse_request("take 7c 7d with 7"), legal, st.table)  # type: ignore[arg-type]
    assert len(both) == 1 and len(both[0].piles) == 2


def test_build_and_an_illegal_move_named_exactly() -> None:
    st = position("turn=0 table=5C,KD hands=4H,9S,2D/2C,2S,3H,3D")
    legal = st.legal_moves()
    found = match_moves(parse_request("build 9 with 4 on 5"), legal, st.table)  # type: ignore[arg-type]
    assert len(found) == 1 and found[0].kind == "build" and found[0].value == 9
    # no build of 7 with the two on the five is legal: no nine ... but the two makes 7:
    # the engine says why a move named exactly is refused
    req = parse_request("take king with 2")
    assert req is not None and not match_moves(req, legal, st.table)
    move = as_move(req, st.hands[0], st.table)
    assert move == Move.capture(C("2D"), [1])


def test_sentences_in_words_and_short() -> None:
    words, short = Speaker("words"), Speaker("short")
    assert words.card(C("10D")) == "the ten of diamonds"
    assert short.card(C("10D")) == "10D"
    assert join_words(["a", "b", "c"]) == "a, b and c"
    build = Build((C("4H"), C("5S")), 9, True, 1)
    names = ["South", "North"]
    assert words.pile(build, names, 0) == \
        "a single build of 9 (four of hearts and five of spades), North's"
    assert words.table([C("3C"), build], names, 1).startswith("On the table, 2 piles. 1: three")
    assert words.text("9S cannot take 5D") == "nine of spades cannot take five of diamonds"
    table = [C("4H"), C("5H")]
    move = Move.capture(C("9S"), [0, 1])
    assert words.move(table, move, names) == \
        "Take the four of hearts and the five of hearts with the nine of spades, a sweep."
