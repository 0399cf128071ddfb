"""Card, move and position notation: formatting, parsing, errors and move descriptions."""

from __future__ import annotations

import pytest

from casino_tui.engine import (
    PRESET_NAMES,
    Build,
    IllegalMoveError,
    Move,
    NotationError,
    Phase,
    Rules,
    State,
    StateError,
    cards_str,
    parse_card,
    parse_cards,
)
from casino_tui.engine.notation import (
    PositionError,
    compass_names,
    describe_initial_grant,
    describe_move,
    describe_pile,
    format_build,
    format_move,
    format_pile,
    format_position,
    legal_move_notations,
    parse_move,
    parse_move_text,
    parse_position,
)

C = parse_card
CLASSIC = Rules.preset("classic")
NAMES2 = compass_names(2)  # South, North
NAMES4 = compass_names(4)  # South, West, North, East


def pos(text: str, rules: Rules = CLASSIC) -> State:
    return parse_position(text, rules, complete=False)


@pytest.fixture
def mixed() -> State:
    """South (0) holds 9C 9S 2H; the table has 4S 5D 7C and North's single build of 9."""
    return pos("turn=0 table=4S,5D,7C,[5H4C=9s@1] hands=9C9S2H/7D3C")


# ------------------------------------------------------------------------------- cards
def test_card_forms() -> None:
    assert C("10D") == C("TD") == C("10♦") == C("td") == C("10♢")
    assert parse_cards("5H4C10D") == [C("5H"), C("4C"), C("10D")]
    assert parse_cards("5H, 4C + 10♦") == [C("5H"), C("4C"), C("10D")]
    with pytest.raises(NotationError):
        C("11D")


# ------------------------------------------------------------------------------- moves
def test_trail(mixed: State) -> None:
    m = parse_move(mixed, "2H")
    assert m == Move.trail(C("2H"))
    assert format_move(mixed, m) == "2H"


def test_capture_loose_and_build(mixed: State) -> None:
    m = parse_move(mixed, "9Cx4S+5D+[5H4C]")
    assert m == Move.capture(C("9C"), (0, 1, 3))
    assert format_move(mixed, m) == "9Cx4S+5D+[5H4C]"
    # any pile order, build cards in any order, other separators, symbols
    for text in ("9Cx5D+4S+[4C5H]", "9C x [5H 4C] 5D 4S", "9cX5d,4s,[5h4c]",
                 "9♣×5♦+4♠+[5♥4♣]", "9Cx4S5D[5H4C]"):
        assert parse_move(mixed, text) == m, text


def test_capture_build_only(mixed: State) -> None:
    m = parse_move(mixed, "9Sx[5H4C]")
    assert m.kind == "capture" and m.piles == (3,)


def test_single_build(mixed: State) -> None:
    m = parse_move(mixed, "2H>7C=9")
    assert m == Move.build(C("2H"), (2,), 9, True)
    assert m.single is True
    assert format_move(mixed, m) == "2H>7C=9"
    assert parse_move(mixed, "2H>7C=9s") == m


def test_multiple_build_kind_filled_in(mixed: State) -> None:
    m = parse_move(mixed, "9S>[5H4C]+4S+5D=9")
    assert m.kind == "build" and m.value == 9 and m.single is False
    assert m.piles == (0, 1, 3)
    assert format_move(mixed, m) == "9S>4S+5D+[5H4C]=9"
    assert parse_move(mixed, "9S>4S+5D+[5H4C]=9m") == m


def test_build_kind_suffix_must_match(mixed: State) -> None:
    with pytest.raises(NotationError, match="single, not multiple"):
        parse_move(mixed, "2H>7C=9m")
    with pytest.raises(NotationError, match="multiple, not single"):
        parse_move(mixed, "9S>4S+5D+[5H4C]=9s")


def test_raise_build() -> None:
    st = pos("turn=0 table=2D,[3C4D=7s@1] hands=2H9S/7D")
    m = parse_move(st, "2H>[3C4D]=9")
    assert m == Move.build(C("2H"), (1,), 9, True)
    assert format_move(st, m) == "2H>[3C4D]=9"
    ev = st.clone().apply(m)
    assert ev.build == Build((C("3C"), C("4D"), C("2H")), 9, True, 0)


def test_court_build_and_capture() -> None:
    rules = Rules.preset("trailing_royals")
    st = pos("turn=0 table=3C,KH,KD hands=KSKC/7D", rules)
    m = parse_move(st, "KS>KH+KD=K")
    assert m.kind == "build" and m.court and m.value == 13 and m.single is False
    assert format_move(st, m) == "KS>KH+KD=K"
    st.apply(m)
    st.apply(parse_move(st, "7D"))
    assert format_position(st).split(" table=")[1].startswith("3C,7D,[KHKDKS=Km@0]")
    cap = parse_move(st, "KCx[KSKHKD]")
    assert cap == Move.capture(C("KC"), (2,))
    assert format_move(st, cap) == "KCx[KHKDKS]"


def test_court_value_letter_is_not_a_number_in_royal() -> None:
    rules = Rules.preset("royal_cassino")
    st = pos("turn=0 table=9C hands=4HKS/7D", rules)
    m = parse_move(st, "4H>9C=13")
    assert m.value == 13 and not m.court
    assert format_move(st, m) == "4H>9C=13"
    with pytest.raises(IllegalMoveError):
        parse_move(st, "4H>9C=K")  # a court build needs cards of that rank


def test_pluck_and_pass() -> None:
    rules = Rules.preset("pluck_cassino")
    st = pos("turn=0 table=3C,7C,9D hands=5H8S/4D", rules)
    pl = parse_move(st, "^7C")
    assert pl == Move.pluck(C("7C")) and format_move(st, pl) == "^7C"
    st.apply(parse_move(st, "5H"))
    assert st.phase == Phase.PLUCK
    assert format_move(st, Move.pass_()) == "-"
    assert parse_move(st, "-") == Move.pass_() == parse_move(st, "pass")
    with pytest.raises(IllegalMoveError, match="just played"):
        parse_move(st, "^5H")


def test_claim() -> None:
    rules = Rules.preset("call_out_21")
    st = pos("turn=0 table=3C hands=5H/4D", rules)
    assert parse_move(st, "claim") == Move.claim()
    assert format_move(st, Move.claim()) == "claim"
    with pytest.raises(IllegalMoveError, match="claiming"):
        parse_move(pos("turn=0 table=3C hands=5H/4D"), "claim")


def test_every_legal_move_round_trips() -> None:
    for name in PRESET_NAMES:
        rules = Rules.preset(name)
        st = State(rules, rules.player_counts[0], seed=11)
        notes = legal_move_notations(st)
        assert len(notes) == len(st.legal_moves()), name
        for text, move in notes.items():
            assert parse_move(st, text) == move, (name, text)
            assert legal_move_notations(st, symbols=True)


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty move"),
    ("ZZ", "cannot read move"),
    ("9Cx", "names no table piles"),
    ("x4S", "does not say which card"),
    ("QQx4S", "is not a card"),
    ("9Cx5C", "5C is not on the table"),
    ("9Cx5H", r"inside a build: name the whole build, \[5H4C\]"),
    ("9Cx[5H]", r"no build \[5H\] on the table \(builds on the table: \[5H4C\]\)"),
    ("9Cx[]", "empty build"),
    ("9Cx4S+4S", "same pile twice"),
    ("9Cx4S?", "cannot read the piles"),
    ("2H>7C", "needs a value"),
    ("2H>7C=Z", "bad build value"),
    ("2H>7C=0", "bad build value"),
    ("^ZZ", "is not a card"),
])
def test_move_errors(mixed: State, text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        parse_move(mixed, text)


@pytest.mark.parametrize(("text", "message"), [
    ("9Cx5D", "cannot take those piles"),
    ("3D", "not in your hand"),
    ("2H>7C=8", "need another card that can take 8"),
    ("^7C", "plucking is not part"),
    ("-", "nothing to pass"),
])
def test_illegal_moves_say_why(mixed: State, text: str, message: str) -> None:
    with pytest.raises(IllegalMoveError, match=message):
        parse_move(mixed, text)


def test_parse_move_text_does_not_check_legality(mixed: State) -> None:
    move, kind = parse_move_text(mixed, "9Cx5D")  # illegal: 5 is not 9
    assert move == Move.capture(C("9C"), (1,)) and kind is None
    move, kind = parse_move_text(mixed, "3D>7C=10m")
    assert move == Move.build(C("3D"), (2,), 10, False) and kind is False
    move, kind = parse_move_text(mixed, "3D>7C=10")
    assert move.single is None and kind is None


def test_format_move_rejects_moves_from_another_position(mixed: State) -> None:
    with pytest.raises(NotationError, match="not on the table"):
        format_move(mixed, Move.capture(C("9C"), (7,)))
    with pytest.raises(NotationError, match="no card"):
        format_move(mixed, Move("trail"))


def test_piles() -> None:
    b = Build((C("5H"), C("4C")), 9, True, 1)
    assert format_pile(b) == "[5H4C]" and format_pile(C("10D")) == "10D"
    assert format_pile(C("10D"), symbols=True) == "10♦"
    assert format_build(b) == "[5H4C=9s@1]"
    assert format_build(Build((C("KH"), C("KD")), 13, False, 0, True)) == "[KHKD=Km@0]"
    assert describe_pile(b) == "the 9 build (5H 4C)"


# ------------------------------------------------------------------------ descriptions
def _describe(st: State, text: str, names: list[str]) -> str:
    before = st.clone()
    move = parse_move(st, text)
    return describe_move(before, move, st.apply(move), names)


def test_describe_capture_with_sweep() -> None:
    st = pos("turn=1 table=3C,6D hands=4H/9S5D")
    move = parse_move(st, "9Sx3C+6D")
    assert describe_move(st, move, None, NAMES2) == "North took 3C 6D with 9S"
    assert _describe(st, "9Sx3C+6D", NAMES2) == "North took 3C 6D with 9S: sweep"


def test_describe_capture_with_build(mixed: State) -> None:
    assert (_describe(mixed, "9Cx4S+5D+[5H4C]", NAMES2)
            == "South took 4S 5D and the 9 build (5H 4C) with 9C")


def test_describe_builds(mixed: State) -> None:
    assert _describe(mixed.clone(), "2H>7C=9", NAMES2) == "South built 9 (2H on 7C)"
    assert (_describe(mixed.clone(), "9S>4S+5D+[5H4C]=9", NAMES2)
            == "South built 9s (9S on 4S 5D [5H 4C])")
    st = pos("turn=0 table=2D,[3C4D=7s@1] hands=2H9S/7D")
    assert _describe(st, "2H>[3C4D]=9", NAMES2) == "South raised 7 to 9 (2H on [3C 4D])"


def test_describe_trail_pluck_pass_claim() -> None:
    st = pos("turn=3 table=3C,7C,9D hands=5H/6H/7H/KD8S")
    assert _describe(st, "KD", NAMES4) == "East trailed KD"
    pl = pos("turn=1 table=3C,7C,9D hands=5H/8S4D", Rules.preset("pluck_cassino"))
    assert _describe(pl, "^7C", ["South", "West"]) == "West plucked 7C"
    pl.apply(parse_move(pl, "8S"))
    assert pl.phase == Phase.PLAY  # already plucked this deal: no pluck phase
    pl2 = pos("turn=1 table=3C,7C,9D hands=5H/8S4D", Rules.preset("pluck_cassino"))
    pl2.apply(parse_move(pl2, "8S"))
    assert pl2.phase == Phase.PLUCK
    assert _describe(pl2, "-", ["South", "West"]) == "West did not pluck"
    co = pos("turn=0 table=3C hands=5H/4D taken=ASAHACAD10D2S/- score=15/3",
             Rules.preset("call_out_21"))
    assert (_describe(co, "claim", NAMES2)
            == "South claimed the game with 22 points and won")


def test_describe_end_of_round_and_redeal() -> None:
    st = State(CLASSIC, 2, seed=3)
    lines = []
    while not st.is_round_over:
        before = st.clone()
        move = st.legal_moves()[0]
        lines.append(describe_move(before, move, st.apply(move), NAMES2))
    assert sum("new deal" in line for line in lines) == 5
    assert lines[-1].endswith("round over") or lines[-1].endswith("game over")
    assert all(line.startswith(("South ", "North ")) for line in lines)


def test_describe_immediate_points_and_penalty() -> None:
    rules = Rules.preset("michigan_sudden_death")
    st = pos("turn=0 table=3C,4D,[2H5S=7s@0] hands=9S7H/4H", rules)
    line = _describe(st, "7Hx3C+4D", NAMES2)
    assert line == ("South took 3C 4D with 7H; left a build without a card to take it: "
                    "2 points to each opponent")
    assert st.scores == [0, 2] and st.penalties == [0, 2]
    st = pos("turn=0 table=3C,6D hands=9S7H/4D", rules)
    assert _describe(st, "9Sx3C+6D", NAMES2) == "South took 3C 6D with 9S: sweep; 2 points at once"


def test_describe_initial_grant() -> None:
    rules = Rules.preset("initial_pairs")
    for seed in range(200):
        st = State(rules, 2, seed)
        if st.initial_grant:
            seat, cards = st.initial_grant
            text = describe_initial_grant(st, NAMES2)
            assert text is not None and text.startswith(NAMES2[seat] + " was given the pairs")
            assert cards_str(cards) in text
            break
    else:  # pragma: no cover
        pytest.fail("no initial pairs in 200 deals")
    assert describe_initial_grant(State(CLASSIC, 2, 1), NAMES2) is None


def test_compass_names() -> None:
    assert compass_names(2) == ["South", "North"]
    assert compass_names(3) == ["South", "West", "North"]
    assert compass_names(4) == ["South", "West", "North", "East"]
    assert compass_names(6)[5] == "Player 6"


# --------------------------------------------------------------------------- positions
GOLDEN = ("turn=1 dealer=0 round=2 deal=2 phase=play table=3C,6D,10H,[2H7C=9s@0],[KHKD=Km@1] "
          "hands=9S5D/4H8C stock=ASAH taken=2S3S/10D sweeps=1/0 last=0 score=4/7 target=21 "
          'seed="club night"')


def test_position_canonical_form() -> None:
    rules = Rules.preset("trailing_royals")
    st = pos(GOLDEN, rules)
    assert format_position(st) == GOLDEN
    assert st.to_move == 1 and st.dealer == 0 and st.round_no == 2 and st.deal_no == 2
    assert st.table[3] == Build((C("2H"), C("7C")), 9, True, 0)
    assert st.table[4] == Build((C("KH"), C("KD")), 13, False, 1, True)
    assert st.stock[-1] == C("AS")  # the first card listed is the next one dealt
    assert st.captured == [[C("2S"), C("3S")], [C("10D")]]
    assert st.sweeps == [1, 0] and st.last_capturer == 0 and st.scores == [4, 7]
    assert st.seed == "club night"


def test_position_fields_in_any_order_and_defaults() -> None:
    st = pos("hands=9S/4H table=6D,3C turn=1")
    assert format_position(st) == ("turn=1 dealer=0 round=1 deal=6 phase=play table=3C,6D "
                                   "hands=9S/4H stock=- taken=-/- sweeps=0/0 last=- score=0/0 "
                                   "target=21 seed=0")


def test_position_symbols() -> None:
    st = pos("turn=0 table=10D,[2H7C=9s@1] hands=9S/4H")
    text = format_position(st, symbols=True)
    assert "table=10♦,[2♥7♣=9s@1]" in text and "hands=9♠/4♥" in text
    assert format_position(pos(text)) == format_position(st)


def test_position_optional_fields_round_trip() -> None:
    rules = Rules.preset("pluck_cassino")
    text = ("turn=1 dealer=0 round=1 deal=6 phase=pluck:5H table=3C,5H,7C hands=-/4D "
            "stock=- taken=-/- sweeps=0/0 last=- score=0/0 target=21 plucked=10 "
            "unassigned=2S immediate=0/2 penalties=2/0 winner=1 seed=-4")
    st = pos(text, rules)
    assert format_position(st) == text
    assert st.phase == Phase.PLUCK and st.view(1).played_card == C("5H")
    assert st.pluck_used == [True, False] and st.unassigned == [C("2S")]
    assert st.round_immediate == [0, 2] and st.penalties == [2, 0] and st.winner == 1
    assert st.seed == -4
    assert {m.kind for m in st.legal_moves()} == {"pluck", "pass"}


def test_position_of_real_games_round_trip_and_continue() -> None:
    for name in PRESET_NAMES:
        rules = Rules.preset(name)
        for n in rules.player_counts:
            st = State(rules, n, seed=f"{name}-{n}")
            for _ in range(9):
                if st.phase not in (Phase.PLAY, Phase.PLUCK):
                    break
                st.apply(st.legal_moves()[len(st.history) % len(st.legal_moves())])
            text = format_position(st)
            back = parse_position(text, rules)
            assert format_position(back) == text
            assert back.legal_moves() == st.legal_moves()
            assert repr(st) == f"<State {text}>"


def test_four_player_partnership_scores() -> None:
    st = pos("turn=0 table=3C hands=5H/6H/7H/8H score=3/5")
    assert st.scores == [3, 5]
    with pytest.raises(NotationError, match="2 sides"):
        pos("turn=0 table=3C hands=5H/6H/7H/8H score=3/5/0/0")
    danish = Rules.preset("danish_kortspil_seed001")  # individual play for four
    assert pos("turn=0 table=3C hands=5H/6H/7H/8H score=3/5/0/1", danish).scores == [3, 5, 0, 1]


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty position"),
    ("turn=0 hands=5H/4D", "no table= field"),
    ("table=3C hands=5H/4D", "no turn= field"),
    ("turn=0 table=3C hands=5H/4D colour=red", "unknown position field 'colour'"),
    ("turn=0 turn=1 table=3C hands=5H/4D", "given twice"),
    ("turn=0 table=3C hands=5H/4D junk", "cannot read position field 'junk'"),
    ("turn=2 table=3C hands=5H/4D", r"seats are 0\.\.1"),
    ("turn=x table=3C hands=5H/4D", "must be a whole number"),
    ("turn=0 table=3C hands=5H/4Z", "position field hands"),
    ("turn=0 table=3C,[2H7C=9@0] hands=5H/4D", "bad build"),
    ("turn=0 table=3C,[2H=2s@0] hands=5H/4D", "at least two cards"),
    ("turn=0 table=3C,[2H7C=9s@5] hands=5H/4D", "owner seat 5"),
    ("turn=0 table=3C,Q hands=5H/4D", "bad table pile"),
    ("turn=0 table=3C hands=5H/4D taken=-", "1 entries separated by '/'"),
    ("turn=0 table=3C hands=5H/4D sweeps=0/-1", "at least 0"),
    ("turn=0 table=3C hands=5H/4D phase=dancing", "bad phase"),
    ("turn=0 table=3C hands=5H/4D phase=play:5H", "only the pluck phase"),
    ("turn=0 table=3C hands=5H/4D plucked=0", "one 0 or 1 per player"),
    ("turn=0 table=3C hands=5H/4D winner=2", "not a side"),
    ("turn=0 table=3C hands=5H/4D target=0", "at least 1"),
    ('turn=0 table=3C hands=5H/4D seed="unterminated', "cannot read position field"),
])
def test_position_errors(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        pos(text)


def test_inconsistent_positions() -> None:
    with pytest.raises(PositionError, match="3C appears twice"):
        pos("turn=0 table=3C hands=3C/4D")
    with pytest.raises(PositionError, match="cards missing"):
        parse_position("turn=0 table=3C hands=5H/4D", CLASSIC)
    with pytest.raises(PositionError, match="not 5"):
        pos("turn=0 table=3C hands=5H/4D/6D/7D/8D")
    err = PositionError("x")
    assert isinstance(err, NotationError) and isinstance(err, StateError)
    assert isinstance(err, ValueError)
