"""Move generation: the fast generator against the reference, both against the definitions."""

from __future__ import annotations

import gc
import importlib.machinery
import importlib.util
import os
import random
import subprocess
import sys
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st_

from casino_tui.engine import IllegalMoveError, Move, Rules, State, _hotpath, fastgen, movegen
from casino_tui.engine._hotpath import hot, is_compiled, native
from casino_tui.engine.moves import Build
from casino_tui.engine.rules import PRESET_NAMES

OPTION_MIXES: list[tuple[str, dict[str, object]]] = [
    ("classic", {"single_build_as_card": True}),
    ("classic", {"capture_extent": "inclusion_maximal"}),
    ("classic", {"compulsory_capture": "strict"}),
    ("classic", {"owner_restriction": "none", "owner_must_keep_capture_card": False}),
    ("classic", {"table_only_groups_in_builds": False}),
    ("classic", {"raise_own_build": False}),
    ("royal_cassino", {"single_build_as_card": True}),
    ("danish_kortspil_seed001", {"high_value_scope": "anywhere"}),
]
CASES = [(name, {}) for name in PRESET_NAMES] + OPTION_MIXES


def random_positions(rules: Rules, players: int, seed: int, rounds: int = 1):
    """Positions of random legal play (the player to move is playing a card)."""
    st = State(rules, players, seed=seed)
    rng = random.Random(seed)
    while not st.is_game_over and st.round_no <= rounds:
        if st.is_round_over:
            st.next_round()
            continue
        if st.phase == "play":
            yield st
        moves = [m for m in st.legal_moves() if m.kind != "claim"]  # claims end the game
        st.apply(rng.choice(moves), validate=False)


@pytest.mark.parametrize(("preset", "options"), CASES,
                         ids=[f"{n}{'+' + ','.join(o) if o else ''}" for n, o in CASES])
def test_fast_generator_matches_reference(preset: str, options: dict[str, object]) -> None:
    rules = Rules.preset(preset, **options)
    checked = 0
    for players in rules.player_counts:
        for st in random_positions(rules, players, seed=players):
            seat = st.to_move
            ref = movegen.generate(rules, st.table, st.hands[seat], seat)
            fast = fastgen.generate(rules, st.table, st.hands[seat], seat)
            assert fast == ref, (st.table, st.hands[seat], seat)
            checked += 1
    assert checked > 40


def _hot_source_module():
    src = Path(hot.__file__).with_name("_hot.py")
    spec = importlib.util.spec_from_file_location("casino_tui.engine._hot_test_source", src)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_pure_hot_source_matches_the_loaded_hot_path() -> None:
    """When the compiled build is in use, its source (run as Python) must agree with it."""
    pure = _hot_source_module()
    rules = Rules.preset("classic")
    n = 0
    for st in random_positions(rules, 2, seed=11, rounds=2):
        args = (st.table, st.hands[st.to_move], st.to_move, rules.hot_pv, rules.hot_tv1,
                rules.max_value, True, True, True)
        assert pure.generate_for(*args) == hot.generate_for(*args)
        n += 1
    assert n > 50
    assert is_compiled() in (True, False)


def test_pure_hot_source_matches_the_loaded_hot_path_with_aces_high() -> None:
    """Royal's aces (1 or 14) take ``generate_multi``: the source agrees with the loaded build,
    and both with the reference generator."""
    pure = _hot_source_module()
    n = 0
    for preset in ("royal_cassino", "buckeye_cassino"):
        rules = Rules.preset(preset)
        args = rules.hot_args
        assert args is not None
        m = args[-1]
        pure_args = (*args[:-1], pure.MultiValues(m.capture, m.table, m.low, m.clearer))
        for st in random_positions(rules, 2, seed=12, rounds=2):
            table, hand, seat = st.table, st.hands[st.to_move], st.to_move
            got = hot.generate_for(table, hand, seat, *args)
            assert pure.generate_for(table, hand, seat, *pure_args) == got
            if got is not None:
                assert got == movegen.generate(rules, table, hand, seat)
            n += 1
    assert n > 80


needs_native = pytest.mark.skipif(native is None, reason="the C move generator is not built "
                                  "(no C compiler, or CASINO_TUI_PURE=1)")


def _native_cases() -> list[tuple[Rules, int]]:
    return [(Rules.preset(name, **opts), players) for name, opts in CASES
            for players in Rules.preset(name, **opts).player_counts
            if Rules.preset(name, **opts).hot_args is not None]


@needs_native
def test_the_c_generator_matches_the_hot_path() -> None:
    """``_cgen.generate_for`` (C) gives exactly ``_hot.generate_for``'s list, or None, on random
    positions of every preset and option mix the hot path serves: for the player to move and,
    with the seat changed, for a player whose builds are on the table; its moves are Moves,
    which the collector need not track."""
    assert native is not None
    n = owned = 0
    for rules, players in _native_cases():
        args = rules.hot_args
        assert args is not None
        for st in random_positions(rules, players, seed=players + 20, rounds=2):
            for seat in {st.to_move, (st.to_move + 1) % players}:
                table, hand = st.table, st.hands[st.to_move]
                got = native.generate_for(table, hand, seat, *args)
                assert got == hot.generate_for(table, hand, seat, *args), (table, hand, seat)
                n += 1
                owned += any(isinstance(p, Build) and p.owner == seat for p in table)
                if got:
                    assert all(type(m) is Move for m in got)
                if got:  # (made in C, cards of several values included)
                    assert not any(gc.is_tracked(m) for m in got if m.kind != "trail")
    assert n > 2000 and owned > 100


MULTI_CASES: list[tuple[str, dict[str, object]]] = [
    ("royal_cassino", {}),
    ("buckeye_cassino", {}),
    ("royal_cassino", {"table_only_groups_in_builds": False}),
    ("royal_cassino", {"raise_own_build": False}),
    ("royal_cassino", {"owner_restriction": "none", "owner_must_keep_capture_card": False}),
    ("royal_cassino", {"building": False}),
    ("buckeye_cassino", {"high_value_scope": "capturer_only"}),
]


@needs_native
@pytest.mark.parametrize(("preset", "options"), MULTI_CASES,
                         ids=[f"{n}{'+' + ','.join(o) if o else ''}" for n, o in MULTI_CASES])
def test_the_c_generator_matches_the_hot_path_with_cards_of_several_values(
        preset: str, options: dict[str, object]) -> None:
    """Positions holding a card of several values (Royal's aces 1 or 14, Buckeye's ten of
    diamonds 10 or 11), which ``_cgen`` generates itself (``generate_multi`` in C): exactly
    ``_hot``'s list, on random play for every seat (the mover's own builds on the table and
    the retain rule's matching of cards to build values) and on tables of 4 to 20 piles with
    builds of values up to 14 (owned or not, single or multiple)."""
    assert native is not None
    rules = Rules.preset(preset, **options)
    args = rules.hot_args
    assert args is not None
    pv, tv1 = args[0], args[1]
    n = multi = owned = 0

    def check(table: list, hand: list[int], seat: int) -> None:
        nonlocal n, multi, owned
        got = native.generate_for(table, hand, seat, *args)
        assert got == hot.generate_for(table, hand, seat, *args), (table, hand, seat)
        n += 1
        several = any(isinstance(p, int) and tv1[p] < 0 for p in table) or any(
            not pv[c] and tv1[c] for c in hand)
        multi += several and bool(table)
        owned += several and any(isinstance(p, Build) and p.owner == seat for p in table)
        if got:
            assert not any(gc.is_tracked(m) for m in got if m.kind != "trail")

    for players in rules.player_counts:
        for seed in range(3):
            for st in random_positions(rules, players, seed=seed + 40, rounds=2):
                for seat in range(players):
                    check(st.table, st.hands[st.to_move], seat)
    rng = random.Random(9)
    for _ in range(150):
        deck = list(rules.deck_cards)
        rng.shuffle(deck)
        k = rng.randint(4, 20)
        builds = [Build((deck[k - 3],), rng.randint(2, 14), True, rng.randrange(2)),
                  Build((deck[k - 2],), rng.randint(2, 14), rng.random() < 0.5,
                        rng.randrange(2)),
                  Build((deck[k - 1],), 14, False, 0)][:rng.randint(0, 3)]
        table = movegen.canonical_table(deck[:k - 3]) + builds
        for seat in (0, 1):
            check(table, deck[k:k + rng.randint(1, 6)], seat)
    assert multi > 300 and owned > 20, (multi, owned)


@needs_native
def test_the_c_generator_on_big_tables_and_odd_input() -> None:
    """Tables of 8 to 24 loose cards and builds (the union, sorting and interning paths beyond
    the first 8 piles), and arguments the C generator hands to ``_hot`` unchanged (tuples, a
    card number out of range, values it does not take): the same results or errors."""
    assert native is not None
    rng = random.Random(8)
    for preset in ("classic", "royal_cassino", "build_variant_2"):
        rules = Rules.preset(preset)
        args = rules.hot_args
        assert args is not None
        # 40 tables a preset: the largest (two dozen piles) cost the most by far, and 120 took
        # the suite's longest test (five minutes on a loaded machine) to check no more paths
        for _ in range(40):
            deck = list(rules.deck_cards)
            rng.shuffle(deck)
            n = rng.randint(8, 24)
            loose = deck[:n - 2]
            builds = [Build((deck[n - 2],), rng.randint(2, 10), True, rng.randrange(2)),
                      Build((deck[n - 1],), 7, False, 1)]
            table = movegen.canonical_table(loose) + builds
            hand = deck[n:n + rng.randint(1, 6)]
            for seat in (0, 1):
                want = hot.generate_for(table, hand, seat, *args)
                assert native.generate_for(table, hand, seat, *args) == want, (table, hand)
    rules = Rules.preset("classic")
    args = rules.hot_args
    assert args is not None
    table, hand = [3, 17, 30], [8, 40]  # tuples: whatever _hot does with them (compiled: refuses)
    try:
        want = hot.generate_for(tuple(table), tuple(hand), 0, *args)
    except TypeError:
        with pytest.raises(TypeError):
            native.generate_for(tuple(table), tuple(hand), 0, *args)
    else:
        assert native.generate_for(tuple(table), tuple(hand), 0, *args) == want
    odd_values = [*args[:2], 70, *args[3:]]  # a capture value beyond the C generator's bits
    for table, hand, extra in (([3, 17], [40, 60], args), ([3, 17], [8], odd_values)):
        try:
            want = hot.generate_for(table, hand, 0, *extra)
        except IndexError:
            with pytest.raises(IndexError):
                native.generate_for(table, hand, 0, *extra)
        else:
            assert native.generate_for(table, hand, 0, *extra) == want


@needs_native
def test_the_c_table_update_matches_the_hot_path() -> None:
    """``_cgen.play_on_table`` gives the same table, build and captured cards as
    ``_hot.play_on_table`` for every legal move of random positions of every preset."""
    assert native is not None
    n = 0
    for rules, players in _native_cases()[::3]:
        for st in random_positions(rules, players, seed=players + 30):
            table = st.table
            for mv in st.legal_moves():
                if mv.kind not in ("trail", "capture", "build"):
                    continue
                taken_c: list[int] = []
                taken_p: list[int] = []
                got = native.play_on_table(table, mv, 1, taken_c)
                assert got == hot.play_on_table(table, mv, 1, taken_p), (table, mv)
                assert taken_c == taken_p
                assert got[1] is None or type(got[1]) is Build
                n += 1
    assert n > 1000


@needs_native
def test_the_c_card_play_matches_the_hot_path() -> None:
    """``_cgen.play_card`` (the card out of the hand, the table update, a capture's cards to
    the pile, in one call) leaves the same hand, table, taken and captured cards as
    ``_hot.play_card`` for every legal move of random positions of every preset; a card not in
    the hand is refused by both with ValueError, changing nothing."""
    assert native is not None
    n = 0
    for rules, players in _native_cases()[1::3]:
        for st in random_positions(rules, players, seed=players + 40):
            table, hand = st.table, st.hands[st.to_move]
            for mv in st.legal_moves():
                if mv.kind not in ("trail", "capture", "build"):
                    continue
                out = []
                for impl in (native, hot):
                    h, taken, captured = list(hand), [], [51, 50]
                    got = impl.play_card(list(table), h, mv, 1, taken, captured)
                    out.append((got, h, taken, captured))
                    assert all(type(p) is Build for p in got if not isinstance(p, int))
                assert out[0] == out[1], (table, hand, mv)
                got, h, taken, captured = out[0]
                assert h == [c for i, c in enumerate(hand) if i != hand.index(mv.card)]
                assert taken == (captured[2:] if mv.kind == "capture" else [])
                n += 1
    assert n > 1000
    absent = next(c for c in range(52) if c not in hand)
    for impl in (native, hot):
        h, t = list(hand), list(table)
        with pytest.raises(ValueError):
            impl.play_card(t, h, Move.trail(absent), 1, [], [])
        assert (h, t) == (hand, table)


def test_the_c_generator_is_used_only_when_current(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """In a source checkout, a C generator older than ``_cgen.c`` is not loaded (with a warning
    naming the rebuild), nor is any with ``CASINO_TUI_PURE=1``; the engine then generates moves
    with ``_hot`` alone."""
    engine = tmp_path / "casino_tui" / "engine"
    engine.mkdir(parents=True)
    (tmp_path / "setup.py").write_text("")
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    built = engine / f"_cgen{suffix}"
    built.write_bytes(b"")
    source = engine / "_cgen.c"
    source.write_text("/* newer */")
    os.utime(built, (1_000_000, 1_000_000))
    monkeypatch.setattr(_hotpath, "HERE", engine)
    monkeypatch.delenv("CASINO_TUI_PURE", raising=False)
    with pytest.warns(UserWarning, match=r"_cgen\.c is newer than its build.*pip install -e"):
        assert _hotpath._native() is None
    monkeypatch.setenv("CASINO_TUI_PURE", "1")
    assert _hotpath._native() is None
    assert _hotpath.generate_for in (hot.generate_for, getattr(native, "generate_for", None))


# royal's reference generator is slow on big tables (aces count 1 or 14): smaller ones there
@pytest.mark.parametrize(("preset", "tables", "most"), [("classic", 150, 22),
                                                       ("royal_cassino", 60, 17)])
def test_big_tables_match_the_reference(preset: str, tables: int, most: int) -> None:
    """Tables of 8 to 22 loose cards (dozens of capture sets and builds per card, the long
    sorting and union paths of the hot path) give exactly the reference generator's list."""
    rules = Rules.preset(preset)
    rng = random.Random(3)
    many = 0
    for _ in range(tables):
        deck = list(rules.deck_cards)
        rng.shuffle(deck)
        n = rng.randint(8, most)
        table = movegen.canonical_table(deck[:n])
        hand = deck[n:n + 4]
        fast = fastgen.generate(rules, table, hand, 0)
        assert fast == movegen.generate(rules, table, hand, 0), (table, hand)
        many += len(fast) > 40
    assert many > tables // 4


def test_captures_match_the_partition_definition() -> None:
    """Every capture set is exactly a subset of piles that splits into capture groups."""
    rng = random.Random(5)
    for preset in ("classic", "royal_cassino", "danish_kortspil_seed001", "trailing_royals"):
        rules = Rules.preset(preset)
        for _ in range(120):
            deck = list(rules.deck_cards)
            rng.shuffle(deck)
            table = deck[:rng.randint(1, 7)]
            card = deck[10]
            st = State.from_position(rules, 2, table=table, hands=[[card], []], to_move=0,
                                     complete=False)
            info = movegen.table_info(rules, st.table)
            raw = movegen.raw_capture_masks(rules, info, card)
            n = len(st.table)
            brute = {m for m in range(1, 1 << n)
                     if movegen.capture_groups_ok(rules, st.table, card, m)}
            assert raw == brute, (preset, st.table, card)


def _build_by_definition(rules: Rules, table: list, h: int, piles: tuple[int, ...],
                         v: int) -> bool | None:
    """RULES.md B3 straight from the text: None if no grouping works, else single?"""
    tv = rules.table_values
    units = [("h", tv[h])] + [("p", i) for i in piles]

    def value_options(u: tuple) -> list[int]:
        if u[0] == "h":
            return list(u[1])
        p = table[u[1]]
        return [p.value] if isinstance(p, Build) else list(tv[p])

    best: bool | None = None
    idx = list(range(len(units)))

    def groups_of(rest: list[int]):
        if not rest:
            yield []
            return
        first, others = rest[0], rest[1:]
        for k in range(len(others) + 1):
            for combo in combinations(others, k):
                group = [first, *combo]
                left = [x for x in others if x not in combo]
                for tail in groups_of(left):
                    yield [group, *tail]

    for partition in groups_of(idx):
        ok = True
        for group in partition:
            members = [units[i] for i in group]
            has_h = any(u[0] == "h" for u in members)
            builds = [u for u in members if u[0] == "p" and isinstance(table[u[1]], Build)]
            if has_h:
                if len(builds) > 1 or (builds and (not table[builds[0][1]].single
                                                   or len(members) != 2)):
                    ok = False
                    break
                if builds and table[builds[0][1]].court:
                    ok = False
                    break
            else:
                if builds and len(members) > 1:
                    ok = False
                    break
                if builds:
                    b = table[builds[0][1]]
                    if b.court or b.value != v:
                        ok = False
                        break
                    continue
                if not rules.table_only_groups_in_builds:
                    ok = False
                    break
            totals = {0}
            for u in members:
                totals = {t + x for t in totals for x in value_options(u)}
            if v not in totals:
                ok = False
                break
        if ok:
            single = len(partition) == 1
            best = single if best is None else (best or single)
    return best


def test_build_candidates_match_the_definition() -> None:
    rng = random.Random(9)
    rules = Rules.preset("classic")
    for _ in range(150):
        deck = list(rules.deck_cards)
        rng.shuffle(deck)
        loose = deck[:rng.randint(1, 5)]
        piles: list = list(loose)
        if rng.random() < 0.6:
            a, b = deck[20], deck[21]
            if rules.low_values[a] and rules.low_values[b] and \
                    rules.low_values[a] + rules.low_values[b] <= 10:
                piles.append(Build((a, b), rules.low_values[a] + rules.low_values[b],
                                   rng.random() < 0.7, 1))
        hand = deck[30:33]
        st = State.from_position(rules, 2, table=piles, hands=[hand, []], to_move=0,
                                 complete=False)
        info = movegen.table_info(rules, st.table)
        for hi, h in enumerate(hand):
            got = {(c.mask, c.value): c.single
                   for c in movegen.raw_build_candidates(rules, info, hand, hi, 0)}
            holders = movegen.holder_values(rules, hand, hi)
            want = {}
            n = len(st.table)
            for m in range(1, 1 << n):
                pt = tuple(i for i in range(n) if m >> i & 1)
                for v in holders:
                    single = _build_by_definition(rules, st.table, h, pt, v)
                    if single is not None:
                        want[(m, v)] = single
            assert got == want, (st.table, hand, h)


def test_check_move_agrees_with_the_legal_list() -> None:
    rng = random.Random(3)
    for preset in ("classic", "build_variant_2", "danish_kortspil_seed001",
                   "french_casino_seed000"):
        rules = Rules.preset(preset)
        for st in random_positions(rules, 2, seed=4):
            legal = st.legal_moves()
            for m in rng.sample(legal, min(3, len(legal))):
                assert st.check_move(m) == m
            hand = st.hands[st.to_move]
            n = len(st.table)
            if not n:
                continue
            card = rng.choice(hand)
            piles = tuple(sorted(rng.sample(range(n), rng.randint(1, n))))
            candidate = Move("capture", card, piles)
            try:
                st.check_move(candidate)
                accepted = True
            except IllegalMoveError as err:
                accepted = False
                assert str(err)
            assert accepted == (candidate in legal)


def test_illegal_moves_leave_the_state_unchanged() -> None:
    rules = Rules.preset("classic")
    st = next(random_positions(rules, 2, seed=8))
    before = (list(st.table), [list(h) for h in st.hands], list(st.history))
    hand = st.hands[st.to_move]
    foreign = next(c for c in rules.deck_cards if c not in hand)
    for bad in (Move.trail(foreign), Move("capture", hand[0], (99,)),
                Move("build", hand[0], (0,), 99, True)):
        with pytest.raises(IllegalMoveError):
            st.apply(bad)
    assert (list(st.table), [list(h) for h in st.hands], list(st.history)) == before


def test_engine_never_imports_textual() -> None:
    code = ("import sys, casino_tui.engine, benchmarks.engine, "
            "casino_tui.conformance; "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')]; "
            "print(bad); sys.exit(1 if bad else 0)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


# ------------------------------------------------------------------ malformed moves
def _positions_for_fuzz() -> list[State]:
    """Positions of random play under rules with every kind of action: plucks, claims, court
    builds, royal values, Danish high values."""
    out: list[State] = []
    for preset, opts, players in [("classic", {}, 2), ("pluck_cassino", {}, 3),
                                  ("call_out_21", {}, 2), ("trailing_royals", {}, 2),
                                  ("face_cards_all_four", {}, 4), ("royal_cassino", {}, 2),
                                  ("danish_kortspil_seed001", {}, 3),
                                  ("classic", {"compulsory_capture": "strict"}, 2)]:
        rules = Rules.preset(preset, **opts)
        st = State(rules, players, seed=7)
        rng = random.Random(7)
        for step in range(60):
            if st.phase not in ("play", "pluck"):
                break
            if step % 6 == 0:
                out.append(st.clone())
            moves = [m for m in st.legal_moves() if m.kind != "claim"] or st.legal_moves()
            st.apply(rng.choice(moves))
        if st.phase == "pluck":
            out.append(st.clone())
    return out


FUZZ_POSITIONS = _positions_for_fuzz()


def _snapshot(st: State) -> tuple[object, ...]:
    return (st.phase, st.to_move, [list(h) for h in st.hands], list(st.table), list(st.stock),
            [list(c) for c in st.captured], list(st.sweeps), list(st.scores),
            list(st.pluck_used), len(st.history), st.winner, st.last_capturer, st.target)


_ANY = st_.one_of(st_.none(), st_.booleans(), st_.text(max_size=3), st_.floats(allow_nan=False),
                  st_.integers(-3, 60))


@st_.composite
def _any_move(draw: st_.DrawFn, state: State) -> Move:
    """A Move object of any shape: plausible (cards and piles of the position, values around
    the legal range, court flags) or plain garbage in any field."""
    hand = state.hands[state.to_move]
    n = len(state.table)
    kind = draw(st_.sampled_from(["trail", "capture", "build", "pluck", "pass", "claim",
                                  "jump", "", "Build"]))
    card = draw(st_.one_of(st_.sampled_from(hand or [0]),
                           st_.sampled_from([p for p in state.table if isinstance(p, int)]
                                            or [51]),
                           st_.integers(-3, 60), _ANY))
    idx = st_.one_of(st_.integers(0, max(0, n - 1)), st_.integers(-2, n + 3), _ANY)
    piles = draw(st_.one_of(st_.lists(idx, max_size=5).map(tuple), st_.lists(idx, max_size=3),
                            _ANY))
    value = draw(st_.one_of(st_.none(), st_.integers(-1, 17), _ANY))
    single = draw(st_.one_of(st_.none(), st_.booleans(), _ANY))
    court = draw(st_.one_of(st_.booleans(), _ANY))
    return Move(kind, card, piles, value, single, court)  # type: ignore[arg-type]


def _well_typed(move: Move) -> bool:
    def is_int(x: object) -> bool:
        return isinstance(x, int) and not isinstance(x, bool)

    return (is_int(move.card) and isinstance(move.piles, tuple)
            and all(is_int(p) for p in move.piles) and isinstance(move.court, bool)
            and (move.value is None or is_int(move.value)))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st_.data(), which=st_.integers(0, len(FUZZ_POSITIONS) - 1))
def test_malformed_moves_are_refused_with_a_reason(data: st_.DataObject, which: int) -> None:
    """check_move and apply take any Move object: a legal one is accepted (in its legal form),
    anything else raises IllegalMoveError with a reason, and the state is left unchanged."""
    state = FUZZ_POSITIONS[which].clone()
    move = data.draw(_any_move(state))
    before = _snapshot(state)
    try:
        got = state.check_move(move)
    except IllegalMoveError as e:
        assert str(e) and str(e) != "that move is not allowed here", (move, str(e))
        # (a field of the wrong type may still compare equal to a legal move's: 0.0 == False)
        assert not state.is_legal(move) or not _well_typed(move), move
    else:
        assert any(m == got for m in state.legal_moves()), (move, got)
    assert _snapshot(state) == before
    try:
        state.apply(move)
    except IllegalMoveError:
        assert _snapshot(state) == before
    else:
        state.validate()


def test_malformed_build_values() -> None:
    """A court build valued outside J-K, or any build valued 0 or above 16, is refused with a
    reason (it used to raise IndexError, or say "take K" for a value of 0)."""
    from casino_tui.engine import parse_card as card
    rules = Rules.preset("trailing_royals")
    st = State.from_position(rules, 2, table=[card("KH")], hands=[[card("KS"), card("KD")], []],
                             to_move=0, complete=False)
    for value, court in [(14, True), (0, True), (10, True), (-1, False), (0, False),
                         (99, False), (True, True)]:
        with pytest.raises(IllegalMoveError) as err:
            st.check_move(Move("build", card("KS"), (0,), value, True, court))  # type: ignore
        assert "take K" not in str(err.value), (value, court, str(err.value))
    assert st.check_move(Move.build(card("KS"), [0], 13, False, True)).court


@needs_native
def test_the_c_deal_order_matches_the_hot_path() -> None:
    """``_cgen.order_by_keys`` orders a deck exactly as ``_hot.order_by_keys`` (a stable sort by
    key): random keys, equal keys (which keep the deck's order), short decks and input it hands
    on (a list for a deck, ints for keys, a deck longer than 64 cards)."""
    assert native is not None
    rng = random.Random(4)
    deck = tuple(range(52))
    for _ in range(300):
        n = rng.choice((52, 40, 24, 1))
        keys = [rng.random() for _ in range(n)]
        if rng.random() < 0.5:  # equal keys
            for _ in range(rng.randint(1, 6)):
                keys[rng.randrange(n)] = keys[rng.randrange(n)]
        if rng.random() < 0.2:
            keys = [float(rng.randint(0, 3)) for _ in range(n)]
        want = hot.order_by_keys(deck[:n], keys)
        assert native.order_by_keys(deck[:n], keys) == want
        assert sorted(want) == list(deck[:n])
    long_deck = tuple(range(80))
    keys = [rng.random() for _ in long_deck]
    assert native.order_by_keys(long_deck, keys) == hot.order_by_keys(long_deck, keys)
    ints = [3, 1, 2]
    assert native.order_by_keys((7, 8, 9), ints) == hot.order_by_keys((7, 8, 9), ints) == [8, 9, 7]


@needs_native
def test_the_c_shuffle_matches_the_hot_path() -> None:
    """``_cgen.shuffled`` draws one ``random()`` per card in deck order, as ``_hot.shuffled``
    does, and orders the cards the same way: the same deck, and the generator left in the same
    state; so does its path for input it hands on (a list for a deck, a deck longer than 64
    cards), and an error from ``random`` comes through."""
    assert native is not None
    for seed in range(200):
        deck = tuple(range(52 if seed % 3 else 40))
        a, b = random.Random(seed), random.Random(seed)
        assert native.shuffled(deck, a.random) == hot.shuffled(deck, b.random)
        assert a.getstate() == b.getstate()
    a, b = random.Random(7), random.Random(7)
    long_deck = tuple(range(80))
    assert native.shuffled(long_deck, a.random) == hot.shuffled(long_deck, b.random)
    assert a.getstate() == b.getstate()
    try:  # a list: whatever _hot does with it (compiled: refuses)
        want = hot.shuffled([5, 9, 2], random.Random(7).random)  # type: ignore[arg-type]
    except TypeError:
        with pytest.raises(TypeError):
            native.shuffled([5, 9, 2], random.Random(7).random)
    else:
        assert native.shuffled([5, 9, 2], random.Random(7).random) == want

    def broken() -> float:
        raise ValueError("no randomness")

    with pytest.raises(ValueError, match="no randomness"):
        native.shuffled((1, 2, 3), broken)


def test_the_seeding_gives_random_random_s_state() -> None:
    """A State's generators are ``random.Random(text)``, seeded without its interpreted code
    where that gives the same state (saved games replay their deals from the seed)."""
    from casino_tui.engine import state as state_module

    assert state_module._seeded is state_module._seeded_fast  # (on the CPython we support)
    for text in ("casino-tui/0/round-1", "casino-tui/12345/first-dealer", "casino-tui/é/x", ""):
        fast = state_module._seeded(text)
        plain = random.Random(text)
        assert fast.getstate() == plain.getstate()
        assert [fast.random() for _ in range(5)] == [plain.random() for _ in range(5)]
        assert fast.gauss(0, 1) == plain.gauss(0, 1)


@needs_native
def test_the_c_seeded_shuffle_matches_the_hot_path() -> None:
    """``_cgen.shuffled_seeded`` (CPython's Mersenne Twister seeded in C) deals exactly what
    ``_hot.shuffled_seeded`` (``random.Random`` of the same integer) deals: seeds of every
    length, with leading zero bytes (not part of the integer), zero, and word boundaries; the
    game uses it (the check at import passed on this Python)."""
    assert native is not None
    from casino_tui.engine import state as state_module

    rng = random.Random(11)
    deck = tuple(range(64))  # (at most 64 cards: 128 draws, all among the first 227 words)
    seeds = [b"", b"\0", b"\0\0\x01", b"\x01", b"\xff" * 4, b"\x01" + b"\0" * 4, b"\xff" * 300]
    seeds += [rng.randbytes(rng.randrange(1, 120)) for _ in range(200)]
    seeds += [b"\0" * rng.randrange(1, 9) + rng.randbytes(rng.randrange(0, 40)) for _ in range(50)]
    for seed in seeds:
        n = (52, 40, 64, 1)[seed[-1] % 4 if seed else 0]
        assert native.shuffled_seeded(deck[:n], seed) == hot.shuffled_seeded(deck[:n], seed), seed
    text = "casino-tui/7/round-3"
    assert native.shuffled_seeded(deck[:52], state_module._seed_bytes(text)) == \
        hot.shuffled(deck[:52], random.Random(text).random)
    assert state_module._SEEDED_SHUFFLE
    with pytest.raises(TypeError):
        native.shuffled_seeded(list(deck), b"\x01")
    with pytest.raises(TypeError):
        native.shuffled_seeded(deck, "text")


def test_a_compiled_engine_that_lacks_a_function_falls_back_to_the_sources() -> None:
    """A compiled ``_hot`` that imports but lacks what the engine uses (as a mypyc build that
    read other options once produced) is not used: the engine warns, naming the rebuild, loads
    its sources instead, and plays; it does not fail at import."""
    probe = (
        "import sys, types, warnings\n"
        "broken = types.ModuleType('casino_tui.engine._hot')\n"
        "broken.__file__ = '/nowhere/_hot.cpython-311-x86_64-linux-gnu.so'\n"
        "sys.modules['casino_tui.engine._hot'] = broken\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    from casino_tui.engine import Rules, State, _hotpath\n"
        "print([str(w.message) for w in caught if 'compiled engine' in str(w.message)])\n"
        "print(_hotpath.hot is not broken, _hotpath.is_compiled(), _hotpath.hot.__file__)\n"
        "state = State(Rules.preset('classic'), 2, seed=7)\n"
        "print(len(state.legal_moves()) > 0)\n"
    )
    env = {**os.environ}
    env.pop("CASINO_TUI_PURE", None)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    warned, swapped, played = done.stdout.splitlines()
    assert "it lacks generate_for" in warned and "pip install -e ." in warned
    assert swapped.startswith("True False ") and swapped.endswith("_hot.py")
    assert played == "True"
